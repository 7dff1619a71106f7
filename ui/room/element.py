"""The room element (static/room.js), drawn in the sidebar: it keeps a browser tab in its room,
and draws nothing itself.

A student's tab that follows goes to the room's screen (/_posviz/follow/<code>,
static/viewer.js), which shows the lecturer's view without a page run per student; a student
exploring alone stays on the app's page; a lecturer's tab publishes its view once a run has
finished and the address has settled.
"""

from __future__ import annotations

import streamlit as st

from rooms import signing
from ui.chart import module
from ui.room import keys
from ui.room.membership import Member
from ui.services import rooms
from ui.state import PERSONAL

_ELEMENT = st.components.v2.component("posviz_room", js=module("room.js"))


def forget(code: str, page: str) -> None:
    """The browser deletes the cookie of room code's key (after Leave or Close). page is the
    page's URL path ("" for home)."""
    with st.sidebar:
        _ELEMENT(data={"forget": code, "page": page}, key=keys.ELEMENT, width="stretch")


def back_when_up(code: str, page: str) -> None:
    """While the rooms' store is down: the tab comes back to its room once the store answers."""
    with st.sidebar:
        _ELEMENT(data={"down": code, "page": page}, key=keys.ELEMENT, width="stretch")


def keep(m: Member, page: str, lang: str, lead: bool, following: bool = False) -> None:
    """Keep the tab in its room: a follower's goes to the room's screen while following; a
    lecturer's publishes its view. A lecturer's key goes to the browser once, for the server to
    set it in its HttpOnly cookie: the tab says when that is done (`granted`), and no run after
    it sends the key again. A lecturer's tab is sent the query parameters it keeps out of the
    view it publishes (ui.state.PERSONAL)."""
    proof = signing.joined(rooms().secret, m.code, m.room.expires)
    data = {"code": m.code, "page": page, "joined": proof, "follow": following, "lang": lang}
    if lead:
        granted = m.key_kept or st.session_state.get(keys.GRANTED) == m.code
        data |= ({"lead": True, "personal": sorted(PERSONAL)}
                 | ({} if granted else {"grant": st.session_state[keys.KEY]}))
    with st.sidebar:
        _ELEMENT(data=data, key=keys.ELEMENT, width="stretch", on_granted_change=_granted)


def _granted() -> None:
    """The tab handed the key of its room over: the browser's HttpOnly cookie holds it now."""
    st.session_state[keys.GRANTED] = st.session_state.get(keys.ROOM)
