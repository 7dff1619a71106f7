"""The store interface every backend implements (`RoomStore`: rooms, polls, votes, the rate limits
every server process shares), and `open_store`, which picks a backend from a URL."""

from __future__ import annotations

import functools
import hashlib
import hmac
import secrets
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

from rooms import config, signing
from rooms.config import setting
from rooms.records import (
    CLOSED_SECONDS,
    CODE_LENGTH,
    CODE_VOTES,
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


def _digest(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()


def _sealed(key: bytes, token: str) -> bytes:
    """key sealed with a lecturer link's token (and unsealed by sealing again): the store
    keeps a link's key only this way, so what it holds makes nobody a lecturer."""
    pad = hmac.new(token.encode(), b"posviz lead", hashlib.sha256).digest()
    return bytes(a ^ b for a, b in zip(key, pad, strict=False))


def guarded(method: Callable) -> Callable:
    """A public store method whose backend failures raise StoreDown (once logged)."""
    @functools.wraps(method)
    def call(self: RoomStore, *args, **kwargs):
        try:
            return method(self, *args, **kwargs)
        except self.failures as failed:
            self._failed(failed)
            raise StoreDown(f"{type(failed).__name__}: {failed}") from failed
    return call


@dataclass
class RoomStore(ABC):
    """Rooms, their views and polls, behind one interface; backends store the plain records.

    Public methods check their arguments and raise RoomError for anything a room refuses, and
    StoreDown when the backend fails; the `_` methods of a backend get only checked values.
    Every time is the store's clock (seconds since the epoch), injectable for tests; `secret`
    signs voter ids (rooms.signing).
    """

    limits: Limits = field(default_factory=Limits)
    clock: Callable[[], float] = time.time
    secret: bytes = field(default=b"", repr=False)
    failures: ClassVar[tuple[type[BaseException], ...]] = (OSError,)
    """What the backend raises when it cannot be read or written."""
    _logged: float = field(default=-LOG_EVERY, repr=False)  # when a failure was last logged

    def __post_init__(self) -> None:
        self.secret = self.secret or signing.server_secret(ROOT)

    def _failed(self, failed: BaseException) -> None:
        """Called with a backend failure before StoreDown is raised (log it, recover). A store
        that stays down is logged once every LOG_EVERY seconds, not at every request."""
        now = time.monotonic()
        if now - self._logged >= LOG_EVERY:
            self._logged = now
            log.warning("posviz rooms: the store failed: %s: %s", type(failed).__name__, failed)

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
        return rate.seconds(self._bucket(f"{rate.name}:{who}", rate, self.clock(), take=False,
                                         force=False))

    @guarded
    def spend(self, rate: Rate, who: str, force: bool = False) -> float:
        """Take one of who's tokens under rate: 0 when taken, else the seconds to wait (nothing
        taken), unless force (a wrong code counts after the fact, down to none left)."""
        tokens = self._bucket(f"{rate.name}:{who}", rate, self.clock(), take=True, force=force)
        return 0.0 if force else rate.seconds(tokens)

    # ---- rooms ----------------------------------------------------------------------------

    @guarded
    def create(self) -> tuple[str, str]:
        """Open a room; returns (code, key). The key is shown once and stored only hashed."""
        key = secrets.token_urlsafe(18)
        now = self.clock()
        for _ in range(50):  # a million codes, at most `rooms` in use: a clash is rare
            code = "".join(secrets.choice("0123456789") for _ in range(CODE_LENGTH))
            if self._create(code, _digest(key), now, now + ROOM_SECONDS):
                return code, key
        raise RoomError("rooms_full", f"at most {self.limits.rooms} rooms at once")

    @guarded
    def room(self, code: object) -> Room | None:
        """The room, or None for a malformed, unknown, or expired code. A room whose lecturer
        has been gone LECTURER_IDLE ends here."""
        code = normal_code(code)
        if code is None:
            return None
        room = self._room(code)
        now = self.clock()
        if room is None or room.expires <= now:
            return None
        if not room.closed and lecturer_gone(room.lead_seen, now):
            self._close(code, min(room.expires, now + CLOSED_SECONDS))
            room = self._room(code)  # as closing left it: its version and end moved
        return room

    @guarded
    def holds_key(self, code: object, key: object) -> bool:
        """Whether key drives the room (compared in constant time)."""
        code = normal_code(code)
        if code is None or not isinstance(key, str) or not 10 <= len(key) <= 100:
            return False
        stored = self._key_digest(code)
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
        self._add_lead(room.code, _digest(token), _sealed(key.encode(), token).hex(),
                       self.clock())
        return token

    @guarded
    def redeem(self, code: object, token: object) -> str | None:
        """The room's key for a lecturer link's token, which this uses up; None for a token
        that is wrong or used, or a room that ended."""
        code = normal_code(code)
        if code is None or not isinstance(token, str) or not 10 <= len(token) <= 100:
            return None
        sealed = self._take_lead(code, _digest(token))
        if sealed is None:
            return None
        key = _sealed(bytes.fromhex(sealed), token).decode("utf-8", "replace")
        room = self.room(code)
        return key if room is not None and not room.closed and self.holds_key(code, key) else None

    @guarded
    def lecturer_here(self, code: str) -> None:
        """Note that the room's lecturer is here (written at most every LECTURER_TOUCH)."""
        room = self.room(code)
        now = self.clock()
        if room is not None and not room.closed and now - room.lead_seen >= LECTURER_TOUCH:
            self._touch(room.code, now)

    @guarded
    def set_view(self, code: str, page: str, query: str) -> int:
        """Show the class this page and query string; returns the room's version."""
        room = self._open_room(code)
        if not isinstance(page, str) or not PAGE_NAME.fullmatch(page):
            raise RoomError("bad_view", "unexpected page")
        query = shared_query(query, self.limits.view)
        if (page, query) == (room.page, room.query):
            self.lecturer_here(room.code)
            return room.version
        return self._set_view(room.code, page, query, self.clock())

    @guarded
    def close(self, code: str) -> None:
        """End the room for everyone; its answers stay readable for CLOSED_SECONDS, and it no
        longer counts against the cap of open rooms."""
        room = self.room(code)
        if room is not None and not room.closed:
            self._close(room.code, min(room.expires, self.clock() + CLOSED_SECONDS))

    @guarded
    def versions(self, codes: Iterable[str]) -> dict[str, tuple[int, bool]]:
        """(version, closed) of each known room among codes: what a waiting follower needs. A
        room whose lecturer is gone shows as closed (room() ends it)."""
        now = self.clock()
        return {code: (room.version, room.closed or lecturer_gone(room.lead_seen, now))
                for code in codes
                if (room := self._room(code)) is not None and room.expires > now}

    @guarded
    def rooms(self) -> list[Room]:
        """Every room the store keeps, open or closed, oldest first (for the operator)."""
        return sorted((room for code in self._codes() if (room := self.room(code)) is not None),
                      key=lambda room: room.created)

    @guarded
    def purge(self, code: str) -> None:
        """Delete the room and everything in it at once (for the operator)."""
        if code := normal_code(code):
            self._delete(code)

    @guarded
    def health(self) -> None:
        """Read and write the store once; raises StoreDown when it cannot."""
        self._health(self.clock())

    # ---- polls ----------------------------------------------------------------------------

    @guarded
    def poll(self, code: str, poll_id: str) -> Poll | None:
        room = self.room(code)
        if room is None or not isinstance(poll_id, str) or not POLL_ID.fullmatch(poll_id):
            return None
        return self._poll(room.code, poll_id)

    @guarded
    def polls(self, code: str) -> list[Poll]:
        """Every poll of the room, in the order they were opened."""
        room = self.room(code)
        if room is None:
            return []
        return [poll for poll_id in self._poll_ids(room.code)
                if (poll := self._poll(room.code, poll_id)) is not None]

    @guarded
    def lesson_poll(self, code: str, scene: str, question: str,
                    options: list[str]) -> Poll:
        """The poll of a lesson scene's question, opened on the lecturer's first visit."""
        poll_id = f"scene-{scene}"
        if not POLL_ID.fullmatch(poll_id):
            raise RoomError("bad_poll")
        room = self._open_room(code)
        found = self._poll(room.code, poll_id)
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
        number = sum(poll_id.startswith("q") for poll_id in self._poll_ids(room.code)) + 1
        return self._add_poll(room, f"q{number}", text, clean, live=True, correct=correct)

    @guarded
    def put_away(self, code: str) -> None:
        """Take the lecturer's question off every screen."""
        room = self._open_room(code)
        if room.live:
            self._set_live(room.code, "")

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
            return self._poll(code, poll_id)
        return self._poll(code, poll_id + SECOND) or self._poll(code, poll_id)

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
        if not who.present and (wait := self.spend(CODE_VOTES, f"{room.code}:{network}")):
            raise RoomError("need_word", "this network's answers by code alone", wait)
        if not self._vote(room.code, poll.id, who.id, option, self.clock(), network, following,
                          sure):
            raise RoomError("room_full", f"at most {self.limits.voters} students")

    @guarded
    def my_answer(self, code: str, poll_id: str, voter: object) -> Vote | None:
        """The voter's answer to exactly this poll (a round of its own), or None."""
        room = self.room(code)
        who = None if room is None else self.voter(room.code, voter)
        if who is None or not isinstance(poll_id, str) or not POLL_ID.fullmatch(poll_id):
            return None
        return self._my_vote(room.code, poll_id, who.id)

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
        return list(Tally.of(self._votes(normal_code(code), poll.id), len(poll.options)).counts)

    @guarded
    def split(self, code: str, poll_id: str) -> Split | None:
        """How a question (either round's id) was answered, round by round, with confidence,
        and how the voters of both rounds moved; None for no such poll."""
        first = self.poll(code, poll_id.removesuffix(SECOND) if isinstance(poll_id, str)
                          else poll_id)
        if first is None:
            return None
        code, n = normal_code(code), len(first.options)
        rounds = [self._votes(code, first.id)]
        if not first.id.startswith("check-") and self._poll(code, first.id + SECOND):
            rounds.append(self._votes(code, first.id + SECOND))
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
        second = self._poll(room.code, first.id + SECOND)
        if second is not None:
            return second
        self._add_poll(room, first.id + SECOND, first.question, list(first.options),
                       live=False, correct=first.correct)
        self._set_live(room.code, first.id + SECOND if room.live == first.id else room.live)
        return self._poll(room.code, first.id + SECOND)

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
            found = self._poll(room.code, each)
            if found is not None and not found.revealed:
                self._reveal(room.code, each, found.correct if correct is None else correct)

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
            found = self._poll(room.code, poll_id)
            if found is None:
                text, clean = self._checked(question, options)
                if not (isinstance(correct, int) and 0 <= correct < len(clean)):
                    raise RoomError("bad_option")
                found = self._add_poll(room, poll_id, text, clean, live=False, correct=correct)
            polls.append(found)
        self._set_live(room.code, f"check-{phase}")
        return polls

    @guarded
    def check(self, code: str, phase: str) -> list[Poll]:
        """The concept check's polls of a sitting, in order (none before it was opened)."""
        room = self.room(code)
        if room is None or phase not in PHASES:
            return []
        ids = set(self._poll_ids(room.code))
        return [self._poll(room.code, check_poll(phase, n)) for n in range(1, 10)
                if check_poll(phase, n) in ids]

    @guarded
    def sitters(self, code: str, phase: str) -> int:
        """Students who answered at least one question of a sitting of the concept check."""
        room = self.room(code)
        if room is None:
            return 0
        return len({v.voter for poll in self.check(room.code, phase)
                    for v in self._votes(room.code, poll.id)})

    @guarded
    def close_check(self, code: str, phase: str) -> None:
        """End a sitting: its answers are closed (and kept), and it leaves every screen."""
        room = self._open_room(code)
        for poll in self.check(room.code, phase):
            if not poll.revealed:
                self._reveal(room.code, poll.id, poll.correct)
        if room.live == f"check-{phase}":
            self._set_live(room.code, "")

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
            post = self._poll(room.code, check_poll("post", number))
            if post is None:
                continue
            before = {v.voter: v.option == pre.correct for v in self._votes(room.code, pre.id)}
            after = {v.voter: v.option == post.correct
                     for v in self._votes(room.code, post.id) if v.voter in before}
            paired = len(after)
            out.append(Gain(number, paired,
                            100.0 * sum(before[v] for v in after) / paired if paired else None,
                            100.0 * sum(after.values()) / paired if paired else None))
        return out

    @guarded
    def answers(self, code: str) -> list[Answer]:
        """Every vote of the room, poll by poll, for the lecturer's CSV."""
        room = self.room(code)
        return [] if room is None else self._answers(room.code)

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
            self._seen(code, dict(list(found.items())[: self.limits.present]), self.clock())

    @guarded
    def suspects(self, code: str, poll_id: str) -> list[Suspect]:
        """The networks whose answers to the poll outnumber the screens that follow the room
        from them, by at least SUSPECT answers from voters that never followed: most likely a
        script that mints ids and answers without a screen. Largest first."""
        room = self.room(code)
        if room is None or not isinstance(poll_id, str) or not POLL_ID.fullmatch(poll_id):
            return []
        screens = self._screens(room.code)
        answers: dict[str, int] = {}
        unfollowed: dict[str, int] = {}
        for voter, network in self._poll_votes(room.code, poll_id):
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
        screens = self._screens(room.code)
        voters = {voter for voter, came in self._room_votes(room.code)
                  if came == network and voter not in screens}
        return self._set_aside(room.code, sorted(voters)) if voters else 0

    @guarded
    def headcount(self, code: str) -> int:
        """Followers connected within the last PRESENT_SECONDS."""
        room = self.room(code)
        return 0 if room is None else self._headcount(room.code,
                                                      self.clock() - PRESENT_SECONDS)

    @guarded
    def voters(self, code: str) -> int:
        """Students who voted in the room (what the cap of voters counts)."""
        room = self.room(code)
        return 0 if room is None else self._voters(room.code)

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
        if len(self._poll_ids(room.code)) >= self.limits.polls:
            raise RoomError("polls_full", f"at most {self.limits.polls} questions a room")
        self._store_poll(room.code, poll_id, question, options, live, correct)
        return Poll(poll_id, question, tuple(options), False, correct)

    # ---- what a backend stores ----------------------------------------------------------------

    @abstractmethod
    def _create(self, code: str, digest: str, now: float, expires: float) -> bool:
        """Store a new room unless the code is taken or `limits.rooms` are open (not closed,
        not expired, lecturer seen within LECTURER_IDLE); rooms past their time go for good."""

    @abstractmethod
    def _room(self, code: str) -> Room | None: ...

    @abstractmethod
    def _codes(self) -> list[str]:
        """The codes of every room kept."""

    @abstractmethod
    def _key_digest(self, code: str) -> str | None: ...

    @abstractmethod
    def _add_lead(self, code: str, digest: str, sealed: str, now: float) -> None:
        """Keep a lecturer link's token (by its digest) until the room goes, and at most the
        LEADS newest of a room."""

    @abstractmethod
    def _take_lead(self, code: str, digest: str) -> str | None:
        """The sealed key of a lecturer link's token, deleted as it is read (once)."""

    @abstractmethod
    def _touch(self, code: str, now: float) -> None:
        """The lecturer was seen now."""

    @abstractmethod
    def _set_view(self, code: str, page: str, query: str, now: float) -> int:
        """The new view (the version grows); the lecturer was seen now."""

    @abstractmethod
    def _close(self, code: str, expires: float) -> None:
        """Close the room (the version grows); it and all it holds go at expires."""

    @abstractmethod
    def _delete(self, code: str) -> None: ...

    @abstractmethod
    def _health(self, now: float) -> None:
        """Read and write something small."""

    @abstractmethod
    def _poll(self, code: str, poll_id: str) -> Poll | None: ...

    @abstractmethod
    def _poll_ids(self, code: str) -> list[str]:
        """The room's polls in the order they were opened."""

    @abstractmethod
    def _store_poll(self, code: str, poll_id: str, question: str, options: list[str],
                    live: bool, correct: int | None) -> None:
        """Add the poll unless it exists; a live one is shown to every member (the version
        grows)."""

    @abstractmethod
    def _set_live(self, code: str, poll_id: str) -> None: ...

    @abstractmethod
    def _vote(self, code: str, poll_id: str, voter: str, option: int, now: float,
              network: str, following: bool, sure: bool | None) -> bool:
        """Record the vote, from network (a following voter becomes one of the room's screens
        from there); False when the voter has not voted in the room before, never followed it,
        and `limits.voters` have voted. Raises RoomError "poll_closed" for a revealed poll and
        "set_aside" for a voter the lecturer set aside. Atomic with respect to the reveal."""

    @abstractmethod
    def _my_vote(self, code: str, poll_id: str, voter: str) -> Vote | None: ...

    @abstractmethod
    def _votes(self, code: str, poll_id: str) -> list[Vote]:
        """Every vote of the poll."""

    @abstractmethod
    def _reveal(self, code: str, poll_id: str, correct: int | None) -> None: ...

    @abstractmethod
    def _answers(self, code: str) -> list[Answer]: ...

    @abstractmethod
    def _seen(self, code: str, voters: dict[str, str], now: float) -> None:
        """Mark voters (id -> network) connected now, and each one not yet a screen of the room
        as one, from its network; forget those not seen for PRESENT_SECONDS; count no one
        beyond `limits.present` as connected."""

    @abstractmethod
    def _screens(self, code: str) -> dict[str, str]:
        """Every voter whose screen followed the room -> the network it followed from."""

    @abstractmethod
    def _poll_votes(self, code: str, poll_id: str) -> list[tuple[str, str]]:
        """(voter, network) of every vote of the poll."""

    @abstractmethod
    def _room_votes(self, code: str) -> list[tuple[str, str]]:
        """(voter, network) of every vote of the room, poll by poll."""

    @abstractmethod
    def _set_aside(self, code: str, voters: list[str]) -> int:
        """Delete these voters' votes in the room and refuse theirs from now on; returns how
        many votes went."""

    @abstractmethod
    def _bucket(self, key: str, rate: Rate, now: float, take: bool, force: bool) -> float:
        """The tokens key holds now under rate (burst when unknown); with take, one fewer
        afterwards if there was a whole one (or, with force, down to none left). Atomic."""

    @abstractmethod
    def _headcount(self, code: str, since: float) -> int: ...

    @abstractmethod
    def _voters(self, code: str) -> int: ...


DEFAULT_STORE = "sqlite:///data/rooms.sqlite3"
ROOT = Path(__file__).resolve().parents[1]  # relative SQLite paths start at the project folder


def open_store(url: str | None = None, root: Path | None = None, **options) -> RoomStore:
    """The store a URL names: `sqlite:///relative/path`, `sqlite:////absolute/path`, or
    `redis://host:port/db`. None reads POSVIZ_ROOM_STORE, then the SQLite default. A relative
    SQLite path starts at root (the project folder when None)."""
    url = url or setting(config.STORE, DEFAULT_STORE)
    root = root or ROOT
    if url.startswith(("redis://", "rediss://", "unix://")):
        from rooms.redis_store import RedisStore
        return RedisStore.from_url(url, **options)
    if url.startswith("sqlite:///"):
        from rooms.sqlite_store import SQLiteStore
        path = Path(url.removeprefix("sqlite:///"))
        return SQLiteStore(path=path if path.is_absolute() else root / path,
                           **options)
    raise ValueError(f"POSVIZ_ROOM_STORE must start with sqlite:/// or redis://, got {url!r}")


@functools.cache
def shared_store() -> RoomStore:
    """This server process's store, as POSVIZ_ROOM_STORE names it: one for every session."""
    return open_store()
