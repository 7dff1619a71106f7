"""The rooms' calls from the routes, off the event loop: each one a method named after the rule
it asks (`await calls.room(code)`), run on a pool of threads of its own."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Collection, Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from rooms.records import Rate, Room, StoreDown
from rooms.rules import Rooms
from rooms.signing import Voter

T = TypeVar("T")
STORE_THREADS = 8   # store calls running at once in this process
STORE_QUEUE = 2000  # store calls waiting for a thread (a hall voting at once): more, StoreDown


class StoreCalls:
    """The routes' way to the rooms, on STORE_THREADS threads of their own: a store that hangs
    (a Redis stopped mid-request) holds those threads and at most STORE_QUEUE calls waiting for
    them (every call past that is refused at once: StoreDown); and for PAUSE seconds after a
    call failed, every call, waiting or new, is refused at once instead of asking a store that
    is down again (the queue empties within a moment, not a call's timeout after another)."""

    PAUSE = 1.0

    def __init__(self, rooms: Rooms) -> None:
        self.rooms = rooms
        self.pool = ThreadPoolExecutor(STORE_THREADS, thread_name_prefix="posviz-store")
        self.waiting = 0
        self.failed = -self.PAUSE  # when a call last failed (time.monotonic())

    def _pausing(self) -> None:
        if time.monotonic() - self.failed < self.PAUSE:
            raise StoreDown("the store failed a moment ago")

    def _on_thread(self, job: Callable[[], T]) -> T:
        self._pausing()
        try:
            return job()
        except StoreDown:
            self.failed = time.monotonic()
            raise

    async def run(self, job: Callable[[], T]) -> T:
        """Run job (which asks the rooms) on the pool; StoreDown when the store is down or
        its calls are not coming back."""
        self._pausing()
        if self.waiting >= STORE_THREADS + STORE_QUEUE:
            raise StoreDown("busy: the store's calls are not coming back")
        self.waiting += 1
        try:
            return await asyncio.get_running_loop().run_in_executor(
                self.pool, self._on_thread, job)
        finally:
            self.waiting -= 1

    async def room(self, code: str) -> Room | None:
        return await self.run(lambda: self.rooms.room(code))

    async def holds_key(self, code: str, key: object) -> bool:
        return await self.run(lambda: self.rooms.holds_key(code, key))

    async def set_view(self, code: str, page: str, query: str, personal: Collection[str]) -> int:
        return await self.run(lambda: self.rooms.set_view(code, page, query, personal))

    async def vote(self, code: str, poll: str, voter: Voter, option: int, network: str,
                   following: bool, sure: bool | None) -> None:
        await self.run(lambda: self.rooms.vote(code, poll, voter.token, option, network,
                                               following, sure))

    async def new_voter(self, code: str, present: bool, same: Voter | None = None) -> str:
        return await self.run(lambda: self.rooms.new_voter(code, present, same))

    async def wait(self, rate: Rate, who: str) -> float:
        return await self.run(lambda: self.rooms.wait(rate, who))

    async def spend(self, rate: Rate, who: str, force: bool = False) -> float:
        return await self.run(lambda: self.rooms.spend(rate, who, force))

    async def give_back(self, rate: Rate, who: str) -> None:
        await self.run(lambda: self.rooms.give_back(rate, who))

    async def arrive(self, code: str, network: str) -> float:
        return await self.run(lambda: self.rooms.arrive(code, network))

    async def versions(self, codes: Iterable[str]) -> dict[str, tuple[int, bool]]:
        return await self.run(lambda: self.rooms.versions(codes))

    async def seen(self, code: str, followers: Mapping[str, str]) -> None:
        await self.run(lambda: self.rooms.seen(code, followers))

    async def let_go(self, code: str, holder: object) -> None:
        await self.run(lambda: self.rooms.let_go(code, holder))
