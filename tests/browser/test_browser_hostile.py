"""Typed markup in a real browser: shown as text on every page, never run or rendered."""

import contextlib

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import expect

from posviz.tokens import tokenize
from tests.helpers.controls import ROUTES
from tests.helpers.load_fixtures import (
    CHARTS_JS,
    DRAWN_JS,
    FINISHED,
    SENTENCE_BOX,
    charts,
    charts_drawn,
    page_url,
    route_name,
)
from ui.i18n import text

pytestmark = pytest.mark.browser

MARKER = "markerzeta"
TYPED = (f'{MARKER} <img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script> '
         "**bold** `code` # head $\\frac{1}{2}$ [a](javascript:alert(1))")

WORDS = ("<", "img", "onerror", "script", "pwned", "*", "`", "#", "$", "frac", "javascript",
         "alert")

# True once at most `most` of `words` are missing from the page's text and its charts' text.
MOST_WORDS_JS = """([words, most]) => {
  const shown = document.querySelector('[data-testid=stMain]').innerText + ' '
    + (CHARTS)().join(' ');
  return words.filter((word) => !shown.includes(word)).length <= most;
}""".replace("CHARTS", CHARTS_JS)

# What would exist only if the typed text had been run or rendered, not shown as text.
RENDERED_JS = """() => ({
  pwned: window.__pwned,
  images: document.querySelectorAll('img[src="x"]').length,
  scripts: [...document.querySelectorAll('script')].filter(
      s => s.textContent.includes('__pwned')).length,
  bold: [...document.querySelectorAll('strong, b')].filter(e => e.textContent === 'bold').length,
  code: [...document.querySelectorAll('code')].filter(e => e.textContent === 'code').length,
  links: document.querySelectorAll('a[href^="javascript:"]').length,
  headings: [...document.querySelectorAll('h1, h2, h3')].filter(
      e => e.textContent.trim() === 'head').length,
})"""


def test_typed_markup_stays_text_on_every_page(server, browser):
    """On every page: no script ran, no element came from the typed markup, and where the page
    shows the sentence, the markup's words are there as text."""
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    tokens = tokenize(TYPED)
    for route in ROUTES:
        name = route_name(route)
        page.goto(page_url(server, route))
        page.wait_for_function(DRAWN_JS, arg=[text(f"{name}.title", "en"), 0, ""],
                               timeout=60_000)
        page.wait_for_load_state("networkidle")  # nothing left to load that could rerun it
        page.wait_for_selector(FINISHED)
        box = page.locator(SENTENCE_BOX)
        box.fill(TYPED)
        box.press("Enter")
        expect(page.locator("[data-testid=stSidebar] [data-testid=stCaptionContainer]").first
               ).to_have_text(text("common.n_tokens", "en", n=len(tokens)), timeout=30_000)
        page.wait_for_function(DRAWN_JS, arg=[text(f"{name}.title", "en"), 0, ""],
                               timeout=60_000)
        charts_drawn(page)  # every chart drawn, each scrolled to

        assert page.locator("[data-testid=stException]").count() == 0, name
        assert page.evaluate(RENDERED_JS) == {"pwned": None, "images": 0, "scripts": 0,
                                              "bold": 0, "code": 0, "links": 0,
                                              "headings": 0}, name
        assert box.input_value() == TYPED, name
        shown = page.locator("[data-testid=stMain]").inner_text() + " ".join(charts(page))
        if MARKER in shown:  # the page shows the sentence: its markup as text
            # a chart may thin its tick labels on a long sentence: most words, not every one
            # (and a chart redrawn at its final width a moment later may show more of them)
            with contextlib.suppress(PlaywrightTimeout):
                page.wait_for_function(MOST_WORDS_JS, arg=[WORDS, len(WORDS) // 4],
                                       timeout=15_000)
            shown = page.locator("[data-testid=stMain]").inner_text() + " ".join(charts(page))
            missing = [word for word in WORDS if word not in shown]
            assert len(missing) <= len(WORDS) // 4, f"{name} shows no {missing} as text"
        if route is None:
            chips = page.locator(".posviz-chip").all_inner_texts()[:len(tokens)]
            assert [chip.split("\u00a0", 1)[1] for chip in chips] == tokens
    page.close()


def test_a_typed_model_name_stays_text_in_the_refusal(server, browser):
    """The real-model page names what was typed in its refusal: as text, its markup inert."""
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(page_url(server, "pages/8_real.py", {"text": "刚想到了"}))
    page.wait_for_function(DRAWN_JS, arg=[text("real.title", "en"), 0, ""], timeout=60_000)
    box = page.locator(".st-key-model input")
    box.fill(TYPED)
    box.press("Enter")
    error = page.locator("[data-testid=stMain] [data-testid=stAlertContentError]")
    expect(error).to_contain_text(MARKER, timeout=30_000)
    assert page.evaluate(RENDERED_JS) == {"pwned": None, "images": 0, "scripts": 0, "bold": 0,
                                          "code": 0, "links": 0, "headings": 0}
    assert TYPED in error.inner_text()  # every character as typed, the markup as text
    page.close()
