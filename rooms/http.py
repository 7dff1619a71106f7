"""The HTTP routes a room needs beside the app (served by serve.py through st.App).

GET  /_posviz/follow/{code}?t=TICKET the follower's screen (static/viewer.js): a small page that
                                     issues the browser its voter id for the room (with the
                                     QR code's ticket: one that showed it was in the hall) and
                                     its membership proof, as HttpOnly cookies, and follows the
                                     room; a room that is not there sends the reader to the app.
GET  /_posviz/room/{code}?v=N&lang=L&j=PROOF
                                     a follower waits here until the room's version is not N
                                     (at most WAIT seconds), then gets the room: its version,
                                     view, questions, whether it is closed, and the lecturer's
                                     view drawn as a document in language L. That answer is made
                                     once per version and language in this process (gzipped
                                     once) and the same bytes go to every follower: a follower
                                     costs a request, never a page run. The voter id in the
                                     browser's cookie counts the follower as connected. A room
                                     that is not there is 410 for a member (ended, or lost by
                                     the server), else 404, a wrong code.
POST /_posviz/room/{code}/vote       {poll, option}: the cookie's voter answers a question.
POST /_posviz/room/{code}/word       {word}: the projector's word, typed; the browser's voter id
                                     then shows it was in the hall (or one is issued).
POST /_posviz/room/{code}/view       the lecturer's page publishes its view: {page, query}, with
                                     the room's key in its HttpOnly cookie.
POST /_posviz/room/{code}/lead       {key}: sets that cookie (a page script cannot set one that
                                     script in the page cannot read back).
POST /_posviz/room/{code}/forget     deletes it and a lecturer link's token (Leave, Close).
GET  /_posviz/asset/{name}?v=HASH    the follower's scripts and styles, gzipped once.
GET  /_posviz/health                 "ok", or 503 when the room store cannot be read and
                                     written (a proxy then sends room traffic elsewhere; the
                                     lesson goes on).

And `KeyLinks`, a middleware: a page opened from a one-time lecturer link
(`?room=CODE&lead=TOKEN`) is answered with a redirect to the same address without the token,
which meanwhile went into an HttpOnly cookie for the app's page to use up; no key ever stands
in an address, and the token a browser's history keeps leads nothing once used.

Every room route counts a wrong code the same way (a code that names no room, asked by a
browser that shows no proof of having been in it), against one budget per network kept in the
store, shared by every server process (rooms.throttle.WRONG); past it, the network's
requests are answered 429 with Retry-After, except those that carry a membership proof, a
voter id or a key of the room: a script guessing codes never cuts the class behind its address
off. A voter id holds at most HELD_PER_VOTER waits at once. Bodies are bounded before they are
read. Store calls run on a bounded pool of their own (never behind a hung store: past its
queue, 503 at once), and the health check on its own thread with its own deadline. Each server
process runs one watcher that reads the versions of the rooms it has followers waiting on,
every TICK seconds, from the shared store (so a change made through another process reaches
them too), and reports who is waiting as present.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import gzip
import json
import time
from collections.abc import Callable, Collection, Container
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qsl, urlencode

from starlette.requests import ClientDisconnect, Request
from starlette.responses import (
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
)
from starlette.routing import Route

from rooms import config, signing
from rooms.config import setting
from rooms.kept import Kept
from rooms.records import (
    JOINED_COOKIE,
    SECOND,
    VOTER_COOKIE,
    Poll,
    Room,
    RoomError,
    StoreDown,
    key_cookie,
    lead_cookie,
    normal_code,
)
from rooms.signing import Voter
from rooms.store import RoomStore, shared_store
from rooms.throttle import (
    FOLLOWS,
    MINTS,
    PRESENT_MINTS,
    VOTER_REQUESTS,
    WRONG,
    client_address,
    retry_after,
    trusted,
)

LEAD_SECONDS = 600  # how long a lecturer link's token waits in its cookie for the app's page
REPORT = 5.0       # how often a process reports its waiting followers as present
WAIT = max(REPORT + 1, float(setting(config.WAIT, "25")))
"""Longest a follower's request is held (seconds): proxies commonly allow 60 or more; set it
lower behind one that cuts idle requests sooner. It outlasts REPORT, so that a waiting follower
is reported as present before its wait ends."""
TICK = 0.25        # how often a process reads the versions of rooms with waiting followers
MAX_BODY = 16_384  # bytes of a request's body (a published view is far smaller)
BODY_SECONDS = 10.0  # for a body to arrive whole
HEALTH_SECONDS = 1.0  # how long the store's health is taken as known
HEALTH_DEADLINE = 2.0  # how long a health check may take before the store counts as down
DOWN_RETRY = 5     # seconds a browser waits before asking again while the store is down
NO_STORE = {"Cache-Control": "no-store"}
HELD_PER_VOTER = 4  # waits one voter id may hold at once (a phone, a laptop's few tabs)
KEPT_BYTES = 64 << 20  # bytes of made answers a process keeps (each made once per version)
STORE_THREADS = 8   # store calls running at once in this process
STORE_QUEUE = 2000  # store calls waiting for a thread (a hall voting at once): more, 503


@dataclass(frozen=True)
class Screens:
    """What the routes need from the app to show a room to its followers.

    document(page, query, lang, revealed) is the view drawn as a document: its blocks as JSON,
    and the polls it asks (revealed names the room's polls whose answers may be shown).
    viewer(code, proof, lang, chosen, state, voter) is the follower's page (chosen: lang was
    asked for; state: "open", "ended" for a member of a room gone, "unknown" for a wrong code,
    "too_many" past a limit, with its seconds in `wait`; voter: "present", "code" or "" for
    the browser's voter id).
    static is the folder of the scripts and styles the follower's page loads (ASSETS)."""

    document: Callable[[str, str, str, frozenset[str]], tuple[str, tuple[str, ...]]]
    viewer: Callable[..., str]
    langs: Collection[str]
    static: Path


ASSETS = {"viewer.js": "text/javascript", "chart.js": "text/javascript",
          "viewer.css": "text/css", "katex.min.js": "text/javascript",
          "katex.min.css": "text/css", "markdown-it.min.js": "text/javascript",
          "plotly-posviz.min.js": "text/javascript"}


class Calls:
    """Store calls from the routes, on a pool of STORE_THREADS threads of their own: a store
    that hangs (a Redis stopped mid-request) holds those threads and at most STORE_QUEUE calls
    waiting for them (every call past that is refused at once: StoreDown); and for PAUSE
    seconds after a call failed, every call, waiting or new, is refused at once instead of
    asking a store that is down again (the queue empties within a moment, not a call's
    timeout after another)."""

    PAUSE = 1.0

    def __init__(self) -> None:
        self.pool = ThreadPoolExecutor(STORE_THREADS, thread_name_prefix="posviz-store")
        self.waiting = 0
        self.failed = -self.PAUSE  # when a call last failed (time.monotonic())

    def _pausing(self) -> None:
        if time.monotonic() - self.failed < self.PAUSE:
            raise StoreDown("the store failed a moment ago")

    def _run(self, function: Callable, args: tuple):
        self._pausing()
        try:
            return function(*args)
        except StoreDown:
            self.failed = time.monotonic()
            raise

    async def __call__(self, function: Callable, *args):
        self._pausing()
        if self.waiting >= STORE_THREADS + STORE_QUEUE:
            raise StoreDown("busy: the store's calls are not coming back")
        self.waiting += 1
        try:
            return await asyncio.get_running_loop().run_in_executor(
                self.pool, self._run, function, args)
        finally:
            self.waiting -= 1


def _poll_state(store: RoomStore, code: str, poll: Poll, ids: Container[str]) -> dict:
    """What a follower is told of a question: the round it is in (ids: the room's polls, a
    second round among them) and, once revealed, the right answer and each round's counts (a
    concept check's first sitting keeps its right answers to itself: the class sits it
    again)."""
    second = poll.id.endswith(SECOND) or poll.id + SECOND in ids
    state = {"revealed": poll.revealed, "round": 2 if second else 1, "correct": None,
             "counts": None}
    if poll.revealed and not poll.id.startswith("check-pre-"):
        split = store.split(code, poll.id)
        state |= {"correct": poll.correct, "counts": list(split.rounds[-1].counts),
                  "rounds": [list(t.counts) for t in split.rounds], "changed": split.changed}
    return state


@dataclass(frozen=True)
class Reply:
    """What every follower of a room in one language is sent for one version of the room."""

    version: int
    plain: bytes
    packed: bytes  # gzipped


@dataclass
class Watch:
    """One process's view of the rooms its followers wait on."""

    store: RoomStore
    calls: Calls = field(default_factory=Calls)
    rooms: dict[str, Room] = field(default_factory=dict)
    changed: dict[str, asyncio.Event] = field(default_factory=dict)
    waiting: dict[str, dict[str, int]] = field(default_factory=dict)  # code -> voter -> waits
    places: dict[str, dict[str, str]] = field(default_factory=dict)  # ... -> its network
    recent: dict[str, dict[str, str]] = field(default_factory=dict)  # seen since the report
    task: asyncio.Task | None = None
    health: tuple[float, str] = (0.0, "")  # when last checked, and what failed ("" for none)
    checking: asyncio.Future | None = None  # the health check running, on its own thread
    replies: Kept[tuple[str, str], Reply] = field(default_factory=lambda: Kept(
        KEPT_BYTES, lambda reply: len(reply.plain) + len(reply.packed)))  # (code, lang)
    making: dict[tuple[str, str, int], asyncio.Future] = field(default_factory=dict)
    reading: dict[str, asyncio.Future] = field(default_factory=dict)  # code -> its read
    closing: bool = False  # the server is stopping: no wait is held any more

    async def reply(self, room: Room, lang: str) -> Reply:
        """The reply for the room as it is now, in lang: made once per version and language
        (the first follower to ask waits for it; the others wait on that one), then kept
        (KEPT_BYTES of them)."""
        kept = self.replies.get((room.code, lang))
        if kept is not None and kept.version == room.version:
            return kept
        key = (room.code, lang, room.version)
        job = self.making.get(key)
        if job is None:
            job = self.making[key] = asyncio.ensure_future(self.calls(self._make, room, lang))
            job.add_done_callback(lambda _: self.making.pop(key, None))
        made = await asyncio.shield(job)
        self.replies.put((room.code, lang), made)
        return made

    def _make(self, room: Room, lang: str) -> Reply:
        head = {"version": room.version, "closed": room.closed, "page": room.page,
                "query": room.query, "live": None, "polls": {}}
        doc = "[]"
        if not room.closed:
            polls = {poll.id: poll for poll in self.store.polls(room.code)}
            revealed = frozenset(poll_id for poll_id, poll in polls.items() if poll.revealed)
            doc, asked = _screens().document(room.page, room.query, lang, revealed)
            sitting = [poll_id for poll_id in polls if room.live.startswith("check-")
                       and poll_id.startswith(room.live + "-")]
            for poll_id in {*asked, room.live, *sitting} & polls.keys():
                head["polls"][poll_id] = _poll_state(self.store, room.code, polls[poll_id],
                                                     polls)
            if room.live in polls:
                live = polls[room.live]
                head["live"] = {"id": live.id, "question": live.question,
                                "options": list(live.options)}
            elif sitting:
                head["live"] = {"id": room.live, "check": [
                    {"id": poll_id, "question": polls[poll_id].question,
                     "options": list(polls[poll_id].options)} for poll_id in sitting]}
        plain = (json.dumps(head, ensure_ascii=False)[:-1] + f',"doc":{doc}}}').encode()
        return Reply(room.version, plain, gzip.compress(plain, 6))

    async def room(self, code: str) -> Room | None:
        """The room as this process last read it while followers wait on it (the watcher keeps
        that copy fresh), else as the store has it now (read once for every request asking at
        the same moment: a class arriving at once)."""
        if code not in self.rooms or code not in self.waiting:
            reading = self.reading.get(code)
            if reading is None:
                reading = self.reading[code] = asyncio.ensure_future(
                    self.calls(self.store.room, code))
                reading.add_done_callback(lambda _: self.reading.pop(code, None))
            room = await asyncio.shield(reading)
            if room is None:
                self.rooms.pop(code, None)
                return None
            self.rooms[code] = room
        return self.rooms[code]

    async def refresh(self, code: str) -> None:
        """Read the room again and wake its waiting followers if it changed."""
        room = await self.calls(self.store.room, code)
        if room is None:
            self.rooms.pop(code, None)
        elif code in self.rooms and (self.rooms[code].version, self.rooms[code].closed) == (
                room.version, room.closed):
            return
        else:
            self.rooms[code] = room
        if code in self.changed:
            self.changed.pop(code).set()

    def following(self, code: str, voter: Voter) -> bool:
        """Whether voter's screen is waiting on the room in this process now."""
        return voter.token in self.waiting.get(code, ())

    def holding(self, code: str, voter: Voter) -> int:
        return self.waiting.get(code, {}).get(voter.token, 0)

    def close(self) -> None:
        """The server is stopping: every held wait is answered now (it would hold the
        shutdown up to WAIT seconds), and none is held from now on."""
        self.closing = True
        for event in self.changed.values():
            event.set()

    async def until_changed(self, code: str, voter: Voter | None, network: str,
                            gone: asyncio.Future) -> None:
        """Wait for the room to change, the request to be dropped, the server to stop, or WAIT
        seconds."""
        if self.closing:
            return
        event = self.changed.setdefault(code, asyncio.Event())
        who = self.waiting.setdefault(code, {})
        if voter:
            who[voter.token] = who.get(voter.token, 0) + 1
            self.places.setdefault(code, {})[voter.token] = network
            self.recent.setdefault(code, {})[voter.token] = network
        self._start()
        try:
            waiter = asyncio.ensure_future(event.wait())
            await asyncio.wait([waiter, gone], timeout=WAIT,
                               return_when=asyncio.FIRST_COMPLETED)
            waiter.cancel()
        finally:
            if voter:
                who[voter.token] -= 1
                if not who[voter.token]:
                    del who[voter.token]
                    self.places.get(code, {}).pop(voter.token, None)
            if not who:
                self.waiting.pop(code, None)
                self.places.pop(code, None)

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
                versions = await self.calls(self.store.versions, codes)
                for code in codes:
                    known = self.rooms.get(code)
                    if known is None or versions.get(code) != (known.version, known.closed):
                        await self.refresh(code)
                if time.monotonic() - reported >= REPORT:
                    reported = time.monotonic()
                    for code in codes:  # who waits now, and who came and went meanwhile
                        present = self.recent.pop(code, {}) | self.places.get(code, {})
                        await self.calls(self.store.seen, code, present)
        self.rooms.clear()  # nobody waits: the next follower reads afresh
        self.recent.clear()

    async def failure(self) -> str:
        """What keeps the store from being read and written ("" when it works), checked at
        most every HEALTH_SECONDS, on a thread of its own: a check that takes longer than
        HEALTH_DEADLINE says the store is down, and none other starts while it hangs."""
        checked, failed = self.health
        if time.monotonic() - checked < HEALTH_SECONDS:
            return failed
        if self.checking is None or self.checking.done():
            self.checking = asyncio.ensure_future(asyncio.to_thread(self.store.health))
            self.checking.add_done_callback(_retrieved)  # read below, or by nobody (timed out)
        try:
            await asyncio.wait_for(asyncio.shield(self.checking), HEALTH_DEADLINE)
            failed = ""
        except StoreDown as down:
            failed = str(down)
        except TimeoutError:
            failed = f"the store did not answer within {HEALTH_DEADLINE} s"
        self.health = (time.monotonic(), failed)
        return failed


def _retrieved(done: asyncio.Future) -> None:
    """Read a future's outcome (a failure nobody waits for any more is not an error)."""
    if not done.cancelled():
        done.exception()


_watch: Watch | None = None
_shown: dict[str, Callable[[], Screens]] = {}  # the function that gives the app's Screens


@functools.cache
def _screens() -> Screens:
    """The app's Screens, asked for on first use: by then the server has started, and whatever
    the app's modules set up at import (Streamlit's caches) finds it running."""
    return _shown["screens"]()


def watch() -> Watch:
    global _watch
    if _watch is None:
        _watch = Watch(shared_store())
    return _watch


def stopping() -> None:
    """The server is stopping: its followers' held waits are answered now."""
    if _watch is not None:
        _watch.close()


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


@dataclass(frozen=True)
class Entry:
    """A request to a room's route, as checked on arrival."""

    who: str             # the client's address
    network: str         # the same, as the room keeps it (signing.network)
    code: str
    member: bool         # it showed a membership proof, a voter id or a key of the room
    voter: Voter | None  # the browser's voter id for the room


async def _enter(request: Request, key: object = None, ticketed: bool = False
                 ) -> Entry | Response:
    """Who asks, for which room, and whether as a member of it; or the refusal: a malformed
    code (a wrong one too), or too many wrong codes from the client's network lately, which
    refuses only requests that show no membership (a proof that the browser was in the room,
    its voter id, the QR code's ticket (ticketed), or the room's key: from the cookie, or key
    as the body gives it)."""
    rooms = watch()
    who = _who(request)
    network = rooms.store.network(who)
    code = normal_code(request.path_params["code"])
    if code is None:
        await rooms.calls(rooms.store.spend, WRONG, network, True)
        return _refused("bad_code", 400)
    now = time.time()
    voter = rooms.store.voter(code, request.cookies.get(VOTER_COOKIE))
    member = ticketed or voter is not None or any(
        signing.was_in(rooms.store.secret, proof, code, now)
        for proof in (request.query_params.get("j"), request.cookies.get(JOINED_COOKIE)))
    held = key if key is not None else request.cookies.get(key_cookie(code))
    if not member and held is not None:
        member = await rooms.calls(rooms.store.holds_key, code, held)
    if not member and (wait := await rooms.calls(rooms.store.wait, WRONG, network)):
        return _refused("too_many", 429, wait)
    return Entry(who, network, code, member, voter)


async def _wrong(entry: Entry) -> JSONResponse:
    """A room that is not there: gone, to a member; else a wrong code, counted."""
    if entry.member:
        return _refused("gone", 410)
    await watch().calls(watch().store.spend, WRONG, entry.network, True)
    return _refused("no_room", 404)


def _lang(request: Request) -> str:
    asked = request.query_params.get("lang", "")
    langs = _screens().langs
    return asked if asked in langs else next(iter(langs))


async def follow(request: Request) -> Response:
    try:
        entry = await _enter(request)
        if isinstance(entry, Response):
            return entry
        rooms = watch()
        if wait := (VOTER_REQUESTS.take(entry.voter.token) if entry.voter
                    else FOLLOWS.take(entry.who)):
            return _refused("too_many", 429, wait)
        try:
            known = int(request.query_params.get("v", "-1"))
        except ValueError:
            known = -1
        room = await rooms.room(entry.code)
        if room is not None and room.version == known and not room.closed:
            if entry.voter and rooms.holding(entry.code, entry.voter) >= HELD_PER_VOTER:
                return _refused("too_many", 429, DOWN_RETRY)
            gone = asyncio.ensure_future(_dropped(request))
            try:
                await rooms.until_changed(entry.code, entry.voter, entry.network, gone)
            finally:
                gone.cancel()
            room = rooms.rooms.get(entry.code) or await rooms.room(entry.code)
        if room is None:
            return await _wrong(entry)
        made = await rooms.reply(room, _lang(request))
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
    """The request's JSON object, read only as far as MAX_BODY + 1 bytes, within
    BODY_SECONDS."""
    if not request.headers.get("content-type", "").startswith("application/json"):
        raise _Refusal(_refused("bad_request", 415))
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isdigit() or int(declared) > MAX_BODY):
        raise _Refusal(_refused("too_large", 413) if declared.isdigit() else
                       _refused("bad_request", 400))

    async def read() -> bytearray:
        body = bytearray()
        async for chunk in request.stream():
            body += chunk
            if len(body) > MAX_BODY:
                raise _Refusal(_refused("too_large", 413))
        return body

    try:
        body = await asyncio.wait_for(read(), BODY_SECONDS)
    except TimeoutError:
        raise _Refusal(_refused("too_slow", 408)) from None
    try:
        sent = json.loads(body)
    except (ValueError, RecursionError):  # malformed, or nested past what the parser takes
        raise _Refusal(_refused("bad_request", 400)) from None
    if not isinstance(sent, dict):
        raise _Refusal(_refused("bad_request", 400))
    return sent


