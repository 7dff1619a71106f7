"""The app's page run (`run`, which ui.run calls), in three parts: the shared sidebar
(`sidebar`: navigation, language, sentence, position switch, presentation mode, the page's tools
and file, the room's box) with the page's CSS, what a room puts across the page (`room`), then
the page's body drawn with Streamlit."""

from __future__ import annotations

import time
from collections.abc import Callable
from urllib.parse import urlencode

import streamlit as st

from posviz.tokens import MAX_TOKENS, clip_tokens, tokenize
from ui import documents, pace
from ui.blocks_streamlit import FORMULA_CSS
from ui.chart import tools
from ui.doc import Doc, StreamlitDoc
from ui.i18n import LANGS, text
from ui.lecturer import proven
from ui.navigation import links
from ui.room import check, join_panel, membership, question
from ui.room import keys as room_keys
from ui.room import sidebar as room_sidebar
from ui.shared import DEFAULT_LANG, DEFAULT_TEXT, ROOT, Settings, head
from ui.state import coded_radio, flag, kept, remembered, to_url
from ui.view import page_lang

PAGE_CSS = """<style>
[data-testid=stHeader] {background: transparent; pointer-events: none}
[data-testid=stHeader] button, [data-testid=stHeader] a {pointer-events: auto}
[data-testid=stMainBlockContainer] {padding-top: 2.75rem}
[data-testid=stCaptionContainer] {color: inherit !important; opacity: .78}
[data-testid=stCaptionContainer] p {color: inherit !important}
[data-testid=stSliderThumbValue] {color: inherit !important}
a:focus-visible, button:focus-visible, summary:focus-visible,
[tabindex]:not([tabindex="-1"]):focus-visible {
  outline: 2px solid currentColor !important; outline-offset: 2px}
[tabindex="-1"]:focus {outline: none}
[data-testid=data-grid-canvas]:focus, .stDataFrameGlideDataEditor:focus-visible {
  outline: 2px solid currentColor !important; outline-offset: -2px}
label:has(input:focus-visible) {outline: 2px solid currentColor; outline-offset: 2px;
  border-radius: .3rem}
@media (prefers-reduced-motion: reduce) {*, *::before, *::after {
  transition: none !important; animation: none !important; scroll-behavior: auto !important}}
.st-key-posviz_nav {display: none}
</style>"""
"""The page starts near the window's top: Streamlit's header (an empty bar with the sidebar's
button) lets what is under it show (until the page scrolls: static/view.js) and takes no clicks
but its buttons'. Captions and a slider's value are in the text's colour (Streamlit's grey and
red read below WCAG's 4.5:1 on white and on the dark theme's background). Whatever has the
keyboard's focus is outlined in the text's colour (a switch's or an option's label too, their
inputs being hidden; a data grid whenever it has the focus: the grid moves the focus to a new
canvas when a rerun redraws it, which the browser does not count as the keyboard's; and its
scroller, which Chromium lets Tab reach). A reader who asks for reduced motion gets no animated
transitions (the sidebar, expanders, spinners). The sidebar's link watcher (ui.navigation),
which draws nothing, takes no room in it."""
PRESENTATION_CSS = """<style>
html {font-size: 22px}  /* Streamlit sizes its text in rem: all of it grows */
[data-testid=stMainBlockContainer] {max-width: none; padding: 2.5rem 2.5rem 2rem}
</style>"""
"""Presentation mode for the page itself; the charts are enlarged by ui.chart."""
ENGLISH_ONLY_CSS = """<style>
[data-testid=InputInstructions] {display: none}
</style>"""
"""For a reader of another language: Streamlit's own hint under a field being typed into
("Press Enter to apply", "Press Enter to submit form") is in English only; every such field
has its button beside it or applies on leaving it, so the page leaves the hint out."""


def _file_button(s: Settings, name: str) -> None:
    """Download this page, or the whole guided lesson, as one file that works offline."""
    query = urlencode([(k, v) for k in st.query_params for v in st.query_params.get_all(k)
                       if k not in ("key", "t")])
    lesson = name == documents.LESSON
    st.sidebar.download_button(
        s.t("common.export.lesson_file" if lesson else "common.export.page_file"),
        data=(lambda: documents.lesson_file(query, s.lang)) if lesson
        else (lambda: documents.page_file(name, query, s.lang)),
        file_name=f"posviz-{name}-{s.lang}.html", mime="text/html", on_click="ignore",
        help=s.t("common.export.lesson_file_help" if lesson else "common.export.file_help"),
        width="stretch", key="posviz_file")


