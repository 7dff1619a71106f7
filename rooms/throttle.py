"""Rate limits per client address. A limit is a token bucket: `burst` at once, refilled at
`per_minute`. Those every server process sharing the rooms must agree on (wrong codes, rooms
started, voter ids minted) are kept in the rooms' store (`RoomStore.wait`, `RoomStore.spend`),
by a keyed digest of the address; the flood limit on anonymous followers' requests is kept in
this process (`Throttle`), which answers them.

Addresses are read from the connection, or from X-Forwarded-For only when the connection comes
from a proxy named in POSVIZ_TRUSTED_PROXIES (anyone can write that header). An IPv6 client is
limited by its /64 network: one machine there holds a whole /64 of addresses.
"""

from __future__ import annotations

import contextlib
import functools
import ipaddress
import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field

from rooms import config
from rooms.config import setting
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

    def hit(self, who: str) -> None:
        """Count one action of who (a wrong code counts after the fact)."""
        with self._lock:
            now = self.clock()
            self._buckets[who] = (max(0.0, self._tokens(who, now) - 1), now)
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


@functools.cache
def trusted_proxies(setting: str) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
    return tuple(ipaddress.ip_network(part.strip(), strict=False)
                 for part in setting.split(",") if part.strip())


def trusted(peer: str | None) -> bool:
    """Whether peer is a proxy named in POSVIZ_TRUSTED_PROXIES (None is this machine)."""
    try:
        ip = ipaddress.ip_address(peer if isinstance(peer, str) and peer else "127.0.0.1")
    except ValueError:
        return False
    proxies = trusted_proxies(setting(config.TRUSTED_PROXIES))
    return any(ip in network for network in proxies)


def client_address(peer: str | None, forwarded_for: str | None) -> str:
    """Who a request comes from, as a rate limit's key: the peer's address (None is this
    machine), or the last address a trusted proxy appended to X-Forwarded-For; an IPv6 address
    as its /64 network."""
    address = peer if isinstance(peer, str) and peer else "127.0.0.1"
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address[:100]
    if isinstance(forwarded_for, str) and trusted(address):
        with contextlib.suppress(ValueError):  # no address in it: limit the proxy itself
            ip = ipaddress.ip_address(forwarded_for.split(",")[-1].strip())
    if ip.version == 6 and not ip.ipv4_mapped:
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip.ipv4_mapped or ip) if ip.version == 6 else str(ip)


STARTS = Rate("starts", burst=5, per_minute=2)  # rooms started: a lecturer needs one or two
WRONG = Rate("wrong", burst=20, per_minute=20)   # wrong room codes, keys, passphrases, words
MINTS = Rate("mints", burst=60, per_minute=30)
"""Voter ids issued to browsers that showed only the room's code: a hall behind one campus
address that typed the code gets 60 at once and 30 a minute more; the rest type the projector's
word when they answer (or scan the QR code)."""
PRESENT_MINTS = Rate("present-mints", burst=1000, per_minute=200)
"""Voter ids issued to browsers that showed a proof of presence (the QR code's ticket, the
projector's word): a hall of 1,000 behind one campus address scanning the code at once."""
FOLLOWS = Throttle(burst=3000, per_minute=12_000)
"""Requests of followers without a voter id, per address: a hall of 500 behind one campus address
asks about 500 times at each of the lecturer's moves and once every 25 s between them; one
request costs well under a millisecond, so 200 a second from one address is harmless."""
VOTER_REQUESTS = Throttle(burst=60, per_minute=600)
"""Requests of one voter id: a screen asks once per move of the lecturer and once every 25 s."""
