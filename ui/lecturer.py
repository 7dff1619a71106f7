"""Whether this session is the lecturer's: who may start a room, type a path on the lecturer's
disk, make the server load a model, and run pages unpaced is decided here.

The lecturer is whoever proves it (`proven`):
- the machine's own browser (a connection from 127.0.0.1, ::1 or one of this machine's own
  interface addresses, behind a trusted proxy the address it forwards for; never another 127.x
  address, which a phone can use as well as any): the lecturer at their own laptop, no click;
- a browser that opened the lecturer's link the server printed at start (`?lecturer=SECRET`,
  rooms.routes.lecturer.KeyLinks marks it with a signed HttpOnly cookie): a lab server, or
  behind HAProxy;
- a session that typed the passphrase (POSVIZ_LECTURER_PASSWORD), when the server has one:
  then this machine's own browser is asked for it too, as a public server should (a tunnel on
  this machine, such as `ssh -R`, brings every visitor from this machine's own address).

Only the lecturer starts rooms, so a session that leads its room (it holds the room's key: the
lecturer's own, or a one-time lecturer link the lecturer handed out) is the lecturer's too. A
page drawn as a document (a room's screen, a file) has no session and is nobody's: it reads
only what the lecturer has opened.
"""

from __future__ import annotations

import time

import streamlit as st

from rooms import LECTURER_COOKIE, signing
from rooms.address import this_machine
from ui import config
from ui.room import keys
from ui.services import rooms
from ui.shared import Settings


def proven() -> bool:
    """Whether this session proved it is the lecturer's: this machine's own browser (unless the
    server has a passphrase: then a tunnel on this machine, whose visitors all arrive from it,
    cannot hand them the lecturer's place), the lecturer's cookie, or the passphrase typed."""
    headers = st.context.headers
    if not config.lecturer_password() and this_machine(
            st.context.ip_address, headers if hasattr(headers, "get") else {}):
        return True
    if st.session_state.get(keys.PROVEN):
        return True
    cookies = getattr(st.context, "cookies", None)  # none in a run without a browser
    mark = cookies.get(LECTURER_COOKIE) if hasattr(cookies, "get") else None
    return isinstance(mark, str) and signing.is_lecturer_mark(rooms().secret, mark,
                                                              time.time())


def is_lecturer(s: Settings) -> bool:
    """Whether this page run is the lecturer's: proven, or leading its room (rooms are the
    lecturer's alone). A document (no session) is not."""
    if not s.controls:
        return False
    return bool(s.room is not None and s.room.lecturer) or proven()
