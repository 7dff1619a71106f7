"""A student's answers: the vote (POST /_posviz/room/{code}/vote, {poll, option, sure}) and the
projector's word (POST /_posviz/room/{code}/word, {word}), which shows the browser was in the
hall; and the voter ids both hand out (`issue`).

On the hall's network for the room (rooms.throttle.HALL: a browser there showed the QR code's
ticket or the word lately) every word is compared, whatever else the network sends: a prankster
behind the class's address keeps no classmate out, newcomer or one who mistyped. Elsewhere a
voter id's first word is its own (FIRST_WORD): compared whatever its network typed before.
Every other word spends its network's budget for the room (WORDS), taken before the word is
compared and given back when it is right: a network past it is answered 429 whatever it types.
Wrong words are counted for the room's lecturer (GUESSED), who can give the room a new word.
"""

from __future__ import annotations

import time

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from rooms import signing
from rooms.records import VOTER_COOKIE, Rate, Room, RoomError
from rooms.routes.arrival import NO_STORE, Entry, refused, wrong
from rooms.routes.cookies import set_cookie
from rooms.routes.service import RoomService
from rooms.signing import Voter
from rooms.throttle import FIRST_WORD, GUESSED, HALL, MINTS, WORD_MINTS, WORDS


async def issue(service: RoomService, entry: Entry, room: Room, rate: Rate) -> str | None:
    """A voter id for the browser within its network's rate of ids (MINTS for the code alone,
    PRESENT_MINTS with the QR code's ticket, WORD_MINTS with the projector's word), or its own
    made present (the same voter, nothing spent) when rate is not MINTS; None past the rate. A
    present id makes its network the hall's for the room (HALL)."""
    present = rate is not MINTS
    if present and entry.voter is not None:
        token = await service.calls.new_voter(room.code, True, entry.voter)
    elif await service.calls.spend(rate, entry.network):
        return None
    else:
        token = await service.calls.new_voter(room.code, present)
    if present:
        await service.calls.spend(HALL, f"{room.code}:{entry.network}", True)
    return token


async def word_proof(service: RoomService, room: Room, voter: Voter | None, network: str,
                     typed: object) -> tuple[bool, float]:
    """Whether typed is the open room's word now, and the seconds to wait when the guess has no
    budget left (then typed is not even compared and nothing is written): on the hall's
    network, always compared; elsewhere the voter id's own first guess, else its network's
    budget of words for the room."""
    rate, budget = None, f"{room.code}:{network}"
    if not await service.calls.wait(HALL, budget):  # not the hall's network: budgeted
        rate, budget = FIRST_WORD, f"{room.code}:{voter.id}" if voter is not None else ""
        if not budget or await service.calls.spend(rate, budget):
            rate, budget = WORDS, f"{room.code}:{network}"
            if wait := await service.calls.spend(rate, budget):
                return False, wait
    if signing.worded(service.rooms.secret, typed, room.code, time.time(), room.word):
        if rate is not None:
            await service.calls.give_back(rate, budget)
        return True, 0.0
    await service.calls.spend(GUESSED, room.code, True)
    return False, 0.0


async def vote(service: RoomService, request: Request, entry: Entry, sent: dict) -> Response:
    """The cookie's voter answers a question: a forged id is told so (bad_voter), a browser
    without an id for the room is asked for the projector's word (need_word)."""
    poll, option, sure = sent.get("poll"), sent.get("option"), sent.get("sure")
    if not isinstance(poll, str) or not isinstance(option, int) or isinstance(option, bool) \
            or sure not in (None, True, False):
        return refused("bad_request", 400)
    if entry.voter is None:  # no voter id for this room: the projector's word issues one
        if await service.calls.room(entry.code) is None:
            return await wrong(service, entry)
        return refused("bad_voter" if entry.forged else "need_word", 403)
    try:
        await service.calls.vote(entry.code, poll, entry.voter, option, entry.network,
                                 service.hub.following(entry.code, entry.voter), sure)
    except RoomError as refusal:
        if refusal.reason == "no_room":
            return await wrong(service, entry)
        if refusal.reason == "need_word":  # 429 when waiting helps
            return refused("need_word", 429 if refusal.wait else 403, refusal.wait)
        return refused(refusal.reason, 409)
    return JSONResponse({"mine": option, "sure": sure}, headers=NO_STORE)


async def word(service: RoomService, request: Request, entry: Entry, sent: dict) -> Response:
    """The projector's word, typed: the browser's voter id shows it was in the hall from now on
    (the same voter: its answers stay), or one is issued (within WORD_MINTS)."""
    room = await service.calls.room(entry.code)
    if room is None or room.closed:
        return await wrong(service, entry) if room is None else refused("room_closed", 409)
    right, wait = await word_proof(service, room, entry.voter, entry.network, sent.get("word"))
    if wait:
        return refused("too_many", 429, wait)
    if not right:
        return refused("wrong_word", 403)
    if entry.voter is not None and entry.voter.present:
        return JSONResponse({"present": True}, headers=NO_STORE)
    token = await issue(service, entry, room, WORD_MINTS)
    if token is None:
        return refused("too_many", 429, await service.calls.wait(WORD_MINTS, entry.network))
    reply = JSONResponse({"present": True}, headers=NO_STORE)
    set_cookie(reply, request, VOTER_COOKIE, token, room.expires - time.time())
    return reply