def _posted(handler, key_in_body: bool = False):
    """A POST route of a room: its body bounded, its arrival checked (_enter), a client that
    hangs up mid-body answered quietly, a failed store answered with 503."""
    async def route(request: Request) -> Response:
        try:
            sent = await _json_body(request)
            entry = await _enter(request, sent.get("key") if key_in_body else None)
            if isinstance(entry, Response):
                return entry
            return await handler(request, entry, sent)
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


def _cookie(response: Response, request: Request, name: str, value: str, seconds: float,
            samesite: str = "lax") -> None:
    """Set a cookie of the rooms': HttpOnly always (no script in a page reads it), Secure over
    https."""
    response.set_cookie(name, value, max_age=max(60, int(seconds)), path="/",
                        secure=_secure(request), httponly=True, samesite=samesite)


async def _publish(request: Request, entry: Entry, sent: dict) -> Response:
    page, query = sent.get("page"), sent.get("query")
    if not isinstance(page, str) or not isinstance(query, str):
        return _refused("bad_request", 400)
    rooms = watch()
    if not await rooms.calls(rooms.store.holds_key, entry.code,
                             request.cookies.get(key_cookie(entry.code))):
        return await _not_lecturer(entry)
    try:
        version = await rooms.calls(rooms.store.set_view, entry.code, page, query)
    except StoreDown:
        raise
    except RoomError as refused:
        return _refused(refused.reason, 409 if refused.reason in ("room_closed", "no_room")
                        else 400)
    await rooms.refresh(entry.code)  # followers here need not wait for the next tick
    return JSONResponse({"version": version}, headers=NO_STORE)


