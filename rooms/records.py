"""The rooms' records and their checks: what a room, a poll, an answer and a rate are, the limits
that bound them, the errors a room's request may meet, and the checks every value from a link,
a form or the network passes before it is kept (codes, views, texts)."""

from __future__ import annotations

import logging
import re
import unicodedata
from collections.abc import Collection
from dataclasses import dataclass
from urllib.parse import parse_qsl, urlencode

CODE_LENGTH = 6
ROOM_SECONDS = 12 * 3600          # a room ends by itself this long after it was opened
LECTURER_IDLE = 2 * 3600          # ... or once its lecturer has not been seen for this long
CLOSED_SECONDS = 3600             # a closed room's answers are kept this long, then it goes
LECTURER_TOUCH = 60.0             # how often a lecturer's presence is written down at most
PRESENT_SECONDS = 15.0            # a follower counts as connected this long after its last check
LOG_EVERY = 60.0                  # a store that stays down is logged once this often
VOTER_COOKIE = "posviz_me"         # a browser's voter id, issued and signed by the server
JOINED_COOKIE = "posviz_joined"    # the signed proof that a browser was in its last room
LECTURER_COOKIE = "posviz_lecturer"  # the lecturer's mark (signing.lecturer_mark), HttpOnly
HOLDER_COOKIE = "posviz_holder"    # a random name for the browser: a room it starts keeps
                                   # its key under it until the key's own cookie is set
HOLD_SECONDS = 600.0               # ... for this long at most
LETTERS = "ABCDEF"                # a question's options, as they are lettered
LEADS = 20                        # one-time lecturer links a room keeps unused (oldest go first)

log = logging.getLogger("rooms")
CODE_DIGITS = re.compile(f"[0-9]{{{CODE_LENGTH}}}")
POLL_ID = re.compile(r"(scene-[a-z]{1,20}|q\d{1,3})(\.2)?|check-(pre|post)-\d")
"""A lesson scene's question, the lecturer's own, either one's second round (".2"), or a
question of the concept check taken before ("pre") or after ("post") the lecture."""
PHASES = ("pre", "post")  # the concept check's two sittings
SECOND = ".2"             # a question's second round: its own poll, with this after the id
DISCUSS = (35.0, 70.0)
"""Right shares (%) from which to which a class discusses and votes again: "The optimal range
of correct student responses is 35-70% (Crouch and Mazur, 2001)" (SERC, How to Use
ConcepTests, serc.carleton.edu/introgeo/conceptests/how.html)."""
PAGE_NAME = re.compile(r"[a-z0-9_]{0,40}")
PARAM_NAME = re.compile(r"[A-Za-z0-9_]{1,40}")


class RoomError(ValueError):
    """A request a room refuses; `reason` names it for the page's message, `wait` how many
    seconds to wait before asking again, where waiting helps."""

    def __init__(self, reason: str, detail: str = "", wait: float = 0.0) -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason, self.wait = reason, wait


class StoreDown(Exception):
    """The store cannot be read or written now (not a refusal: nothing the request did);
    detail says what failed."""

    reason = "store_down"


@dataclass(frozen=True)
class Limits:
    """Caps that keep a flood of rooms, polls, voters or text bounded in memory and on disk."""

    rooms: int = 200          # rooms open at once in one store (closed ones do not count)
    polls: int = 80           # per room: the lesson's ten questions, the lecturer's own, their
    # second rounds and the concept check's questions, before and after
    voters: int = 1000        # per room, voters who voted without ever following the room: a
    # voter whose screen follows (or followed) the room is never refused
    present: int = 5000       # per room, followers counted as connected at once
    question: int = 300       # characters of a question
    option: int = 100         # characters of one option
    options: tuple[int, int] = (2, 6)
    view: int = 8192          # characters of a view's query string


@dataclass(frozen=True)
class Room:
    code: str
    version: int
    page: str          # the lecturer's page as its URL path ("" for home)
    query: str         # the lecturer's query string, personal parameters removed
    live: str          # the poll every member sees on any page, "" for none
    closed: bool       # closed by its lecturer, or ended: its lecturer gone LECTURER_IDLE
    created: float
    expires: float
    lead_seen: float   # when its lecturer was last seen
    word: int = 0      # new words its lecturer asked for (signing.word's turn)
    app_open: bool = False  # "Explore on my own" opens the app; else the room's screen's own
                            # sentence box (the lecturer's choice)


@dataclass(frozen=True)
class Poll:
    id: str
    question: str
    options: tuple[str, ...]
    revealed: bool
    correct: int | None  # the option revealed as right, None when none is


@dataclass(frozen=True)
class Answer:
    """One student's vote, as the room's CSV lists it."""

    poll: str
    question: str
    voter: str
    option: int
    option_text: str
    correct: int | None
    at: float
    network: str  # the network it came from, as a keyed digest (signing.network)
    sure: bool | None  # the student's confidence: sure, guessing, or not said

    @property
    def round(self) -> int:
        return 2 if self.poll.endswith(SECOND) else 1


@dataclass(frozen=True)
class Vote:
    """One voter's answer to one poll: the option and how sure (None: not said)."""

    voter: str
    option: int
    sure: bool | None


