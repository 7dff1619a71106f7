"""Following a room: the follower's screen (`viewer`, GET /_posviz/follow/{code}) and the wait on
the room (`follow`, GET /_posviz/room/{code}?v=N&lang=L&j=PROOF).

The screen issues the browser its voter id for the room and its membership proof, as HttpOnly
cookies: kept when it has one; made present by the QR code's ticket (`t`) or the projector's
word (`w`); else issued within its network's rate, or none (the screen then asks for the
projector's word when its reader answers). The wait is answered when the room's version is not
N (at most hub.WAIT seconds), with the room drawn as a document in language L; a room that is
not there is 410 for a member (ended, or lost by the server), else 404, a wrong code.
"""

from __future__ import annotations

import asyncio
import time

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response

from rooms import signing
from rooms.records import JOINED_COOKIE, VOTER_COOKIE, StoreDown, normal_code
from rooms.routes.arrival import DOWN_RETRY, NO_STORE, down, enter, refused, who, wrong
from rooms.routes.cookies import set_cookie
from rooms.routes.service import RoomService
from rooms.routes.voting import issue, word_proof
from rooms.throttle import MINTS, PRESENT_MINTS, WORD_MINTS, retry_after

HELD_PER_VOTER = 4  # waits one voter id may hold at once (a phone, a laptop's few tabs)


async def _dropped(request: Request) -> None:
    """Returns when the client goes away (a closed tab ends its wait at once)."""
    while (await request.receive())["type"] != "http.disconnect":
        pass


def _lang(service: RoomService, request: Request) -> str:
    asked = request.query_params.get("lang", "")
    langs = service.screens().langs
    return asked if asked in langs else next(iter(langs))


async def follow(service: RoomService, request: Request) -> Response:
    """A follower's wait on its room: held until the room's version is not the one it has."""
    try:
        entry = await enter(service, request)
        if isinstance(entry, Response):
            return entry
        hub = service.hub
        if wait := (service.voter_requests.take(entry.voter.token) if entry.voter
                    else service.follows.take(entry.who)):
            return refused("too_many", 429, wait)
        try:
            known = int(request.query_params.get("v", "-1"))
        except ValueError:
            known = -1
        room = await hub.room(entry.code)
        if room is not None and room.version == known and not room.closed:
            if entry.voter and hub.holding(entry.code, entry.voter) >= HELD_PER_VOTER:
                return refused("too_many", 429, DOWN_RETRY)
            gone = asyncio.ensure_future(_dropped(request))
            try:
                await hub.until_changed(entry.code, entry.voter, entry.network, gone)
            finally:
                gone.cancel()
            room = hub.known.get(entry.code) or await hub.room(entry.code)
        if room is None:
            return await wrong(service, entry)
        made = await hub.reply(room, _lang(service, request))
    except StoreDown:
        return down()
    headers = NO_STORE | {"Vary": "Accept-Encoding"}
    if "gzip" in request.headers.get("accept-encoding", ""):
        return Response(made.packed, media_type="application/json",
                        headers=headers | {"Content-Encoding": "gzip"})
    return Response(made.plain, media_type="application/json", headers=headers)


async def viewer(service: RoomService, request: Request) -> Response:
    """The follower's page, with the cookies that make this browser a member of the room. The
    ticket or the word (a proof of presence), or an earlier membership proof, lets it in
    whatever the wrong codes from its network; a wrong code counts as one, and the page says
    there is no such room (or, to a member, that it ended)."""
    rooms = service.rooms
    asked = request.query_params.get("lang")
    langs = service.screens().langs
    chosen = asked in langs
    lang = asked if chosen else next(
        (each for each in langs if request.headers.get("accept-language", "")[:2] == each),
        next(iter(langs)))

    def page(code: str, state: str, status: int, proof: str = "", voter: str = "",
             wait: float = 0.0) -> HTMLResponse:
        shown = service.screens().viewer(code, proof, lang, chosen, state, voter=voter,
                                         wait=int(wait) + 1 if wait else 0)
        return HTMLResponse(shown, status, headers=NO_STORE | (
            {"Retry-After": retry_after(wait)} if wait else {}))

    try:
        now = time.time()
        code = normal_code(request.path_params["code"]) or ""
        ticketed = bool(code) and signing.ticketed(rooms.secret, request.query_params.get("t"),
                                                   code, now)
        worded, typed = False, request.query_params.get("w")
        if code and typed is not None and not ticketed:  # a word for a room that is open only:
            asked = await service.calls.room(code)      # none for a code that names nothing
            if asked is not None and not asked.closed:
                worded, wait = await word_proof(service, asked, rooms.voter(
                    code, request.cookies.get(VOTER_COOKIE)), rooms.network(who(request)), typed)
                if wait:
                    return page(code, "too_many", 429, wait=wait)
        entry = await enter(service, request, proven=ticketed or worded)
        if isinstance(entry, Response):  # too many wrong codes lately, or a malformed one
            wait = float(entry.headers.get("retry-after", 0))
            return page(code, "too_many" if wait else "unknown", entry.status_code, wait=wait)
        member = entry.member
        if not member and (wait := service.follows.take(entry.who)):
            return page(code, "too_many", 429, wait=wait)
        room = await service.calls.room(entry.code)
        if room is None or room.closed:  # a wrong code: counted on arrival
            return page(entry.code, "ended" if member else "unknown", 410 if member else 404)
        voter, token = entry.voter, None
        if request.method == "HEAD":  # a probe gets no id: ids are for screens that open
            pass
        elif voter is None or ((ticketed or worded) and not voter.present):
            rate = PRESENT_MINTS if ticketed else WORD_MINTS if worded else MINTS
            token = await issue(service, entry, room, rate)
            voter = rooms.voter(room.code, token) if token else voter
        proof = signing.joined(rooms.secret, room.code, room.expires)
        tier = "" if voter is None else "present" if voter.present else "code"
        shown = page(room.code, "open", 200, proof, tier)
    except StoreDown:
        return down()
    if token:
        set_cookie(shown, request, VOTER_COOKIE, token, room.expires - now)
    set_cookie(shown, request, JOINED_COOKIE, proof, room.expires - now)
    return shown
