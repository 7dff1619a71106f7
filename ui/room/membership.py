"""Who a session is in its lecture room, settled at the top of every page (ui.page), and the
room's messages for the page.

- the room code comes from the link (`?room=482913`), the home page's join box, or the session;
- a lecturer is whoever holds the room's key, which the tab hands over once to the server to
  set in its HttpOnly cookie: the key of the room it started, or the one a one-time lecturer
  link (`?lead=TOKEN`) gave it (rooms.routes.lecturer.KeyLinks moves the token from the
  address into a cookie, and the page uses it up: a link leads one browser, and no address,
  history entry or projector ever shows a key); a reload or a server restart keeps the
  lecturer in charge, and so does a reload right after Start a room, before the cookie is set
  (the room keeps the key for this browser meanwhile: Rooms.hold_key); Leave and Close delete
  it;
- a student's anonymous voter id for the room is issued and signed by the server's room screen
  (rooms.routes.follow), in an HttpOnly cookie (one vote per browser, not per tab); a tab
  without one answers on the room's screen.

Wrong codes and links count against the session's network in the store every server process
shares (rooms.throttle), and a store that fails gives a message in the reader's language while
the lesson goes on. Messages for the top of the page are collected here (`note`, `notes`).
"""

from __future__ import annotations

import contextlib
import functools
import time
from dataclasses import dataclass

import streamlit as st

from rooms import (
    HOLDER_COOKIE,
    JOINED_COOKIE,
    VOTER_COOKIE,
    Limits,
    Room,
    RoomError,
    StoreDown,
    key_cookie,
    lead_cookie,
    normal_code,
    signing,
    spaced,
)
from rooms.address import client_address
from rooms.signing import Voter
from rooms.throttle import WRONG
from ui.i18n import text
from ui.room import keys
from ui.services import rooms
from ui.state import history_navigation, to_url


@dataclass(frozen=True)
class Member:
    """This session in its room, as settled at the top of the run."""

    code: str
    lecturer: bool
    voter: Voter | None  # this browser's voter id for the room (from its HttpOnly cookie)
    room: Room
    key_kept: bool = False  # the browser's HttpOnly cookie holds the lecturer's key already


def note(key: str, place: str = "page", **values: object) -> None:
    """A message for this run's page (or the next run's, from a callback): at its top, or
    (place) beside the form it answers."""
    st.session_state.setdefault(keys.notes(place), []).append((key, values))


LIMIT_VALUES = {name: getattr(Limits(), name) for name in (
    "rooms", "polls", "voters", "question", "option", "view")} | dict(zip(
        ("low", "high"), Limits().options, strict=True))
"""The room limits, for the messages that name them."""


def _cookie(name: str) -> str | None:
    """The browser's cookie of that name, as text; None without one (or without a browser:
    a page run by AppTest sees stand-in objects where cookies would be)."""
    value = st.context.cookies.get(name)
    return value if isinstance(value, str) else None


def refused_note(refused: RoomError | StoreDown, place: str = "page") -> None:
    """A message saying why the room refused what a button asked."""
    note("no_room_left" if refused.reason == "no_room" else refused.reason, place,
         **LIMIT_VALUES)


def notes(lang: str, place: str = "page") -> list[str]:
    """The room messages waiting to be shown in a place, in lang; each is shown once (and once
    a run)."""
    return list(dict.fromkeys(text(f"room.note.{key}", lang, **values) for key, values
                              in st.session_state.pop(keys.notes(place), [])))


def client_network() -> str:
    """This session's client network, as the rooms keep it (the rate limits' key)."""
    return rooms().network(client_address(
        st.context.ip_address, st.context.headers.get("X-Forwarded-For")))


def count_wrong() -> None:
    """Count a wrong code (key, passphrase) against this session's network."""
    rooms().spend(WRONG, client_network(), force=True)


def blocked(said: str = "too_many", code: str | None = None) -> bool:
    """Whether this client tried too many wrong codes (or passphrases) lately: then it may try
    none for now (but room code, when classmates on its network follow it: Rooms.wrong_wait),
    and the note said says so."""
    store, network = rooms(), client_network()
    wait = store.wait(WRONG, network) if code is None else store.wrong_wait(code, network)
    if wait:
        note(said, seconds=int(wait) + 1)
    return bool(wait)


def holder() -> str | None:
    """This browser's holder cookie (rooms.routes.lecturer.KeyLinks sets it with the page): a
    room it starts keeps its key under it until the key's own cookie is set."""
    return _cookie(HOLDER_COOKIE)


