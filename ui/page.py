"""The one place besides pages/ that imports streamlit: shared controls, navigation, messages.

Every page starts with `s = ui.page("<name>")`, which draws the sidebar (navigation, language,
sentence, position switch) and returns the shared settings. The sentence and both switches are
bound to the URL and kept for the whole session, so page switches, reloads and shared links all
keep them.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlencode

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from posviz.tokens import MAX_TOKENS, clip_tokens, tokenize
from ui import check, documents, membership, pace
from ui import room as room
from ui.chart import module as chart_module
from ui.chart import tools
from ui.doc import FORMULA_CSS
from ui.doc import Doc as Doc
from ui.doc import StreamlitDoc as StreamlitDoc
from ui.i18n import LANGS, lang_tag, text
from ui.shared import DEFAULT_TEXT as DEFAULT_TEXT
from ui.shared import ROOT as ROOT
from ui.shared import Settings as Settings
from ui.shared import guard as guard
from ui.shared import head as head
from ui.shared import lesson_pages as lesson_pages
from ui.shared import need_tokens as need_tokens
from ui.shared import page_name as page_name
from ui.shared import settings as settings
from ui.state import coded_radio, flag, remembered, to_url

DEFAULT_LANG = "en"  # the first of LANGS
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
[data-testid=data-grid-canvas]:focus {outline: 2px solid currentColor !important;
  outline-offset: -2px}
label:has(input:focus-visible) {outline: 2px solid currentColor; outline-offset: 2px;
  border-radius: .3rem}
@media (prefers-reduced-motion: reduce) {*, *::before, *::after {
  transition: none !important; animation: none !important; scroll-behavior: auto !important}}
</style>"""
"""The page starts near the window's top: Streamlit's header (an empty bar with the sidebar's
button) lets what is under it show (until the page scrolls: static/view.js) and takes no
clicks but its buttons'. Captions and a slider's value are in the text's colour (Streamlit's
grey and red read below WCAG's 4.5:1 on white and on the dark theme's background). Whatever
has the keyboard's focus is outlined in the text's colour (a switch's or an option's label
too, their inputs being hidden; a data grid whenever it has the focus: the grid moves the
focus to a new canvas when a rerun redraws it, which the browser does not count as the
keyboard's). A reader who asks for reduced motion gets no animated transitions (the sidebar,
expanders, spinners)."""
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


def in_app() -> bool:
    """Whether the page runs inside the app: links to other pages resolve against app.py, so
    a page run on its own (`streamlit run pages/x.py`, AppTest.from_file) has none to draw."""
    return Path(get_script_run_ctx().main_script_path).resolve() == ROOT / "app.py"


def _navigation(nav, s: Settings) -> None:
    """Links to home and every lesson, labelled in the UI language.

    Each link carries the shared settings in its query string, so the page it opens reads them
    from its URL: the sentence survives the switch even in a session opened from a link.
    Skipped when a page is run on its own (`streamlit run pages/x.py`): links resolve against
    the entry script, and then there is no app around the page to link to.
    """
    if not in_app():
        return
    nav.page_link("app.py", label=s.t("home.nav"), icon=":material/home:",
                  query_params=shared_query(s))
    for name, path in lesson_pages():
        nav.page_link(path, label=s.t(f"{name}.nav"), query_params=shared_query(s))


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


def shared_query(s: Settings) -> dict[str, str]:
    """The shared settings that differ from their defaults, as a link's query parameters."""
    return {key: value for key, value, default in [
        ("text", s.text, DEFAULT_TEXT), ("lang", s.lang, DEFAULT_LANG),
        ("pos", str(s.position).lower(), "true"),
        ("present", str(s.present).lower(), "false"),
        ("room", s.room.code if s.room else "", "")] if value != default}


