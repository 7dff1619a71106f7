"""Every page takes every hostile input calmly: no exception, a notice where text is cut or
refused, and the typed text never reaches an element that renders Markdown.

The whole corpus goes through every page's document (its body, the code Streamlit runs too:
tests/documents/test_documents.py shows the two agree), and one of each kind through Streamlit
itself, in Chinese."""

from pathlib import Path

import pytest

from posviz.tokens import tokenize
from tests.helpers.controls import ROUTES, opened
from tests.helpers.hostile import CATEGORIES, HOSTILE, check, from_document, from_streamlit
from ui import documents
from ui.shared import page_name

IN_CHINESE = [group[0] for group in CATEGORIES.values()]  # one of each kind; all, by documents


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
