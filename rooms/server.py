"""What a server process open to a scripting class needs before a connection costs anything:
uvicorn's HTTP protocol behind a gate (serve.py runs the app's server with it).

- **A request arrives whole, soon.** Its head and body must be in within REQUEST_SECONDS of its
  connection opening (or of the answer before it on that connection), however slowly its bytes
  trickle: a silent connection, or one that sends a byte now and then, is closed then.
- **Open connections are bounded.** One client address holds at most `per_address` (a proxy
  named in POSVIZ_TRUSTED_PROXIES, which bounds its own clients, is exempt), and the process at
  most `most`, the last `reserve` of them only for addresses holding fewer than FEW (a health
  probe, the lecturer's laptop, a student's phone: one or two flooding addresses never take
  those), sized from its open-file limit less a reserve for its own files, its store and
  its threads, and for a burst of connections taken at once (the listening backlog, sized
  from the limit too). The limit itself is raised to the system's hard limit at start. A connection
  past either bound is answered at once, `503` with `Retry-After`, and closed: it never reaches
  the app, and the file table never fills (a full one made every accept() fail and wrote a
  traceback each time). Refusals are logged once a minute, counted.
- **Client addresses are posviz's to read.** uvicorn's own X-Forwarded-For reading (which
  believes 127.0.0.1 unless told otherwise) is off (serve.py); rooms.address believes the header
  from the proxies named in POSVIZ_TRUSTED_PROXIES only.
"""

from __future__ import annotations

import asyncio
import logging
import resource
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from rooms.address import client_address, trusted

REQUEST_SECONDS = 10.0  # for a request's head and body (a phone on a slow network needs ~1 s)
PER_ADDRESS = 2000      # open connections of one client address: a hall behind one NAT fits
RESERVE = 128           # open files kept for the process's own use (files, store, threads)
FEW = 16                # connections of an address the last places are kept for (a laptop's
                        # tabs, a phone's, a health probe's)
RETRY_SECONDS = 5
LOG_EVERY = 60.0
log = logging.getLogger("posviz.server")


def raise_open_files() -> int:
    """Raise this process's open-file limit to the hard limit the system allows; return it."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = hard if hard != resource.RLIM_INFINITY else max(soft, 1 << 20)
    if wanted > soft:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
            soft = wanted
        except (ValueError, OSError):  # a system that says no: keep what we have
            pass
    return soft


def backlog(open_files: int) -> int:
    """How many connections wait for the server to take them, and how many it takes at once
    (asyncio accepts up to this many in a row before any of them is answered or closed)."""
    return max(64, min(2048, open_files // 16))


def connection_bound(open_files: int) -> int:
    """How many connections a process with this open-file limit may hold at once: the limit
    less the files of its own (RESERVE) and three bursts of connections taken at once, which
    hold their files until they are answered, refused ones too (asyncio takes a burst, tells
    the protocols of it on its next turn, and closes the refused ones on the turn after, each
    turn taking another burst)."""
    return max(64, open_files - RESERVE - 3 * backlog(open_files))


BUSY = (b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\n"
        b"retry-after: %d\r\ncontent-length: 17\r\nconnection: close\r\n\r\n"
        b'{"error": "busy"}' % RETRY_SECONDS)


@dataclass
class Gate:
    """The connections of one process, by client address, and what it refused lately: at most
    `most` in all, the last `reserve` (a quarter) only for addresses holding fewer than FEW,
    and at most `per_address` (PER_ADDRESS, or half of the rest when that is less) from one
    address."""

    most: int
    per_address: int = 0
    reserve: int = 0
    clock: Callable[[], float] = time.monotonic
    open: dict[str, set[asyncio.BaseTransport]] = field(default_factory=dict)
    total: int = 0
    refused: dict[str, int] = field(default_factory=dict)  # why -> how many since logged
    logged: float = -LOG_EVERY
    swept: float = 0.0
    reporting: asyncio.TimerHandle | None = None  # the next report, when one is due

    def __post_init__(self) -> None:
        self.reserve = self.reserve or max(FEW, self.most // 4)
        shared = max(1, (self.most - self.reserve) // 2)
        self.per_address = self.per_address or min(PER_ADDRESS, shared)

    def _sweep(self, address: str | None = None) -> None:
        """Forget closed connections (of one address, or of all): a connection upgraded to a
        websocket is no longer this protocol's to be told about."""
        for key in [address] if address is not None else list(self.open):
            held = self.open.get(key)
            if held is None:
                continue
            closed = {t for t in held if t.is_closing()}
            held -= closed
            self.total -= len(closed)
            if not held:
                del self.open[key]

    def admit(self, address: str, exempt: bool, transport: asyncio.BaseTransport) -> bool:
        """Count a new connection, or refuse it (False) past a bound."""
        self._sweep(address)
        if self.total >= self.most and self.clock() - self.swept >= 1.0:
            self.swept = self.clock()  # at most once a second over every connection
            self._sweep()
        if self.total >= self.most:
            return self._refuse("the process's bound")
        held = len(self.open.get(address, ()))
        if not exempt and held >= self.per_address:
            return self._refuse("one address's bound")
        if not exempt and held >= FEW and self.total >= self.most - self.reserve:
            return self._refuse("the reserve")
        self.open.setdefault(address, set()).add(transport)
        self.total += 1
        return True

    def closed(self, address: str, transport: asyncio.BaseTransport) -> None:
        held = self.open.get(address)
        if held is not None and transport in held:
            held.discard(transport)
            self.total -= 1
            if not held:
                del self.open[address]

    def _refuse(self, why: str) -> bool:
        """Count a refusal; the first of a quiet spell is logged at once, the rest in one
        report LOG_EVERY later (scheduled, so a flood that stops is reported all the same)."""
        self.refused[why] = self.refused.get(why, 0) + 1
        wait = self.logged + LOG_EVERY - self.clock()
        if wait <= 0:
            self.report()
        elif self.reporting is None:
            self.reporting = asyncio.get_running_loop().call_later(wait, self.report)
        return False

    def report(self) -> None:
        """Log the refusals counted since the last report, if any."""
        self.reporting = None
        if self.refused:
            self.logged = self.clock()
            said = ", ".join(f"{n} past {why}" for why, n in self.refused.items())
            log.warning("posviz: refused connections with 503 since the last report: %s "
                        "(holding %d of at most %d)", said, self.total, self.most)
            self.refused = {}


class GuardedProtocol(H11Protocol):
    """uvicorn's HTTP/1.1 protocol behind the process's Gate, with a deadline for each request
    (REQUEST_SECONDS from its connection, or from the answer before it, until it is whole)."""

    gate: Gate  # set by run(): one for the process

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        peer = transport.get_extra_info("peername")
        host = peer[0] if isinstance(peer, tuple) else None
        self._address = client_address(host, None)
        self._deadline: asyncio.TimerHandle | None = None
        self._admitted = self.gate.admit(self._address, trusted(host), transport)
        if not self._admitted:
            transport.write(BUSY)
            transport.close()
            return
        super().connection_made(transport)
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        if not self._admitted:
            return
        self._disarm()
        self.gate.closed(self._address, self.transport)
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.conn.their_state is not h11.IDLE and self.conn.their_state is not h11.SEND_BODY:
            self._disarm()  # the request is whole (or the connection is done)

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._arm()

    def handle_websocket_upgrade(self, event: h11.Request) -> None:
        self._disarm()  # the websocket keeps its own pings and timeouts
        super().handle_websocket_upgrade(event)

    def _arm(self) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(REQUEST_SECONDS, self.transport.close)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None