async def _not_lecturer(entry: Entry) -> Response:
    """A wrong key (or none): 403, counted as a wrong code; a room that is not there, as such."""
    rooms = watch()
    if await rooms.calls(rooms.store.room, entry.code) is None:
        return await _wrong(entry)
    await rooms.calls(rooms.store.spend, WRONG, entry.network, True)
    return _refused("not_lecturer", 403)


async def _vote(request: Request, entry: Entry, sent: dict) -> Response:
    poll, option, sure = sent.get("poll"), sent.get("option"), sent.get("sure")
    if not isinstance(poll, str) or not isinstance(option, int) or isinstance(option, bool) \
            or sure not in (None, True, False):
        return _refused("bad_request", 400)
    rooms = watch()
    if entry.voter is None:  # no voter id for this room: the projector's word issues one
        return await _wrong(entry) if await rooms.calls(rooms.store.room, entry.code) is None \
            else _refused("need_word", 403)
    try:
        await rooms.calls(rooms.store.vote, entry.code, poll, entry.voter.token, option,
                          entry.network, rooms.following(entry.code, entry.voter), sure)
    except StoreDown:
        raise
    except RoomError as refused:
        if refused.reason == "no_room":
            return await _wrong(entry)
        if refused.reason == "need_word":
            return _refused("need_word", 429, refused.wait)
        return _refused(refused.reason, 409)
    return JSONResponse({"mine": option, "sure": sure}, headers=NO_STORE)


