"""The running app in headless Chromium, driven the way a lecturer uses it. (The walk through
every page by the sidebar's links, with markup typed as the sentence, is the screen sweep's
desk walk, and a prepared link on every page with the first tap in the sidebar after it is its
phone's Chinese walk: tests/browser/test_browser_screens.py.)"""

import os
import re
import shutil
from urllib.parse import quote

import pytest
from playwright.sync_api import expect

from tests.conftest import ROOT
from tests.helpers.load_fixtures import (
    CHART_BOXES,
    SENTENCE_BOX,
    assert_healthy,
    charts_drawn,
    rerun,
    settle,
)

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_streamlits_english_field_hint_shows_to_english_readers_only(server, browser, lang):
    """Typing into a field, Streamlit says "Press Enter to apply" in English whatever the
    page's language: a Chinese page leaves it out."""
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(f"{server}/?lang={lang}")
    settle(page)
    page.locator(SENTENCE_BOX).press_sequentially("x")
    hint = page.locator("[data-testid=InputInstructions]").first
    hint.wait_for(state="attached")
    if lang == "en":
        expect(hint).to_be_visible()
    else:
        expect(hint).to_be_hidden()
    page.close()


def test_home_screenshot_for_the_readme(server, browser, artifacts):
    """The README picture: home with the default sentence (refreshed with POSVIZ_SCREENSHOT=1)."""
    page = browser.new_page(viewport={"width": 1280, "height": 860})
    page.goto(server)
    settle(page)
    assert_healthy(page, "home")
    assert re.search("刚", page.locator("[data-testid=stMain]").inner_text())
    page.screenshot(path=artifacts / "home.png")
    if os.environ.get("POSVIZ_SCREENSHOT") == "1":
        shutil.copy(artifacts / "home.png", ROOT / "assets" / "screenshot.png")
    page.close()


def test_a_chart_out_of_sight_draws_when_scrolled_to_and_redraws_then(server, browser):
    """Charts below the window wait until the reader scrolls near them, both on opening the
    page and after a rerun; what is in sight is drawn at once."""
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.goto(f"{server}/alibi")
    settle(page)
    below = page.locator(".posviz-chart[data-name=form_paper]")  # token labels on its axes
    expect(page.locator(".posviz-chart").first.locator(".main-svg").first).to_be_attached()
    assert below.locator(".main-svg").count() == 0, "a chart far below drew without a reader"
    charts_drawn(page)
    assert below.locator(".main-svg").count() >= 1

    page.evaluate("window.scrollTo(0, 0); document.querySelector('[data-testid=stMain]')"
                  ".scrollTo(0, 0)")
    box = page.locator(SENTENCE_BOX)
    box.fill("later sentence here")
    with rerun(page):
        box.press("Enter")
    assert "later" not in below.text_content(), "an out-of-sight chart redrew without a reader"
    below.scroll_into_view_if_needed()
    expect(below).to_contain_text("later", timeout=10_000)
    page.close()


def test_a_chart_waiting_to_draw_already_takes_its_drawn_height(server, browser):
    """Nothing on a page moves when a chart comes near the window and draws: the place it keeps
    has the height it is drawn at (on a phone: the tool bar above it, a title wrapped to the
    screen). A button under a chart that moved as it drew would take a tap meant for another."""
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True,
                                  has_touch=True, device_scale_factor=2)
    page = context.new_page()
    page.goto(f"{server}/attention?text={quote('刚想到了 and a longer sentence')}")
    settle(page)
    page.wait_for_function("""() => {
        const boxes = [...document.querySelectorAll('CHART_BOXES')];
        return boxes.length > 2 && boxes.every((box) => box.querySelector('.posviz-chart'));
    }""".replace("CHART_BOXES", CHART_BOXES), timeout=30_000)  # each chart's module loaded
    kept = page.evaluate("""() => Object.fromEntries([...document.querySelectorAll(
        '.posviz-chart')].filter((c) => c.posvizPending).map((c) => [c.dataset.name,
        c.getBoundingClientRect().height]))""")
    assert len(kept) >= 3, f"expected charts below the window still waiting, got {kept}"
    charts_drawn(page)
    drawn = page.evaluate("""() => Object.fromEntries([...document.querySelectorAll(
        '.posviz-chart')].map((c) => [c.dataset.name, c.getBoundingClientRect().height]))""")
    moved = {name: (height, drawn[name]) for name, height in kept.items()
             if abs(drawn[name] - height) > 1}
    assert not moved, f"charts whose height changed as they drew (kept, drawn): {moved}"
    context.close()


@pytest.mark.parametrize("width", [390, 1400])
def test_a_tap_on_a_sidebar_link_closes_the_sidebar_on_a_phone_only(server, browser, width):
    """On a phone the sidebar covers the page: a tap on one of its page links opens the page
    with the sidebar closed (before, it stayed open over the new page). On a desk, where it
    stands beside the page, a click leaves it open."""
    phone = width < 768
    context = browser.new_context(viewport={"width": width, "height": 844}, is_mobile=phone,
                                  has_touch=phone)
    page = context.new_page()
    page.goto(server)
    settle(page)
    sidebar = page.locator("[data-testid=stSidebar]")
    if phone:
        expect(sidebar).to_have_attribute("data-collapsed", "true")
        page.locator("[data-testid=stExpandSidebarButton]").tap()
        expect(sidebar).to_have_attribute("data-collapsed", "false")
    link = sidebar.locator("a[href$='sinusoidal']")
    if phone:
        link.tap()
    else:
        link.click()
    page.wait_for_url(re.compile(r"/sinusoidal"))
    settle(page)
    expect(sidebar).to_have_attribute("data-collapsed", "true" if phone else "false")
    context.close()