@dataclass(frozen=True)
class Tally:
    """How one round of a question was answered: votes per option, and of them how many were
    given as sure and as a guess."""

    counts: tuple[int, ...]
    sure: tuple[int, ...]
    guessing: tuple[int, ...]

    @classmethod
    def of(cls, votes: list[Vote], options: int) -> Tally:
        def count(keep) -> tuple[int, ...]:
            return tuple(sum(1 for v in votes if v.option == i and keep(v))
                         for i in range(options))
        return cls(count(lambda v: True), count(lambda v: v.sure is True),
                   count(lambda v: v.sure is False))

    @property
    def total(self) -> int:
        return sum(self.counts)

    def right_share(self, correct: int | None) -> float | None:
        """The share of the answers that are right, in %, or None (no answer, no right one)."""
        if correct is None or not self.total:
            return None
        return 100.0 * self.counts[correct] / self.total


@dataclass(frozen=True)
class Split:
    """A question's rounds (one or two) and, for a second round, how the voters who answered
    both moved: (option in round 1, option in round 2) -> voters, changed answers only."""

    rounds: tuple[Tally, ...]
    both: int = 0      # voters who answered in both rounds
    moves: tuple[tuple[int, int, int], ...] = ()  # (from, to, voters), most voters first

    @property
    def changed(self) -> int:
        return sum(n for _, _, n in self.moves)


@dataclass(frozen=True)
class Gain:
    """One concept-check question before and after, over the students who answered both
    sittings: the right shares (%) and the normalized gain <g> = (post - pre) / (100 - pre)
    (Hake 1998), None when every one was right before or none answered both."""

    number: int
    paired: int
    pre: float | None
    post: float | None
    from_one: int = 0  # the most of the pairs that answered the second sitting from one network

    @property
    def gain(self) -> float | None:
        if self.pre is None or self.post is None or self.pre >= 100.0:
            return None
        return (self.post - self.pre) / (100.0 - self.pre)


def next_step(share: float | None) -> str:
    """What a lecturer does after a first round whose right share is `share` (%), as Peer
    Instruction does (Crouch & Mazur 2001, as SERC's ConcepTests page quotes it): under 35%,
    explain before revealing; 35-70%, let neighbours discuss and vote again; over 70%,
    reveal; None (no answer yet): wait."""
    if share is None:
        return "wait"
    low, high = DISCUSS
    return "explain" if share < low else "discuss" if share <= high else "reveal"


def check_poll(phase: str, number: int) -> str:
    """The poll id of the concept check's question number (1-based) in a sitting."""
    return f"check-{phase}-{number}"


@dataclass(frozen=True)
class Suspect:
    """A network whose answers to a question outnumber the screens that follow the room from
    it: `unfollowed` of its `answers` come from voters that never followed."""

    network: str
    answers: int
    screens: int
    unfollowed: int


@dataclass(frozen=True)
class Rate:
    """A limit per key (a network, a room's network): `burst` at once, then `per_minute`."""

    name: str
    burst: int
    per_minute: float

    def seconds(self, tokens: float) -> float:
        """How long until one whole token is there again."""
        return 0.0 if tokens >= 1 else (1 - tokens) * 60 / self.per_minute


CODE_VOTES = Rate("votes", burst=30, per_minute=30)
"""Votes that count from one network's voters who showed only the room's code, per room."""
SUSPECT = 5  # unfollowed answers from one network before the lecturer is shown them

def normal_code(raw: object) -> str | None:
    """A room code as typed or linked (spaces, dashes, full-width digits allowed), or None."""
    if not isinstance(raw, str) or len(raw) > 40:
        return None
    typed = re.sub(r"[\s\-_.·]", "", unicodedata.normalize("NFKC", raw))
    digits = "".join(str(d) if (d := unicodedata.decimal(c, None)) is not None else c
                     for c in typed)  # any script's digits: ٤٨٢ is 482
    return digits if CODE_DIGITS.fullmatch(digits) else None


def lecturer_gone(lead_seen: float, now: float) -> bool:
    """Whether a room's lecturer, last seen at lead_seen, has been gone long enough to end it."""
    return now - lead_seen > LECTURER_IDLE


def key_cookie(code: str) -> str:
    """The cookie holding a lecturer's key to room code (HttpOnly, set by rooms.routes)."""
    return f"posviz_key_{code}"


def lead_cookie(code: str) -> str:
    """The cookie holding a one-time lecturer link's token for room code, from the link's
    address until the app's page (which only a browser that runs it opens) uses it up."""
    return f"posviz_lead_{code}"


def spaced(code: str) -> str:
    """A code as it is read aloud and shown: 482913 -> 482 913."""
    return f"{code[:3]} {code[3:]}"


def shared_query(query: str, personal: Collection[str] = (), limit: int = Limits.view) -> str:
    """A query string checked and bounded, without the parameters that belong to one reader
    (personal: the app names them), never to the view a room shares."""
    if not isinstance(query, str) or len(query) > limit:
        raise RoomError("view_too_long", f"at most {limit} characters")
    pairs = parse_qsl(query.lstrip("?"), keep_blank_values=True)
    if any(not PARAM_NAME.fullmatch(name) for name, _ in pairs):
        raise RoomError("bad_view", "unexpected parameter name")
    return urlencode([(name, value) for name, value in pairs if name not in personal])


def clean_text(raw: object, limit: int, what: str) -> str:
    if not isinstance(raw, str):
        raise RoomError(f"bad_{what}")
    text = " ".join(raw.split())  # one line: no layout tricks in a shared text
    if not text:
        raise RoomError(f"empty_{what}")
    if len(text) > limit:
        raise RoomError(f"long_{what}", f"at most {limit} characters")
    return text
