"""The posviz server: the app (app.py and pages/) and the two HTTP routes of its rooms.

Start it with `python -m streamlit run serve.py` (the README's command): Streamlit finds `app`
below and serves the same app as `streamlit run app.py`, plus what posviz.rooms.http adds.
"""

import streamlit as st

from posviz.rooms.http import ROUTES

app = st.App("app.py", routes=ROUTES)