async def _word(request: Request, entry: Entry, sent: dict) -> Response:
    """The projector's word, typed: the browser's voter id shows it was in the hall from now on
    (the same voter: its answers stay), or one is issued (within PRESENT_MINTS)."""
    rooms = watch()
    room = await rooms.calls(rooms.store.room, entry.code)
    if room is None or room.closed:
        return await _wrong(entry) if room is None else _refused("room_closed", 409)
    if not signing.worded(rooms.store.secret, sent.get("word"), entry.code, time.time()):
        await rooms.calls(rooms.store.spend, WRONG, entry.network, True)
        return _refused("wrong_word", 403)
    if entry.voter is not None and entry.voter.present:
        return JSONResponse({"present": True}, headers=NO_STORE)
    token = await _issue(entry, room, present=True)
    if token is None:
        return _refused("too_many", 429, await rooms.calls(rooms.store.wait, PRESENT_MINTS,
                                                           entry.network))
    reply = JSONResponse({"present": True}, headers=NO_STORE)
    _cookie(reply, request, VOTER_COOKIE, token, room.expires - time.time())
    return reply


async def _issue(entry: Entry, room: Room, present: bool) -> str | None:
    """A voter id for the browser: its own made present (the same voter), or a new one within
    its network's rate of ids (PRESENT_MINTS with a proof of presence, else MINTS); None past
    it."""
    rooms = watch()
    if present and entry.voter is not None:
        return await rooms.calls(rooms.store.new_voter, room.code, True, entry.voter)
    if await rooms.calls(rooms.store.spend, PRESENT_MINTS if present else MINTS, entry.network):
        return None
    return await rooms.calls(rooms.store.new_voter, room.code, present)


