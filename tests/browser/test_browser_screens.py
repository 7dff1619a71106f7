"""Every page and every scene of the guided lesson on the three screens a room uses, in headless
Chromium, for what only Streamlit can break: a desk, a projector in presentation mode and a
phone, each in English and in Chinese (the desk and the phone in the dark theme for Chinese).
The charts themselves are checked where they are drawn, by the same chart module, on every
screen, language and theme: tests/browser/test_viewer_screens.py.

No page may show an exception, make the whole page scroll sideways or be in the wrong theme;
every chart must be as wide as its place in the page (tests/helpers/screens.py: the rule the
viewer's check lays its charts out by); no formula may be unreadable or cut off; the browser may
log no script error, ask no host but the posviz server (a lecture hall may be offline), and the
server may log nothing at WARNING or above.

Charts are left undrawn (each keeps its place at the height it would be drawn at), but for
the projector's lesson: every scene opens at its top with its first figure whole in the window,
and the charts drawn there (a scene's figure fitted to the window, which only presentation mode
does) are checked from their drawn SVG (tests/helpers/drawn.py), drawn by posviz's own plotly.js
build, their tool bars in the page's language. On the desk and the phone each view is audited
for accessibility (tests/helpers/axe.py: no WCAG 2.1 A or AA violation that axe-core finds, of
any impact, the page's lang the reader's, every chart named, described and with a data table),
the English walk in the light theme and the Chinese walk in the dark one. On the phone the
sidebar opens as a student opens it, without scrolling sideways.

The desk walks the app as a lecturer does: from a link to the lesson it types markup as the
sentence (nothing of it run or rendered on any page; its words in every chart's labels are
tests/browser/test_viewer_charts.py's), switches position off, follows every link
of the sidebar (the sentence and the switch kept on every page), steps through every scene with
Next and back with Previous (a revealed answer hidden again), reloads, switches to Chinese in
the sidebar and follows every link again. In English it turns the scenes by the keyboard alone:
on each scene Tab to its reveal and Space (the answer shown and said by the tab's live region),
Tab to Next and Enter, the focus seen wherever Tab lands; in Chinese it clicks. The phone and
the projector open each page from a link with a long English sentence, or in Chinese: the
projector 刚想到了, the phone a prepared link (了到想刚, position off), which must open exactly
that view on every page, and the first tap in the sidebar after it must keep it on the next.
In English the projector turns the lesson as a clicker and the arrow keys do, R reveals an
answer and the focus is checked (`Sweep.clicked`).
Screenshots of every view stay in test-artifacts/screens/ (under CI, of a view with a finding
only); each audit's findings and timings in test-artifacts/a11y/.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import expect

from posviz.tokens import tokenize
from tests.conftest import PAGES, ROOT
from tests.helpers.axe import Audits, audit, report
from tests.helpers.chart_text import STREAMLIT_FORMULA, chart_text
from tests.helpers.drawn import problems
from tests.helpers.load_fixtures import (
    CHART_BOXES,
    FINISHED,
    SENTENCE_BOX,
    TITLED_JS,
    UNDRAWN_JS,
    assert_healthy,
    nav_click,
    page_url,
    rerun,
    route_name,
    serving,
    settle,
    shows,
    still,
    tab_to,
)
from tests.helpers.markup import MARKUP, inert
from tests.helpers.screens import DARK_JS, SCREENS, WIDTHS_JS, Screen
from ui import documents
from ui.blocks_streamlit import FORMULAS
from ui.i18n import text

pytestmark = pytest.mark.browser

LONG = ("the quick brown fox jumps over the lazy dog while the old cat watches it from a warm "
        "sunny window seat")
SENTENCES = {"en": LONG, "zh": "刚想到了"}
PREPARED = {"text": "了到想刚", "pos": "false"}  # the phone's Chinese links: not the default
# sentence (刚想到了), position off
FIRST = "the cat saw the dog"  # the desk's link to the lesson
TYPED = f"刚 {MARKUP}"  # what the desk types: 64 tokens, not cut
LESSON = "pages/0_lesson.py"
SCENES = 11
SHOTS = ROOT / "test-artifacts" / "screens"
AUDITS = ROOT / "test-artifacts" / "a11y"

PLOTLY_JS = "4.1.1"  # the version of posviz's own plotly.js build (static/plotly-posviz.min.js)
CLICKER = ("projector", "en")  # the walk whose lesson is turned as a clicker turns it
DARK = {("desk", "zh"), ("phone", "zh")}  # walked in the dark theme (the audit's other half)
AUDITED = ("desk", "phone")  # the screens whose views are audited for accessibility
DRAWN = ("projector",)  # screens whose lesson scenes' charts are drawn (fitted to the window
# there only: presentation mode); elsewhere the viewer's check draws them
CI = os.environ.get("CI") == "true"
MAIN = "[data-testid=stMainBlockContainer]"

# A deep link such as /attention makes Streamlit's frontend look for its server one folder up
# first: it asks /attention/_stcore/health and /attention/_stcore/host-config, gets 404s (the
# server keeps those two paths from falling back to the app's page on purpose), then finds
# /_stcore/health. Streamlit's own behaviour, with no setting to avoid it: server.baseUrlPath
# does not help (the frontend still tries the page's own path first), and the frontend skips
# the guess only when the page that loads it says where the server is (window.__streamlit),
# a page Streamlit writes itself (https://github.com/streamlit/streamlit/issues/7074, open;
# the guessing came with https://github.com/streamlit/streamlit/pull/4574).
BASE_URL_PROBE = re.compile(r"^https?://[^/]+/[^/]+/_stcore/(health|host-config)$")

# True once the script has finished, every element is in place (no loading skeleton, nothing
# left over from the run before), the fonts have come and every formula is fitted to its line
# at the width it has now (the page element's work: a loaded machine may measure before it),
# every chart is placed at the width it has now, and the charts in the window are drawn (or
# left undrawn: UNDRAWN_JS).
SETTLED_JS = """() => {
  const main = document.querySelector('[data-testid=stMain]');
  if (!document.querySelector('FINISHED') || !main
      || main.querySelector('[data-testid=stSkeleton], [data-stale=true]')
      || [...document.querySelectorAll('CHART_BOXES')].some((b) => !b.querySelector(
        '.posviz-chart'))) return false;
  if (document.fonts.status !== 'loaded' || [...main.querySelectorAll(FORMULAS)]
      .some((f) => f.offsetParent !== null && f.posvizFitWidth !== f.clientWidth)) return false;
  return [...main.querySelectorAll('.posviz-chart')].filter((c) => c.offsetParent !== null)
    .every((c) => c.posvizWidth === c.clientWidth && (c.getBoundingClientRect().top > innerHeight
      || (!c.posvizPending && !!c.posvizConfig && c.classList.contains('js-plotly-plot'))));
}""".replace("FINISHED", FINISHED).replace("CHART_BOXES", CHART_BOXES).replace(
    "FORMULAS", repr(FORMULAS))

PLOTS = "[data-testid=stMain] .js-plotly-plot .draglayer"  # every chart's plot areas

# A page just opened (a lesson's new scene): the window at the top of the page, and with an
# edge the page's first chart drawn with that edge inside the window ("top": it shows; on a
# projector, "bottom": a scene's figure is seen whole, without scrolling).
SCENE_SHOWN_JS = """([edge]) => {
  const main = document.querySelector('[data-testid=stMain]');
  const first = main.querySelector('.posviz-chart.js-plotly-plot');
  return main.scrollTop === 0
    && (!edge || (!!first && first.getBoundingClientRect()[edge] <= innerHeight));
}"""

# Every drawn chart in the page as wide as its column (or as its legible minimum, scrolling in
# a narrower column), within 3 px: a chart follows its column when the column changes.
FITTED_JS = """() => {
  const charts = [...document.querySelectorAll('[data-testid=stMain] .posviz-chart')]
    .filter((c) => c.offsetParent !== null && c.classList.contains('js-plotly-plot')
            && !c.posvizPending);
  return charts.length > 0 && charts.every((c) => {
    const svg = c.querySelector('.main-svg');
    const want = Math.max(c.parentElement.clientWidth, parseFloat(c.style.minWidth) || 0);
    return svg && Math.abs(svg.getBoundingClientRect().width - want) <= 3;
  });
}"""

# Each drawn chart's width, its column's and its least, for a failure's message.
DRAWN_WIDTHS_JS = """() => [...document.querySelectorAll('[data-testid=stMain] .posviz-chart')]
  .filter((c) => c.offsetParent !== null).map((c) => [c.dataset.name,
    c.querySelector('.main-svg')?.getBoundingClientRect().width, c.parentElement.clientWidth,
    c.style.minWidth, !!c.posvizPending])"""

# Whatever makes the whole page wider than the screen (a wide matrix must scroll in itself).
SIDEWAYS_JS = """() => {
  const main = document.querySelector('[data-testid=stMain]');
  return Math.max(main.scrollWidth - main.clientWidth,
                  document.documentElement.scrollWidth - innerWidth);
}"""


@pytest.fixture(scope="module")
def logged(chromium_path, tmp_path_factory, worker_id):
    """A server of the sweep's own (so that a warning Streamlit logs once per process is not
    spent by another test), its log kept beside the screenshots (one per test process: two may
    sweep at once), its rooms in a store of its own."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    log = SHOTS / f"server-{worker_id}.log"
    rooms = tmp_path_factory.mktemp("sweep-rooms") / "rooms.sqlite3"
    with serving(env={"POSVIZ_ROOM_STORE": f"sqlite:///{rooms}"}, log=log) as (_, url):
        yield url, log