def page(name: str) -> Settings:
    """Draw the shared sidebar and the page title; return the shared settings.

    The shared settings are kept with `ui.state.remembered` rather than bind="query-params":
    Streamlit drops a bound parameter on a page switch when the widget was first drawn by
    another page, and every page draws these.
    """
    nav, controls = st.sidebar.container(), st.sidebar.container()
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
    s = Settings(lang, typed or "", tokens, n_typed, position, present, member)
    _navigation(nav, s)
    controls.caption(s.t("common.one_token") if len(tokens) == 1
                     else s.t("common.n_tokens", n=len(tokens)))
    with st.sidebar:
        tools(name)
        _VIEW(data={"lang": lang_tag(lang)}, key="posviz_lang", width="stretch")
    _file_button(s, name)
    path = "" if name == "home" else name
    room.section(s, member, path)
    st.html(PAGE_CSS + FORMULA_CSS + (PRESENTATION_CSS if present else "")
            + (ENGLISH_ONLY_CSS if lang != DEFAULT_LANG else ""))
    room.join_panel(s, member)
    check.gains_panel(s, member)
    room.student_bar(s, member, path)
    for note in membership.notes(lang):
        st.warning(note)
    room.live_question(s, member)
    return s


_VIEW = st.components.v2.component("posviz_view", js=chart_module("view.js"))


REVEAL = "[class*=st-key-lesson_reveal_] input, [class*=st-key-reveal_scene-] button"
"""A lesson scene's reveal: its own switch, or in a room the lecturer's Reveal (ui.room)."""


def open_at_top(view: str, next_button: str = "", back_button: str = "",
                pager: dict | None = None) -> None:
    """Open this view at its top when the reader comes to it from another (static/view.js):
    view names what the reader sees, e.g. "lesson/4". With the keys of the view's next and back
    buttons, Page Down / Page Up (a presentation clicker) and the arrow keys press them while
    focus is on the page, and R reveals its question's answer. pager: what a screen reader
    hears for the page's st.pagination ("nav", "previous", "next", and "pages", one name per
    page), where Streamlit says "Pagination", "Page 4". Draws nothing."""
    keys = {"next": f".st-key-{next_button} button", "back": f".st-key-{back_button} button",
            "reveal": REVEAL}
    with st.sidebar:
        _VIEW(data={"view": view, "keys": keys if next_button or back_button else None,
                    "pager": pager}, key="posviz_view", width="stretch")


def announce(said: str) -> None:
    """Say said to a screen reader, once (static/view.js: one live region per tab; a rerun
    that says the same again says nothing). Draws nothing."""
    with st.sidebar:
        _VIEW(data={"announce": said}, key="posviz_announce", width="stretch")


_NOT_FOUND = st.components.v2.component("posviz_not_found", js=chart_module("not_found.js"))


def close_not_found_dialog() -> None:
    """Close Streamlit's English "Page not found" dialog (static/not_found.js): the home page
    says it in the reader's language. Draws nothing."""
    _NOT_FOUND(key="posviz_not_found", width="content")


def run(name: str, body: Callable[[Doc, Settings], None]) -> None:
    """Run a page in the app: the shared sidebar, then the page's body drawn with Streamlit.
    A test that sets `posviz_record` in the session finds the page's document in `posviz_doc`,
    the option values of its radios and select sliders in `posviz_choices` (key -> values) and
    the URL the run left in `posviz_url`."""
    started = time.thread_time()  # the run's CPU, charged to its client (ui.pace)
    s = page(name)
    lecturer = bool(s.room and s.room.lecturer)
    record = bool(st.session_state.get("posviz_record"))
    d = StreamlitDoc(st, record=record, lang=s.lang)
    st.session_state.posviz_doc = d.blocks
    if record:
        st.session_state.posviz_choices = {}
    try:
        pace.admit(s.lang, lecturer)
        head(d, s, name)
        body(d, s)
    finally:
        pace.charge(started, lecturer)
        if record:
            st.session_state.posviz_url = urlencode(
                [(k, v) for k in st.query_params for v in st.query_params.get_all(k)])
