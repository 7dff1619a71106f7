"""The HTTP routes a room needs beside the app (served by serve.py through st.App).

GET  /_posviz/room/{code}?v=N&me=ID&j=PROOF
                                     a follower waits here until the room's version is not N
                                     (at most WAIT seconds), then gets the room's version, view,
                                     live poll and whether it is closed. An idle follower costs a
                                     request every WAIT seconds, not a script run every second.
                                     ID, a voter id the server signed, counts the follower as
                                     connected; any other follows uncounted. A room that is not
                                     there is 410 for a tab whose PROOF says it was in it (ended,
                                     or lost by the server), else 404, a wrong code.
POST /_posviz/room/{code}/view       the lecturer's page publishes its view: {page, query}, with
                                     the room's key in its HttpOnly cookie.
POST /_posviz/room/{code}/lead       {key}: sets that cookie (a page script cannot set one that
                                     script in the page cannot read back).
POST /_posviz/room/{code}/forget     deletes it (Leave, Close).
GET  /_posviz/health                 "ok", or 503 when the room store cannot be read and
                                     written (a proxy then sends room traffic elsewhere; the
                                     lesson goes on).

Every room route is rate-limited per client address (posviz.rooms.throttle): followers' requests,
and wrong codes or keys; past a limit it answers 429 with Retry-After. Bodies are bounded before
they are read. Each server process runs one watcher that reads the versions of the rooms it has
followers waiting on, every TICK seconds, from the shared store (so a change made through another
process reaches them too), and reports who is waiting as present.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import time
from dataclasses import dataclass, field

from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from posviz.rooms import (
    Room,
    RoomError,
    RoomStore,
    StoreDown,
    key_cookie,
    normal_code,
    shared_store,
    signing,
)
from posviz.rooms.throttle import FOLLOWS, WRONG, client_address, retry_after, trusted

REPORT = 5.0       # how often a process reports its waiting followers as present
WAIT = max(REPORT + 1, float(os.environ.get("POSVIZ_ROOM_WAIT", "25")))
"""Longest a follower's request is held (seconds): proxies commonly allow 60 or more; set it
lower behind one that cuts idle requests sooner. It outlasts REPORT, so that a waiting follower
is reported as present before its wait ends."""
TICK = 0.25        # how often a process reads the versions of rooms with waiting followers
MAX_BODY = 16_384  # bytes of a request's body (a published view is far smaller)
HEALTH_SECONDS = 1.0  # how long the store's health is taken as known
DOWN_RETRY = 5     # seconds a browser waits before asking again while the store is down
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
    health: tuple[float, str] = (0.0, "")  # when last checked, and what failed ("" for none)

    async def room(self, code: str) -> Room | None:
        """The room as this process last read it while followers wait on it (the watcher keeps
        that copy fresh), else as the store has it now."""
        if code not in self.rooms or code not in self.waiting:
            room = await asyncio.to_thread(self.store.room, code)
            if room is None:
                self.rooms.pop(code, None)
                return None
            self.rooms[code] = room
        return self.rooms[code]

    async def refresh(self, code: str) -> None:
        """Read the room again and wake its waiting followers if it changed."""
        room = await asyncio.to_thread(self.store.room, code)
        if room is None:
            self.rooms.pop(code, None)
        elif code in self.rooms and (self.rooms[code].version, self.rooms[code].closed) == (
                room.version, room.closed):
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
                    if known is None or versions.get(code) != (known.version, known.closed):
                        await self.refresh(code)
                if time.monotonic() - reported >= REPORT:
                    reported = time.monotonic()
                    for code in codes:
                        present = self.recent.pop(code, set()) | set(self.waiting.get(code, ()))
                        await asyncio.to_thread(self.store.seen, code, present)
        self.rooms.clear()  # nobody waits: the next follower reads afresh

    async def failure(self) -> str:
        """What keeps the store from being read and written ("" when it works), checked at
        most every HEALTH_SECONDS."""
        checked, failed = self.health
        if time.monotonic() - checked >= HEALTH_SECONDS:
            try:
                await asyncio.to_thread(self.store.health)
                failed = ""
            except StoreDown as down:
                failed = str(down)
            self.health = (time.monotonic(), failed)
        return failed


_watch: Watch | None = None


def watch() -> Watch:
    global _watch
    if _watch is None:
        _watch = Watch(shared_store())
    return _watch


def _who(request: Request) -> str:
    return client_address(request.client.host if request.client else None,
                          request.headers.get("x-forwarded-for"))


def _refused(error: str, status: int, wait: float = 0.0) -> JSONResponse:
    headers = NO_STORE | ({"Retry-After": retry_after(wait)} if wait else {})
    return JSONResponse({"error": error}, status, headers=headers)


def _down() -> JSONResponse:
    return _refused("store_down", 503, DOWN_RETRY)


async def _dropped(request: Request) -> None:
    """Returns when the client goes away (a closed tab ends its wait at once)."""
    while (await request.receive())["type"] != "http.disconnect":
        pass


def _arrival(request: Request, following: bool) -> tuple[str, str] | Response:
    """Who asks, and the room code asked for; or the refusal: too many wrong codes (or, for a
    follower, requests) from that address lately, or a malformed code (a wrong one too). A
    follower whose proof says it was in the room is no guesser: a script flooding the class's
    address with wrong codes does not stop the class from following."""
    who = _who(request)
    code = normal_code(request.path_params["code"])
    member = following and code is not None and signing.was_in(
        watch().store.secret, request.query_params.get("j"), code, time.time())
    if wait := (0.0 if member else WRONG.wait(who)) or (
            FOLLOWS.take(who) if following else 0.0):
        return _refused("too_many", 429, wait)
    if code is None:
        WRONG.hit(who)
        return _refused("bad_code", 400)
    return who, code


async def follow(request: Request) -> Response:
    arrival = _arrival(request, following=True)
    if isinstance(arrival, Response):
        return arrival
    who, code = arrival
    try:
        known = int(request.query_params.get("v", "-1"))
    except ValueError:
        known = -1
    rooms = watch()
    voter = rooms.store.voter(request.query_params.get("me"))
    try:
        room = await rooms.room(code)
        if room is not None and room.version == known and not room.closed:
            gone = asyncio.ensure_future(_dropped(request))
            try:
                await rooms.until_changed(code, voter, gone)
            finally:
                gone.cancel()
            room = rooms.rooms.get(code) or await rooms.room(code)
    except StoreDown:
        return _down()
    if room is None:
        if signing.was_in(rooms.store.secret, request.query_params.get("j"), code, time.time()):
            return _refused("gone", 410)  # a tab that was in it: no guess at a code
        WRONG.hit(who)
        return _refused("no_room", 404)
    return JSONResponse(_payload(room), headers=NO_STORE)


class _Refusal(Exception):
    def __init__(self, response: Response) -> None:
        self.response = response


async def _json_body(request: Request) -> dict:
    """The request's JSON object, read only as far as MAX_BODY + 1 bytes."""
    if not request.headers.get("content-type", "").startswith("application/json"):
        raise _Refusal(_refused("bad_request", 415))
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isdigit() or int(declared) > MAX_BODY):
        raise _Refusal(_refused("too_large", 413) if declared.isdigit() else
                       _refused("bad_request", 400))
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            raise _Refusal(_refused("too_large", 413))
    try:
        sent = json.loads(body)
    except (ValueError, RecursionError):  # malformed, or nested past what the parser takes
        raise _Refusal(_refused("bad_request", 400)) from None
    if not isinstance(sent, dict):
        raise _Refusal(_refused("bad_request", 400))
    return sent


