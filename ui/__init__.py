"""The one place besides pages/ that imports streamlit: shared controls, navigation, messages.

Every page starts with `s = ui.page("<name>")`, which draws the sidebar (navigation, language,
sentence, position switch) and returns the shared settings. The sentence and both switches are
bound to the URL and kept for the whole session, so page switches, reloads and shared links all
keep them.
"""

from __future__ import annotations

import contextlib
import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from posviz.tokens import MAX_TOKENS, clip_tokens, tokenize
from ui import room as room
from ui.chart import chart as chart
from ui.chart import module as chart_module
from ui.chart import tools
from ui.i18n import LANGS, prose, text
from ui.markup import entities
from ui.markup import text_table as text_table
from ui.state import flag, remembered, to_url

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_TEXT = "刚想到了"
DEFAULT_LANG = "en"  # the first of LANGS
PRESENTATION_CSS = """<style>
html {font-size: 22px}  /* Streamlit sizes its text in rem: all of it grows */
[data-testid=stMainBlockContainer] {max-width: none; padding: 2rem 2.5rem}
</style>"""
"""Presentation mode for the page itself; the charts are enlarged by ui.chart."""
FORMULA_CSS = """<style>
[data-testid=stMarkdownContainer]:has(> p > .katex:only-child) {overflow-x: auto}
</style>"""
"""A formula (ui.formula) wider than a phone scrolls sideways in its line."""


@dataclass(frozen=True)
class Settings:
    """What the shared controls say, read once at the top of a page."""

    lang: str
    text: str
    tokens: list[str]
    n_typed: int  # tokens in the text before it was cut to MAX_TOKENS
    position: bool
    present: bool  # presentation mode: large text, tucked-away sidebar
    room: room.Member | None = None  # the lecture room this session is in

    def t(self, key: str, **values: object) -> str:
        """The UI text for key in the current language."""
        return text(key, self.lang, **values)

    def prose(self, name: str) -> str:
        """A long explanation in the current language."""
        return prose(name, self.lang)


def page_name(path: Path) -> str:
    """A page's catalog section: pages/3_rope.py -> "rope"."""
    return re.sub(r"^\d+_", "", path.stem)


@functools.cache
def lesson_pages() -> list[tuple[str, str]]:
    """(name, script path) of every page in pages/, in their numbered order (read once: a page
    run for each of a room's followers need not list the folder again)."""
    paths = sorted((ROOT / "pages").glob("*.py"), key=lambda p: int(p.stem.split("_")[0]))
    return [(page_name(p), f"pages/{p.name}") for p in paths]


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


def shared_query(s: Settings) -> dict[str, str]:
    """The shared settings that differ from their defaults, as a link's query parameters."""
    return {key: value for key, value, default in [
        ("text", s.text, DEFAULT_TEXT), ("lang", s.lang, DEFAULT_LANG),
        ("pos", str(s.position).lower(), "true"),
        ("present", str(s.present).lower(), "false"),
        ("room", s.room.code if s.room else "", "")] if value != default}


def coded_radio(where, label: str, options: list[str], *, key: str, format_func,
                **kwargs: object) -> str:
    """A radio kept for the session and in the URL by its option code (`?key=code`).

    Its labels may follow the UI language (bind="query-params" would put the displayed label
    in the URL, so a link would work in one language only and a language switch would leave
    the radio with nothing selected). An unknown code in a link falls back to the first option.
    """
    kept = remembered(key, options[0], lambda raw: raw if raw in options else options[0])
    value = where.radio(label, options, format_func=format_func, **kept, **kwargs)
    to_url(key, value, options[0], value)
    return value


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
    member = room.membership()
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
    controls.caption(s.t("common.n_tokens", n=len(tokens)))
    with st.sidebar:
        tools(name)
    path = "" if name == "home" else name
    room.section(s, member, path)
    st.html(FORMULA_CSS + (PRESENTATION_CSS if present else ""))
    room.join_panel(s, member)
    room.student_bar(s, member, path)
    st.title(s.t(f"{name}.title"))
    for note in room.notes(lang):
        st.warning(note)
    room.live_question(s, member)
    if n_typed > len(tokens):
        st.warning(s.t("common.clipped", kept=len(tokens), total=n_typed))
    return s


_VIEW = st.components.v2.component("posviz_view", js=chart_module("view.js"))


def open_at_top(view: str, next_button: str = "", back_button: str = "") -> None:
    """Open this view at its top when the reader comes to it from another (static/view.js):
    view names what the reader sees, e.g. "lesson/4". With the keys of the view's next and back
    buttons, Page Down / Page Up (a presentation clicker) and the arrow keys press them while
    focus is on the page. Draws nothing."""
    keys = {"next": f".st-key-{next_button} button", "back": f".st-key-{back_button} button"}
    with st.sidebar:
        _VIEW(data={"view": view, "keys": keys if next_button or back_button else None},
              key="posviz_view", width="stretch")


def need_tokens(s: Settings) -> None:
    """Stop the page with a friendly prompt when the sentence has no tokens."""
    if not s.tokens:
        st.info(s.t("common.empty"))
        st.stop()


@contextlib.contextmanager
def guard(s: Settings) -> Iterator[None]:
    """Turn a ValueError from posviz (a setting it refuses) into a message on the page."""
    try:
        yield
    except ValueError as err:
        st.error(s.t("common.bad_setting", detail=str(err)))


def formula_parts(tex: str) -> list[str]:
    """A formula cut at each \\qquad outside braces and environments: the parts it lists."""
    parts, depth, start = [], 0, 0
    for match in re.finditer(r"\\begin\{[^}]*\}|\\end\{[^}]*\}|\\qquad|\\[{}]|[{}]", tex):
        token = match.group()
        if token == "{" or token.startswith("\\begin"):
            depth += 1
        elif token == "}" or token.startswith("\\end"):
            depth -= 1
        elif token == "\\qquad" and depth == 0:
            parts.append(tex[start:match.start()])
            start = match.end()
    return [part.strip() for part in [*parts, tex[start:]] if part.strip()]


def formula(tex: str) -> None:
    """A display formula that fits a phone. Each part (see formula_parts) is one unbreakable
    piece of display-style math, and the line may break only between parts: on a desk they
    stand side by side as on paper, on a phone one under the other; a part wider than the
    screen scrolls sideways instead of being cut at the edge."""
    pieces = r"\qquad\allowbreak ".join(f"{{{part}}}" for part in formula_parts(tex))
    st.markdown(f"$\\displaystyle {pieces}$", text_alignment="center")


def token_chips(tokens: list[str], labels: list[str] | None = None) -> None:
    """The tokens as chips, shown exactly as typed, each with a small label (default: position)."""
    labels = [str(t) for t in range(len(tokens))] if labels is None else labels
    chips = "".join(
        f'<span class="posviz-chip"><sub>{entities(label)}</sub>&nbsp;{entities(tok)}</span>'
        for label, tok in zip(labels, tokens, strict=True))
    st.html(f"""<style>.posviz-chip {{display:inline-block; margin:0 .3em .3em 0;
        padding:.15em .5em; border:1px solid rgba(128,128,128,.5); border-radius:.4em;
        font-size:1.4rem}}
        .posviz-chip sub {{opacity:.6; font-size:.7em}}</style><div>{chips}</div>""")