def loud(lines: list[str]) -> list[str]:
    """Lines of a server log at WARNING or above: records of those levels (with whatever
    follows them: a stack, a traceback), Python warnings, and anything else that is not a
    record at INFO or DEBUG or the startup banner."""
    quiet = re.compile(r"^(INFO|DEBUG) |^\s*$|^\s*You can now view your Streamlit app|^\s*URL: ")
    return [line for line in lines if not quiet.search(line)]


class Sweep:
    """One browser tab on one screen, and everything wrong it has seen."""

    def __init__(self, browser, base: str, screen: Screen, folder: Path) -> None:
        self.base, self.screen, self.folder = base, screen, folder
        self.context = screen.context(browser, dark=False)
        self.page = page = self.context.new_page()
        self.drawn = screen.name in DRAWN
        page.add_init_script(f"if (!location.pathname.endsWith('/lesson')) {{ {UNDRAWN_JS} }}"
                             if self.drawn else UNDRAWN_JS)
        self.lang, self.dark = "en", False
        self.found: list[str] = []
        self.audits = Audits(page, screen) if screen.name in AUDITED else None
        page.on("pageerror", lambda err: self.found.append(f"script error: {err}"))
        page.on("console", self._console)
        page.on("request", self._request)

    def _request(self, request) -> None:
        url = request.url
        if url.split(":")[0] not in ("data", "blob") and not url.startswith(self.base):
            self.found.append(f"asked a host other than the server: {url}")

    def _console(self, message) -> None:
        url = message.location.get("url", "")
        if message.type == "error" and not ("404" in message.text and BASE_URL_PROBE.search(url)):
            self.found.append(f"console error: {message.text} ({url})")

    def speak(self, lang: str) -> None:
        """Walk on in lang, in its theme on this screen (DARK)."""
        self.lang, self.dark = lang, (self.screen.name, lang) in DARK
        self.page.emulate_media(color_scheme="dark" if self.dark else "light")
        if self.audits:
            self.audits.dark = self.dark

    def open(self, route: str | None, **query: str) -> None:
        name = route_name(route)
        self.page.goto(page_url(self.base, route, {"text": SENTENCES[self.lang],
                                                   "lang": self.lang, **self.screen.query,
                                                   **query}))
        self.page.wait_for_function(TITLED_JS, arg=[text(f"{name}.title", self.lang)],
                                    timeout=60_000, polling=100)

    def check(self, where: str) -> None:
        """Check the view as the reader sees it (on a screen whose charts are drawn, the charts
        in the window drawn), keep a screenshot (under CI, of a view with a finding only: the
        whole-page pictures are a tenth of the sweep's browser time), audit the view (on an
        audited screen), and bring the window back to the screen's size."""
        page, before = self.page, len(self.found)
        page.wait_for_function(SETTLED_JS, timeout=60_000, polling=100)
        drawn = self.drawn and where.startswith("lesson-")
        if drawn:
            still(page, PLOTS)  # the charts' own redraws (margins that grow)
        said = f"{self.screen.name}, {self.lang}, {where}"
        if page.locator("[data-testid=stException]").count():
            self.found.append(f"{said}: the page shows an exception")
        if drawn:
            if not page.locator("[data-testid=stMain] .js-plotly-plot").count():
                self.found.append(f"{said}: no chart drawn")
            if (plotly := page.evaluate("window.Plotly && window.Plotly.version")) != PLOTLY_JS:
                self.found.append(f"{said}: plotly.js {plotly}, not posviz's own {PLOTLY_JS}")
        if page.evaluate(DARK_JS) != self.dark:
            self.found.append(f"{said}: not in the {'dark' if self.dark else 'light'} theme")
        self.found += [f"{said}: {name}: {drawn:.1f} px wide, the rule says {rule:.1f}"
                       for name, drawn, rule in page.evaluate(WIDTHS_JS,
                                                              [MAIN, self.screen.rule()])]
        if drawn:
            self.found += [f"{said}: {problem}"
                           for problem in problems(page, self.screen.min_font)]
        self.found += [f"{said}: {found}" for found in chart_text(
            page, "[data-testid=stMain]", self.lang, STREAMLIT_FORMULA)]
        if (wider := page.evaluate(SIDEWAYS_JS)) > 1:
            self.found.append(f"{said}: the page scrolls sideways by {wider} px")
        if not CI or len(self.found) > before:
            self.screenshot(where)
        if self.audits:
            audit([self.audits], where, self.lang, both=False)
        page.set_viewport_size({"width": self.screen.width, "height": self.screen.height})

    def lesson(self, back: bool = False, keyboard: bool = False, clicker: bool = False
               ) -> None:
        """The guided lesson from scene 1, each scene checked as Next reaches it (in its
        address, at its top; on the projector, its first figure whole in the window); with
        back, scene 1's answer revealed first, and Previous back to scene 1, where the answer
        is hidden again. With keyboard, by the keyboard alone: on every scene Tab to its
        reveal and Space (the answer shown, and said to a screen reader by the tab's one live
        region), then Tab to Next and Enter, the focus seen wherever Tab lands. With clicker,
        scenes 2 and 3 are reached as a clicker and the arrow keys reach them, and the last
        scene is left by them (`clicked`)."""
        page, projector = self.page, self.screen.name == "projector"
        expect(page.locator("[data-testid=stMain] h2").first).to_have_text(
            re.compile(r"^1\. "), timeout=30_000)
        for scene in range(1, SCENES + 1):
            if clicker and scene in (2, 3):
                self.clicked(scene)
            elif scene > 1:
                self.turn(".st-key-lesson_next", scene, keyboard)
            try:
                page.wait_for_function(SCENE_SHOWN_JS, arg=["bottom" if projector else None],
                                       timeout=20_000, polling=100)
            except PlaywrightTimeout:
                self.found.append(f"{self.screen.name}, {self.lang}, scene {scene}: not at the "
                                  "top" + " with its first chart whole in the window" * projector)
            if back and scene == 1:  # its answer, hidden again when Previous comes back
                self.reveal(scene, keyboard)
            self.check(f"lesson-{scene}")
            if keyboard and scene > 1:
                self.reveal(scene, keyboard)
        assert page.locator(".st-key-lesson_next").count() == 0, "a Next after the last scene"
        if clicker:
            self.clicked(SCENES)
        if back:
            for scene in range(SCENES - 1, 0, -1):
                self.turn(".st-key-lesson_prev", scene)
                page.wait_for_function(SCENE_SHOWN_JS, arg=[None], timeout=20_000, polling=100)
                assert page.locator("[data-testid=stException]").count() == 0, f"scene {scene}"
            expect(page.locator("[data-testid=stAlertContentSuccess]")).to_have_count(0)

    def clicked(self, scene: int) -> None:
        """The lesson turned as a presentation clicker (Page Down, Page Up) and the arrow keys
        turn it, while the focus is on the page (the walk test_browser_lesson.py made on its
        own until 2026-12-07). Reaching scene 2: on scene 1, R reveals the answer and the focus
        goes to it (no ring drawn), the answer scrolled into the window; with the focus on the
        reveal's switch, Page Down goes on; on scene 2 the focus is on its heading, with no
        ring, and Tab draws one. Reaching scene 3: the arrow right. After the last scene:
        Page Up and the arrow left go back two scenes; typed into the sentence box, an arrow
        and Page Down only move the caret; the scene picker is heard as scenes by their
        titles."""
        page = self.page
        heading = page.locator("[data-testid=stMain] h2").first
        ring = "getComputedStyle(document.activeElement).outlineStyle"
        if scene == 2:
            expect(page.get_by_text("a presentation clicker works too")).to_be_visible()
            heading.click()  # the focus on the page itself
            with rerun(page):
                page.keyboard.press("r")
            page.wait_for_function("() => document.activeElement?.matches('.st-key-question_"
                                   "scene-meaning') && !!document.activeElement.querySelector("
                                   "'[data-testid=stAlertContentSuccess]')")
            assert page.evaluate(ring) == "none", "a ring round the answer R revealed"
            page.wait_for_function("""() => {  // the answer in the window, scrolled to
                const r = document.querySelector('[data-testid=stMain] '
                  + '[data-testid=stAlertContentSuccess]').closest('[data-testid=stAlert]')
                  .getBoundingClientRect();
                return r.top >= 0 && r.bottom <= innerHeight + 1;
            }""")
            page.locator(".st-key-lesson_reveal_meaning input").focus()
            self.pressed("PageDown", 2)
            page.wait_for_function("() => document.activeElement?.matches("
                                   "'[data-testid=stMain] h2')")
            assert page.evaluate(ring) == "none", "a ring round the new scene's heading"
            page.keyboard.press("Tab")
            assert page.evaluate(ring) != "none", "no ring round a control Tab reached"
        elif scene == 3:
            heading.click()
            self.pressed("ArrowRight", 3)
        else:
            for key, back in (("PageUp", scene - 1), ("ArrowLeft", scene - 2)):
                heading.click()
                self.pressed(key, back)
            tucked = page.locator("[data-testid=stSidebar][data-collapsed=true]")
            page.locator("[data-testid=stExpandSidebarButton]").click()  # presentation mode
            # tucks the sidebar away
            page.locator(SENTENCE_BOX).click()
            page.keyboard.press("ArrowRight")
            page.keyboard.press("PageDown")
            settle(page)
            assert f"scene={scene - 2}" in page.url, page.url
            page.locator("[data-testid=stSidebarCollapseButton] button").click()  # tucked
            tucked.wait_for(state="attached")  # again: the browser remembers an open sidebar
            pager = page.get_by_role("navigation", name=text("lesson.pager_nav", "en"))
            after = documents.scenes()[scene - 2]  # the scene after the one shown
            expect(pager.get_by_role("button", name=text(
                "lesson.pager_scene", "en", n=scene - 1, head=text(f"lesson.{after}.head",
                                                                   "en")))).to_be_visible()
            expect(pager.get_by_role("button", name=text("lesson.pager_next", "en"))
                   ).to_be_visible()

    def pressed(self, key: str, scene: int) -> None:
        """Press key and wait for scene (in its heading and its address)."""
        with rerun(self.page):
            self.page.keyboard.press(key)
        self.page.locator("[data-testid=stMain] h2", has_text=f"{scene}. ").first.wait_for()
        assert f"scene={scene}" in self.page.url, self.page.url

    def reveal(self, scene: int, keyboard: bool) -> None:
        """Reveal the scene's answer: a click on its switch, or Tab to it and Space."""
        page = self.page
        if keyboard:
            tab_to(page, f".st-key-lesson_reveal_{documents.scenes()[scene - 1]}")
        with rerun(page):
            if keyboard:
                page.keyboard.press("Space")
            else:
                page.locator("[data-testid=stMain] [data-testid=stCheckbox]").first.click()
        expect(page.locator("[data-testid=stAlertContentSuccess]")).to_have_count(1)
        if keyboard:  # and said to a screen reader, by the tab's one live region
            expect(page.locator("#posviz-announce[aria-live=polite]")).to_have_text(
                re.compile(r"^[A-F]\. \S"))

    def turn(self, button: str, scene: int, keyboard: bool = False) -> None:
        """Press Next or Previous (scrolled down to, at the page's foot; or Tab to it and
        Enter) and wait for scene."""
        if keyboard:
            tab_to(self.page, button)
        with rerun(self.page):
            if keyboard:
                self.page.keyboard.press("Enter")
            else:
                self.page.locator(f"{button} button").click()
        self.page.locator("[data-testid=stMain] h2", has_text=f"{scene}. ").first.wait_for()
        assert f"scene={scene}" in self.page.url, self.page.url

    def audited(self) -> None:
        """What the audits found, in the sweep's findings and in test-artifacts/a11y/."""
        if not self.audits:
            return
        found, name = self.audits.found, self.screen.name
        AUDITS.mkdir(parents=True, exist_ok=True)
        (AUDITS / f"{name}.json").write_text(json.dumps(
            {"audits": self.audits.timings, "violations": found}, ensure_ascii=False, indent=1),
            "utf-8")
        if found:
            self.found.append(f"{name}: {len(found)} accessibility violations in "
                              f"{len(self.audits.timings)} audits:\n{report(found)}")

    def screenshot(self, where: str) -> None:
        """The whole page, its height in one picture (the window grows to it)."""
        page, screen = self.page, self.screen
        for _ in range(3):  # the page may grow as the window does (bottom padding)
            tall = page.evaluate("document.querySelector('[data-testid=stMain]').scrollHeight")
            if tall <= page.viewport_size["height"]:
                break
            page.set_viewport_size({"width": screen.width, "height": tall})
            still(page, f"[data-testid=stMain] > div, {PLOTS}")
        page.screenshot(path=self.folder / f"{screen.name}-{self.lang}-{where}.jpg", quality=70)


