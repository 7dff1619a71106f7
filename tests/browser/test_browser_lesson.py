"""The guided lesson in headless Chromium: a link to a scene and its full lesson's link. (Next
through every scene and Previous back, in both languages, and the whole lesson by the keyboard
alone, every answer revealed, are the screen sweep's desk walk; a clicker's Page Down and Page
Up, the arrow keys and R are its projector's English walk:
tests/browser/test_browser_screens.py.)"""

import pytest
from playwright.sync_api import expect

from tests.helpers.load_fixtures import (
    SENTENCE_BOX,
    assert_healthy,
    charts_drawn,
    settle,
)
from ui.i18n import text

pytestmark = pytest.mark.browser

SCENES = ["meaning", "position", "sum", "order", "sinusoidal", "rope", "alibi", "causal", "leak",
          "today", "port"]
AT_TOP = "document.querySelector('[data-testid=stMain]').scrollTop === 0"


def shows_scene(page, n: int, lang: str) -> None:
    """Scene n is on the page, its charts drawn, with no exception."""
    expect(page.locator("[data-testid=stMain] h2").first).to_have_text(
        f"{n}. {text(f'lesson.{SCENES[n - 1]}.head', lang)}", timeout=30_000)
    settle(page)
    assert charts_drawn(page) >= 1, f"scene {n} drew no chart"
    assert_healthy(page, f"scene {n} in {lang}")


def test_a_link_to_a_scene_opens_it_and_its_full_lesson_link_keeps_the_sentence(server, browser):
    """?scene=6 opens RoPE on a fresh page; the link to the full lesson carries the sentence."""
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(f"{server}/lesson?scene=6&text=dog%20bites%20man&lang=zh")
    shows_scene(page, 6, "zh")
    page.locator("[data-testid=stMain] [data-testid=stPageLink] a").click()
    settle(page)
    expect(page.locator("h1").first).to_have_text(text("rope.title", "zh"))
    expect(page.locator(SENTENCE_BOX)).to_have_value(
        "dog bites man")
    assert_healthy(page, "the full RoPE lesson")
    page.close()