def _posted(handler):
    """A POST route of a room: rate-limited, its code checked, its body bounded, a client that
    hangs up mid-body answered quietly, a failed store answered with 503."""
    async def route(request: Request) -> Response:
        arrival = _arrival(request, following=False)
        if isinstance(arrival, Response):
            return arrival
        who, code = arrival
        try:
            return await handler(request, code, await _json_body(request), who)
        except _Refusal as refusal:
            return refusal.response
        except ClientDisconnect:
            return Response(status_code=400)  # nobody is left to read it
        except StoreDown:
            return _down()
    return route


def _secure(request: Request) -> bool:
    """Whether the browser reached the app over https (directly, or through a trusted proxy
    that says so)."""
    if request.url.scheme == "https":
        return True
    peer = request.client.host if request.client else None
    return trusted(peer) and request.headers.get("x-forwarded-proto") == "https"


@_posted
async def publish(request: Request, code: str, sent: dict, who: str) -> Response:
    page, query = sent.get("page"), sent.get("query")
    if not isinstance(page, str) or not isinstance(query, str):
        return _refused("bad_request", 400)
    rooms = watch()
    key = request.cookies.get(key_cookie(code))
    if not await asyncio.to_thread(rooms.store.holds_key, code, key):
        WRONG.hit(who)
        return _refused("not_lecturer", 403)
    try:
        version = await asyncio.to_thread(rooms.store.set_view, code, page, query)
    except StoreDown:
        raise
    except RoomError as refused:
        return _refused(refused.reason, 409 if refused.reason in ("room_closed", "no_room")
                        else 400)
    await rooms.refresh(code)  # followers in this process need not wait for the next tick
    return JSONResponse({"version": version}, headers=NO_STORE)


@_posted
async def lead(request: Request, code: str, sent: dict, who: str) -> Response:
    store = watch().store
    key = sent.get("key")
    if not await asyncio.to_thread(store.holds_key, code, key):
        WRONG.hit(who)
        return _refused("not_lecturer", 403)
    room = await asyncio.to_thread(store.room, code)
    if room is None or room.closed:
        return _refused("room_closed", 409)
    answer = Response(status_code=204, headers=NO_STORE)
    answer.set_cookie(key_cookie(code), key, max_age=max(60, int(room.expires - time.time())),
                      path="/", secure=_secure(request), httponly=True, samesite="strict")
    return answer


@_posted
async def forget(request: Request, code: str, sent: dict, who: str) -> Response:
    answer = Response(status_code=204, headers=NO_STORE)
    answer.delete_cookie(key_cookie(code), path="/", secure=_secure(request), httponly=True,
                         samesite="strict")
    return answer


async def health(request: Request) -> Response:
    if await watch().failure():  # what failed is in the server's log, not shown to anyone
        return PlainTextResponse("rooms unavailable", 503,
                                 headers=NO_STORE | {"Retry-After": str(DOWN_RETRY)})
    return PlainTextResponse("ok", headers=NO_STORE)


ROUTES = [Route("/_posviz/health", health, methods=["GET"]),
          Route("/_posviz/room/{code}", follow, methods=["GET"]),
          Route("/_posviz/room/{code}/view", publish, methods=["POST"]),
          Route("/_posviz/room/{code}/lead", lead, methods=["POST"]),
          Route("/_posviz/room/{code}/forget", forget, methods=["POST"])]