def walk_as_a_lecturer(sweep: Sweep) -> None:
    """The desk's walk (the module's docstring)."""
    page = sweep.page
    page.goto(page_url(sweep.base, LESSON, {"scene": "1", "text": FIRST}))
    settle(page)
    shows(page, FIRST, True, "a link")
    box = page.locator(SENTENCE_BOX)
    box.fill(TYPED)
    with rerun(page):
        box.press("Enter")
    shows(page, TYPED, True, "typing")
    tokens = tokenize(TYPED)
    expect(page.locator("[data-testid=stSidebar] [data-testid=stCaptionContainer]").first
           ).to_have_text(text("common.n_tokens", "en", n=len(tokens)))
    with rerun(page):
        page.locator("[data-testid=stSidebar] [data-testid=stCheckbox]").first.click()
    shows(page, TYPED, False, "the switch")
    for lang in ("en", "zh"):
        if lang == "zh":
            page.reload()
            settle(page)
            shows(page, TYPED, False, "reload")
            with rerun(page):
                page.locator("[data-testid=stSidebar] label", has_text="简体中文").click()
            sweep.speak("zh")
        for route in [None, *PAGES]:
            name = route_name(route)
            nav_click(page, text(f"{name}.nav", lang))
            if route == LESSON:
                sweep.lesson(back=True, keyboard=lang == "en")
            else:
                sweep.check(name)
            shows(page, TYPED, False, f"{name} in {lang}")
            inert(page, f"{name} in {lang}")
            if name == "home" and lang == "en":
                chips = page.locator(".posviz-chip").all_inner_texts()[:len(tokens)]
                assert [chip.split("\u00a0", 1)[1] for chip in chips] == tokens
            if name == "home" and lang == "zh":
                expect(page.get_by_text(text("home.lessons", "zh"), exact=True).first
                       ).to_be_visible()