def page(name: str) -> Settings:
    """Draw the shared sidebar, the page's CSS and what a room puts across the page; return the
    shared settings."""
    s = sidebar(name)
    st.html(css(s))
    room(s, name)
    return s


def sidebar(name: str) -> Settings:
    """The shared sidebar: navigation, the shared controls (settings), the page's tools and
    file, the room's box; returns the shared settings."""
    nav, controls = st.sidebar.container(), st.sidebar.container()
    s = settings(name, controls)
    links(nav, s)
    controls.caption(s.t("common.one_token") if len(s.tokens) == 1
                     else s.t("common.n_tokens", n=len(s.tokens)))
    with st.sidebar:
        tools(name)
    page_lang(s.lang)
    _file_button(s, name)
    room_sidebar.section(s, s.room, _path(name))
    return s


def settings(name: str, controls) -> Settings:
    """The shared settings from the sidebar's language, sentence (in controls), position switch
    (in controls) and presentation mode, and the session's room; the page's title and icon.

    The shared settings are kept with `ui.state.remembered` rather than bind="query-params":
    Streamlit drops a bound parameter on a page switch when the widget was first drawn by
    another page, and every page draws these.
    """
    lang = coded_radio(st.sidebar, "Language · 语言", list(LANGS), key="lang",
                       format_func=LANGS.get, horizontal=True)
    presenting = remembered("present", False, flag)
    member = membership.membership()
    st.set_page_config(page_title=f"{text(f'{name}.nav', lang)} · posviz", layout="wide",
                       page_icon=str(ROOT / "assets" / "icon.png"),
                       initial_sidebar_state="collapsed" if st.session_state.present else "auto")
    typed = controls.text_input(text("common.sentence", lang),
                                help=text("common.sentence_help", lang, n=MAX_TOKENS),
                                **remembered("text", DEFAULT_TEXT, str))
    to_url("text", typed, DEFAULT_TEXT, typed)
    position = controls.toggle(text("common.position", lang),
                               help=text("common.position_help", lang),
                               **remembered("pos", True, flag))
    to_url("pos", position, True, "false")
    present = st.sidebar.toggle(text("common.present", lang),
                                help=text("common.present_help", lang), **presenting)
    to_url("present", present, False, "true")
    tokens, n_typed = clip_tokens(tokenize(typed or ""))
    return Settings(lang, typed or "", tokens, n_typed, position, present, member)


def css(s: Settings) -> str:
    """The page's CSS: the house's, formulas', presentation mode's, another language's."""
    return (PAGE_CSS + FORMULA_CSS + (PRESENTATION_CSS if s.present else "")
            + (ENGLISH_ONLY_CSS if s.lang != DEFAULT_LANG else ""))


def room(s: Settings, name: str) -> None:
    """What the session's room puts across the page: its code for the projector, the concept
    check's gains, a student's bar, the room's notes and the lecturer's live question."""
    join_panel.join_panel(s, s.room)
    check.gains_panel(s, s.room)
    room_sidebar.student_bar(s, s.room, _path(name))
    for note in membership.notes(s.lang):
        st.warning(note)
    question.live_question(s, s.room)


def _path(name: str) -> str:
    """The page's path in the app's address ("" for home)."""
    return "" if name == "home" else name


def run(name: str, body: Callable[[Doc, Settings], None]) -> None:
    """Run a page in the app: the shared sidebar, then the page's body drawn with Streamlit.
    A test that sets `posviz_record` in the session finds the page's document in `posviz_doc`,
    the option values of its radios and select sliders in `posviz_choices` (key -> values) and
    the URL the run left in `posviz_url`."""
    started = time.thread_time()  # the run's CPU, charged to its client (ui.pace)
    by_proof = proven()  # the same all run: a callback that proves it ran before the run
    lecturer = by_proof or bool(st.session_state.get(room_keys.KEY))  # leads a room: below
    pace.admit(st.session_state.get(kept("lang")) or DEFAULT_LANG, lecturer, started)
    s = page(name)  # a refused run stopped before this: it costs next to nothing
    lecturer = by_proof or bool(s.room and s.room.lecturer)
    record = bool(st.session_state.get("posviz_record"))
    d = StreamlitDoc(st, record=record, lang=s.lang)
    st.session_state.posviz_doc = d.blocks
    if record:
        st.session_state.posviz_choices = {}
    try:
        pace.admit(s.lang, lecturer)  # a room's lecturer, known now, is not paced
        head(d, s, name)
        body(d, s)
    finally:
        pace.charge(started, lecturer)
        if record:
            st.session_state.posviz_url = urlencode(
                [(k, v) for k in st.query_params for v in st.query_params.get_all(k)])
