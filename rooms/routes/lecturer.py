"""The lecturer's routes: publishing the view (POST /_posviz/room/{code}/view, {page, query},
with the room's key in its HttpOnly cookie), handing the key to that cookie (POST .../lead,
{key}: a page script cannot set a cookie that script cannot read back), and deleting it and a
lecturer link's token (POST .../forget: Leave, Close).

And `KeyLinks`, a middleware on the app's pages:
- every browser opening one is given its holder cookie (HOLDER_COOKIE, HttpOnly), under which
  the room it starts keeps its key (Rooms.hold_key) until the key's own cookie is set: a reload
  right after Start a room leaves the lecturer in charge;
- a page opened from the lecturer's link that the server printed at start (`?lecturer=SECRET`)
  is answered with a redirect to the same page without it, and the browser is marked as the
  lecturer's (LECTURER_COOKIE, HttpOnly, signed: ui.lecturer reads it);
- a page opened from a one-time lecturer link (`?room=CODE&lead=TOKEN`) is answered with a
  redirect to the same page of this server without the token, which meanwhile went into an
  HttpOnly cookie for the app's page to use up; no key ever stands in an address, and the token
  a browser's history keeps leads nothing once used. A key in an address (a link of an earlier
  kind) is taken out the same way and leads nothing: it counts as a wrong code.
"""

from __future__ import annotations

import contextlib
import secrets
import time
from urllib.parse import parse_qsl, quote, urlencode

from starlette.datastructures import MutableHeaders
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response

from rooms import signing
from rooms.records import (
    HOLDER_COOKIE,
    LECTURER_COOKIE,
    ROOM_SECONDS,
    RoomError,
    StoreDown,
    key_cookie,
    lead_cookie,
    normal_code,
)
from rooms.routes.arrival import NO_STORE, Entry, refused, who, wrong
from rooms.routes.cookies import delete_cookie, secure, set_cookie
from rooms.routes.service import RoomService
from rooms.throttle import WRONG

LEAD_SECONDS = 600  # how long a lecturer link's token waits in its cookie for the app's page
NOT_PAGES = ("/_stcore/", "/_posviz/", "/static/", "/app/static/")  # the server's, not pages


async def _not_lecturer(service: RoomService, entry: Entry) -> Response:
    """A wrong key (or none): 403, counted as a wrong code; a room that is not there, as such."""
    if await service.calls.room(entry.code) is None:
        return await wrong(service, entry)
    await service.calls.spend(WRONG, entry.network, True)
    return refused("not_lecturer", 403)


async def publish(service: RoomService, request: Request, entry: Entry, sent: dict
                  ) -> Response:
    """The lecturer's page publishes its view."""
    page, query = sent.get("page"), sent.get("query")
    if not isinstance(page, str) or not isinstance(query, str):
        return refused("bad_request", 400)
    if not await service.calls.holds_key(entry.code, request.cookies.get(key_cookie(entry.code))):
        return await _not_lecturer(service, entry)
    try:
        version = await service.calls.set_view(entry.code, page, query,
                                               service.screens().personal)
    except RoomError as refusal:
        return refused(refusal.reason, 409 if refusal.reason in ("room_closed", "no_room")
                       else 400)
    await service.hub.refresh(entry.code)  # followers here need not wait for the next tick
    return JSONResponse({"version": version}, headers=NO_STORE)


async def lead(service: RoomService, request: Request, entry: Entry, sent: dict) -> Response:
    """The key into its HttpOnly cookie; the key the room held for this browser is let go."""
    key = sent.get("key")
    if not await service.calls.holds_key(entry.code, key):
        return await _not_lecturer(service, entry)
    room = await service.calls.room(entry.code)
    if room is None or room.closed:
        return refused("room_closed", 409)
    await service.calls.let_go(entry.code, request.cookies.get(HOLDER_COOKIE))
    answer = Response(status_code=204, headers=NO_STORE)
    set_cookie(answer, request, key_cookie(entry.code), key, room.expires - time.time(),
               "strict")
    return answer


async def forget(service: RoomService, request: Request, entry: Entry, sent: dict
                 ) -> Response:
    """Leave or Close: the key's cookie, a lecturer link's token and the key the room held for
    this browser go."""
    if not entry.member and await service.calls.room(entry.code) is None:
        return await wrong(service, entry)
    await service.calls.let_go(entry.code, request.cookies.get(HOLDER_COOKIE))
    answer = Response(status_code=204, headers=NO_STORE)
    delete_cookie(answer, request, key_cookie(entry.code), "strict")
    delete_cookie(answer, request, lead_cookie(entry.code))
    return answer


