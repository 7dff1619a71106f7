"""A lecture room in headless Chromium: a lecturer and two students (one on a phone) join by the
QR code's link, follow, explore on their own, come back, vote, and see the reveal."""

from __future__ import annotations

import io
import os
import time
import urllib.request
from urllib.parse import urljoin

import pytest
import segno
from PIL import Image
from playwright.sync_api import expect

from posviz.rooms import signing
from tests.conftest import ROOT
from tests.load_fixtures import FINISHED, SENTENCE_BOX, at_scene, nav_click, rerun, settle

pytestmark = pytest.mark.browser

FOLLOW_WITHIN = 5.0  # seconds; the benchmark measures the real figure (about a second)


def at_view(page, path: str, query: str = "", timeout: float = FOLLOW_WITHIN) -> float:
    """Wait until the page shows /path with query among its parameters, then until its run has
    finished; returns the seconds it took."""
    start = time.monotonic()
    page.wait_for_function(
        """([path, query]) => location.pathname.endsWith('/' + path)
             && (!query || location.search.includes(query))""", arg=[path, query],
        timeout=timeout * 1000, polling=50)
    page.wait_for_selector(FINISHED, timeout=30_000)
    return time.monotonic() - start


def student_link(lecturer) -> str:
    code = lecturer.locator("[data-testid=stSidebar] [data-testid=stCode]",
                            has_text="?room=").first
    return code.inner_text().strip()


def qr_link_matches(lecturer, link: str) -> bool:
    """The QR code on the page is the QR code of the student link, pixel for pixel."""
    source = lecturer.locator("[data-testid=stImage] img").first.get_attribute("src")
    drawn = Image.open(io.BytesIO(urllib.request.urlopen(urljoin(lecturer.url, source)).read()))
    made = io.BytesIO()
    segno.make(link, error="m").save(made, kind="png", scale=12, border=3)
    expected = Image.open(made)
    return (drawn.size == expected.size
            and drawn.convert("L").tobytes() == expected.convert("L").tobytes())


