"""An address that names no page: Streamlit runs the home page in its place, and the home page
says so in the reader's language, with a link to every lesson (app.missing_page, app.not_found)
instead of Streamlit's own dialog in English."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest
import streamlit as st
from playwright.sync_api import expect

import app
from tests.helpers.load_fixtures import rerun, settle
from ui import lesson_pages
from ui.i18n import text

NOTICE = ".st-key-home_not_found"


@pytest.mark.parametrize(("url", "base", "missing"), [
    ("http://lecture.example.edu:8500", "", False),
    ("http://lecture.example.edu:8500/nosuchpage", "", True),
    ("http://lecture.example.edu/posviz", "posviz", False),
    ("http://lecture.example.edu/posviz/nosuchpage", "posviz/", True),
    ("http://lecture.example.edu/posvizz", "posviz", True),
    (None, "", False),  # no browser: a test run, a document
])
def test_only_an_address_past_the_apps_own_names_no_page(monkeypatch, url, base, missing):
    """The app's own address, under server.baseUrlPath when it has one, is the home page."""
    monkeypatch.setattr(type(st.context), "url", property(lambda _: url))
    monkeypatch.setattr(app.st, "get_option", {"server.baseUrlPath": base}.get)
    assert app.missing_page() is missing


@pytest.mark.browser
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_an_unknown_address_says_so_in_the_readers_language(server, browser, artifacts, lang):
    """The notice in the address's language, no English dialog left open, every lesson linked
    with the reader's settings; its link opens the lesson, in the same language."""
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.goto(f"{server}/nosuchpage" + ("?lang=zh" if lang == "zh" else ""))
    settle(page)
    notice = page.locator(NOTICE)
    said = notice.locator("[data-testid=stAlert] [data-testid=stMarkdownContainer]")
    expect(said).to_have_text(text("home.not_found", lang))
    expect(page.get_by_role("dialog")).to_have_count(0)  # Streamlit's "Page not found", closed
    assert page.locator("[data-testid=stException]").count() == 0
    links = notice.locator("[data-testid=stPageLink] a")
    assert links.all_inner_texts() == [text(f"{name}.nav", lang) for name, _ in lesson_pages()]
    page.screenshot(path=artifacts / f"not-found-{lang}.png")

    with rerun(page):
        links.first.click()
    first = lesson_pages()[0][0]
    address = urlsplit(page.evaluate("location.href"))
    assert address.path.endswith(f"/{first}")
    assert parse_qs(address.query).get("lang") == (["zh"] if lang == "zh" else None)
    expect(page.locator("[data-testid=stMain] h1").first).to_have_text(
        text(f"{first}.title", lang))
    assert page.locator(NOTICE).count() == 0
    page.close()


@pytest.mark.browser
def test_pages_that_exist_say_nothing_of_it(server, browser):
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    for path in ("/", "/?lang=zh", f"/{lesson_pages()[3][0]}"):
        page.goto(f"{server}{path}")
        settle(page)
        assert page.locator(NOTICE).count() == 0, path
        expect(page.get_by_role("dialog")).to_have_count(0)
    page.close()
