"""The room service (`RoomService`): everything the rooms' routes serve from, built once by
serve.py and handed to them (rooms.routes.routes): the rooms and the calls that reach them off
the event loop, the long-poll hub, the store's health, the process's flood limits and the app's
screens. Two services live side by side in one process (a test's), each with its own rooms."""

from __future__ import annotations

import asyncio
import functools
import gzip
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from rooms.records import StoreDown
from rooms.routes.calls import StoreCalls
from rooms.routes.hub import Hub
from rooms.rules import Rooms
from rooms.screens import Screens
from rooms.throttle import Throttle

HEALTH_SECONDS = 1.0  # how long the store's health is taken as known
HEALTH_DEADLINE = 2.0  # how long a health check may take before the store counts as down


@dataclass
class Health:
    """Whether the store can be read and written, checked at most every HEALTH_SECONDS, on a
    thread of its own (not the store calls' pool, which a hung store fills): a check that
    takes longer than HEALTH_DEADLINE says the store is down, and none other starts while it
    hangs."""

    rooms: Rooms
    known: tuple[float, str] = (-HEALTH_SECONDS, "")  # when last checked, what failed
    checking: asyncio.Future | None = None

    async def failure(self) -> str:
        """What keeps the store from being read and written ("" when it works)."""
        checked, failed = self.known
        if time.monotonic() - checked < HEALTH_SECONDS:
            return failed
        if self.checking is None or self.checking.done():
            self.checking = asyncio.ensure_future(asyncio.to_thread(self.rooms.health))
            self.checking.add_done_callback(_retrieved)  # read below, or by nobody (timed out)
        try:
            await asyncio.wait_for(asyncio.shield(self.checking), HEALTH_DEADLINE)
            failed = ""
        except StoreDown as down:
            failed = str(down)
        except TimeoutError:
            failed = f"the store did not answer within {HEALTH_DEADLINE} s"
        self.known = (time.monotonic(), failed)
        return failed


def _retrieved(done: asyncio.Future) -> None:
    """Read a future's outcome (a failure nobody waits for any more is not an error)."""
    if not done.cancelled():
        done.exception()


@dataclass
class RoomService:
    """What the rooms' routes serve from. screens gives the app's Screens, asked for on first
    use: by then the server has started, and whatever the app's modules set up at import
    (Streamlit's caches) finds it running."""

    rooms: Rooms
    app_screens: Callable[[], Screens]
    calls: StoreCalls = field(init=False)
    hub: Hub = field(init=False)
    health: Health = field(init=False)
    follows: Throttle = field(default_factory=lambda: Throttle(burst=3000, per_minute=12_000))
    """Requests of followers without a voter id, per address: a hall of 500 behind one campus
    address asks about 500 times at each of the lecturer's moves and once every 25 s between
    them; one request costs well under a millisecond, so 200 a second from one address is
    harmless."""
    voter_requests: Throttle = field(
        default_factory=lambda: Throttle(burst=60, per_minute=600))
    """Requests of one voter id: a screen asks once per move of the lecturer and once every
    25 s."""
    assets: dict[str, bytes] = field(default_factory=dict)  # name -> gzipped, made once

    def __post_init__(self) -> None:
        self.calls = StoreCalls(self.rooms)
        self.hub = Hub(self.calls, self.screens)
        self.health = Health(self.rooms)

    @functools.cached_property
    def _screens(self) -> Screens:
        return self.app_screens()

    def screens(self) -> Screens:
        """The app's Screens (asked for once)."""
        return self._screens

    def asset(self, name: str) -> bytes:
        """A follower's script or style (one of a few), gzipped once."""
        if name not in self.assets:
            self.assets[name] = gzip.compress((self.screens().static / name).read_bytes(), 9)
        return self.assets[name]

    def stopping(self) -> None:
        """The server is stopping: its followers' held waits are answered now."""
        self.hub.close()
