"""What every rule of the rooms stands on (`RoomsBase`): the backend that keeps the records, the
limits, the clock and the server's secret; `guarded`, which turns a backend's failure into
StoreDown (logged once a while); and the digest a key or a token is kept as."""

from __future__ import annotations

import functools
import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from rooms import signing
from rooms.backend import Backend
from rooms.records import LOG_EVERY, Limits, StoreDown, log

ROOT = Path(__file__).resolve().parents[2]  # relative SQLite paths start at the project folder


def digest(key: str) -> str:
    """What the store keeps of a key or a token: its SHA-256, in hex."""
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()


def guarded(method: Callable) -> Callable:
    """A rule whose backend failures raise StoreDown (once logged)."""
    @functools.wraps(method)
    def call(self: RoomsBase, *args, **kwargs):
        try:
            return method(self, *args, **kwargs)
        except self.backend.failures as failed:
            self._failed(failed)
            raise StoreDown(f"{type(failed).__name__}: {failed}") from failed
    return call


@dataclass
class RoomsBase:
    """The rooms' records kept by a backend, under limits, on a clock (seconds since the
    epoch, injectable for tests), signed with `secret` (rooms.signing)."""

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
