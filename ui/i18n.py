"""The translation catalog: every piece of UI text in English and Simplified Chinese.

`assets/i18n/<section>.toml` holds short strings, each key a table with `en` and `zh`; a key
is named `<section>.<key>` (e.g. `home.title`). Long explanations are Markdown files in
`assets/text/<lang>/<name>.md`.
"""

from __future__ import annotations

import functools
import tomllib
from pathlib import Path

LANGS = {"en": "English", "zh": "简体中文"}
ASSETS = Path(__file__).resolve().parent.parent / "assets"


def _leaves(table: dict, prefix: str) -> dict[str, dict[str, str]]:
    """Flatten nested TOML tables down to the {"en": ..., "zh": ...} entries."""
    if "en" in table or "zh" in table:
        return {prefix: table}
    out: dict[str, dict[str, str]] = {}
    for key, value in table.items():
        out |= _leaves(value, f"{prefix}.{key}")
    return out


@functools.cache
def catalog() -> dict[str, dict[str, str]]:
    """Every translation key with its texts, read once per process."""
    out: dict[str, dict[str, str]] = {}
    for path in sorted((ASSETS / "i18n").glob("*.toml")):
        out |= _leaves(tomllib.loads(path.read_text("utf-8")), path.stem)
    return out


def lang_tag(lang: str) -> str:
    """The language as HTML names it (a page's lang: screen readers pick their voice by it)."""
    return "zh-Hans" if lang == "zh" else "en"


def text(key: str, lang: str, **values: object) -> str:
    """The text for key in lang, with {placeholders} filled from values."""
    entry = catalog()[key][lang]
    return entry.format(**values) if values else entry


@functools.cache
def prose(name: str, lang: str) -> str:
    """A long explanation, as Markdown, from assets/text/<lang>/<name>.md."""
    return (ASSETS / "text" / lang / f"{name}.md").read_text("utf-8")
