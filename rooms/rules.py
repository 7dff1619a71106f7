"""The rooms' rules (`Rooms`): who may open a room, lead it, vote in it and how often, when it
ends, what a follower is shown; over a backend that stores the plain records (rooms.backend),
SQLite or Redis, which `open_rooms` picks from a URL."""

from __future__ import annotations

import functools
import hashlib
import hmac
import secrets
import time
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from rooms import config, signing
from rooms.backend import Backend
from rooms.config import setting
from rooms.records import (
    CLOSED_SECONDS,
    CODE_LENGTH,
    CODE_VOTES,
    HOLD_SECONDS,
    LEADS,
    LECTURER_IDLE,
    LECTURER_TOUCH,
    LOG_EVERY,
    PAGE_NAME,
    PHASES,
    POLL_ID,
    PRESENT_SECONDS,
    ROOM_SECONDS,
    SECOND,
    SUSPECT,
    Answer,
    Gain,
    Limits,
    Poll,
    Rate,
    Room,
    RoomError,
    Split,
    StoreDown,
    Suspect,
    Tally,
    Vote,
    check_poll,
    clean_text,
    lecturer_gone,
    log,
    normal_code,
    shared_query,
)
from rooms.signing import Voter
from rooms.throttle import GUESSED, WRONG


def _digest(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()


def _sealed(key: bytes, token: str) -> bytes:
    """key sealed with a lecturer link's token (and unsealed by sealing again): the store
    keeps a link's key only this way, so what it holds makes nobody a lecturer."""
    pad = hmac.new(token.encode(), b"posviz lead", hashlib.sha256).digest()
    return bytes(a ^ b for a, b in zip(key, pad, strict=False))


def _token(raw: object) -> bool:
    """Whether raw has the shape of a token the server made (a key, a link's, a holder's)."""
    return isinstance(raw, str) and 10 <= len(raw) <= 100


def guarded(method: Callable) -> Callable:
    """A rule whose backend failures raise StoreDown (once logged)."""
    @functools.wraps(method)
    def call(self: Rooms, *args, **kwargs):
        try:
            return method(self, *args, **kwargs)
        except self.backend.failures as failed:
            self._failed(failed)
            raise StoreDown(f"{type(failed).__name__}: {failed}") from failed
    return call


@dataclass
class Rooms:
    """The rooms of a server, their views, polls and votes, and the rate limits every server
    process shares, kept by a backend.

    Public methods check their arguments and raise RoomError for anything a room refuses, and
    StoreDown when the backend fails; the backend gets only checked values. Every time is this
    clock's (seconds since the epoch), injectable for tests; `secret` signs voter ids
    (rooms.signing).
    """

    backend: Backend
    limits: Limits = field(default_factory=Limits)
    clock: Callable[[], float] = time.time
    secret: bytes = field(default=b"", repr=False)
    _logged: float = field(default=-LOG_EVERY, repr=False)  # when a failure was last logged

    def __post_init__(self) -> None:
        self.secret = self.secret or signing.server_secret(ROOT)

    def _failed(self, failed: BaseException) -> None:
        """Called with a backend failure before StoreDown is raised: logged (a store that
        stays down once every LOG_EVERY seconds, not at every request), and the backend told
        (it may reconnect)."""
        now = time.monotonic()
        if now - self._logged >= LOG_EVERY:
            self._logged = now
            log.warning("posviz rooms: the store failed: %s: %s", type(failed).__name__, failed)
        self.backend.failed(failed)

    # ---- identities and rates ---------------------------------------------------------------

    @guarded
    def new_voter(self, code: str, present: bool = False, same: Voter | None = None) -> str:
        """A voter id for the room, signed, ending with it; a fresh one, or same voter with a
        proof of presence now. Raises RoomError for a room that is not open."""
        room = self._open_room(code)
        return signing.new_voter(self.secret, room.code, room.expires, present,
                                 same.id if same else None)

    def voter(self, code: str, raw: object) -> Voter | None:
        """The voter raw names if it is an id this server signed for room code, else None."""
        code = normal_code(code)
        return None if code is None else signing.voter(self.secret, raw, code, self.clock())

    def network(self, address: str) -> str:
        """A client address as the room keeps it (signing.network)."""
        return signing.network(self.secret, address)

    @guarded
    def wait(self, rate: Rate, who: str) -> float:
        """Seconds until who may act under rate (0 when it may now); takes nothing."""
        return rate.seconds(self.backend.bucket(f"{rate.name}:{who}", rate, self.clock(), 0,
                                                False))

    @guarded
    def spend(self, rate: Rate, who: str, force: bool = False) -> float:
        """Take one of who's tokens under rate: 0 when taken, else the seconds to wait (nothing
        taken), unless force (a wrong code counts after the fact, down to none left)."""
        tokens = self.backend.bucket(f"{rate.name}:{who}", rate, self.clock(), 1, force)
        return 0.0 if force else rate.seconds(tokens)

    @guarded
    def give_back(self, rate: Rate, who: str) -> None:
        """Give back a token taken under rate (spent before the need for it was known)."""
        self.backend.bucket(f"{rate.name}:{who}", rate, self.clock(), -1, False)

    @guarded
    def arrive(self, code: str, network: str) -> float:
        """A network asks for room code without a proof of membership: it takes one of its
        WRONG tokens before the code is looked up, and gets it back if the code names an open
        room (requests sent at once cannot overdraw the budget: the token is taken atomically).
        Returns 0 when it may ask, else the seconds to wait; none for an open room that screens
        from the same network follow (as wrong_wait)."""
        wait = self.spend(WRONG, network)
        room = self.room(code)
        known = room is not None and not room.closed
        if not wait:
            if known:
                self.give_back(WRONG, network)
            return 0.0
        followed = known and network in set(self.backend.screens(room.code).values())
        return 0.0 if followed else wait

    @guarded
    def wrong_wait(self, code: str, network: str) -> float:
        """Seconds a network must wait before it asks for room code without a proof of
        membership, having tried too many wrong codes lately (0 when it may now): none for an
        open room that screens from the same network follow (the class behind the address of
        a script that guesses codes keeps its newcomers)."""
        wait = self.wait(WRONG, network)
        if not wait:
            return 0.0
        room = self.room(code)
        followed = room is not None and not room.closed and network in set(
            self.backend.screens(room.code).values())
        return 0.0 if followed else wait

    # ---- rooms ----------------------------------------------------------------------------

    @guarded
    def create(self) -> tuple[str, str]:
        """Open a room; returns (code, key). The key is shown once and stored only hashed."""
        key = secrets.token_urlsafe(18)
        now = self.clock()
        for _ in range(50):  # a million codes, at most `rooms` in use: a clash is rare
            code = "".join(secrets.choice("0123456789") for _ in range(CODE_LENGTH))
            if self.backend.create(code, _digest(key), now, now + ROOM_SECONDS,
                                   self.limits.rooms, LECTURER_IDLE):
                return code, key
        raise RoomError("rooms_full", f"at most {self.limits.rooms} rooms at once")

    @guarded
    def room(self, code: object) -> Room | None:
        """The room, or None for a malformed, unknown, or expired code. A room whose lecturer
        has been gone LECTURER_IDLE ends here."""
        code = normal_code(code)
        if code is None:
            return None
        room = self.backend.room(code)
        now = self.clock()
        if room is None or room.expires <= now:
            return None
        if not room.closed and lecturer_gone(room.lead_seen, now):
            self.backend.close(code, min(room.expires, now + CLOSED_SECONDS))
            room = self.backend.room(code)  # as closing left it: its version and end moved
        return room

    @guarded
    def holds_key(self, code: object, key: object) -> bool:
        """Whether key drives the room (compared in constant time)."""
        code = normal_code(code)
        if code is None or not isinstance(key, str) or not 10 <= len(key) <= 100:
            return False
        stored = self.backend.key_digest(code)
        return stored is not None and hmac.compare_digest(stored, _digest(key))

    @guarded
    def lead_link(self, code: str, key: object) -> str:
        """A new one-time token for a lecturer link: the browser that opens it first leads
        the room as well (until it leaves); afterwards, and once the room ends, it is refused.
        A room keeps its LEADS newest unused tokens."""
        if not self.holds_key(code, key):
            raise RoomError("not_lecturer")
        room = self._open_room(code)
        token = secrets.token_urlsafe(18)
        self.backend.add_lead(room.code, _digest(token), _sealed(key.encode(), token).hex(),
                              self.clock(), LEADS)
        return token

    @guarded
    def redeem(self, code: object, token: object) -> str | None:
        """The room's key for a lecturer link's token, which this uses up; None for a token
        that is wrong or used, or a room that ended."""
        code = normal_code(code)
        if code is None or not isinstance(token, str) or not 10 <= len(token) <= 100:
            return None
        sealed = self.backend.take_lead(code, _digest(token))
        if sealed is None:
            return None
        key = _sealed(bytes.fromhex(sealed), token).decode("utf-8", "replace")
        room = self.room(code)
        return key if room is not None and not room.closed and self.holds_key(code, key) else None

    @guarded
    def hold_key(self, code: str, key: str, holder: object) -> None:
        """Keep the room's key for the browser that started it (holder: its HOLDER_COOKIE)
        until that browser's own key cookie is set (let_go), HOLD_SECONDS at most: a reload
        before then leaves the lecturer in charge. Kept sealed, like a lecturer link's key."""
        if _token(holder) and self.holds_key(code, key):
            self.backend.add_lead(normal_code(code), _digest("hold:" + holder),
                                  _sealed(key.encode(), holder).hex(), self.clock(), LEADS)

    @guarded
    def held_key(self, code: object, holder: object) -> str | None:
        """The key the room keeps for the browser that started it, or None."""
        code = normal_code(code)
        if code is None or not _token(holder):
            return None
        held = self.backend.lead(code, _digest("hold:" + holder))
        if held is None or self.clock() - held[0] > HOLD_SECONDS:
            return None
        key = _sealed(bytes.fromhex(held[1]), holder).decode("utf-8", "replace")
        room = self.room(code)
        return key if room is not None and not room.closed and self.holds_key(code, key) else None

    @guarded
    def let_go(self, code: object, holder: object) -> None:
        """The room keeps the key for that browser no more (its cookie holds it, or it left)."""
        code = normal_code(code)
        if code is not None and _token(holder):
            self.backend.take_lead(code, _digest("hold:" + holder))

    @guarded
    def lecturer_here(self, code: str) -> None:
        """Note that the room's lecturer is here (written at most every LECTURER_TOUCH)."""
        room = self.room(code)
        now = self.clock()
        if room is not None and not room.closed and now - room.lead_seen >= LECTURER_TOUCH:
            self.backend.touch(room.code, now)

    @guarded
    def set_view(self, code: str, page: str, query: str, personal: Collection[str] = ()) -> int:
        """Show the class this page and query string (without the parameters personal to the
        lecturer); returns the room's version."""
        room = self._open_room(code)
        if not isinstance(page, str) or not PAGE_NAME.fullmatch(page):
            raise RoomError("bad_view", "unexpected page")
        query = shared_query(query, personal, self.limits.view)
        if (page, query) == (room.page, room.query):
            self.lecturer_here(room.code)
            return room.version
        return self.backend.set_view(room.code, page, query, self.clock())

    @guarded
    def new_word(self, code: str) -> None:
        """Give the room a new projector's word now: every word shown before is wrong from now
        on (its lecturer saw it being guessed)."""
        self.backend.new_word(self._open_room(code).code)

    @guarded
    def guessed(self, code: str) -> int:
        """About how many wrong words were typed in the room lately (GUESSED)."""
        room = self.room(code)
        if room is None:
            return 0
        left = self.backend.bucket(f"{GUESSED.name}:{room.code}", GUESSED, self.clock(), 0, False)
        return int(GUESSED.burst - left)

    @guarded
    def close(self, code: str) -> None:
        """End the room for everyone; its answers stay readable for CLOSED_SECONDS, and it no
        longer counts against the cap of open rooms."""
        room = self.room(code)
        if room is not None and not room.closed:
            self.backend.close(room.code, min(room.expires, self.clock() + CLOSED_SECONDS))

    @guarded
    def versions(self, codes: Iterable[str]) -> dict[str, tuple[int, bool]]:
        """(version, closed) of each known room among codes: what a waiting follower needs. A
        room whose lecturer is gone shows as closed (room() ends it)."""
        now = self.clock()
        return {code: (room.version, room.closed or lecturer_gone(room.lead_seen, now))
                for code, room in self.backend.versions(codes).items() if room.expires > now}

    @guarded
    def kept(self) -> list[Room]:
        """Every room the store keeps, open or closed, oldest first (for the operator)."""
        kept = (room for code in self.backend.codes() if (room := self.room(code)) is not None)
        return sorted(kept, key=lambda room: room.created)

    @guarded
    def purge(self, code: str) -> None:
        """Delete the room and everything in it at once (for the operator)."""
        if code := normal_code(code):
            self.backend.delete(code)

    @guarded
    def health(self) -> None:
        """Read and write the store once; raises StoreDown when it cannot."""
        self.backend.health(self.clock())

    # ---- polls ----------------------------------------------------------------------------

    @guarded
    def poll(self, code: str, poll_id: str) -> Poll | None:
        room = self.room(code)
        if room is None or not isinstance(poll_id, str) or not POLL_ID.fullmatch(poll_id):
            return None
        return self.backend.poll(room.code, poll_id)

    @guarded
    def polls(self, code: str) -> list[Poll]:
        """Every poll of the room, in the order they were opened."""
        room = self.room(code)
        if room is None:
            return []
        return [poll for poll_id in self.backend.poll_ids(room.code)
                if (poll := self.backend.poll(room.code, poll_id)) is not None]

    @guarded
    def lesson_poll(self, code: str, scene: str, question: str,
                    options: list[str]) -> Poll:
        """The poll of a lesson scene's question, opened on the lecturer's first visit."""
        poll_id = f"scene-{scene}"
        if not POLL_ID.fullmatch(poll_id):
            raise RoomError("bad_poll")
        room = self._open_room(code)
        found = self.backend.poll(room.code, poll_id)
        if found is not None:
            return found
        return self._add_poll(room, poll_id, *self._checked(question, options), live=False,
                              correct=None)

    @guarded
    def ask(self, code: str, question: object, options: object,
            correct: int | None = None) -> Poll:
        """The lecturer's own question (2-6 options, optionally one right), put in front of the
        whole class; the right option stays hidden until the reveal."""
        room = self._open_room(code)
        if not isinstance(options, list | tuple):
            raise RoomError("bad_option")
        text, clean = self._checked(question, options)
        if correct is not None and not (isinstance(correct, int) and 0 <= correct < len(clean)):
            raise RoomError("bad_option")
        number = sum(poll_id.startswith("q") for poll_id in self.backend.poll_ids(room.code)) + 1
        return self._add_poll(room, f"q{number}", text, clean, live=True, correct=correct)

    @guarded
    def put_away(self, code: str) -> None:
        """Take the lecturer's question off every screen."""
        room = self._open_room(code)
        if room.live:
            self.backend.set_live(room.code, "")

    @guarded
    def current(self, code: str, poll_id: str) -> Poll | None:
        """The poll a question's id names in the round it is in: its second round once the
        lecturer opened one, else the poll itself."""
        room = self.room(code)
        if room is None or not isinstance(poll_id, str) or not POLL_ID.fullmatch(poll_id):
            return None
        return self._current(room.code, poll_id)

    def _current(self, code: str, poll_id: str) -> Poll | None:
        if poll_id.endswith(SECOND) or poll_id.startswith("check-"):
            return self.backend.poll(code, poll_id)
        return self.backend.poll(code, poll_id + SECOND) or self.backend.poll(code, poll_id)

    @guarded
    def vote(self, code: str, poll_id: str, voter: object, option: object, network: str = "",
             following: bool = False, sure: object = None) -> None:
        """One vote per voter per poll and round (a second one replaces the first), while it is
        open: a question's id counts in the round it is in (current). sure: the student's
        confidence (True sure, False guessing, None not said). Only a voter id this server
        signed for this room votes; one whose browser showed only the room's code counts
        against its network's CODE_VOTES (RoomError "need_word", with the seconds to wait,
        past it). network: where the vote comes from (signing.network); following: whether the
        voter's screen follows the room now (a cap never refuses it)."""
        room = self._open_room(code)
        who = self.voter(room.code, voter)
        if who is None:
            raise RoomError("bad_voter")
        poll = self._current(room.code, poll_id) if isinstance(poll_id, str) and \
            POLL_ID.fullmatch(poll_id) else None
        if poll is None:
            raise RoomError("no_poll")
        if poll.revealed:
            raise RoomError("poll_closed")
        if not isinstance(option, int) or isinstance(option, bool) or not (
                0 <= option < len(poll.options)):
            raise RoomError("bad_option")
        if sure is not None and not isinstance(sure, bool):
            raise RoomError("bad_option")
        if not who.present and poll.id.startswith("check-"):  # the check is the hall's
            raise RoomError("need_word", "the concept check counts the hall's answers")
        if not who.present and (wait := self.spend(CODE_VOTES, f"{room.code}:{network}")):
            raise RoomError("need_word", "this network's answers by code alone", wait)
        if not self.backend.vote(room.code, poll.id, who.id, option, self.clock(), network,
                                 following, sure, self.limits.voters):
            raise RoomError("room_full", f"at most {self.limits.voters} students")

    @guarded
    def my_answer(self, code: str, poll_id: str, voter: object) -> Vote | None:
        """The voter's answer to exactly this poll (a round of its own), or None."""
        room = self.room(code)
        who = None if room is None else self.voter(room.code, voter)
        if who is None or not isinstance(poll_id, str) or not POLL_ID.fullmatch(poll_id):
            return None
        return self.backend.my_vote(room.code, poll_id, who.id)

    def my_vote(self, code: str, poll_id: str, voter: object) -> int | None:
        """The option of the voter's answer to exactly this poll, or None."""
        answer = self.my_answer(code, poll_id, voter)
        return None if answer is None else answer.option

    @guarded
    def counts(self, code: str, poll_id: str) -> list[int]:
        """Votes per option of exactly this poll, in option order."""
        poll = self.poll(code, poll_id)
        if poll is None:
            return []
        votes = self.backend.votes(normal_code(code), poll.id)
        return list(Tally.of(votes, len(poll.options)).counts)

    @guarded
    def split(self, code: str, poll_id: str) -> Split | None:
        """How a question (either round's id) was answered, round by round, with confidence,
        and how the voters of both rounds moved; None for no such poll."""
        first = self.poll(code, poll_id.removesuffix(SECOND) if isinstance(poll_id, str)
                          else poll_id)
        if first is None:
            return None
        code, n = normal_code(code), len(first.options)
        rounds = [self.backend.votes(code, first.id)]
        if not first.id.startswith("check-") and self.backend.poll(code, first.id + SECOND):
            rounds.append(self.backend.votes(code, first.id + SECOND))
        tallies = tuple(Tally.of(votes, n) for votes in rounds)
        if len(rounds) == 1:
            return Split(tallies)
        before = {v.voter: v.option for v in rounds[0]}
        moved: dict[tuple[int, int], int] = {}
        both = 0
        for v in rounds[1]:
            if v.voter in before:
                both += 1
                if before[v.voter] != v.option:
                    step = (before[v.voter], v.option)
                    moved[step] = moved.get(step, 0) + 1
        moves = tuple(sorted(((a, b, k) for (a, b), k in moved.items()),
                             key=lambda m: (-m[2], m[0], m[1])))
        return Split(tallies, both, moves)

    @guarded
    def second_round(self, code: str, poll_id: str) -> Poll:
        """Open a question's second round (after the class discussed it): the same question and
        options, answered afresh; the first round's answers stay as they were. Every screen
        shows the new round."""
        room = self._open_room(code)
        first = self.poll(room.code, poll_id)
        if first is None or first.id.endswith(SECOND) or first.id.startswith("check-"):
            raise RoomError("no_poll")
        if first.revealed:
            raise RoomError("poll_closed")
        second = self.backend.poll(room.code, first.id + SECOND)
        if second is not None:
            return second
        self._add_poll(room, first.id + SECOND, first.question, list(first.options),
                       live=False, correct=first.correct)
        self.backend.set_live(room.code, first.id + SECOND if room.live == first.id else room.live)
        return self.backend.poll(room.code, first.id + SECOND)

    @guarded
    def reveal(self, code: str, poll_id: str, correct: int | None = None) -> None:
        """Close the question (both its rounds) and show every member the answer and the
        class's distribution; the right option is `correct`, or the one given when the
        question was asked."""
        room = self._open_room(code)
        poll = self.poll(room.code, poll_id)
        if poll is None:
            raise RoomError("no_poll")
        if correct is not None and not 0 <= correct < len(poll.options):
            raise RoomError("bad_option")
        first = poll.id.removesuffix(SECOND)
        for each in (first, first + SECOND):
            found = self.backend.poll(room.code, each)
            if found is not None and not found.revealed:
                self.backend.reveal(room.code, each, found.correct if correct is None else correct)

    # ---- the concept check ------------------------------------------------------------------

    @guarded
    def open_check(self, code: str, phase: str,
                   questions: list[tuple[str, list[str], int]]) -> list[Poll]:
        """Put the concept check's questions (text, options, the right one) in front of the
        class for a sitting, "pre" (before the lecture) or "post" (after it); a sitting opened
        again shows the same polls with their answers."""
        room = self._open_room(code)
        if phase not in PHASES or not 1 <= len(questions) <= 9:
            raise RoomError("bad_poll")
        polls = []
        for number, (question, options, correct) in enumerate(questions, start=1):
            poll_id = check_poll(phase, number)
            found = self.backend.poll(room.code, poll_id)
            if found is None:
                text, clean = self._checked(question, options)
                if not (isinstance(correct, int) and 0 <= correct < len(clean)):
                    raise RoomError("bad_option")
                found = self._add_poll(room, poll_id, text, clean, live=False, correct=correct)
            polls.append(found)
        self.backend.set_live(room.code, f"check-{phase}")
        return polls

    @guarded
    def check(self, code: str, phase: str) -> list[Poll]:
        """The concept check's polls of a sitting, in order (none before it was opened)."""
        room = self.room(code)
        if room is None or phase not in PHASES:
            return []
        ids = set(self.backend.poll_ids(room.code))
        return [self.backend.poll(room.code, check_poll(phase, n)) for n in range(1, 10)
                if check_poll(phase, n) in ids]

    @guarded
    def sitters(self, code: str, phase: str) -> int:
        """Students who answered at least one question of a sitting of the concept check."""
        room = self.room(code)
        if room is None:
            return 0
        return len({v.voter for poll in self.check(room.code, phase)
                    for v in self.backend.votes(room.code, poll.id)})

    @guarded
    def close_check(self, code: str, phase: str) -> None:
        """End a sitting: its answers are closed (and kept), and it leaves every screen."""
        room = self._open_room(code)
        for poll in self.check(room.code, phase):
            if not poll.revealed:
                self.backend.reveal(room.code, poll.id, poll.correct)
        if room.live == f"check-{phase}":
            self.backend.set_live(room.code, "")

    @guarded
    def gains(self, code: str) -> list[Gain]:
        """Each concept-check question before and after, over the students who answered it in
        both sittings (paired by their signed voter id)."""
        room = self.room(code)
        if room is None:
            return []
        out = []
        for pre in self.check(room.code, "pre"):
            number = int(pre.id.rsplit("-", 1)[1])
            post = self.backend.poll(room.code, check_poll("post", number))
            if post is None:
                continue
            before = {v.voter: v.option == pre.correct
                      for v in self.backend.votes(room.code, pre.id)}
            after = {v.voter: v.option == post.correct
                     for v in self.backend.votes(room.code, post.id) if v.voter in before}
            paired = len(after)
            came = dict(self.backend.poll_votes(room.code, post.id))  # voter -> network
            from_one = max(Counter(came.get(v, "") for v in after).values(), default=0)
            out.append(Gain(number, paired,
                            100.0 * sum(before[v] for v in after) / paired if paired else None,
                            100.0 * sum(after.values()) / paired if paired else None,
                            from_one))
        return out

    @guarded
    def answers(self, code: str) -> list[Answer]:
        """Every vote of the room, poll by poll, for the lecturer's CSV."""
        room = self.room(code)
        return [] if room is None else self.backend.answers(room.code)

    # ---- who is here ----------------------------------------------------------------------

    @guarded
    def seen(self, code: str, followers: Mapping[str, str]) -> None:
        """Mark followers (voter id -> the network it follows from) as connected now, and as
        screens that follow the room (a server process reports its waiting followers): only
        ids this server signed for this room, at most `limits.present` in a room at once."""
        code = normal_code(code)
        if code is None:
            return
        found = {who.id: network for raw, network in followers.items()
                 if (who := self.voter(code, raw)) is not None}
        if found:
            now = self.clock()
            self.backend.seen(code, dict(list(found.items())[: self.limits.present]), now,
                              now - PRESENT_SECONDS, self.limits.present)

    @guarded
    def suspects(self, code: str, poll_id: str) -> list[Suspect]:
        """The networks whose answers to the poll outnumber the screens that follow the room
        from them, by at least SUSPECT answers from voters that never followed: most likely a
        script that mints ids and answers without a screen. Largest first."""
        room = self.room(code)
        if room is None or not isinstance(poll_id, str) or not POLL_ID.fullmatch(poll_id):
            return []
        screens = self.backend.screens(room.code)
        answers: dict[str, int] = {}
        unfollowed: dict[str, int] = {}
        for voter, network in self.backend.poll_votes(room.code, poll_id):
            answers[network] = answers.get(network, 0) + 1
            if voter not in screens:
                unfollowed[network] = unfollowed.get(network, 0) + 1
        following = list(screens.values())
        found = [Suspect(network, answers[network], following.count(network), n)
                 for network, n in unfollowed.items()
                 if n >= SUSPECT and answers[network] > following.count(network)]
        return sorted(found, key=lambda suspect: -suspect.unfollowed)

    @guarded
    def set_aside(self, code: str, network: str) -> int:
        """Take away every answer in the room from voters that answered from network without
        ever following the room, and refuse their votes from now on; returns how many answers
        went."""
        room = self._open_room(code)
        screens = self.backend.screens(room.code)
        voters = {voter for voter, came in self.backend.room_votes(room.code)
                  if came == network and voter not in screens}
        return self.backend.set_aside(room.code, sorted(voters)) if voters else 0

    @guarded
    def headcount(self, code: str) -> int:
        """Followers connected within the last PRESENT_SECONDS."""
        room = self.room(code)
        return 0 if room is None else self.backend.headcount(room.code,
                                                      self.clock() - PRESENT_SECONDS)

    @guarded
    def voters(self, code: str) -> int:
        """Students who voted in the room (what the cap of voters counts)."""
        room = self.room(code)
        return 0 if room is None else self.backend.voters(room.code)

    # ---- shared checks ----------------------------------------------------------------------

    def _open_room(self, code: str) -> Room:
        room = self.room(code)
        if room is None:
            raise RoomError("no_room")
        if room.closed:
            raise RoomError("room_closed")
        return room

    def _checked(self, question: object, options: object) -> tuple[str, list[str]]:
        text = clean_text(question, self.limits.question, "question")
        clean = [clean_text(o, self.limits.option, "option") for o in options]
        low, high = self.limits.options
        if not low <= len(clean) <= high:
            raise RoomError("option_count", f"{low} to {high} options")
        return text, clean

    def _add_poll(self, room: Room, poll_id: str, question: str, options: list[str],
                  live: bool, correct: int | None) -> Poll:
        if len(self.backend.poll_ids(room.code)) >= self.limits.polls:
            raise RoomError("polls_full", f"at most {self.limits.polls} questions a room")
        self.backend.store_poll(room.code, poll_id, question, options, live, correct)
        return Poll(poll_id, question, tuple(options), False, correct)


DEFAULT_STORE = "sqlite:///data/rooms.sqlite3"
ROOT = Path(__file__).resolve().parents[1]  # relative SQLite paths start at the project folder


def open_backend(url: str | None = None, root: Path | None = None) -> Backend:
    """The backend a URL names: `sqlite:///relative/path`, `sqlite:////absolute/path`, or
    `redis://host:port/db`. None reads POSVIZ_ROOM_STORE, then the SQLite default. A relative
    SQLite path starts at root (the project folder when None)."""
    url = url or setting(config.STORE, DEFAULT_STORE)
    root = root or ROOT
    if url.startswith(("redis://", "rediss://", "unix://")):
        from rooms.redis_backend import RedisBackend
        return RedisBackend.from_url(url)
    if url.startswith("sqlite:///"):
        from rooms.sqlite_backend import SQLiteBackend
        path = Path(url.removeprefix("sqlite:///"))
        return SQLiteBackend(path=path if path.is_absolute() else root / path)
    raise ValueError(f"POSVIZ_ROOM_STORE must start with sqlite:/// or redis://, got {url!r}")


def open_rooms(url: str | None = None, root: Path | None = None, **options) -> Rooms:
    """The rooms kept where a URL names (open_backend); options are Rooms' (limits, clock,
    secret)."""
    return Rooms(open_backend(url, root), **options)


@functools.cache
def shared_rooms() -> Rooms:
    """This server process's rooms, kept where POSVIZ_ROOM_STORE names: one for every session
    of the app and for the rooms' routes (serve.py hands it to them)."""
    return open_rooms()
