"""Links between the app's pages: whether an app is around the page, the shared settings a link
carries, and the sidebar's links to home and every lesson."""

from __future__ import annotations

from pathlib import Path

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from ui.chart import module
from ui.shared import DEFAULT_LANG, DEFAULT_TEXT, ROOT, Settings, lesson_pages

_CLOSER = st.components.v2.component("posviz_nav", js=module("nav.js"), isolate_styles=False)
"""On a phone, a tap on a sidebar link closes the sidebar (static/nav.js); draws nothing."""


def in_app() -> bool:
    """Whether the page runs inside the app: links to other pages resolve against app.py, so
    a page run on its own (`streamlit run pages/x.py`, AppTest.from_file) has none to draw."""
    return Path(get_script_run_ctx().main_script_path).resolve() == ROOT / "app.py"


def shared_query(s: Settings) -> dict[str, str]:
    """The shared settings that differ from their defaults, as a link's query parameters."""
    return {key: value for key, value, default in [
        ("text", s.text, DEFAULT_TEXT), ("lang", s.lang, DEFAULT_LANG),
        ("pos", str(s.position).lower(), "true"),
        ("present", str(s.present).lower(), "false"),
        ("room", s.room.code if s.room else "", "")] if value != default}


def links(nav, s: Settings) -> None:
    """Links to home and every lesson, labelled in the UI language.

    Each link carries the shared settings in its query string, so the page it opens reads them
    from its URL: the sentence survives the switch even in a session opened from a link.
    Skipped when a page is run on its own (`streamlit run pages/x.py`): links resolve against
    the entry script, and then there is no app around the page to link to. On a phone, a tap
    on a link closes the sidebar.
    """
    if not in_app():
        return
    nav.page_link("app.py", label=s.t("home.nav"), icon=":material/home:",
                  query_params=shared_query(s))
    for name, path in lesson_pages():
        nav.page_link(path, label=s.t(f"{name}.nav"), query_params=shared_query(s))
    with nav:
        _CLOSER(key="posviz_nav", width="content")