async def _lead(request: Request, entry: Entry, sent: dict) -> Response:
    rooms = watch()
    key = sent.get("key")
    if not await rooms.calls(rooms.store.holds_key, entry.code, key):
        return await _not_lecturer(entry)
    room = await rooms.calls(rooms.store.room, entry.code)
    if room is None or room.closed:
        return _refused("room_closed", 409)
    answer = Response(status_code=204, headers=NO_STORE)
    _cookie(answer, request, key_cookie(entry.code), key, room.expires - time.time(), "strict")
    return answer


async def _forget(request: Request, entry: Entry, sent: dict) -> Response:
    rooms = watch()
    if not entry.member and await rooms.calls(rooms.store.room, entry.code) is None:
        return await _wrong(entry)
    answer = Response(status_code=204, headers=NO_STORE)
    for name, samesite in ((key_cookie(entry.code), "strict"), (lead_cookie(entry.code), "lax")):
        answer.delete_cookie(name, path="/", secure=_secure(request), httponly=True,
                             samesite=samesite)
    return answer


publish, vote, word, lead, forget = (_posted(_publish), _posted(_vote), _posted(_word),
                                     _posted(_lead, key_in_body=True), _posted(_forget))


async def viewer(request: Request) -> Response:
    """The follower's page, with the cookies that make this browser a member of the room: its
    voter id for the room (kept when it has one; made present by the QR code's ticket; else
    issued within its network's rate, or none: the screen then asks for the projector's word
    when its reader answers) and the proof that it was in the room. The ticket, or an earlier
    proof, lets it in whatever the wrong codes from its network; a wrong code counts as one,
    and the page says there is no such room (or, to a member, that it ended)."""
    rooms = watch()
    store = rooms.store
    asked = request.query_params.get("lang")
    langs = _screens().langs
    chosen = asked in langs
    lang = asked if chosen else next(
        (each for each in langs if request.headers.get("accept-language", "")[:2] == each),
        next(iter(langs)))

    def page(code: str, state: str, status: int, proof: str = "", voter: str = "",
             wait: float = 0.0) -> HTMLResponse:
        shown = _screens().viewer(code, proof, lang, chosen, state, voter=voter,
                                  wait=int(wait) + 1 if wait else 0)
        return HTMLResponse(shown, status, headers=NO_STORE | (
            {"Retry-After": retry_after(wait)} if wait else {}))

    try:
        now = time.time()
        code = normal_code(request.path_params["code"]) or ""
        ticketed = bool(code) and signing.ticketed(store.secret, request.query_params.get("t"),
                                                   code, now)
        entry = await _enter(request, ticketed=ticketed)
        if isinstance(entry, Response):  # too many wrong codes lately, or a malformed one
            wait = float(entry.headers.get("retry-after", 0))
            return page(code, "too_many" if wait else "unknown", entry.status_code, wait=wait)
        member = entry.member
        if not member and (wait := FOLLOWS.take(entry.who)):
            return page(code, "too_many", 429, wait=wait)
        room = await rooms.calls(store.room, entry.code)
        if room is None or room.closed:
            if not member:
                await rooms.calls(store.spend, WRONG, entry.network, True)
            return page(entry.code, "ended" if member else "unknown", 410 if member else 404)
        voter, token = entry.voter, None
        if voter is None or (ticketed and not voter.present):
            token = await _issue(entry, room, present=ticketed)
            voter = store.voter(room.code, token) if token else voter
        proof = signing.joined(store.secret, room.code, room.expires)
        tier = "" if voter is None else "present" if voter.present else "code"
        shown = page(room.code, "open", 200, proof, tier)
    except StoreDown:
        return _down()
    if token:
        _cookie(shown, request, VOTER_COOKIE, token, room.expires - now)
    _cookie(shown, request, JOINED_COOKIE, proof, room.expires - now)
    return shown


