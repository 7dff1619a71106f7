"""Rate limits per client (rooms.address says who that is). A limit is a token bucket: `burst`
at once, refilled at `per_minute`. Those every server process sharing the rooms must agree on
(wrong codes and words, rooms started, voter ids minted) are kept in the rooms' store
(`Rooms.wait`, `Rooms.spend`), by a keyed digest of the address; the flood limits on followers'
requests and on page runs are kept in the process that answers them (`Throttle`).
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field

from rooms.records import Rate

MAX_ADDRESSES = 50_000  # buckets kept; the least recently seen is dropped beyond this


@dataclass
class Throttle:
    """How often one address (or voter id) may do something, in this process."""

    burst: int
    per_minute: float
    clock: Callable[[], float] = time.monotonic
    _buckets: OrderedDict[str, tuple[float, float]] = field(default_factory=OrderedDict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def _tokens(self, who: str, now: float) -> float:
        tokens, then = self._buckets.get(who, (self.burst, now))
        return min(self.burst, tokens + (now - then) * self.per_minute / 60)

    def wait(self, who: str) -> float:
        """Seconds until who may act again (0 when it may now); records nothing."""
        with self._lock:
            tokens = self._tokens(who, self.clock())
        return 0.0 if tokens >= 1 else (1 - tokens) * 60 / self.per_minute

    def hit(self, who: str, cost: float = 1.0) -> None:
        """Count one action of who, or what it cost (a wrong code counts after the fact, a page
        run's CPU-seconds once it ran), down to none left."""
        with self._lock:
            now = self.clock()
            self._buckets[who] = (max(0.0, self._tokens(who, now) - cost), now)
            self._buckets.move_to_end(who)
            while len(self._buckets) > MAX_ADDRESSES:
                self._buckets.popitem(last=False)

    def clear(self) -> None:
        """Forget every address (a new start)."""
        with self._lock:
            self._buckets.clear()

    def take(self, who: str) -> float:
        """Count one action of who if it may act now: returns 0, else the seconds to wait."""
        waiting = self.wait(who)
        if not waiting:
            self.hit(who)
        return waiting


def retry_after(seconds: float) -> str:
    """A Retry-After header's value: whole seconds, at least one."""
    return str(max(1, math.ceil(seconds)))


STARTS = Rate("starts", burst=5, per_minute=2)  # rooms started: a lecturer needs one or two
WRONG = Rate("wrong", burst=20, per_minute=20)   # wrong room codes, keys, passphrases
MINTS = Rate("mints", burst=60, per_minute=10)
"""Voter ids issued to browsers that showed only the room's code: a hall behind one campus
address that typed the code gets 60 at once and 10 a minute more; the rest type the projector's
word when they answer (or scan the QR code). Each id brings one guess of the word of its own
(FIRST_WORD), so this rate bounds guessing too (docs/rooms.md has the arithmetic)."""
PRESENT_MINTS = Rate("present-mints", burst=1000, per_minute=200)
"""Voter ids issued to browsers that showed a proof of presence (the QR code's ticket, the
projector's word): a hall of 1,000 behind one campus address scanning the code at once."""
FIRST_WORD = Rate("first-word", burst=1, per_minute=1 / 720)
"""A voter id's own guess of the projector's word (one, and one more in a room's 12 hours):
a classmate's first word is compared whatever anyone else on its network typed, so a prankster
behind the class's address cannot keep the class's right words out."""
HALL = Rate("hall", burst=1, per_minute=1 / 90)
"""The hall's networks for a room: a network from which a browser showed it was in the hall
(the QR code's ticket, or the projector's word) takes this room and network's one token, which
comes back 90 minutes after the last such proof. While it is gone, every word typed from that
network is compared, whatever else the network sends (no WORDS, no FIRST_WORD): a prankster
behind the class's address cannot keep a classmate's right word out. A network nobody there
proved itself from (a script at home with the code alone) keeps FIRST_WORD and WORDS."""
WORDS = Rate("words", burst=30, per_minute=15)
"""Every other guess of the projector's word (a voter id's second and later, a browser's
without an id), per room and network (the key is both): taken before the word is compared, so a
network past it learns nothing from its next guesses, and a fresh voter id gives none back.
Guessing is hopeless at this pace (docs/rooms.md has the arithmetic): the word is one of
signing.WORDS, two are valid at once, each for four minutes at most."""
GUESSED = Rate("guessed", burst=1000, per_minute=10)
"""Wrong words typed in a room, counted for its lecturer (whatever their network): what the
bucket lacks of full is about how many came lately (one a minute of it forgotten every 6 s)."""
GUESSED_SHOWN = 10  # wrong words lately before the lecturer is told the word is being guessed
WORD_MINTS = Rate("word-mints", burst=120, per_minute=60)
"""Voter ids issued to browsers without one that typed the projector's word, per network: the
part of a hall behind one campus address that typed the code after its 60 ids by code alone
(the QR code's ticket is the way in for a whole hall at once)."""
