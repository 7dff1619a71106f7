"""A page's shared settings (the sentence, the language, the switches) and what every page
shows first, for a page run by Streamlit and for a view drawn as a document alike."""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from posviz.tokens import clip_tokens, tokenize
from ui.doc import Doc
from ui.i18n import catalog, prose, text
from ui.state import flag

if TYPE_CHECKING:
    from ui.room.membership import Member

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_TEXT = "刚想到了"
DEFAULT_LANG = "en"  # the first of LANGS
VIEWER = "_viewer"  # a catalog key's twin for a screen without the app's controls


@dataclass(frozen=True)
class Settings:
    """What the shared controls say, read once at the top of a page."""

    lang: str
    text: str
    tokens: list[str]
    n_typed: int  # tokens in the text before it was cut to MAX_TOKENS
    position: bool
    present: bool  # presentation mode: large text, tucked-away sidebar
    room: Member | None = None  # the lecture room this session is in
    controls: bool = True  # the reader has the app's controls (not a room's screen or a file)

    def t(self, key: str, **values: object) -> str:
        """The UI text for key in the current language. Where the reader has none of the app's
        controls (a document for a room's screen or a file), the key's `_viewer` twin if it
        has one: the same fact, with no word of a control that screen lacks."""
        if not self.controls and f"{key}{VIEWER}" in catalog():
            key += VIEWER
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


def need_tokens(d: Doc, s: Settings) -> None:
    """Stop the page with a friendly prompt when the sentence has no tokens."""
    if not s.tokens:
        d.info(s.t("common.empty"))
        d.stop()


def guard(d: Doc, s: Settings):
    """A block in which a ValueError from posviz (a setting it refuses) becomes a message."""
    return d.guard(lambda detail: s.t("common.bad_setting", detail=detail))


OWN_TOKENIZER = ("real",)
"""Pages that read the sentence with another tokenizer, and say themselves where it is cut."""


def head(d: Doc, s: Settings, name: str) -> None:
    """What every page shows first: its title, and a note when the sentence was cut."""
    d.title(s.t(f"{name}.title"))
    if s.n_typed > len(s.tokens) and name not in OWN_TOKENIZER:
        d.warning(s.t("common.clipped", kept=len(s.tokens), total=s.n_typed))


def settings(query: Mapping[str, Sequence[str]], lang: str,
             controls: bool = False) -> Settings:
    """The shared settings a view's query string gives, for a reader in lang (with the app's
    controls, or, by default, without them: a room's screen, a file)."""
    typed = (query.get("text") or [DEFAULT_TEXT])[-1]
    tokens, n_typed = clip_tokens(tokenize(typed))
    position = flag((query.get("pos") or ["true"])[-1])
    return Settings(lang, typed, tokens, n_typed, position, present=False, controls=controls)
