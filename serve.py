"""The posviz server: the app (app.py and pages/) and the HTTP routes of its rooms.

Start it with `python serve.py` (the README's command; Streamlit's flags as `streamlit run`
takes them, e.g. `--server.port=8501 --server.address=0.0.0.0`): posviz.rooms.server serves the
app that `app()` makes, with the rooms' routes (posviz.rooms.http) and the follower's screen,
which draws the app's pages as documents (ui.documents), behind its bounds on connections.
"""

import sys

import streamlit as st
from starlette.middleware import Middleware

from posviz.rooms import server
from posviz.rooms.http import KeyLinks, routes


def app() -> st.App:
    """The app with the rooms' routes, and lecturer links answered without their key (made
    once, in the server process)."""
    return st.App("app.py", routes=routes("ui.documents:SCREENS"),
                  middleware=[Middleware(KeyLinks)])


if __name__ == "__main__":
    server.run("serve:app", sys.argv[1:])
