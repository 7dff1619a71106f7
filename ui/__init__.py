"""The one place besides pages/ that imports streamlit: shared controls, navigation, messages.

Every page starts with `s = ui.page("<name>")`, which draws the sidebar (navigation, language,
sentence, position switch) and returns the shared settings. The sentence and both switches are
bound to the URL and kept for the whole session, so page switches, reloads and shared links all
keep them.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from posviz.tokens import MAX_TOKENS, clip_tokens, tokenize
from ui.i18n import LANGS, prose, text

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_TEXT = "刚想到了"
DEFAULT_LANG = "en"


@dataclass(frozen=True)
class Settings:
    """What the shared controls say, read once at the top of a page."""

    lang: str
    text: str
    tokens: list[str]
    n_typed: int  # tokens in the text before it was cut to MAX_TOKENS
    position: bool

    def t(self, key: str, **values: object) -> str:
        """The UI text for key in the current language."""
        return text(key, self.lang, **values)

    def prose(self, name: str) -> str:
        """A long explanation in the current language."""
        return prose(name, self.lang)


def page_name(path: Path) -> str:
    """A page's catalog section: pages/3_rope.py -> "rope"."""
    return re.sub(r"^\d+_", "", path.stem)


def lesson_pages() -> list[tuple[str, str]]:
    """(name, script path) of every page in pages/, in their numbered order."""
    paths = sorted((ROOT / "pages").glob("*.py"), key=lambda p: int(p.stem.split("_")[0]))
    return [(page_name(p), f"pages/{p.name}") for p in paths]


def _navigation(nav, lang: str) -> None:
    """Links to home and every lesson, labelled in the UI language.

    Skipped when a page is run on its own (`streamlit run pages/x.py`): links resolve against
    the entry script, and then there is no app around the page to link to.
    """
    if Path(get_script_run_ctx().main_script_path).resolve() != ROOT / "app.py":
        return
    nav.page_link("app.py", label=text("home.nav", lang), icon=":material/home:")
    for name, path in lesson_pages():
        nav.page_link(path, label=text(f"{name}.nav", lang))


def _language() -> str:
    """The language radio, kept in the session and in the URL as a code (`?lang=zh`).

    Not bound with bind="query-params": that would put the displayed name in the URL.
    """
    if "lang" not in st.session_state:  # a new session: the link decides
        st.session_state.lang = st.query_params.get("lang") if st.query_params.get(
            "lang") in LANGS else DEFAULT_LANG
    lang = st.sidebar.radio("Language · 语言", list(LANGS), format_func=LANGS.get, key="lang",
                            horizontal=True, persist_state="session")
    if lang == DEFAULT_LANG:
        st.query_params.pop("lang", None)
    else:
        st.query_params["lang"] = lang
    return lang


def page(name: str) -> Settings:
    """Draw the shared sidebar and the page title; return the shared settings."""
    nav, controls = st.sidebar.container(), st.sidebar.container()
    lang = _language()
    st.set_page_config(page_title=f"{text(f'{name}.nav', lang)} · posviz", layout="wide",
                       page_icon=":material/timeline:")
    _navigation(nav, lang)
    typed = controls.text_input(text("common.sentence", lang), DEFAULT_TEXT, key="text",
                                  help=text("common.sentence_help", lang, n=MAX_TOKENS),
                                  bind="query-params", persist_state="session")
    position = controls.toggle(text("common.position", lang), True, key="pos",
                                 help=text("common.position_help", lang),
                                 bind="query-params", persist_state="session")
    tokens, n_typed = clip_tokens(tokenize(typed or ""))
    s = Settings(lang, typed or "", tokens, n_typed, position)
    controls.caption(s.t("common.n_tokens", n=len(tokens)))
    st.title(s.t(f"{name}.title"))
    if n_typed > len(tokens):
        st.warning(s.t("common.clipped", kept=len(tokens), total=n_typed))
    return s


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


def _entities(token: str) -> str:
    """Every character as an HTML entity: no Markdown, LaTeX or HTML in a token survives."""
    return "".join(f"&#{ord(c)};" for c in token)


def token_chips(tokens: list[str], labels: list[str] | None = None) -> None:
    """The tokens as chips, shown exactly as typed, each with a small label (default: position)."""
    labels = [str(t) for t in range(len(tokens))] if labels is None else labels
    chips = "".join(
        f'<span class="posviz-chip"><sub>{_entities(label)}</sub>&nbsp;{_entities(tok)}</span>'
        for label, tok in zip(labels, tokens, strict=True))
    st.html(f"""<style>.posviz-chip {{display:inline-block; margin:0 .3em .3em 0;
        padding:.15em .5em; border:1px solid rgba(128,128,128,.5); border-radius:.4em;
        font-size:1.4rem}}
        .posviz-chip sub {{opacity:.6; font-size:.7em}}</style><div>{chips}</div>""")
