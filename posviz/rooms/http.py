"""The HTTP routes a room needs beside the app (served by serve.py through st.App).

GET  /_posviz/follow/{code}?t=TICKET the follower's screen (static/viewer.js): a small page that
                                     issues the browser its signed voter id and membership proof
                                     (cookies) and follows the room; a room that is not there
                                     sends the reader to the app, which says why.
GET  /_posviz/room/{code}?v=N&lang=L&j=PROOF
                                     a follower waits here until the room's version is not N
                                     (at most WAIT seconds), then gets the room: its version,
                                     view, questions, whether it is closed, and the lecturer's
                                     view drawn as a document in language L. That answer is made
                                     once per version and language in this process (gzipped
                                     once) and the same bytes go to every follower: a follower
                                     costs a request, never a page run. The voter id in the
                                     browser's cookie counts the follower as connected. A room
                                     that is not there is 410 for a tab whose PROOF says it was
                                     in it (ended, or lost by the server), else 404, a wrong code.
POST /_posviz/room/{code}/vote       {poll, option}: the cookie's voter answers a question.
POST /_posviz/room/{code}/view       the lecturer's page publishes its view: {page, query}, with
                                     the room's key in its HttpOnly cookie.
POST /_posviz/room/{code}/lead       {key}: sets that cookie (a page script cannot set one that
                                     script in the page cannot read back).
POST /_posviz/room/{code}/forget     deletes it (Leave, Close).
GET  /_posviz/asset/{name}?v=HASH    the follower's scripts and styles, gzipped once.
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
import functools
import gzip
import importlib
import json
import os
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from pathlib import Path

from starlette.requests import ClientDisconnect, Request
from starlette.responses import (
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    Response,
)
from starlette.routing import Route

from posviz.rooms import (
    JOINED_COOKIE,
    VOTER_COOKIE,
    Poll,
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
VOTER_DAYS = 30    # how long a browser keeps the voter id the server issued it
KEPT_ANSWERS = 512  # (room, language) answers a process keeps made


@dataclass(frozen=True)
class Screens:
    """What the routes need from the app to show a room to its followers.

    document(page, query, lang, revealed) is the view drawn as a document: its blocks as JSON,
    and the polls it asks (revealed names the room's polls whose answers may be shown).
    viewer(code, proof, lang, chosen, state) is the follower's page (chosen: lang was asked
    for; state: "open", "ended" for a member of a room gone, "unknown" for a wrong code).
    static is the folder of the scripts and styles the follower's page loads (ASSETS)."""

    document: Callable[[str, str, str, frozenset[str]], tuple[str, tuple[str, ...]]]
    viewer: Callable[[str, str, str, bool, str], str]
    langs: Collection[str]
    static: Path


ASSETS = {"viewer.js": "text/javascript", "chart.js": "text/javascript",
          "viewer.css": "text/css", "katex.min.js": "text/javascript",
          "katex.min.css": "text/css", "markdown-it.min.js": "text/javascript",
          "plotly-posviz.min.js": "text/javascript"}


def _poll_state(poll: Poll, counts: list[int] | None) -> dict:
    return {"revealed": poll.revealed, "correct": poll.correct, "counts": counts}


@dataclass(frozen=True)
class Answer:
    """What every follower of a room in one language is sent for one version of the room."""

    version: int
    plain: bytes
    packed: bytes  # gzipped


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
    answers: dict[tuple[str, str], Answer] = field(default_factory=dict)  # (code, lang)
    making: dict[tuple[str, str, int], asyncio.Future] = field(default_factory=dict)

    async def answer(self, room: Room, lang: str) -> Answer:
        """The answer for the room as it is now, in lang: made once per version and language
        (the first follower to ask waits for it; the others wait on that one), then kept."""
        kept = self.answers.get((room.code, lang))
        if kept is not None and kept.version == room.version:
            return kept
        key = (room.code, lang, room.version)
        job = self.making.get(key)
        if job is None:
            job = self.making[key] = asyncio.ensure_future(
                asyncio.to_thread(self._make, room, lang))
            job.add_done_callback(lambda _: self.making.pop(key, None))
        made = await asyncio.shield(job)
        if len(self.answers) >= KEPT_ANSWERS:
            self.answers.pop(next(iter(self.answers)))
        self.answers[(room.code, lang)] = made
        return made

    def _make(self, room: Room, lang: str) -> Answer:
        head = {"version": room.version, "closed": room.closed, "page": room.page,
                "query": room.query, "live": None, "polls": {}}
        doc = "[]"
        if not room.closed:
            polls = {poll.id: poll for poll in self.store.polls(room.code)}
            revealed = frozenset(poll_id for poll_id, poll in polls.items() if poll.revealed)
            doc, asked = _screens().document(room.page, room.query, lang, revealed)
            for poll_id in {*asked, room.live} & polls.keys():
                poll = polls[poll_id]
                head["polls"][poll_id] = _poll_state(
                    poll, self.store.counts(room.code, poll_id) if poll.revealed else None)
            if room.live in polls:
                live = polls[room.live]
                head["live"] = {"id": live.id, "question": live.question,
                                "options": list(live.options)}
        plain = (json.dumps(head, ensure_ascii=False)[:-1] + f',"doc":{doc}}}').encode()
        return Answer(room.version, plain, gzip.compress(plain, 6))

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
_shown: dict[str, Screens | str] = {}  # where the app's Screens are, then the Screens


def _screens() -> Screens:
    """The app's Screens, imported on first use: by then the server has started, and whatever
    the app's modules set up at import (Streamlit's caches) finds it running."""
    if isinstance(_shown["screens"], str):
        module, _, name = _shown["screens"].partition(":")
        _shown["screens"] = getattr(importlib.import_module(module), name)
    return _shown["screens"]


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


