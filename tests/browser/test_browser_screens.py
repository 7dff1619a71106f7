"""Every page on the three screens a room uses, in headless Chromium: a desk, a projector in
presentation mode and a phone, in English with a long sentence and in Chinese with 刚想到了
(the desk and the phone in the dark theme for Chinese), every scene of the guided lesson included,
and the RoPE scene's labelled arrows again for four English tokens and eight Chinese ones.

Every chart is scrolled into view and checked from its drawn SVG (tests/helpers/drawn.py): no label
overlaps another, none is cut off, none is smaller than the screen's minimum, and no title breaks
inside an equation, a few bracketed characters or a Chinese word. No page may show
an exception or make the whole page scroll sideways, the browser may log no script error, and
the server nothing at WARNING or above. The charts are drawn by posviz's own plotly.js build, and
no page asks anything of any host but the posviz server (a lecture hall may be offline).
Screenshots of every page stay in test-artifacts/screens/.

On the desk and the phone each view is also audited for accessibility as it is drawn
(tests/helpers/axe.py): no WCAG 2.1 A or AA violation that axe-core finds, of any impact, the
page's lang the reader's, and every chart named, described and with a data table. The English
walk is in the light theme and the Chinese walk in the dark one, so every view is checked whole
in both themes. Each audit's findings and timings are left in test-artifacts/a11y/.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.conftest import PAGES, ROOT
from tests.helpers.axe import Audits, audit, report
from tests.helpers.drawn import problems
from tests.helpers.load_fixtures import (
    CHART_BOXES,
    FINISHED,
    TITLED_JS,
    page_url,
    rerun,
    route_name,
    serving,
    still,
)
from tests.helpers.screens import DARK_JS, SCREENS, Screen
from tests.helpers.words import broken_words
from ui.i18n import text

pytestmark = pytest.mark.browser

LONG = ("the quick brown fox jumps over the lazy dog while the old cat watches it from a warm "
        "sunny window seat")
SENTENCES = {"en": LONG, "zh": "刚想到了"}
# Scene 6's arrows carry their tokens' labels up to eight tokens (the long sentence leaves them
# to hover): drawn again with the other length in each language, four tokens and eight.
LABELLED = {"en": "the cat sat down", "zh": "刚想到了一个办法"}
LESSON = "pages/0_lesson.py"
SCENES = 11
SHOTS = ROOT / "test-artifacts" / "screens"
AUDITS = ROOT / "test-artifacts" / "a11y"

PLOTLY_JS = "4.1.1"  # the version of posviz's own plotly.js build (static/plotly-posviz.min.js)
DARK = {("desk", "zh"), ("phone", "zh")}  # walked in the dark theme (the audit's other half)
AUDITED = ("desk", "phone")  # the screens whose views are audited for accessibility
CI = os.environ.get("CI") == "true"

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
# left over from the run before), and every chart on the page is drawn at the width it has now
# (a chart draws when it comes near the window, and redraws when its width changes): scrolls
# to the first chart that is not.
SETTLED_JS = """() => {
  const main = document.querySelector('[data-testid=stMain]');
  if (!document.querySelector('FINISHED') || !main
      || main.querySelector('[data-testid=stSkeleton], [data-stale=true]')
      || [...document.querySelectorAll('CHART_BOXES')].some((b) => !b.querySelector(
        '.posviz-chart'))) return false;
  const waiting = [...main.querySelectorAll('.posviz-chart')]
    .filter((c) => c.offsetParent !== null && (c.posvizPending || !c.posvizConfig
                   || !c.classList.contains('js-plotly-plot') || c.posvizWidth !== c.clientWidth));
  if (waiting.length) waiting[0].scrollIntoView({ block: 'center' });
  return !waiting.length;
}""".replace("FINISHED", FINISHED).replace("CHART_BOXES", CHART_BOXES)

PLOTS = "[data-testid=stMain] .js-plotly-plot .draglayer"  # every chart's plot areas

# The page's formulas that KaTeX could not read, and those wider than their line (a phone
# would hide their end: a formula is set smaller until it fits).
FORMULAS_JS = """() => {
  const formulas = [...document.querySelectorAll('[data-testid=stMain] .katex')];
  const broken = document.querySelectorAll('[data-testid=stMain] .katex-error').length;
  const cut = formulas.map((f) => f.closest('[data-testid=stMarkdownContainer]'))
    .filter((box) => box && box.scrollWidth > box.clientWidth + 1).length;
  return [broken, cut];
}"""

# Charts wider than their column by more than a few pixels (they scroll sideways: static/chart.js's
# SLIGHT) that do not say so, chart and axis titles with a line broken inside an equation
# ("d =" at a line's end, "= 16" at the next one's start) or inside a few bracketed characters
# ("查询（位" above "置）"), and the lines of every title drawn on more than one (read for a
# Chinese word broken in two: tests/helpers/words.py).
CHART_TEXT_JS = r"""() => {
  const charts = [...document.querySelectorAll('[data-testid=stMain] .posviz-chart')]
    .filter((c) => c.offsetParent !== null && c.clientWidth > c.parentElement.clientWidth + 24);
  const silent = charts.filter((c) => {
    const cue = c.parentElement.querySelector('.posviz-scroll-cue');
    return !cue || !cue.offsetHeight || !cue.textContent.trim();
  }).length;
  const group = /[(\[（［【〈《「『〔]([^()\[\]（）［］【】〈〉《》「」『』〔〕]*)$/;
  const rest = /^([^()\[\]（）［］【】〈〉《》「」『』〔〕]*)[)\]）］】〉》」』〕]/;
  const titles = [...document.querySelectorAll(
    '[data-testid=stMain] .gtitle, [data-testid=stMain] text[class$=title]')]
    .map((t) => [...t.querySelectorAll('tspan.line')].map((l) => l.textContent.trim()))
    .filter((lines) => lines.length > 1);
  const broken = titles.flatMap((lines) => lines.flatMap((line, i) => {
    const next = lines[i + 1] || '', opened = line.match(group), closed = next.match(rest);
    const split = opened && closed && [...opened[1] + closed[1]].length <= 6;
    return /\s=$|^=\s/.test(line) || split ? [split ? `${line} / ${next}` : line] : [];
  }));
  return [silent, broken, titles];
}"""

# The titles of the charts' tool bar buttons not in the page's language: English ones on a
# Chinese page (plotly.js's own words, "Zoom", "Pan", ...), Chinese ones on an English page.
TOOLBAR_WORDS_JS = """([lang]) => {
  const chinese = /[\u4e00-\u9fff]/;
  return [...document.querySelectorAll('[data-testid=stMain] .modebar-btn[data-title]')]
    .map((b) => b.dataset.title).filter((t) => chinese.test(t) !== (lang === 'zh'));
}"""

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
WIDTHS_JS = """() => [...document.querySelectorAll('[data-testid=stMain] .posviz-chart')]
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
    """One browser tab on one screen in one language, and everything wrong it has seen."""

    def __init__(self, page, base: str, screen: Screen, lang: str, dark: bool,
                 folder: Path) -> None:
        self.page, self.base, self.screen, self.lang = page, base, screen, lang
        self.dark, self.folder = dark, folder
        self.found: list[str] = []
        self.audits = Audits(page, screen, dark) if screen.name in AUDITED else None
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

    def open(self, route: str | None, **query: str) -> None:
        name = route_name(route)
        self.page.goto(page_url(self.base, route, {"text": SENTENCES[self.lang],
                                                   "lang": self.lang, **self.screen.query,
                                                   **query}))
        self.page.wait_for_function(TITLED_JS, arg=[text(f"{name}.title", self.lang)],
                                    timeout=60_000)

    def scene_shown(self, where: str) -> None:
        """Wait until a lesson scene just opened is at its top, its first chart whole in the
        window on a projector (else say so)."""
        projector = self.screen.name == "projector"
        try:
            self.page.wait_for_function(SCENE_SHOWN_JS, arg=["bottom" if projector else None],
                                        timeout=20_000, polling=100)
        except PlaywrightTimeout:
            self.found.append(f"{self.screen.name}, {self.lang}, {where}: not at the top"
                              + " with its first chart whole in the window" * projector)

    def check(self, where: str) -> None:
        """Draw every chart in view of the reader, check them all, keep a screenshot (under CI,
        of a view with a finding only: the whole-page pictures are a tenth of the sweep's
        browser time), audit the view (on an audited screen), and bring the window back to the
        screen's size."""
        page, before = self.page, len(self.found)
        page.wait_for_function(SETTLED_JS, timeout=60_000, polling=100)
        still(page, PLOTS)  # the last chart's own redraws (margins that grow)
        said = f"{self.screen.name}, {self.lang}, {where}"
        if page.locator("[data-testid=stException]").count():
            self.found.append(f"{said}: the page shows an exception")
        if where != "home":
            if not page.locator("[data-testid=stMain] .js-plotly-plot").count():
                self.found.append(f"{said}: no chart drawn")
            if (plotly := page.evaluate("window.Plotly && window.Plotly.version")) != PLOTLY_JS:
                self.found.append(f"{said}: plotly.js {plotly}, not posviz's own {PLOTLY_JS}")
        if page.evaluate(DARK_JS) != self.dark:
            self.found.append(f"{said}: not in the {'dark' if self.dark else 'light'} theme")
        self.found += [f"{said}: {problem}" for problem in problems(page, self.screen.min_font)]
        broken, cut = page.evaluate(FORMULAS_JS)
        if broken or cut:
            self.found.append(f"{said}: {broken} formulas KaTeX cannot read, {cut} cut off")
        silent, split, titles = page.evaluate(CHART_TEXT_JS)
        if silent or split:
            self.found.append(f"{said}: {silent} charts scroll sideways without a cue, titles "
                              f"broken inside an equation or a bracket: {split}")
        if inside := [broken for lines in titles for broken in broken_words(lines)]:
            self.found.append(f"{said}: titles broken inside a Chinese word: {inside}")
        if foreign := page.evaluate(TOOLBAR_WORDS_JS, [self.lang]):
            self.found.append(f"{said}: tool bar buttons not in the page's language: "
                              f"{sorted(set(foreign))}")
        if (wider := page.evaluate(SIDEWAYS_JS)) > 1:
            self.found.append(f"{said}: the page scrolls sideways by {wider} px")
        if not CI or len(self.found) > before:
            self.screenshot(where)
        if self.audits:
            audit([self.audits], where, self.lang, both=False)
        page.set_viewport_size({"width": self.screen.width, "height": self.screen.height})

    def audited(self) -> None:
        """What the audits found, in the sweep's findings and in test-artifacts/a11y/."""
        if not self.audits:
            return
        found, name = self.audits.found, f"{self.screen.name}-{self.lang}"
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


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("screen", SCREENS, ids=[s.name for s in SCREENS])
def test_every_chart_on_every_page_is_legible_on_the_screen(logged, browser, screen, lang):
    """Each page (each scene of the lesson) with every chart drawn: nothing overlaps, nothing is
    cut off, no text too small, no exception, no script error, and a quiet server; on a desk
    and a phone, no accessibility violation in either theme."""
    base, log = logged
    logged_before = log.read_text("utf-8", errors="replace").count("\n")
    dark = (screen.name, lang) in DARK
    context = screen.context(browser, dark)
    sweep = Sweep(context.new_page(), base, screen, lang, dark, SHOTS)
    for route in [None, *PAGES]:
        if route == LESSON:
            sweep.open(route, scene="1")
            for scene in range(1, SCENES + 1):
                if scene > 1:
                    sweep.page.locator(".st-key-lesson_next button").click()
                    heading = f"{scene}. "
                    sweep.page.locator("[data-testid=stMain] h2", has_text=heading).first.wait_for()
                sweep.scene_shown(f"lesson-{scene}")
                sweep.check(f"lesson-{scene}")
            sweep.open(route, scene="6", text=LABELLED[lang])
            sweep.scene_shown("lesson-6-labelled")
            sweep.check("lesson-6-labelled")
        else:
            sweep.open(route)
            sweep.check(route_name(route))
    if screen.phone:  # the sidebar, opened as a student does
        sweep.page.locator("[data-testid=stExpandSidebarButton]").click()
        sweep.page.locator("[data-testid=stSidebar]").wait_for()
        still(sweep.page, "[data-testid=stSidebar]")  # slid all the way in
        sidebar = sweep.page.locator("[data-testid=stSidebarContent]")
        if sidebar.evaluate("(bar) => bar.scrollWidth - bar.clientWidth") > 1:
            sweep.found.append(f"phone, {lang}: the sidebar scrolls sideways")
        sweep.screenshot("sidebar")
    context.close()
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
            widths = page.evaluate(WIDTHS_JS)
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