def walk_from_links(sweep: Sweep) -> None:
    """The phone's and the projector's walk: each page opened from a link, in each language;
    on the phone, in Chinese a prepared link and the first tap in the sidebar after it
    (`kept`), then the sidebar opened as a student opens it."""
    routes = [None, *PAGES]
    for lang in SENTENCES:
        sweep.speak(lang)
        prepared = PREPARED if sweep.screen.phone and lang == "zh" else {}
        for route, following in zip(routes, [*routes[1:], None], strict=True):
            if route == LESSON:
                sweep.open(route, scene="1", **prepared)
                sweep.lesson(clicker=(sweep.screen.name, lang) == CLICKER)
            else:
                sweep.open(route, **prepared)
                sweep.check(route_name(route))
            if prepared:
                kept(sweep.page, route_name(route), route_name(following))
        if sweep.screen.phone:
            page = sweep.page
            page.locator("[data-testid=stExpandSidebarButton]").click()
            page.locator("[data-testid=stSidebar]").wait_for()
            still(page, "[data-testid=stSidebar]")  # slid all the way in
            sidebar = page.locator("[data-testid=stSidebarContent]")
            if sidebar.evaluate("(bar) => bar.scrollWidth - bar.clientWidth") > 1:
                sweep.found.append(f"phone, {lang}: the sidebar scrolls sideways")
            sweep.screenshot("sidebar")
            page.locator("[data-testid=stSidebarCollapseButton] button").click()
            page.locator("[data-testid=stSidebar][data-collapsed=true]").wait_for(
                state="attached")


