"""A lecture room's views audited in headless Chromium by axe-core and the checks a screen
reader needs beyond it (tests/helpers/axe.py): the lecturer's page with its sidebar open, the
student's room screen at the lecturer's view (answered, with how sure; the concept check; a
question revealed after two rounds), the lecturer's page with the class's predicted picture,
and what a wrong code shows in the app and on the
room screen, in English and Chinese, on a desk and a phone, in the light and the dark theme.
Every page of the app and every scene of the lesson is audited so by the screen sweep
(tests/browser/test_browser_screens.py), as it draws them.

A desk's tab and a phone's go side by side, each axe run in its own tab's renderer while the
other tab draws. Each view is loaded once per language and screen at the screen's size; for the
audit the window grows as tall as the page (axe checks the contrast of text in view only) and
every chart is drawn. The view is audited, turned to the other theme and audited again (the app
and the room screen, charts included, follow the browser's preference as it changes); the next
view starts in that theme. Any
violation, of any impact, fails, and so does a page whose lang is not the reader's or a chart
without a name, a description and a data table; every audit's findings and timings are also left
in test-artifacts/a11y/.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import pytest

from rooms import key_cookie, open_rooms, spaced
from rooms.records import PHASES
from tests.helpers.axe import Audits, audit, report
from tests.helpers.load_fixtures import TITLED_JS, page_url, rerun, route_name, settle, still
from tests.helpers.room_fixtures import ticket
from tests.helpers.screens import SCREENS
from ui import documents
from ui.answer_key import check_questions
from ui.i18n import text

pytestmark = pytest.mark.browser

LANGS = ["en", "zh"]
AUDITED = [s for s in SCREENS if s.name in ("desk", "phone")]
LESSON = "pages/0_lesson.py"
ROOM_SCENE = 4  # the lecturer's view in the room: a scene with a question to answer
WRONG_CODE = "000000"


@dataclass(frozen=True)
class Room:
    """A room a lecturer started for the module: its code, and the cookie that holds the
    lecturer's key."""

    code: str
    key: dict


@pytest.fixture(scope="module")
def room(server, browser) -> Room:
    """A room started from the guided lesson's sidebar, its lecturer's tab left open (a room
    whose lecturer is gone ends)."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    lecturer = context.new_page()
    lecturer.goto(page_url(server, LESSON, {"scene": str(ROOM_SCENE)}))
    settle(lecturer)
    with rerun(lecturer):
        lecturer.locator("[data-testid=stSidebar]").get_by_role(
            "button", name=text("room.start", "en")).click()
    lecturer.wait_for_url("**room=*")
    code = lecturer.evaluate("new URLSearchParams(location.search).get('room')")
    lecturer.locator(f"[data-granted='{code}']").wait_for(
        state="attached")  # the server has set the key's cookie (the room element says so)
    key = {c["name"]: c for c in context.cookies()}[key_cookie(code)]
    yield Room(code, key)
    context.close()


@dataclass
class Tab(Audits):
    """One tab on one screen, on the server at base, and every violation it has found."""

    base: str = ""

    def app(self, route: str | None, lang: str, **query: str) -> None:
        """Load one of the app's pages in lang; wait for its title in that language."""
        self.screen_size()
        self.page.goto(page_url(self.base, route, {"lang": lang, **query}))
        self.page.wait_for_function(TITLED_JS, arg=[text(f"{route_name(route)}.title", lang)],
                                    timeout=60_000)

    def room_screen(self, code: str, lang: str, ticket: str = "") -> None:
        """Load a room's screen in lang (a wrong code's too)."""
        query = f"t={ticket}&lang={lang}" if ticket else f"lang={lang}"
        self.screen_size()
        self.page.goto(f"{self.base}/_posviz/follow/{code}?{query}")


def sidebar(page, expanded: bool) -> None:
    """Open or close a phone's sidebar, as its reader does, and wait until it has slid."""
    page.locator("[data-testid=stExpandSidebarButton]" if expanded
                 else "[data-testid=stSidebarCollapseButton] button").click()
    page.locator(f"[data-testid=stSidebar][data-collapsed={str(not expanded).lower()}]"
                 ).wait_for(state="attached")
    still(page, "[data-testid=stSidebar]")


def room_screens(tabs: list[Tab], code: str, lang: str) -> None:
    """Each tab on the room's screen in lang, at the lecturer's scene."""
    for tab in tabs:
        tab.room_screen(code, lang, ticket(code))  # the QR code's, of now
        tab.page.wait_for_function(
            "([n]) => [...document.querySelectorAll('#posviz-viewer h2')].some((h) =>"
            " h.textContent.startsWith(n + '.'))", arg=[str(ROOM_SCENE)], timeout=30_000)