class KeyLinks:
    """A lecturer link (`?room=CODE&lead=TOKEN`, any page of the app) is answered with a
    redirect to the same page without the token, which meanwhile went into its HttpOnly cookie
    (for LEAD_SECONDS): the app's page, which only a browser that runs it opens (not a chat's
    link preview), uses the token up and makes this browser a lecturer. The token never stands
    in the address bar, and the one that history keeps was used. A key in an address (a link
    of an earlier kind) is taken out the same way and leads nothing: it counts as a wrong code,
    and the page says so."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        query = scope.get("query_string", b"")
        if scope["type"] != "http" or scope["method"] != "GET" or (
                b"lead=" not in query and b"key=" not in query) or scope["path"].startswith(
                    ("/_stcore/", "/_posviz/", "/static/", "/app/static/")):
            return await self.app(scope, receive, send)
        request = Request(scope, receive)
        params = parse_qsl(query.decode("latin-1"), keep_blank_values=True)
        token = next((value for name, value in params if name == "lead"), None)
        keyed = any(name == "key" for name, _ in params)
        kept = [(name, value) for name, value in params if name not in ("lead", "key")]
        code = normal_code(next((value for name, value in params if name == "room"), None))
        if keyed:
            rooms = watch()
            with contextlib.suppress(StoreDown):  # the page says the rooms are down
                await rooms.calls(rooms.store.spend, WRONG, rooms.store.network(_who(request)),
                                  True)
            kept.append(("lead_refused", "1"))
        answer = RedirectResponse(f"{scope['path']}?{urlencode(kept)}", 303, headers=NO_STORE)
        if token and code is not None and not keyed:
            _cookie(answer, request, lead_cookie(code), token[:100], LEAD_SECONDS)
        await answer(scope, receive, send)


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


def routes(screens: Callable[[], Screens]) -> list[Route]:
    """The rooms' routes, showing rooms to their followers with the Screens that screens()
    gives (the app's, asked for once, on first use)."""
    _shown["screens"] = screens
    return [Route("/_posviz/health", health, methods=["GET"]),
            Route("/_posviz/follow/{code}", viewer, methods=["GET"]),
            Route("/_posviz/asset/{name}", asset, methods=["GET"]),
            Route("/_posviz/room/{code}", follow, methods=["GET"]),
            Route("/_posviz/room/{code}/view", publish, methods=["POST"]),
            Route("/_posviz/room/{code}/vote", vote, methods=["POST"]),
            Route("/_posviz/room/{code}/word", word, methods=["POST"]),
            Route("/_posviz/room/{code}/lead", lead, methods=["POST"]),
            Route("/_posviz/room/{code}/forget", forget, methods=["POST"])]
