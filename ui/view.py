"""Elements that act on the app's page in the browser and draw nothing: the elements of
static/view.js (the page: its language and what it fits; the view: opening it at its top, the
keys of a clicker; the announce: what a screen reader is told) and the one that closes
Streamlit's "Page not found" dialog (static/not_found.js)."""

from __future__ import annotations

import streamlit as st

from ui.blocks_streamlit import FORMULAS
from ui.chart import module
from ui.i18n import lang_tag
from ui.room import keys

_PAGE = st.components.v2.component("posviz_page", js=module("view.js", "page"))
_VIEW = st.components.v2.component("posviz_view", js=module("view.js", "view"))
_ANNOUNCE = st.components.v2.component("posviz_announce", js=module("view.js", "announce"))
"""The page's elements of static/view.js: the page (its language, tables that scroll, formulas
fitted, a join field's number pad, the header's shade), the view (a new view at its top, its
keys) and the announce (said to a screen reader). Each draws nothing."""

REVEAL = f"[class*=st-key-lesson_reveal_] input, [class*=st-key-{keys.REVEAL}scene-] button"
"""A lesson scene's reveal: its own switch, or in a room the lecturer's Reveal (ui.room.polls)."""


def page_lang(lang: str) -> None:
    """Give the page lang as its language (screen readers pick their voice by it), and the
    formulas it fits to their lines (FORMULAS). Draws nothing."""
    with st.sidebar:
        _PAGE(data={"lang": lang_tag(lang), "formulas": FORMULAS}, key="posviz_page",
              width="stretch")


def open_at_top(view: str, next_button: str = "", back_button: str = "",
                pager: dict | None = None) -> None:
    """Open this view at its top when the reader comes to it from another (static/view.js):
    view names what the reader sees, e.g. "lesson/4". With the keys of the view's next and back
    buttons, Page Down / Page Up (a presentation clicker) and the arrow keys press them while
    focus is on the page, and R reveals its question's answer. pager: what a screen reader
    hears for the page's st.pagination ("nav", "previous", "next", and "pages", one name per
    page), where Streamlit says "Pagination", "Page 4". Draws nothing."""
    buttons = {"next": f".st-key-{next_button} button", "back": f".st-key-{back_button} button",
               "reveal": REVEAL}
    with st.sidebar:
        _VIEW(data={"view": view, "keys": buttons if next_button or back_button else None,
                    "pager": pager}, key="posviz_view", width="stretch")


def announce(said: str) -> None:
    """Say said to a screen reader, once (static/view.js: one live region per tab; a rerun
    that says the same again says nothing). Draws nothing."""
    with st.sidebar:
        _ANNOUNCE(data={"announce": said}, key="posviz_announce", width="stretch")


_NOT_FOUND = st.components.v2.component("posviz_not_found", js=module("not_found.js"))


def close_not_found_dialog() -> None:
    """Close Streamlit's English "Page not found" dialog (static/not_found.js): the home page
    says it in the reader's language. Draws nothing."""
    _NOT_FOUND(key="posviz_not_found", width="content")
