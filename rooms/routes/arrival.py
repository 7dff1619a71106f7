"""What every request to a room's route passes on arrival: who asks (its address, its network),
for which room, whether as a member of it (`enter`); its body, bounded before it is read
(`json_body`); and the refusals said the same way on every route.

Every room route counts a wrong code the same way (a code that names no room, asked by a
browser that shows no proof of having been in it), against one budget per network kept in the
store, shared by every server process (rooms.throttle.WRONG): such a request takes a token on
arrival, before its code is looked up, and gets it back when the code is right, so guesses sent
at once cannot overdraw the budget. Past it, the network's requests are answered 429 with
Retry-After, except those that carry a membership proof, a voter id or a
key of the room, and those for an open room that screens from the same network follow (the
classmates of a script's address): a script guessing codes never cuts the class behind its
address off, and a trickle of wrong codes keeps out no newcomer who types the right one.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response

from rooms import signing
from rooms.address import client_address
from rooms.records import JOINED_COOKIE, VOTER_COOKIE, StoreDown, key_cookie, normal_code
from rooms.routes.service import RoomService
from rooms.signing import Voter
from rooms.throttle import WRONG, retry_after

MAX_BODY = 16_384  # bytes of a request's body (a published view is far smaller)
BODY_SECONDS = 10.0  # for a body to arrive whole
DOWN_RETRY = 5     # seconds a browser waits before asking again while the store is down
NO_STORE = {"Cache-Control": "no-store"}


@dataclass(frozen=True)
class Entry:
    """A request to a room's route, as checked on arrival."""

    who: str             # the client's address
    network: str         # the same, as the room keeps it (signing.network)
    code: str
    member: bool         # it showed a membership proof, a voter id or a key of the room
    voter: Voter | None  # the browser's voter id for the room
    forged: bool         # it offered a voter id this server never signed


def who(request: Request) -> str:
    """The client's address (rooms.address)."""
    return client_address(request.client.host if request.client else None,
                          request.headers.get("x-forwarded-for"))


def refused(error: str, status: int, wait: float = 0.0) -> JSONResponse:
    headers = NO_STORE | ({"Retry-After": retry_after(wait)} if wait else {})
    return JSONResponse({"error": error}, status, headers=headers)


def down() -> JSONResponse:
    return refused("store_down", 503, DOWN_RETRY)


async def enter(service: RoomService, request: Request, key: object = None,
                proven: bool = False) -> Entry | Response:
    """Who asks, for which room, and whether as a member of it; or the refusal: a malformed
    code (a wrong one too), or too many wrong codes from the client's network lately, which
    refuses only requests that show no membership (a proof that the browser was in the room,
    its voter id, a proof of presence (proven: the QR code's ticket, the projector's word), or
    the room's key: from the cookie, or key as the body gives it) and that ask for no room
    followed from their own network."""
    rooms = service.rooms
    address = who(request)
    network = rooms.network(address)
    code = normal_code(request.path_params["code"])
    if code is None:
        await service.calls.spend(WRONG, network, True)
        return refused("bad_code", 400)
    now = time.time()
    offered = request.cookies.get(VOTER_COOKIE)
    voter = rooms.voter(code, offered)
    member = proven or voter is not None or any(
        signing.was_in(rooms.secret, proof, code, now)
        for proof in (request.query_params.get("j"), request.cookies.get(JOINED_COOKIE)))
    held = key if key is not None else request.cookies.get(key_cookie(code))
    if not member and held is not None:
        member = await service.calls.holds_key(code, held)
    if not member and (wait := await service.calls.arrive(code, network)):
        return refused("too_many", 429, wait)
    return Entry(address, network, code, member, voter, signing.forged(rooms.secret, offered))


async def wrong(service: RoomService, entry: Entry) -> JSONResponse:
    """A room that is not there: gone, to a member; else a wrong code (counted on arrival)."""
    return refused("gone", 410) if entry.member else refused("no_room", 404)


class Refusal(Exception):
    """A request refused before its route runs: the answer to send."""

    def __init__(self, response: Response) -> None:
        self.response = response


async def json_body(request: Request) -> dict:
    """The request's JSON object, read only as far as MAX_BODY + 1 bytes, within
    BODY_SECONDS."""
    if not request.headers.get("content-type", "").startswith("application/json"):
        raise Refusal(refused("bad_request", 415))
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isdigit() or int(declared) > MAX_BODY):
        raise Refusal(refused("too_large", 413) if declared.isdigit() else
                      refused("bad_request", 400))

    async def read() -> bytearray:
        body = bytearray()
        async for chunk in request.stream():
            body += chunk
            if len(body) > MAX_BODY:
                raise Refusal(refused("too_large", 413))
        return body

    try:
        body = await asyncio.wait_for(read(), BODY_SECONDS)
    except TimeoutError:
        raise Refusal(refused("too_slow", 408)) from None
    try:
        sent = json.loads(body)
    except (ValueError, RecursionError):  # malformed, or nested past what the parser takes
        raise Refusal(refused("bad_request", 400)) from None
    if not isinstance(sent, dict):
        raise Refusal(refused("bad_request", 400))
    return sent


Posted = Callable[[RoomService, Request, Entry, dict], Awaitable[Response]]


def posted(handler: Posted, key_in_body: bool = False
           ) -> Callable[[RoomService, Request], Awaitable[Response]]:
    """A POST route of a room: its body bounded, its arrival checked (enter), a client that
    hangs up mid-body answered quietly, a failed store answered with 503."""
    async def route(service: RoomService, request: Request) -> Response:
        try:
            sent = await json_body(request)
            entry = await enter(service, request, sent.get("key") if key_in_body else None)
            if isinstance(entry, Response):
                return entry
            return await handler(service, request, entry, sent)
        except Refusal as refusal:
            return refusal.response
        except ClientDisconnect:
            return Response(status_code=400)  # nobody is left to read it
        except StoreDown:
            return down()
    route.__name__, route.__doc__ = handler.__name__, handler.__doc__
    return route
