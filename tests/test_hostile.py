"""Every page takes every hostile input calmly: no exception, a notice where text is cut or
refused, and the typed text never reaches an element that renders Markdown."""

import pytest

from posviz.tokens import MAX_TOKENS, tokenize
from tests.controls import ROUTES, opened
from tests.hostile import CATEGORIES, HOSTILE
from ui.i18n import text

IN_CHINESE = [t for group in CATEGORIES.values() for t in group[:3]]
RENDERED = ("title", "header", "subheader", "markdown", "caption", "latex", "info", "warning",
            "error", "success")  # elements that read Markdown (or LaTeX)


def notices(at, kind: str) -> list[str]:
    return [element.value for element in getattr(at, kind)]


def rendered(at) -> list[str]:
    return [value for kind in RENDERED for value in notices(at, kind)]


def check(at, route, typed: str, lang: str, prose: list[str]) -> None:
    """No exception; the empty prompt and the cut notice exactly when due; the typed text in no
    Markdown element unless the page's own words hold it anyway (prose: drawn for another
    sentence)."""
    where = f"{route or 'home'} in {lang} on {typed[:40]!r}"
    assert not at.exception, f"{where}: {at.exception}"
    n = len(tokenize(typed))
    if n == 0:
        assert text("common.empty", lang) in notices(at, "info"), f"{where}: no empty prompt"
    clipped = text("common.clipped", lang, kept=MAX_TOKENS, total=n)
    assert (clipped in notices(at, "warning")) == (n > MAX_TOKENS), \
        f"{where}: the notice that the text was cut is missing or wrong"
    if len(typed.strip()) >= 6 and not any(typed.strip() in value for value in prose):
        assert not any(typed.strip() in value for value in rendered(at)), f"{where}: in Markdown"


@pytest.mark.parametrize("route", ROUTES)
def test_every_page_takes_every_input_in_english(route):
    at = opened(route)
    prose = rendered(at)
    for typed in HOSTILE:
        at.text_input(key="text").set_value(typed).run()
        check(at, route, typed, "en", prose)


@pytest.mark.parametrize("route", ROUTES)
def test_every_page_takes_a_few_of_each_kind_in_chinese(route):
    at = opened(route, lang="zh")
    prose = rendered(at)
    for typed in IN_CHINESE:
        at.text_input(key="text").set_value(typed).run()
        check(at, route, typed, "zh", prose)


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