def _lang(request: Request) -> str:
    asked = request.query_params.get("lang", "")
    langs = _screens().langs
    return asked if asked in langs else next(iter(langs))


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
    voter = rooms.store.voter(request.cookies.get(VOTER_COOKIE))
    try:
        room = await rooms.room(code)
        if room is not None and room.version == known and not room.closed:
            gone = asyncio.ensure_future(_dropped(request))
            try:
                await rooms.until_changed(code, voter, gone)
            finally:
                gone.cancel()
            room = rooms.rooms.get(code) or await rooms.room(code)
        if room is None:
            if signing.was_in(rooms.store.secret, request.query_params.get("j"), code,
                              time.time()):
                return _refused("gone", 410)  # a tab that was in it: no guess at a code
            WRONG.hit(who)
            return _refused("no_room", 404)
        made = await rooms.answer(room, _lang(request))
    except StoreDown:
        return _down()
    headers = NO_STORE | {"Vary": "Accept-Encoding"}
    if "gzip" in request.headers.get("accept-encoding", ""):
        return Response(made.packed, media_type="application/json",
                        headers=headers | {"Content-Encoding": "gzip"})
    return Response(made.plain, media_type="application/json", headers=headers)


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
async def vote(request: Request, code: str, sent: dict, who: str) -> Response:
    poll, option = sent.get("poll"), sent.get("option")
    if not isinstance(poll, str) or not isinstance(option, int) or isinstance(option, bool):
        return _refused("bad_request", 400)
    store = watch().store
    voter = store.voter(request.cookies.get(VOTER_COOKIE))
    if voter is None:
        return _refused("bad_voter", 403)
    try:
        await asyncio.to_thread(store.vote, code, poll, voter, option)
    except StoreDown:
        raise
    except RoomError as refused:
        return _refused(refused.reason, 409)
    return JSONResponse({"mine": option}, headers=NO_STORE)


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


async def viewer(request: Request) -> Response:
    """The follower's page, with the cookies that make this browser a member of the room: its
    voter id (kept if the server signed it) and the proof that it was in the room. The QR
    code's ticket, or an earlier proof, lets it in whatever the limits; a wrong code counts as
    one, and the page says there is no such room (or, to a member, that it ended)."""
    who = _who(request)
    code = normal_code(request.path_params["code"])
    store = watch().store
    now = time.time()
    member = code is not None and (
        signing.ticketed(store.secret, request.query_params.get("t"), code)
        or signing.was_in(store.secret, request.cookies.get(JOINED_COOKIE), code, now))
    if wait := (0.0 if member else WRONG.wait(who)) or FOLLOWS.take(who):
        return _refused("too_many", 429, wait)
    try:
        room = None if code is None else await asyncio.to_thread(store.room, code)
    except StoreDown:
        return _down()
    asked = request.query_params.get("lang")
    langs = _screens().langs
    chosen = asked in langs
    lang = asked if chosen else next(
        (each for each in langs if request.headers.get("accept-language", "")[:2] == each),
        next(iter(langs)))
    if room is None or room.closed:
        if not member:
            WRONG.hit(who)
        shown = _screens().viewer(code or "", "", lang, chosen, "ended" if member else "unknown")
        return HTMLResponse(shown, 410 if member else 404, headers=NO_STORE)
    proof = signing.joined(store.secret, code, room.expires)
    page = HTMLResponse(_screens().viewer(code, proof, lang, chosen, "open"), headers=NO_STORE)
    secure = _secure(request)
    voter = store.voter(request.cookies.get(VOTER_COOKIE)) or store.new_voter()
    page.set_cookie(VOTER_COOKIE, voter, max_age=VOTER_DAYS * 86400, path="/", secure=secure,
                    httponly=True, samesite="lax")
    page.set_cookie(JOINED_COOKIE, proof, max_age=max(60, int(room.expires - now)),
                    path="/", secure=secure, httponly=True, samesite="lax")
    return page


@functools.cache
def _asset(name: str) -> bytes:
    return gzip.compress((_screens().static / name).read_bytes(), 9)


async def asset(request: Request) -> Response:
    name = request.path_params["name"]
    if name not in ASSETS:
        return PlainTextResponse("not found", 404)
    kept = ("public, max-age=31536000, immutable" if request.query_params.get("v")
            else "no-cache")
    return Response(await asyncio.to_thread(_asset, name), media_type=ASSETS[name],
                    headers={"Content-Encoding": "gzip", "Cache-Control": kept,
                             "Vary": "Accept-Encoding"})


async def health(request: Request) -> Response:
    if await watch().failure():  # what failed is in the server's log, not shown to anyone
        return PlainTextResponse("rooms unavailable", 503,
                                 headers=NO_STORE | {"Retry-After": str(DOWN_RETRY)})
    return PlainTextResponse("ok", headers=NO_STORE)


def routes(screens: str) -> list[Route]:
    """The rooms' routes, showing rooms to their followers with the app's Screens, named as
    "module:attribute"."""
    _shown["screens"] = screens
    return [Route("/_posviz/health", health, methods=["GET"]),
            Route("/_posviz/follow/{code}", viewer, methods=["GET"]),
            Route("/_posviz/asset/{name}", asset, methods=["GET"]),
            Route("/_posviz/room/{code}", follow, methods=["GET"]),
            Route("/_posviz/room/{code}/view", publish, methods=["POST"]),
            Route("/_posviz/room/{code}/vote", vote, methods=["POST"]),
            Route("/_posviz/room/{code}/lead", lead, methods=["POST"]),
            Route("/_posviz/room/{code}/forget", forget, methods=["POST"])]
