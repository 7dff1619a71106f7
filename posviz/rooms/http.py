"""The two HTTP routes a room needs beside the app (served by serve.py through st.App).

GET  /_posviz/room/{code}?v=N&me=ID  a follower waits here until the room's version is not N
                                     (at most WAIT seconds), then gets the room's version, view,
                                     live poll and whether it is closed. An idle follower costs a
                                     request every WAIT seconds, not a script run every second.
POST /_posviz/room/{code}/view       the lecturer's page publishes its view: {key, page, query}.

Each server process runs one watcher that reads the versions of the rooms it has followers
waiting on, every TICK seconds, from the shared store (so a change made through another process
reaches them too), and reports who is waiting as present.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from dataclasses import dataclass, field

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from posviz.rooms import Room, RoomError, RoomStore, normal_code, shared_store, valid_voter

WAIT = 25.0        # longest a follower's request is held (proxies allow much more)
TICK = 0.25        # how often a process reads the versions of rooms with waiting followers
REPORT = 5.0       # how often a process reports its waiting followers as present
MAX_BODY = 16_384  # bytes of a published view
NO_STORE = {"Cache-Control": "no-store"}


def _payload(room: Room) -> dict:
    return {"version": room.version, "closed": room.closed, "page": room.page,
            "query": room.query, "live": room.live}


@dataclass
class Watch:
    """One process's view of the rooms its followers wait on."""

    store: RoomStore
    rooms: dict[str, Room] = field(default_factory=dict)
    changed: dict[str, asyncio.Event] = field(default_factory=dict)
    waiting: dict[str, dict[str, int]] = field(default_factory=dict)  # code -> voter -> requests
    recent: dict[str, set[str]] = field(default_factory=dict)  # seen since the last report
    task: asyncio.Task | None = None

    async def room(self, code: str) -> Room | None:
        """The room as this process last read it (read now when it has no copy)."""
        if code not in self.rooms:
            room = await asyncio.to_thread(self.store.room, code)
            if room is None:
                return None
            self.rooms[code] = room
        return self.rooms[code]

    async def refresh(self, code: str) -> None:
        """Read the room again and wake its waiting followers if it changed."""
        room = await asyncio.to_thread(self.store.room, code)
        if room is None:
            self.rooms.pop(code, None)
        elif code in self.rooms and self.rooms[code].version == room.version:
            return
        else:
            self.rooms[code] = room
        if code in self.changed:
            self.changed.pop(code).set()

    async def until_changed(self, code: str, voter: str | None, gone: asyncio.Future) -> None:
        """Wait for the room to change, the request to be dropped, or WAIT seconds."""
        event = self.changed.setdefault(code, asyncio.Event())
        who = self.waiting.setdefault(code, {})
        if voter:
            who[voter] = who.get(voter, 0) + 1
            self.recent.setdefault(code, set()).add(voter)
        self._start()
        try:
            waiter = asyncio.ensure_future(event.wait())
            await asyncio.wait([waiter, gone], timeout=WAIT,
                               return_when=asyncio.FIRST_COMPLETED)
            waiter.cancel()
        finally:
            if voter:
                who[voter] -= 1
                if not who[voter]:
                    del who[voter]
            if not who:
                self.waiting.pop(code, None)

    def _start(self) -> None:
        if self.task is None or self.task.done():
            self.task = asyncio.get_running_loop().create_task(self._watch())

    async def _watch(self) -> None:
        """Every TICK, compare versions of watched rooms; every REPORT, report who waits."""
        reported = time.monotonic()
        while self.waiting:
            await asyncio.sleep(TICK)
            codes = list(self.waiting)
            with contextlib.suppress(Exception):  # a store down for a moment: try next tick
                versions = await asyncio.to_thread(self.store.versions, codes)
                for code in codes:
                    known = self.rooms.get(code)
                    if code not in versions or known is None or versions[code][0] != known.version:
                        await self.refresh(code)
                if time.monotonic() - reported >= REPORT:
                    reported = time.monotonic()
                    for code in codes:
                        present = self.recent.pop(code, set()) | set(self.waiting.get(code, ()))
                        await asyncio.to_thread(self.store.seen, code, present)
        self.rooms.clear()  # nobody waits: the next follower reads afresh


_watch: Watch | None = None


def watch() -> Watch:
    global _watch
    if _watch is None:
        _watch = Watch(shared_store())
    return _watch


async def _dropped(request: Request) -> None:
    """Returns when the client goes away (a closed tab ends its wait at once)."""
    while (await request.receive())["type"] != "http.disconnect":
        pass


async def follow(request: Request) -> Response:
    code = normal_code(request.path_params["code"])
    if code is None:
        return JSONResponse({"error": "bad_code"}, 400, headers=NO_STORE)
    try:
        known = int(request.query_params.get("v", "-1"))
    except ValueError:
        known = -1
    voter = valid_voter(request.query_params.get("me"))
    rooms = watch()
    room = await rooms.room(code)
    if room is not None and room.version == known and not room.closed:
        gone = asyncio.ensure_future(_dropped(request))
        try:
            await rooms.until_changed(code, voter, gone)
        finally:
            gone.cancel()
        room = rooms.rooms.get(code) or await rooms.room(code)
    if room is None:
        return JSONResponse({"error": "no_room"}, 404, headers=NO_STORE)
    return JSONResponse(_payload(room), headers=NO_STORE)


async def publish(request: Request) -> Response:
    code = normal_code(request.path_params["code"])
    body = await request.body()
    if code is None or len(body) > MAX_BODY:
        return JSONResponse({"error": "bad_request"}, 400)
    try:
        sent = json.loads(body)
        key, page, query = sent["key"], sent["page"], sent["query"]
    except (ValueError, KeyError, TypeError):
        return JSONResponse({"error": "bad_request"}, 400)
    rooms = watch()
    if not await asyncio.to_thread(rooms.store.holds_key, code, key):
        return JSONResponse({"error": "not_lecturer"}, 403)
    try:
        version = await asyncio.to_thread(rooms.store.set_view, code, page, query)
    except RoomError as refused:
        return JSONResponse({"error": refused.reason}, 409 if refused.reason in (
            "room_closed", "no_room") else 400)
    await rooms.refresh(code)  # followers in this process need not wait for the next tick
    return JSONResponse({"version": version})


ROUTES = [Route("/_posviz/room/{code}", follow, methods=["GET"]),
          Route("/_posviz/room/{code}/view", publish, methods=["POST"])]