def same_server(path: str) -> str:
    """path as an address on this server whatever the client sent: one leading slash (never
    `//host`, which a browser reads as another server), no backslash a browser reads as one,
    every other character escaped."""
    relative = path.replace("\\", "/").lstrip("/")
    return "/" + quote(relative, safe="/-._~!$&'()*+,;=:@")


def without_secret(path: str, kept: list[tuple[str, str]]) -> str:
    """The same page of this server with the query left once a link's secret is taken out (no
    bare `?` when nothing is left)."""
    return same_server(path) + (f"?{urlencode(kept)}" if kept else "")


class KeyLinks:
    """A middleware on the app's pages: the browser's holder cookie, and lecturer links
    answered without their token (see the module's docstring)."""

    def __init__(self, app, service: RoomService) -> None:
        self.app, self.service = app, service

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http" or scope["method"] != "GET" or scope["path"].startswith(
                NOT_PAGES):
            return await self.app(scope, receive, send)
        request = Request(scope, receive)
        query = scope.get("query_string", b"")
        if b"lecturer=" in query:
            return await self._lecturer(request, scope, receive, send)
        if b"lead=" in query or b"key=" in query:
            return await self._link(request, scope, receive, send)
        if HOLDER_COOKIE in request.cookies:
            return await self.app(scope, receive, send)

        async def holding(message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                cookie = Response()
                _holder(cookie, request)
                headers.append("set-cookie", cookie.headers["set-cookie"])
            await send(message)
        await self.app(scope, receive, holding)

    async def _lecturer(self, request: Request, scope, receive, send) -> None:
        """The lecturer's link (the one the server printed at start): the same page without
        its secret, and the browser marked as the lecturer's (an HttpOnly cookie, signed); a
        wrong secret counts as a wrong code, and the page says so."""
        params = parse_qsl(scope["query_string"].decode("latin-1"), keep_blank_values=True)
        kept = [(name, value) for name, value in params if name != "lecturer"]
        rooms = self.service.rooms
        right = any(signing.is_lecturer_token(rooms.secret, value)
                    for name, value in params if name == "lecturer")
        if not right:
            with contextlib.suppress(StoreDown):  # the page says the rooms are down
                await self.service.calls.spend(WRONG, rooms.network(who(request)), True)
            kept.append(("lecturer_refused", "1"))
        answer = RedirectResponse(without_secret(scope["path"], kept), 303, headers=NO_STORE)
        if right:
            set_cookie(answer, request, LECTURER_COOKIE,
                       signing.lecturer_mark(rooms.secret, time.time()), signing.LECTURER_SECONDS)
        if HOLDER_COOKIE not in request.cookies:
            _holder(answer, request)
        await answer(scope, receive, send)

    async def _link(self, request: Request, scope, receive, send) -> None:
        params = parse_qsl(scope["query_string"].decode("latin-1"), keep_blank_values=True)
        token = next((value for name, value in params if name == "lead"), None)
        keyed = any(name == "key" for name, _ in params)
        kept = [(name, value) for name, value in params if name not in ("lead", "key")]
        code = normal_code(next((value for name, value in params if name == "room"), None))
        if keyed:
            rooms = self.service.rooms
            with contextlib.suppress(StoreDown):  # the page says the rooms are down
                await self.service.calls.spend(WRONG, rooms.network(who(request)), True)
            kept.append(("lead_refused", "1"))
        answer = RedirectResponse(without_secret(scope["path"], kept), 303, headers=NO_STORE)
        if token and code is not None and not keyed:
            set_cookie(answer, request, lead_cookie(code), token[:100], LEAD_SECONDS)
        if HOLDER_COOKIE not in request.cookies:
            _holder(answer, request)
        await answer(scope, receive, send)


def _holder(response: Response, request: Request) -> None:
    """A new holder cookie: a random name for this browser, kept as long as a room lasts."""
    response.set_cookie(HOLDER_COOKIE, secrets.token_urlsafe(18), max_age=ROOM_SECONDS,
                        path="/", secure=secure(request), httponly=True, samesite="lax")