def kept(page, name: str, following: str) -> None:
    """A prepared link (PREPARED, in Chinese) opened exactly that view on page name, and the
    first tap in the sidebar after it, to following, keeps it there."""
    for where in (name, following):
        said = f"{where} from a link to {name}"
        assert_healthy(page, said)
        expect(page.locator("h1").first).to_have_text(text(f"{where}.title", "zh"))
        shows(page, PREPARED["text"], False, said)
        assert "lang=zh" in page.url, f"{said}: {page.url}"
        if where == name:
            page.locator("[data-testid=stExpandSidebarButton]").tap()
            link = page.locator("[data-testid=stSidebar] [data-testid=stPageLink] a",
                                has_text=text(f"{following}.nav", "zh")).first
            with rerun(page):
                link.tap()
            # the tap closes a phone's sidebar (ui.navigation), as Streamlit's own page list
            page.locator("[data-testid=stSidebar][data-collapsed=true]").wait_for(
                state="attached")


@pytest.mark.timeout(600)  # the desk's walk is the suite's longest: two languages, every view
@pytest.mark.parametrize("screen", SCREENS, ids=[s.name for s in SCREENS])
def test_every_page_and_scene_on_the_screen(logged, browser, screen):
    """Each page (each scene of the lesson) in both languages: no exception, no page scrolling
    sideways, the theme, every chart as wide as its place, no script error, a quiet server; on
    the projector, each scene's figure whole in the window and the drawn charts legible; on a
    desk and a phone, no accessibility violation in either theme."""
    base, log = logged
    logged_before = log.read_text("utf-8", errors="replace").count("\n")
    sweep = Sweep(browser, base, screen, SHOTS)
    (walk_as_a_lecturer if screen.name == "desk" else walk_from_links)(sweep)
    sweep.context.close()
    sweep.audited()
    said = loud(log.read_text("utf-8", errors="replace").splitlines()[logged_before:])
    assert not sweep.found and not said, "\n".join(sweep.found + [f"server: {s}" for s in said])


