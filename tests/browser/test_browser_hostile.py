"""A typed model name's markup in a real browser: shown as text in the refusal, never run or
rendered. (Markup typed as the sentence is followed across every page by the screen sweep's
desk walk: tests/browser/test_browser_screens.py.)"""

import pytest
from playwright.sync_api import expect

from tests.helpers.load_fixtures import DRAWN_JS, page_url
from tests.helpers.markup import INERT, MARKER, MARKUP, RENDERED_JS
from ui.i18n import text

pytestmark = pytest.mark.browser


def test_a_typed_model_name_stays_text_in_the_refusal(server, browser):
    """The real-model page names what was typed in its refusal: as text, its markup inert."""
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(page_url(server, "pages/8_real.py", {"text": "刚想到了"}))
    page.wait_for_function(DRAWN_JS, arg=[text("real.title", "en"), 0, ""], timeout=60_000)
    box = page.locator(".st-key-model input")
    box.fill(MARKUP)
    box.press("Enter")
    error = page.locator("[data-testid=stMain] [data-testid=stAlertContentError]")
    expect(error).to_contain_text(MARKER, timeout=30_000)
    assert page.evaluate(RENDERED_JS) == INERT
    assert MARKUP in error.inner_text()  # every character as typed, the markup as text
    page.close()
