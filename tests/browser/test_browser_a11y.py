"""Every view of the app and of a lecture room, audited in headless Chromium by axe-core
(tests/browser/axe.min.js, vendored from npm in assets/viewer/) against WCAG 2.0 and 2.1, levels A
and AA, and WCAG 2.2's target size (24 x 24 px): home, each scene of the guided lesson, every other
lesson, and a room (the lecturer's page with its sidebar open, the student's room screen at the
lecturer's view, and what a wrong code shows in the app and on the room screen), in English and
Chinese, on a desk and a phone, in the light and the dark theme.

A desk's tab and a phone's go side by side, each axe run in its own tab's renderer while the
other tab draws. Each view is loaded once per language and screen at the screen's size; for the
audit the window grows as tall as the page (axe checks the contrast of text in view only) and
every chart is drawn. The view is audited, turned to the other theme and audited again (the app
and the room screen, charts included, follow the browser's preference as it changes). Any
violation, of any impact, fails its group of views, and so does a page whose lang is not the
reader's or a chart without a name, a description and a data table; every audit's findings and
timings are also left in test-artifacts/a11y/.
"""

from __future__ import annotations

import json
import time
from collections import defaultdict
from dataclasses import dataclass, field

import pytest

from rooms import key_cookie, spaced
from tests.conftest import PAGES, ROOT
from tests.helpers.load_fixtures import (
    CHART_BOXES,
    DRAWN_FRAMES_JS,
    FINISHED,
    TITLED_JS,
    at_scene,
    page_url,
    rerun,
    route_name,
    settle,
    still,
)
from tests.helpers.room_fixtures import ticket
from tests.helpers.screens import DARK_JS, SCREENS, Screen
from ui.i18n import lang_tag, text

pytestmark = pytest.mark.browser

AXE = ROOT / "tests" / "browser" / "axe.min.js"
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
LANGS = ["en", "zh"]
AUDITED = [s for s in SCREENS if s.name in ("desk", "phone")]
LESSON = "pages/0_lesson.py"
SCENES = 10
LESSONS = [p for p in PAGES if p != LESSON]
ROOM_SCENE = 4  # the lecturer's view in the room: a scene with a question to answer
WRONG_CODE = "000000"
TARGETS = 3  # nodes shown per violation and view

AUDIT_JS = """([tags]) => axe.run(document, {
  runOnly: { type: 'tag', values: tags }, rules: { 'target-size': { enabled: true } },
  resultTypes: ['violations'] }).then((found) =>
  found.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map(
    (n) => ({ target: n.target.map(String).join(' '), html: n.html,
              summary: n.failureSummary })) })))"""

# What a screen reader needs beyond axe's rules: the page's language, and of every chart a name,
# a description and a data table (tests/app/test_summary.py checks the descriptions' words); each
# problem as a finding in axe's form.
DESCRIBED_JS = """([tag]) => {
  const found = [];
  const lang = document.documentElement.lang;
  if (lang !== tag) found.push({ id: 'posviz-lang', impact: 'serious',
    help: `the page's lang is "${lang}", not "${tag}"`, nodes: [] });
  const bare = [...document.querySelectorAll('.posviz-chart')].filter((chart) => {
    const host = chart.parentElement;
    const said = document.getElementById(host.getAttribute('aria-describedby') || '-');
    return host.getAttribute('role') !== 'figure' || !host.getAttribute('aria-label')
      || !said || said.textContent.length < 20
      || !host.querySelector(':scope > details.posviz-data > summary');
  });
  if (bare.length) found.push({ id: 'posviz-chart-described', impact: 'serious',
    help: 'a chart without a name, a description or a data table', nodes: bare.map((c) => (
      { target: c.dataset.name, html: c.outerHTML.slice(0, 200), summary: '' })) });
  return found;
}"""

# True once every chart in scope is drawn at the width it has now and in the theme the page has
# now (its axis text in its column's text colour): scrolls to the first chart that is not (a
# chart draws, and redraws for a new theme, when it comes near the window: static/chart.js).
CHARTS_JS = """(scope) => {
  const waiting = [...scope.querySelectorAll('.posviz-chart')].filter((c) => {
    if (c.offsetParent === null) return false;
    if (c.posvizPending || !c.posvizConfig || !c.classList.contains('js-plotly-plot')
        || c.posvizWidth !== c.clientWidth) return true;
    const colour = getComputedStyle(c.parentElement).color;
    const labels = [...c.querySelectorAll('.xtick text, .ytick text, .gtitle, .legendtext')];
    return labels.length > 0 && !labels.some((t) => t.style.fill === colour);
  });
  if (waiting.length) waiting[0].scrollIntoView({ block: 'center' });
  return !waiting.length;
}"""