def test_a_room_follows_the_lecturer_votes_and_sees_the_reveal(server, browser, artifacts,
                                                              request):
    lecturer = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
    laptop = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
    phone = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True,
                                has_touch=True, device_scale_factor=2).new_page()
    errors = []
    for who, page in (("lecturer", lecturer), ("laptop", laptop), ("phone", phone)):
        page.on("pageerror", lambda e, who=who: errors.append(f"{who}: {e}"))
        request.addfinalizer(page.context.close)  # no tab left in the room for later tests

    lecturer.goto(f"{server}/?text=刚想到了")
    settle(lecturer)
    with rerun(lecturer):
        lecturer.get_by_role("button", name="Start a room").click()
    link = student_link(lecturer)
    code = link.split("room=")[1][:6]
    scanned = f"{link}&t={signing.ticket(os.environ['POSVIZ_SECRET'].encode(), code)}"
    assert "?room=" in link and qr_link_matches(lecturer, scanned)  # with the room's ticket
    lecturer.screenshot(path=artifacts / "room-lecturer-join.png")
    lecturer.wait_for_function("([code]) => (window.posvizRoom.granted || {})[code]", arg=[code])
    held = {c["name"]: c for c in lecturer.context.cookies()}[f"posviz_key_{code}"]
    assert held["httpOnly"] and held["sameSite"] == "Strict"  # set by the server, unreadable
    assert f"posviz_key_{code}" not in lecturer.evaluate("document.cookie")

    for student, opened in ((laptop, link), (phone, scanned)):
        student.goto(opened)
        settle(student)
        expect(student.get_by_text("Follow the lecturer")).to_be_visible()

    # three moves of the lecturer: a page, a scene, the sentence and a control
    nav_click(lecturer, "Guided lesson")
    waits = [at_view(s, "lesson") for s in (laptop, phone)]
    with rerun(lecturer):
        lecturer.locator("[data-testid=stPagination] button", has_text="4").first.click()
    waits += [at_view(s, "lesson", "scene=4") for s in (laptop, phone)]
    box = lecturer.locator(SENTENCE_BOX)
    box.fill("了到想刚")
    with rerun(lecturer):
        box.press("Enter")
    waits += [at_view(s, "lesson", "text=") for s in (laptop, phone)]
    for student in (laptop, phone):
        expect(student.locator(SENTENCE_BOX)
               ).to_have_value("了到想刚", timeout=10_000)

    # a follower who leaves the lecturer's view on their own (the Back button, the next scene)
    # is brought back to it, and still follows
    phone.go_back()
    expect(phone.locator(SENTENCE_BOX)
           ).to_have_value("刚想到了", timeout=10_000)
    expect(phone.locator(SENTENCE_BOX)
           ).to_have_value("了到想刚", timeout=FOLLOW_WITHIN * 1000)
    laptop.locator(".st-key-lesson_next button").click()
    at_view(laptop, "lesson", "scene=5")
    at_view(laptop, "lesson", "scene=4")
    for student in (laptop, phone):
        settle(student)
        expect(student.get_by_role("switch", name="Follow the lecturer")).to_be_checked()
        assert "text=%E4%BA%86" in student.url and "scene=4" in student.url, student.url

    # the laptop explores on its own, and stays put while the lecturer moves on
    with rerun(laptop):
        laptop.get_by_text("Follow the lecturer").click()
    nav_click(laptop, "ALiBi")
    seen = laptop.evaluate("window.posvizRoom.version ?? -1")
    nav_click(lecturer, "RoPE")
    waits.append(at_view(phone, "rope"))
    moved = phone.evaluate("window.posvizRoom.version")  # the room's version with the move
    assert moved > seen
    laptop.wait_for_function("([moved]) => window.posvizRoom.version >= moved", arg=[moved],
                             timeout=FOLLOW_WITHIN * 1000)  # the laptop has heard of the move
    laptop.wait_for_selector(FINISHED)
    assert laptop.url.split("?")[0].endswith("/alibi")
    # ... and comes back to the lecturer's view at once
    laptop.get_by_text("Follow the lecturer").click()
    at_view(laptop, "rope")

    # everyone votes on scene 4's question; the reveal reaches both
    nav_click(lecturer, "Guided lesson")
    lecturer.locator("[data-testid=stPagination] button", has_text="4").first.click()
    at_scene(lecturer, 4)  # the lesson may open there already: no run then
    for student, letter in ((laptop, "A"), (phone, "B")):
        at_view(student, "lesson", "scene=4")
        settle(student)  # the page it went to drawn, not the one it left
        student.get_by_role("button", name=letter, exact=True).click()
        expect(student.get_by_text(f"Your answer: {letter}")).to_be_visible(timeout=30_000)
    reveal = lecturer.get_by_role("button", name="Reveal the answer to the room")
    reveal.scroll_into_view_if_needed()
    expect(lecturer.get_by_text("Answers: 2 · students connected: 2")).to_be_visible(
        timeout=15_000)
    assert lecturer.locator(".posviz-chart", has_text="Answers so far").count() == 0  # hidden
    with rerun(lecturer):  # the lecturer chooses to show the split before the reveal
        lecturer.get_by_text("Show how the answers split so far").click()
    expect(lecturer.locator(".posviz-chart", has_text="Answers so far")).to_contain_text(
        "1  (50%)")
    lecturer.screenshot(path=artifacts / "room-lecturer-counts.png")
    if os.environ.get("POSVIZ_SCREENSHOT"):  # the README's pictures
        lecturer.screenshot(path=ROOT / "assets" / "room-lecturer.png")
    with rerun(lecturer):
        reveal.click()
    expect(laptop.get_by_text("You answered A; the answer is B.")).to_be_visible(timeout=10_000)
    expect(phone.get_by_text("You answered B: right.")).to_be_visible(timeout=10_000)
    phone.get_by_text("Predict first").first.evaluate("e => e.scrollIntoView()")
    phone.get_by_text("You answered B: right.").tap()  # away from the chart's toolbar
    phone.screenshot(path=artifacts / "room-phone-reveal.png")
    if os.environ.get("POSVIZ_SCREENSHOT"):
        phone.screenshot(path=ROOT / "assets" / "room-phone.png")

    # on a shared computer, Leave leaves no lecturer behind: the server deletes the key's cookie
    lecturer.get_by_role("button", name="Leave the room").click()
    with lecturer.expect_response(lambda r: r.url.endswith("/forget")) as forgot, \
            rerun(lecturer):
        lecturer.get_by_role("button", name="Leave, the room goes on").click()
    assert forgot.value.status == 204
    assert f"posviz_key_{code}" not in {c["name"] for c in lecturer.context.cookies()}

    assert not errors, errors
    assert max(waits) < FOLLOW_WITHIN, waits
    for page in (lecturer, laptop, phone):
        assert page.locator("[data-testid=stException]").count() == 0