def key_for(code: str) -> tuple[str | None, bool]:
    """The key this session holds for the room (from the session, the cookie, or a one-time
    lecturer link it uses up now), and whether the browser's cookie holds it already."""
    store = rooms()
    cookie = _cookie(key_cookie(code))
    if code in st.session_state.get(keys.FORGOT, ()):
        cookie = None  # deleted on Leave; this session's copy of the cookies is older
    if st.query_params.pop("key", None) is not None:  # a key in the address leads nothing
        count_wrong()  # (KeyLinks takes one out before a browser's page loads, and counts it)
        note("key_wrong", code=spaced(code))
    if st.query_params.pop("lead_refused", None) is not None:  # KeyLinks took a key out
        note("key_wrong", code=spaced(code))
    for held in (st.session_state.get(keys.KEY), cookie):
        if held and store.holds_key(code, held):
            return held, held == cookie
    if code not in st.session_state.get(keys.FORGOT, ()) and (
            held := store.held_key(code, holder())):  # started here, reloaded before the
        return held, False                            # key's cookie was set: hand it over
    offered = st.query_params.pop("lead", None) or _cookie(lead_cookie(code))  # by KeyLinks
    tried = st.session_state.setdefault(keys.LEADS_TRIED, set())
    if offered and offered not in tried:  # a lecturer link is tried once a session
        tried.add(offered)
        if not blocked():
            key = store.redeem(code, offered)
            if key is not None:
                st.session_state.get(keys.FORGOT, set()).discard(code)
                return key, False
            count_wrong()
            note("lead_used", code=spaced(code))
            st.session_state[keys.KEPT_FOLLOW] = False  # stays on this page to read why
    return None, False


def gone_note(code: str) -> None:
    """The note for a room that is not there: gone (ended, or lost by the server) if this
    browser was in it before it would have ended, else not found."""
    proof = _cookie(JOINED_COOKIE)
    lost = (st.session_state.get(keys.SEEN) == code
            or signing.was_in(rooms().secret, proof, code, time.time()))
    led = lost and st.session_state.get(keys.KEY)
    note("lost_lead" if led else "lost" if lost else "no_room", code=spaced(code))


def membership() -> Member | None:
    """Who this session is in its room, or None outside any (with a note when a room was asked
    for and cannot be entered, or the rooms cannot be reached)."""
    st.session_state[keys.DOWN] = False
    if st.query_params.pop("lecturer_refused", None) is not None:  # KeyLinks took it out
        note("lecturer_link_wrong")
    try:
        return _membership()
    except StoreDown:
        st.session_state[keys.DOWN] = True
        note("store_down")
        return None


def _membership() -> Member | None:
    ticket = st.query_params.pop("t", None)  # the QR code's: no guess, whatever the limits
    if keys.ROOM not in st.session_state or history_navigation():
        raw = st.query_params.get("room")
        code = normal_code(raw)
        if raw is not None and code is None:
            note("bad_code")
        if code and signing.ticketed(rooms().secret, ticket, code, time.time()):
            st.session_state[keys.SEEN] = code
        elif code and code != st.session_state.get(keys.ROOM) and blocked(code=code):
            code = None
        st.session_state[keys.ROOM] = code or ""
    code = st.session_state[keys.ROOM]
    room = rooms().room(code) if code else None
    if code and room is None:
        if st.session_state.get(keys.SEEN) != code:
            count_wrong()
        gone_note(code)
        leave()
        return None
    if room is None:
        to_url("room", "", "", "")
        return None
    if room.closed:
        note("closed", code=spaced(code))
        leave()
        return None
    to_url("room", code, "", code)
    st.session_state[keys.SEEN] = code
    key, kept = key_for(code)
    st.session_state[keys.KEY] = key
    if key is not None:
        rooms().lecturer_here(code)
    voter = rooms().voter(code, _cookie(VOTER_COOKIE))
    return Member(code, key is not None, voter, room, kept)


def leave() -> None:
    """Leave the room this session is in (the room itself goes on); a lecturer's browser
    forgets the key (on a shared computer the next person is no lecturer)."""
    code = st.session_state.get(keys.ROOM)
    if code and st.session_state.pop(keys.KEY, None):
        st.session_state[keys.FORGET] = code
        st.session_state.setdefault(keys.FORGOT, set()).add(code)
        with contextlib.suppress(StoreDown):  # the room keeps this browser's key no more
            rooms().let_go(code, holder())
    st.session_state[keys.ROOM] = ""
    st.query_params.pop("room", None)
    st.query_params.pop(keys.FOLLOW, None)


def refusing(callback=None, *, place: str = "page"):
    """A button's callback whose refusals (a room's, or a failed store's) become a message, at
    the page's top or (`@refusing(place=...)`) beside the form it answers."""
    if callback is None:
        return functools.partial(refusing, place=place)

    @functools.wraps(callback)
    def call(*args) -> None:
        try:
            callback(*args)
        except (RoomError, StoreDown) as refused:
            refused_note(refused, place)
    return call


def rooms_led() -> list[str]:
    """The open rooms whose key this browser's cookies hold (none once it left them)."""
    prefix, forgot = key_cookie(""), st.session_state.get(keys.FORGOT, set())
    store = rooms()
    try:
        return [code for name, key in st.context.cookies.to_dict().items()
                if name.startswith(prefix) and (code := normal_code(name[len(prefix):]))
                and code not in forgot and store.holds_key(code, key)
                and (room := store.room(code)) is not None and not room.closed][:3]
    except StoreDown:
        return []


def back_to(code: str) -> None:
    """Go back to a room this browser leads (a button's callback)."""
    st.session_state[keys.ROOM] = code