# True once the app's script has finished, every element is in place (no loading skeleton,
# nothing left over from the run before, every chart element loaded) and every chart is drawn.
APP_READY_JS = """() => {
  const main = document.querySelector('[data-testid=stMain]');
  if (!document.querySelector('FINISHED') || !main
      || main.querySelector('[data-testid=stSkeleton], [data-stale=true]')
      || [...document.querySelectorAll('CHART_BOXES')].some((b) => !b.querySelector(
        '.posviz-chart'))) return false;
  return (CHARTS)(main);
}""".replace("FINISHED", FINISHED).replace("CHART_BOXES", CHART_BOXES).replace(
    "CHARTS", CHARTS_JS)

# The same for the room's screen (static/viewer.js): a heading shown, every chart drawn.
ROOM_READY_JS = """() => {
  const root = document.querySelector('#posviz-viewer');
  return !!root && !!root.querySelector('h1') && (CHARTS)(root);
}""".replace("CHARTS", CHARTS_JS)

# How tall the page is: the app's main column or its sidebar (each scrolls in itself), or the
# room screen's document.
TALL_JS = """() => Math.max(document.documentElement.scrollHeight, ...[...document.querySelectorAll(
  '[data-testid=stMain], [data-testid=stSidebarContent]')].map((e) => e.scrollHeight))"""

# Whether the room's screen is drawn on a dark background (viewer.css follows the preference).
ROOM_DARK_JS = """() => getComputedStyle(document.body).backgroundColor.match(/\\d+/g)
  .slice(0, 3).reduce((sum, v) => sum + Number(v), 0) < 3 * 128"""


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
    lecturer.wait_for_function("([code]) => window.posvizRoom?.granted === code",
                              arg=[code])  # the server has set the key's cookie
    key = {c["name"]: c for c in context.cookies()}[key_cookie(code)]
    yield Room(code, key)
    context.close()


@dataclass
class Tab:
    """One tab on one screen, and every violation it has found. A view is audited in the theme
    the tab is in, then in the other: the next view starts in that one."""

    page: object
    base: str
    screen: Screen
    dark: bool = False
    found: list[dict] = field(default_factory=list)
    audits: list[dict] = field(default_factory=list)  # each audit's view and seconds
    since: float = field(default_factory=time.monotonic)  # when the last audit ended
    began: float = 0.0  # when the audit under way started waiting for its view
    drawn: float = 0.0  # when that view was drawn

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

    def start(self, app: bool) -> None:
        """Once the view is drawn whole in the tab's theme, start axe on it (it runs in this
        tab's renderer while the other tab gets ready)."""
        self.began = time.monotonic()
        self.page.wait_for_function(
            "([dark]) => (DARK)() === dark".replace("DARK", DARK_JS if app else ROOM_DARK_JS),
            arg=[self.dark], timeout=30_000, polling=100)
        for _ in range(2):  # drawn, then drawn again in a window as tall as the page
            self.page.wait_for_function(APP_READY_JS if app else ROOM_READY_JS,
                                        timeout=60_000, polling=100)
            self.whole()
        if not self.page.evaluate("() => typeof axe !== 'undefined'"):
            self.page.add_script_tag(path=str(AXE))
        self.drawn = time.monotonic()
        self.page.evaluate(f"([tags]) => {{ window.posvizAudit = ({AUDIT_JS})([tags]); }}",
                           [TAGS])

    def screen_size(self) -> None:
        """The window back to the screen's size, before the next view is shown."""
        size = {"width": self.screen.width, "height": self.screen.height}
        if self.page.viewport_size != size:
            self.page.set_viewport_size(size)

    def whole(self) -> None:
        """Make the window as tall as the page, so that all of it is in view: axe checks the
        contrast of text in view only (what a scrolled-away part holds is left unchecked)."""
        page, screen = self.page, self.screen
        for _ in range(3):  # the page may grow as the window does (bottom padding)
            tall = page.evaluate(TALL_JS)
            if tall <= page.viewport_size["height"]:
                return
            page.set_viewport_size({"width": screen.width, "height": tall})
            page.evaluate(DRAWN_FRAMES_JS)

    def finish(self, view: str, lang: str) -> None:
        """Keep what axe found, and turn the tab to the other theme."""
        theme = "dark" if self.dark else "light"
        self.found += [violation | {"view": view, "lang": lang, "screen": self.screen.name,
                                    "theme": theme}
                       for violation in [*self.page.evaluate("() => window.posvizAudit"),
                                         *self.page.evaluate(DESCRIBED_JS, [lang_tag(lang)])]]
        self.audits.append({"view": view, "lang": lang, "theme": theme,
                            "loaded": round(self.began - self.since, 2),
                            "drawn": round(self.drawn - self.began, 2),
                            "audited": round(time.monotonic() - self.drawn, 2)})
        self.dark = not self.dark
        self.page.emulate_media(color_scheme="dark" if self.dark else "light")
        self.since = time.monotonic()


