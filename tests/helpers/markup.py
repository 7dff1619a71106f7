"""Markup typed as a sentence, and what a page would hold had it been run or rendered rather
than shown as text."""

from __future__ import annotations

import contextlib

from playwright.sync_api import TimeoutError as PlaywrightTimeout

MARKER = "markerzeta"
MARKUP = (f'{MARKER} <img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script> '
          "**bold** `code` # head $\\frac{1}{2}$ [a](javascript:alert(1))")

WORDS = ("<", "img", "onerror", "script", "pwned", "*", "`", "#", "$", "frac", "javascript",
         "alert")

# root's text and its drawn charts' text.
TEXT_JS = """(root) => {
  const scope = document.querySelector(root);
  return scope.innerText + ' ' + [...scope.querySelectorAll('.js-plotly-plot')]
    .map((chart) => chart.textContent).join(' ');
}"""

# True once at most `most` of `words` are missing from root's text and its charts' text.
MOST_WORDS_JS = """([root, words, most]) => {
  const shown = (TEXT)(root);
  return words.filter((word) => !shown.includes(word)).length <= most;
}""".replace("TEXT", TEXT_JS)

# What would exist only if the typed text had been run or rendered, not shown as text.
RENDERED_JS = """() => ({
  pwned: window.__pwned,
  images: document.querySelectorAll('img[src="x"]').length,
  scripts: [...document.querySelectorAll('script:not([type="application/json"])')].filter(
      s => s.textContent.includes('__pwned')).length,  // a file's data holds the text, inert
  bold: [...document.querySelectorAll('strong, b')].filter(e => e.textContent === 'bold').length,
  code: [...document.querySelectorAll('code')].filter(e => e.textContent === 'code').length,
  links: document.querySelectorAll('a[href^="javascript:"]').length,
  headings: [...document.querySelectorAll('h1, h2, h3')].filter(
      e => e.textContent.trim() === 'head').length,
})"""
INERT = {"pwned": None, "images": 0, "scripts": 0, "bold": 0, "code": 0, "links": 0,
         "headings": 0}


def inert(page, where: str) -> None:
    """No script of MARKUP ran and no element came from it."""
    assert page.evaluate(RENDERED_JS) == INERT, where


def shown_as_text(page, where: str, root: str = "[data-testid=stMain]") -> None:
    """MARKUP is inert (`inert`); where root shows the sentence, in its text or its drawn
    charts, the markup's words are there as text (a chart may thin its tick labels on a long
    sentence: most words, not every one, and a chart redrawn at its final width a moment later
    may show more of them)."""
    inert(page, where)
    if MARKER not in page.evaluate(TEXT_JS, root):
        return
    with contextlib.suppress(PlaywrightTimeout):
        page.wait_for_function(MOST_WORDS_JS, arg=[root, WORDS, len(WORDS) // 4],
                               timeout=15_000)
    shown = page.evaluate(TEXT_JS, root)
    missing = [word for word in WORDS if word not in shown]
    assert len(missing) <= len(WORDS) // 4, f"{where} shows no {missing} as text"

