"""A student tries a sentence of their own on the room's screen: on a phone following the
lecturer's scene, "Explore on my own" (the lecturer kept students out of the app), the box
tapped and 了到想刚 typed (no Enter); the scene's live figure is the Python engine's for that
sentence (to 1e-12), computed in the phone's browser with no request but the room's own long
poll; the bar says all along that it follows the lecturer, and whose sentence it shows; one
tap on "Back to following" shows the lecturer's figure again and follows on. Once the lecturer
lets students in, "Explore on my own" opens the app's page instead."""

from __future__ import annotations

import numpy as np
import pytest
from playwright.sync_api import expect

from posviz.embedding import token_embeddings
from posviz.sinusoidal import sinusoidal
from posviz.tokens import token_labels, tokenize
from tests.documents.test_handout import PHONE, TOLERANCE, TYPED, as_array, drawn_for
from tests.helpers.load_fixtures import page_url, rerun, settle
from tests.helpers.room_fixtures import ticket
from ui.cached.lesson import EMBED_D
from ui.i18n import text

pytestmark = pytest.mark.browser

LESSON = "pages/0_lesson.py"
SCENE = 3  # E, P and E + P


def _room_on_scene(server, browser, request, lang: str) -> tuple:
    """A lecturer's room on the lesson's SCENE and a phone following it: (lecturer, phone)."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    request.addfinalizer(context.close)
    lecturer = context.new_page()
    lecturer.goto(page_url(server, LESSON, {"scene": str(SCENE), "text": "刚想到了", "lang": lang}))
    settle(lecturer)
    with rerun(lecturer):
        lecturer.locator("[data-testid=stSidebar]").get_by_role(
            "button", name=text("room.start", lang)).click()
    lecturer.wait_for_url("**room=*")
    code = lecturer.evaluate("new URLSearchParams(location.search).get('room')")
    lecturer.locator(f"[data-granted='{code}']").wait_for(state="attached")

    phone_context = browser.new_context(**PHONE)
    request.addfinalizer(phone_context.close)
    phone = phone_context.new_page()
    phone.goto(f"{server}/_posviz/follow/{code}?t={ticket(code)}&lang={lang}")
    expect(phone.locator("#posviz-viewer h2").first).to_have_text(
        f"{SCENE}. {text('lesson.sum.head', lang)}", timeout=30_000)
    return lecturer, phone


def test_a_phone_in_a_room_tries_its_own_sentence_and_one_tap_follows_again(
        server, browser, request):
    _, phone = _room_on_scene(server, browser, request, "zh")
    errors: list[str] = []
    phone.on("pageerror", lambda e: errors.append(str(e)))
    lecturers = token_labels(tokenize("刚想到了"))
    drawn_for(phone, "lesson_sum", lecturers)  # the lecturer's figure, drawn

    asked: list[str] = []
    phone.on("request", lambda r: asked.append(r.url))
    phone.get_by_role("button", name=text("viewer.explore", "zh")).tap()
    box = phone.locator("#posviz-try-input")
    following = phone.locator(".posviz-following")
    expect(box).to_be_visible()  # nothing typed yet: the lecturer's sentence, still followed
    expect(following).to_have_text(text("viewer.following", "zh"))
    box.tap()
    phone.keyboard.type(TYPED)
    tokens = tokenize(TYPED)
    got = drawn_for(phone, "lesson_sum", token_labels(tokens))
    e, p = token_embeddings(tokens, EMBED_D), sinusoidal(len(tokens), EMBED_D)
    for drawn, want in zip(got, [e, p, e + p], strict=True):
        assert np.max(np.abs(as_array(drawn["z"]) - want)) <= TOLERANCE
    assert all("/_posviz/room/" in url for url in asked), asked  # computed here
    expect(following).to_have_text(text("viewer.following_own", "zh"))  # still following

    phone.get_by_role("button", name=text("viewer.try_back", "zh")).tap()
    expect(box).to_have_count(0)
    expect(phone.locator(".posviz-following")).to_have_text(text("viewer.following", "zh"))
    back = drawn_for(phone, "lesson_sum", lecturers)
    assert [row["y"] for row in back][0] == lecturers
    assert not errors, errors


def test_explore_on_my_own_stays_on_the_rooms_screen_until_the_lecturer_lets_students_in(
        server, browser, request):
    """By default a tap on "Explore on my own" opens the sentence box on the room's screen; once
    the lecturer switches on "Let students explore in the app", it opens the app's page at the
    lecturer's view, not following."""
    lecturer, phone = _room_on_scene(server, browser, request, "en")
    following = phone.url
    phone.get_by_role("button", name=text("viewer.explore", "en")).tap()
    expect(phone.locator("#posviz-try-input")).to_be_visible()
    assert phone.url == following
    expect(phone.get_by_role("link", name=text("viewer.explore", "en"))).to_have_count(0)
    phone.get_by_role("button", name=text("viewer.try_back", "en")).tap()
    expect(phone.locator("#posviz-try-input")).to_have_count(0)

    with rerun(lecturer):
        lecturer.locator("[data-testid=stSidebar]").get_by_text(
            text("room.app_open", "en")).click()
    explore = phone.get_by_role("link", name=text("viewer.explore", "en"))
    expect(explore).to_be_visible(timeout=30_000)
    expect(phone.get_by_role("button", name=text("viewer.try_open", "en"))).to_be_visible()
    explore.tap()
    phone.wait_for_url("**/lesson?**", timeout=30_000)
    assert f"scene={SCENE}" in phone.url and "follow=false" in phone.url