def audit(tabs: list[Tab], view: str, lang: str, app: bool = True) -> None:
    """Audit the view each tab shows, in both themes, the tabs side by side."""
    for _ in range(2):
        for tab in tabs:
            tab.start(app)
        for tab in tabs:
            tab.finish(view, lang)


def home(tabs: list[Tab], lang: str, request) -> None:
    for tab in tabs:
        tab.app(None, lang)
    audit(tabs, "home", lang)


def lesson(tabs: list[Tab], lang: str, request) -> None:
    """The guided lesson, scene after scene, as its Next button turns them."""
    for tab in tabs:
        tab.app(LESSON, lang, scene="1")
    for scene in range(1, SCENES + 1):
        if scene > 1:
            for tab in tabs:
                tab.screen_size()
                with rerun(tab.page):
                    tab.page.locator(".st-key-lesson_next button").click()
                at_scene(tab.page, scene)
        audit(tabs, f"lesson scene {scene}", lang)


def lessons(tabs: list[Tab], lang: str, request) -> None:
    for route in LESSONS:
        for tab in tabs:
            tab.app(route, lang)
        audit(tabs, route_name(route), lang)


def sidebar(page, expanded: bool) -> None:
    """Open or close a phone's sidebar, as its reader does, and wait until it has slid."""
    page.locator("[data-testid=stExpandSidebarButton]" if expanded
                 else "[data-testid=stSidebarCollapseButton] button").click()
    page.locator(f"[data-testid=stSidebar][data-collapsed={str(not expanded).lower()}]"
                 ).wait_for(state="attached")
    still(page, "[data-testid=stSidebar]")


def room_views(tabs: list[Tab], lang: str, request) -> None:
    """The lecturer's page (its sidebar open, on a phone too), the student's room screen at the
    lecturer's view, and a wrong code in the app (home's join box) and on the room screen."""
    room: Room = request.getfixturevalue("room")
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

    for tab in tabs:
        tab.room_screen(room.code, lang, ticket(room.code))  # the QR code's, of now
        tab.page.wait_for_function(
            "([n]) => [...document.querySelectorAll('#posviz-viewer h2')].some((h) =>"
            " h.textContent.startsWith(n + '.'))", arg=[str(ROOM_SCENE)], timeout=30_000)
    audit(tabs, "room screen", lang, app=False)

    for tab in tabs:
        tab.app(None, lang, room=WRONG_CODE)
    audit(tabs, "wrong code, home", lang)
    for tab in tabs:
        tab.room_screen(WRONG_CODE, lang)
    audit(tabs, "wrong code, room screen", lang, app=False)


GROUPS = {"home": home, "lesson": lesson, "lessons": lessons, "room": room_views}


def short(selector: str) -> str:
    """A node's selector, its last three steps (Streamlit's spell out every container)."""
    steps = selector.split(" > ")
    return selector if len(steps) <= 3 else "… > " + " > ".join(steps[-3:])


def report(found: list[dict]) -> str:
    """The violations by rule, each with the views it was found in and a few of its nodes."""
    by_rule = defaultdict(list)
    for violation in found:
        by_rule[(violation["id"], violation["impact"], violation["help"])].append(violation)
    lines = []
    for (rule, impact, said), seen in sorted(by_rule.items()):
        lines.append(f"{rule} ({impact}): {said}")
        for v in seen:
            lines.append(f"  {v['view']}, {v['lang']}, {v['screen']}, {v['theme']}: "
                         f"{len(v['nodes'])} nodes")
            lines += [f"    {short(node['target'])}: {' '.join(node['summary'].split())}"
                      for node in v["nodes"][:TARGETS]]
    return "\n".join(lines)


@pytest.mark.parametrize("group", list(GROUPS))
def test_every_view_passes_axe_on_both_screens_in_both_languages_and_themes(
        server, browser, artifacts, request, group):
    """No WCAG 2.1 A or AA violation that axe-core finds, of any impact."""
    contexts = [screen.context(browser, dark=False) for screen in AUDITED]
    tabs = [Tab(context.new_page(), server, screen)
            for context, screen in zip(contexts, AUDITED, strict=True)]
    for lang in LANGS:
        GROUPS[group](tabs, lang, request)
    for context in contexts:
        context.close()
    found = [violation for tab in tabs for violation in tab.found]
    audits = [each | {"screen": tab.screen.name} for tab in tabs for each in tab.audits]
    folder = artifacts / "a11y"
    folder.mkdir(exist_ok=True)
    (folder / f"{group}.json").write_text(json.dumps(
        {"audits": audits, "violations": found}, ensure_ascii=False, indent=1), "utf-8")
    if found:
        pytest.fail(f"{len(found)} violations in {len(audits)} audits:\n" + report(found),
                    pytrace=False)