def test_the_quiet_log_filter_lets_nothing_loud_through():
    """What the server may print, and what fails the sweep."""
    assert not loud(["INFO streamlit.web.server: Uvicorn server started on 127.0.0.1:8501", "",
                     "  You can now view your Streamlit app in your browser.",
                     "  URL: http://127.0.0.1:8501"])
    assert loud([
        'WARNING streamlit.elements.lib.policies: The widget with key "scene" was created with '
        "a default value but also had its value set via the Session State API.",
        "ERROR streamlit.runtime.scriptrunner: Uncaught app exception",
        "Traceback (most recent call last):",
        "/x/y.py:3: DeprecationWarning: gone soon", "a line of unknown origin"]) == [
        'WARNING streamlit.elements.lib.policies: The widget with key "scene" was created with '
        "a default value but also had its value set via the Session State API.",
        "ERROR streamlit.runtime.scriptrunner: Uncaught app exception",
        "Traceback (most recent call last):",
        "/x/y.py:3: DeprecationWarning: gone soon", "a line of unknown origin"]


def test_the_base_url_probe_is_only_the_deep_link_guess():
    assert BASE_URL_PROBE.search("http://127.0.0.1:8501/attention/_stcore/health")
    assert BASE_URL_PROBE.search("http://127.0.0.1:8501/alibi/_stcore/host-config")
    assert not BASE_URL_PROBE.search("http://127.0.0.1:8501/_stcore/health")
    assert not BASE_URL_PROBE.search("http://127.0.0.1:8501/app/static/plotly-posviz.min.js")



