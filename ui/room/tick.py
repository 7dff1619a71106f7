"""A fragment that runs again on a timer while the page is idle (static/tick.js)."""

from __future__ import annotations

import streamlit as st

from ui.chart import module

_TICK = st.components.v2.component("posviz_tick", js=module("tick.js"), isolate_styles=False)


def every(seconds: float, key: str) -> None:
    """Inside a fragment: run it again every `seconds` while the page is idle (Streamlit's own
    run_every ticks whatever the page is doing, and a tick just after a click took the page
    back to the address from before it). Draws nothing."""
    _TICK(data={"every": seconds}, key=key, on_tick_change=lambda: None, width="content")
