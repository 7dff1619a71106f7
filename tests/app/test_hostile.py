"""Every page takes every hostile input calmly: no exception, a notice where text is cut or
refused, and the typed text never reaches an element that renders Markdown.

The whole corpus goes through every page's document (its body, the code Streamlit runs too:
tests/documents/test_documents.py shows the two agree), and a few of each kind through Streamlit
itself, in Chinese."""

from pathlib import Path

import pytest

from posviz.tokens import MAX_TOKENS, tokenize
from tests.helpers.controls import ROUTES, opened
from tests.helpers.hostile import CATEGORIES, HOSTILE
from ui import documents
from ui.blocks import walk
from ui.i18n import text
from ui.shared import OWN_TOKENIZER, page_name

IN_CHINESE = [t for group in CATEGORIES.values() for t in group[:3]]
RENDERED = ("title", "header", "subheader", "markdown", "caption", "latex", "info", "warning",
            "error", "success")  # elements that read Markdown (or LaTeX)
MARKDOWN_BLOCKS = ("heading", "markdown", "caption", "note")  # blocks the screens read so


def check(where: str, typed: str, lang: str, shown: dict[str, list[str]],
          prose: list[str], page: str | None) -> None:
    """The empty prompt and the cut notice exactly when due (never on a page that reads the
    sentence with a tokenizer of its own and says itself where that cuts); the typed text in
    no Markdown element unless the page's own words hold it anyway (prose: drawn for another
    sentence)."""
    n = len(tokenize(typed))
    if n == 0:
        assert text("common.empty", lang) in shown["info"], f"{where}: no empty prompt"
    clipped = text("common.clipped", lang, kept=MAX_TOKENS, total=n)
    due = n > MAX_TOKENS and page not in OWN_TOKENIZER
    assert (clipped in shown["warning"]) == due, \
        f"{where}: the notice that the text was cut is missing or wrong"
    if len(typed.strip()) >= 6 and not any(typed.strip() in value for value in prose):
        assert not any(typed.strip() in value for value in shown["rendered"]), \
            f"{where}: in Markdown"


def from_document(blocks: list[dict]) -> dict[str, list[str]]:
    """A document's notes by kind, and every text the screens render as Markdown."""
    out: dict[str, list[str]] = {"info": [], "warning": [], "rendered": []}
    for block in walk(blocks):
        if block["t"] == "note" and block["kind"] in out:
            out[block["kind"]].append(block["text"])
        if block["t"] in MARKDOWN_BLOCKS:
            out["rendered"].append(block["text"])
        if block["t"] == "question":
            out["rendered"] += [block["lead"], block["text"]]
    return out


def from_streamlit(at) -> dict[str, list[str]]:
    notes = {kind: [e.value for e in getattr(at, kind)] for kind in ("info", "warning")}
    return notes | {"rendered": [e.value for kind in RENDERED for e in getattr(at, kind)]}


@pytest.mark.parametrize("page", list(documents.pages()))
def test_every_page_takes_every_input_in_english(page):
    prose = from_document(documents.drawn(page, {}, "en"))["rendered"]
    for typed in HOSTILE:
        made = documents.drawn(page, {"text": [typed]}, "en", frozenset())
        check(f"{page} on {typed[:40]!r}", typed, "en", from_document(made), prose, page)


@pytest.mark.parametrize("route", ROUTES)
def test_every_page_takes_a_few_of_each_kind_in_chinese(route):
    at = opened(route, lang="zh")
    prose = from_streamlit(at)["rendered"]
    for typed in IN_CHINESE:
        at.text_input(key="text").set_value(typed).run()
        where = f"{route or 'home'} in zh on {typed[:40]!r}"
        assert not at.exception, f"{where}: {at.exception}"
        check(where, typed, "zh", from_streamlit(at), prose,
              route and page_name(Path(route)))


def test_the_corpus_covers_every_kind_the_issue_names():
    assert len(HOSTILE) >= 150
    assert len(set(HOSTILE)) == len(HOSTILE), "no input twice"
    longest = max(HOSTILE, key=len)
    assert len(longest) >= 10_000
    assert any(len(tokenize(t)) >= 5000 and len(set(tokenize(t))) == 1 for t in HOSTILE)
    assert any(len(t) >= 5000 and len(tokenize(t)) == 1 for t in HOSTILE)
    for needle in ("\u0301", "\u200d", "\u200b", "\u202e", "\x00", "🇨🇳", "ｆ", "𝐛",
                   "<script>", "onerror", "$\\frac{}{}$", "**", "`"):
        assert any(needle in t for t in HOSTILE), f"nothing with {needle!r}"