def room_views(tabs: list[Tab], lang: str, room: Room, rooms_url: str) -> None:
    """The lecturer's page (its sidebar open, on a phone too), the student's room screen at the
    lecturer's view (answered, with how sure), the concept check on it, and a wrong code in
    the app (home's join box) and on the room screen."""
    for tab in tabs:
        tab.page.context.add_cookies([room.key])
        tab.app(LESSON, lang, scene=str(ROOM_SCENE), room=room.code)
        tab.page.locator("[data-testid=stSidebar]").get_by_text(
            spaced(room.code)).first.wait_for(state="attached")
        if tab.screen.phone:
            sidebar(tab.page, expanded=True)
    audit(tabs, "lecturer's page", lang)
    for tab in tabs:
        if tab.screen.phone:  # the phone remembers an open sidebar for the pages after
            sidebar(tab.page, expanded=False)

    room_screens(tabs, room.code, lang)
    for tab in tabs:  # an answer, and how sure
        tab.page.locator(".posviz-option").first.click()
        tab.page.locator(".posviz-sure-option").last.click()
        tab.page.locator('.posviz-sure-option[aria-pressed="true"]').wait_for()
    audit(tabs, "room screen, answered", lang, app=False)

    store = open_rooms(rooms_url)
    phase = PHASES[LANGS.index(lang)]
    store.open_check(room.code, phase, check_questions("en"))  # an English lecturer's
    for tab in tabs:  # ... in the reader's language
        tab.page.locator(".posviz-check .posviz-question").first.wait_for(timeout=30_000)
        assert tab.page.locator(".posviz-check .posviz-question-text").first.inner_text(
        ) == text("check.q1.text", lang)
    audit(tabs, "room screen, concept check", lang, app=False)
    store.close_check(room.code, phase)

    for tab in tabs:
        tab.app(None, lang, room=WRONG_CODE)
    audit(tabs, "wrong code, home", lang)
    for tab in tabs:
        tab.room_screen(WRONG_CODE, lang)
    audit(tabs, "wrong code, room screen", lang, app=False)


def test_every_view_of_a_room_passes_axe_on_both_screens_in_both_languages_and_themes(
        server, browser, artifacts, room, rooms_url):
    """No WCAG 2.1 A or AA violation that axe-core finds, of any impact."""
    contexts = [screen.context(browser, dark=False) for screen in AUDITED]
    tabs = [Tab(context.new_page(), screen, base=server)
            for context, screen in zip(contexts, AUDITED, strict=True)]
    for lang in LANGS:
        room_views(tabs, lang, room, rooms_url)
    store = open_rooms(rooms_url)  # a question revealed after two rounds
    poll = store.current(room.code, f"scene-{documents.scenes()[ROOM_SCENE - 1]}")
    store.second_round(room.code, poll.id)
    store.reveal(room.code, poll.id, correct=1)
    for lang in LANGS:
        room_screens(tabs, room.code, lang)
        for tab in tabs:
            tab.page.locator(".posviz-rounds").wait_for(timeout=30_000)
        audit(tabs, "room screen, two rounds revealed", lang, app=False)
    for lang in LANGS:  # the lecturer's page with the class's predicted picture revealed
        for tab in tabs:
            tab.app(LESSON, lang, scene="8", room=room.code)  # opens the question, once
        picture = f"scene-{documents.scenes()[7]}pick"
        if not store.poll(room.code, picture).revealed:
            for key in (0, 1, 1):
                store.vote(room.code, picture, store.new_voter(room.code, True), key)
            store.reveal(room.code, picture, correct=1)
            for tab in tabs:
                tab.app(LESSON, lang, scene="8", room=room.code)
        for tab in tabs:
            tab.page.locator(".st-key-chart_picture_" + picture).wait_for(timeout=30_000)
        audit(tabs, "lecturer's page, predicted picture", lang)
    for context in contexts:
        context.close()
    found = [violation for tab in tabs for violation in tab.found]
    timings = [each for tab in tabs for each in tab.timings]
    folder = artifacts / "a11y"
    folder.mkdir(exist_ok=True)
    (folder / "room.json").write_text(json.dumps(
        {"audits": timings, "violations": found}, ensure_ascii=False, indent=1), "utf-8")
    if found:
        pytest.fail(f"{len(found)} violations in {len(timings)} audits:\n" + report(found),
                    pytrace=False)