def test_charts_follow_their_column_when_it_changes(logged, browser):
    """A sidebar collapsed, then a narrower window; in another tab presentation mode switched
    on (it tucks the sidebar away): every chart is drawn again at its column's new width."""
    base, _ = logged

    def opened():
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.goto(page_url(base, "pages/1_embedding.py", {"text": "刚想到了"}))
        page.wait_for_function(SETTLED_JS, timeout=60_000, polling=100)
        fitted(page, "opening")
        return page

    def fitted(page, after: str) -> None:
        try:
            page.wait_for_function(FITTED_JS, timeout=30_000, polling=100)
        except PlaywrightTimeout:
            widths = page.evaluate(DRAWN_WIDTHS_JS)
            raise AssertionError(f"after {after}, charts not at their columns' widths: "
                                 f"{widths}") from None

    page = opened()
    page.hover("[data-testid=stSidebar]")
    page.locator("[data-testid=stSidebarCollapseButton] button").click()
    page.locator("[data-testid=stSidebar][data-collapsed=true]").wait_for(state="attached")
    fitted(page, "collapsing the sidebar")
    page.set_viewport_size({"width": 900, "height": 1000})
    fitted(page, "a narrower window")
    page.close()
    page = opened()
    page.get_by_text(text("common.present", "en"), exact=True).click()
    page.wait_for_function("() => getComputedStyle(document.documentElement).fontSize === '22px'")
    page.locator("[data-testid=stSidebar][data-collapsed=true]").wait_for(state="attached")
    fitted(page, "presentation mode")
    page.close()


