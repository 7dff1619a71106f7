"""Whether this session is the lecturer's: what a student may not do (type a path on the
lecturer's disk, make the server load a model) is decided here.

The lecturer is the machine's own browser (a connection from 127.0.0.1, ::1 or one of this
machine's own interface addresses, behind a trusted proxy the address it forwards for; never
another 127.x address, which a phone can use as well as any) or a session that leads an open
room (ui.membership: it holds the room's key). A page drawn as a document (a room's screen, a
file) has no session and is nobody's: it reads only what the lecturer has opened.
"""

from __future__ import annotations

import streamlit as st

from rooms.address import this_machine
from ui.shared import Settings


def is_lecturer(s: Settings) -> bool:
    """Whether this page run is the lecturer's: a session of the machine's own browser, or one
    that leads its room. A document (no session) is not."""
    if not s.controls:
        return False
    if s.room is not None and s.room.lecturer:
        return True
    headers = st.context.headers
    return this_machine(st.context.ip_address, headers if hasattr(headers, "get") else {})
