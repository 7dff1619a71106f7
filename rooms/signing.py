"""The server's secret, and what it signs: students' voter ids, the ticket in a room's QR code and
the word the projector shows (proofs of presence: whoever holds one was in the hall within the
last few minutes), the proof that a browser was in a room (its tab keeps following through a
flood of wrong codes from its address, and a room the server lost is named as such), and the
networks votes come from (kept as keyed digests, never as addresses).

A voter id belongs to one room and ends with it: `<code>.<until>.<tier>.<id>.<signature>`, tier
`p` for a browser that showed a proof of presence (the QR code's ticket, or the projector's
word), `c` for one that had only the room's code. The ticket and the word change every
TICKET_SECONDS; the one before is still taken, so a ticket posted outside the hall stops
working within two to four minutes.

Every server process of a deployment must share the secret: POSVIZ_SECRET, else a file made once
in the project's data folder (readable by its owner only), which every process on one machine
reads.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import re
import secrets
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from rooms import config
from rooms.config import setting

SECRET_FILE = Path("data") / "secret"
TICKET_SECONDS = 120  # how long a ticket or word is the current one
_VOTER = re.compile(r"([0-9]{6})\.([0-9]{1,12})\.([pc])\.([A-Za-z0-9_-]{16})\.([A-Za-z0-9_-]{22})")
_JOINED = re.compile(r"([0-9]{6})\.([0-9]{1,12})\.([A-Za-z0-9_-]{22})")
# the projector's word: seven letters, consonants and vowels in turn (bakodim), easy to read
# aloud and to type on any phone's keyboard
_CONSONANTS, _VOWELS = "bdfghklmnprstvz", "aeiou"
WORD_LETTERS = 7
WORDS = len(_CONSONANTS) ** ((WORD_LETTERS + 1) // 2) * len(_VOWELS) ** (WORD_LETTERS // 2)
"""How many words there are: 15^4 x 5^3 = 6,328,125."""


def server_secret(root: Path) -> bytes:
    """POSVIZ_SECRET, else the secret kept in root/data/secret (made on first use, mode 0600;
    two processes starting at once agree on one)."""
    configured = setting(config.SECRET)
    if configured:
        return configured.encode()
    path = root / SECRET_FILE
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        draft = path.with_name(f".secret-{os.getpid()}-{secrets.token_hex(4)}")
        descriptor = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "w") as out:
            out.write(secrets.token_urlsafe(32))
        try:
            os.link(draft, path)  # atomic: the first process's secret wins
        except FileExistsError:
            pass
        finally:
            draft.unlink()
    return path.read_text("utf-8").strip().encode()


def _mac(secret: bytes, *parts: str) -> str:
    digest = hmac.new(secret, "\x1f".join(parts).encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest[:16]).decode().rstrip("=")  # 22 characters


@dataclass(frozen=True)
class Voter:
    """A voter id this server signed, read: who (what the room stores), and whether its
    browser showed a proof of presence."""

    id: str
    present: bool
    token: str  # the signed id itself, as its cookie holds it


def new_voter(secret: bytes, code: str, until: float, present: bool,
              id: str | None = None) -> str:
    """A signed voter id for room code, valid until the room would have ended; a fresh one,
    or (given id) the same voter with a proof of presence added."""
    id = id or secrets.token_urlsafe(12)
    fields = (code, str(int(until)), "p" if present else "c", id)
    return ".".join((*fields, _mac(secret, "voter", *fields)))


def voter(secret: bytes, raw: object, code: str, now: float) -> Voter | None:
    """The voter raw names, if it is an id this server signed for room code, which has not
    ended; else None (an id from another room, or from before, votes nowhere)."""
    match = _VOTER.fullmatch(raw) if isinstance(raw, str) else None
    if (match is None or match[1] != code or int(match[2]) <= now
            or not hmac.compare_digest(match[5], _mac(secret, "voter", *match.groups()[:4]))):
        return None
    return Voter(match[4], match[3] == "p", raw)


def forged(secret: bytes, raw: object) -> bool:
    """Whether raw is offered as a voter id but is none this server signed, for any room (an
    id of another room, or of one that ended, is not forged: it was this server's)."""
    if raw is None:
        return False
    match = _VOTER.fullmatch(raw) if isinstance(raw, str) else None
    return match is None or not hmac.compare_digest(
        match[5], _mac(secret, "voter", *match.groups()[:4]))


def joined(secret: bytes, code: str, until: float) -> str:
    """A browser's proof that it was in room code, valid until the room would have ended."""
    until = str(int(until))
    return f"{code}.{until}.{_mac(secret, 'joined', code, until)}"


def was_in(secret: bytes, raw: object, code: str, now: float) -> bool:
    """Whether raw proves its browser was in room code, which has not reached its end yet."""
    match = _JOINED.fullmatch(raw) if isinstance(raw, str) else None
    return bool(match and match[1] == code and int(match[2]) > now
                and hmac.compare_digest(match[3], _mac(secret, "joined", code, match[2])))


def _windows(now: float) -> tuple[int, int]:
    """The current ticket window, and the one before."""
    window = int(now // TICKET_SECONDS)
    return window, window - 1


def ticket(secret: bytes, code: str, now: float) -> str:
    """The ticket of room code's QR link now: whoever holds it saw the projector lately."""
    return _mac(secret, "ticket", code, str(_windows(now)[0]))


def ticketed(secret: bytes, raw: object, code: str, now: float) -> bool:
    """Whether raw is room code's ticket of now or of the window before."""
    return isinstance(raw, str) and any(
        hmac.compare_digest(raw.encode("utf-8", "surrogatepass"),
                            _mac(secret, "ticket", code, str(window)).encode())
        for window in _windows(now))


def _word(secret: bytes, code: str, window: int, turn: int = 0) -> str:
    told = f"word\x1f{code}\x1f{window}" + (f"\x1f{turn}" if turn else "")  # turn: a new word
    n = int.from_bytes(hmac.new(secret, told.encode(), hashlib.sha256).digest()[:8])
    letters = []
    for i in range(WORD_LETTERS):
        pool = _VOWELS if i % 2 else _CONSONANTS
        n, pick = divmod(n, len(pool))
        letters.append(pool[pick])
    return "".join(letters)


def word(secret: bytes, code: str, now: float, turn: int = 0) -> str:
    """The word the projector shows for room code now (what the QR code's ticket is to a
    phone that typed the code instead); turn: how many times its lecturer asked for a new
    word (Room.word), each making every word before it wrong."""
    return _word(secret, code, _windows(now)[0], turn)


def worded(secret: bytes, typed: object, code: str, now: float, turn: int = 0) -> bool:
    """Whether typed is room code's word (of this turn) of now or of the window before (in any
    case, with spaces or full-width letters)."""
    if not isinstance(typed, str) or len(typed) > 40:
        return False
    said = "".join(unicodedata.normalize("NFKC", typed).split()).lower()
    return any(hmac.compare_digest(said.encode("utf-8", "surrogatepass"),
                                   _word(secret, code, window, turn).encode())
               for window in _windows(now))


LECTURER_SECONDS = 12 * 3600  # how long the lecturer's cookie lasts (a day of lectures)


def lecturer_token(secret: bytes) -> str:
    """The secret of the lecturer's link that the server prints at start (`?lecturer=...`):
    the same for every server process sharing the secret; a new secret makes a new one."""
    return _mac(secret, "lecturer link")


def is_lecturer_token(secret: bytes, raw: object) -> bool:
    """Whether raw is the lecturer's link's secret (compared in constant time)."""
    return isinstance(raw, str) and len(raw) <= 100 and hmac.compare_digest(
        raw.encode("utf-8", "surrogatepass"), lecturer_token(secret).encode())


def lecturer_mark(secret: bytes, now: float) -> str:
    """What the lecturer's HttpOnly cookie holds once the lecturer's link was opened: signed,
    until LECTURER_SECONDS from now."""
    until = int(now + LECTURER_SECONDS)
    return f"{until}.{_mac(secret, 'lecturer', str(until))}"


def is_lecturer_mark(secret: bytes, raw: object, now: float) -> bool:
    """Whether raw is a lecturer's cookie this server signed, still valid."""
    if not isinstance(raw, str) or len(raw) > 100 or "." not in raw:
        return False
    until, mac = raw.split(".", 1)
    return until.isdigit() and int(until) > now and hmac.compare_digest(
        mac.encode("utf-8", "surrogatepass"), _mac(secret, "lecturer", until).encode())


def network(secret: bytes, address: str) -> str:
    """A client address as the room keeps it: a keyed digest that tells two networks apart and
    names neither (12 characters)."""
    return _mac(secret, "network", address)[:12]
