"""The guided lesson in headless Chromium: a link to a scene, the clicker and the keys. (Next
through every scene and Previous back, in both languages, and the whole lesson by the keyboard
alone, every answer revealed, are the screen sweep's desk walk:
tests/browser/test_browser_screens.py.)"""

import pytest
from playwright.sync_api import expect

from tests.helpers.load_fixtures import (
    SENTENCE_BOX,
    assert_healthy,
    charts_drawn,
    rerun,
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


def test_a_clicker_and_the_arrow_keys_turn_the_scenes(server, browser):
    """Page Down (what a presentation clicker sends) and the arrow keys move between scenes
    while focus is on the page, and after a reveal (focus on its switch); R reveals the answer
    and the focus goes to it; typed into the sentence box, an arrow only moves the caret."""
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    page.goto(f"{server}/lesson?scene=1")
    shows_scene(page, 1, "en")
    expect(page.get_by_text("a presentation clicker works too")).to_be_visible()
    for key, scene in (("PageDown", 2), ("ArrowRight", 3), ("PageUp", 2), ("ArrowLeft", 1)):
        page.locator("[data-testid=stMain] h2").first.click()  # focus on the page itself
        with rerun(page):
            page.keyboard.press(key)
        shows_scene(page, scene, "en")
    page.locator("[data-testid=stMain] h2").first.click()
    with rerun(page):
        page.keyboard.press("r")  # R reveals the answer, and the focus goes to it
    page.wait_for_selector("[data-testid=stMain] [data-testid=stAlertContentSuccess]")
    page.wait_for_function("() => document.activeElement?.matches('.st-key-question_scene-"
                           "meaning') && !!document.activeElement.querySelector("
                           "'[data-testid=stAlertContentSuccess]')")
    assert page.evaluate("getComputedStyle(document.activeElement).outlineStyle") == "none"
    page.wait_for_function("""() => {  // the answer in the window, scrolled to if below it
        const r = document.querySelector('[data-testid=stMain] [data-testid=stAlertContentSuccess]')
          .closest('[data-testid=stAlert]').getBoundingClientRect();
        return r.top >= 0 && r.bottom <= innerHeight + 1;
    }""")
    page.locator(".st-key-lesson_reveal_meaning input").focus()  # focus on the switch
    with rerun(page):
        page.keyboard.press("PageDown")  # the clicker goes on after a reveal
    shows_scene(page, 2, "en")
    # the focus is on the new scene's heading, for a screen reader, with no ring drawn round
    # it (the lecturer did not Tab there); a control Tabbed to keeps its ring
    page.wait_for_function("() => document.activeElement?.matches('[data-testid=stMain] h2')")
    assert page.evaluate("getComputedStyle(document.activeElement).outlineStyle") == "none"
    page.keyboard.press("Tab")
    assert page.evaluate("getComputedStyle(document.activeElement).outlineStyle") != "none"
    page.locator("[data-testid=stMain] h2").first.click()  # focus on the page again
    with rerun(page):
        page.keyboard.press("PageUp")
    shows_scene(page, 1, "en")
    page.locator(SENTENCE_BOX).click()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("PageDown")
    settle(page)
    assert "scene=1" in page.url
    # the scene picker is heard as scenes by their titles, not Streamlit's "Page 4"
    pager = page.get_by_role("navigation", name=text("lesson.pager_nav", "en"))
    expect(pager.get_by_role("button", name=text(
        "lesson.pager_scene", "en", n=4, head=text("lesson.order.head", "en")))).to_be_visible()
    expect(pager.get_by_role("button", name=text("lesson.pager_next", "en"))).to_be_visible()
    page.close()
