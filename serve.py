"""The posviz server: the app (app.py and pages/) and the HTTP routes of its rooms.

Start it with `python -m streamlit run serve.py` (the README's command): Streamlit finds `app`
below and serves the same app as `streamlit run app.py`, plus what posviz.rooms.http adds: the
rooms' routes, and the follower's screen, which draws the app's pages as documents
(ui.documents).
"""

import streamlit as st

from posviz.rooms.http import routes

app = st.App("app.py", routes=routes("ui.documents:SCREENS"))