def test_the_home_page_opens_on_the_sentence_with_a_small_join_field(logged, browser):
    """On a phone the join field asks for the number pad; on a projector (presentation mode,
    the sidebar tucked away) the home page still offers Start a room, and the room's join panel
    fits its screen; the sentence's picture is drawn on the first screen."""
    base, _ = logged
    context = SCREENS[2].context(browser, dark=False)
    phone = context.new_page()
    phone.goto(page_url(base, None))
    field = phone.locator(".st-key-room_join_home input")
    field.wait_for()
    phone.wait_for_function("(f) => f.inputMode === 'numeric'", arg=field.element_handle())
    context.close()
    projector = browser.new_page(viewport={"width": 1280, "height": 720})
    projector.goto(page_url(base, None, {"present": "true"}))
    start = projector.locator("[data-testid=stMain]").get_by_role(
        "button", name=text("room.start", "en"))
    start.wait_for()
    assert start.is_visible() and start.bounding_box()["y"] < 720
    projector.wait_for_function(SCENE_SHOWN_JS, arg=["top"], timeout=20_000, polling=100)
    field = projector.locator(".st-key-room_join_home input").bounding_box()
    assert field["width"] < 320
    with rerun(projector):  # the join panel: the code, the word and the whole QR code in view
        start.click()
    qr = projector.locator(".st-key-posviz_presence img")
    projector.wait_for_function("(i) => i.complete && i.naturalWidth", arg=qr.element_handle())
    word = projector.locator(".posviz-room-word")
    for shown in (qr, word, projector.locator(".posviz-room-code")):
        box = shown.bounding_box()
        assert box["y"] >= 0 and box["y"] + box["height"] <= 720, box
    assert 250 <= qr.bounding_box()["height"] == qr.bounding_box()["width"]  # square, large
    projector.close()
