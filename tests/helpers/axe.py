"""An accessibility audit of the view a tab shows, by axe-core (tests/browser/axe.min.js, vendored
from npm in assets/viewer/) against WCAG 2.0 and 2.1, levels A and AA, and WCAG 2.2's target
size (24 x 24 px), and by the checks a screen reader needs beyond axe's rules: the page's
language, and of every chart a name, a description and a data table.

The screen sweep (tests/browser/test_browser_screens.py) audits every page and every scene of
the lesson as it walks them, their charts left undrawn (a chart's drawing is hidden from screen
readers and left out of the audit anyway), each screen's English walk in the light theme and its
Chinese walk in the dark one: every view by every rule in each theme.
tests/browser/test_browser_a11y.py audits a room's views: each in the theme its tab is in, then
turned to the other theme and audited again by the rules that colours decide (`COLOUR_RULES`:
the others read the page's structure, which a theme does not change); the next view starts in
the theme the last audit was in, with every rule. axe checks the contrast of text in view only,
so the window grows as tall as the page first.
"""

from __future__ import annotations

import time
from collections import defaultdict
from dataclasses import dataclass, field

from tests.conftest import ARRIVES_MS, ROOT
from tests.helpers.load_fixtures import CHART_BOXES, DRAWN_FRAMES_JS, FINISHED
from tests.helpers.screens import DARK_JS, Screen
from ui.i18n import lang_tag

AXE = ROOT / "tests" / "browser" / "axe.min.js"
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
COLOUR_RULES = ["color-contrast", "link-in-text-block"]  # of TAGS' rules, those colours decide
TARGETS = 3  # nodes shown per violation and view

# axe on the whole page but the charts' drawings (plotly's SVG, hidden from screen readers:
# a chart is read by its name, description and data table, DESCRIBED_JS; skipping their
# thousands of nodes takes a third off each audit): every rule of tags and WCAG 2.2's target
# size, or (tags null) only the colour rules. The label of a disabled control (Streamlit marks
# it `disabled`, greyed: the attention page's schemes with position off) has no contrast to
# meet (WCAG 1.4.3 exempts an inactive component's text), which axe cannot tell from the label.
AUDIT_JS = """([tags, colours]) => axe.run({ exclude: [['.js-plotly-plot svg.main-svg']] }, {
  runOnly: tags ? { type: 'tag', values: tags } : { type: 'rule', values: colours },
  rules: tags ? { 'target-size': { enabled: true } } : {},
  resultTypes: ['violations'] }).then((found) => found.violations.map((v) => ({
    id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.filter((n) => v.id !== 'color-contrast'
      || !document.querySelector(n.target.map(String).join(' '))?.closest('label[disabled]'))
    .map((n) => ({ target: n.target.map(String).join(' '), html: n.html,
                   summary: n.failureSummary })) })).filter((v) => v.nodes.length))"""

# What a screen reader needs beyond axe's rules: the page's language, and of every chart a name,
# a description and a data table (tests/app/test_summary.py checks the descriptions' words), its
# drawing hidden from it and holding nothing a keyboard reaches (axe's aria-hidden-focus, for
# the drawings AUDIT_JS leaves out); each problem as a finding in axe's form.
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
  const drawings = [...document.querySelectorAll('.js-plotly-plot svg.main-svg')];
  const heard = drawings.filter((svg) => svg.getAttribute('aria-hidden') !== 'true'
    || svg.querySelector('a[href], [tabindex], [contenteditable], input, button, select'));
  if (heard.length) found.push({ id: 'posviz-chart-drawing', impact: 'serious',
    help: "a chart's drawing read by a screen reader, or holding something a keyboard reaches",
    nodes: heard.map((svg) => ({ target: svg.closest('.posviz-chart')?.dataset.name || '',
                                  html: svg.outerHTML.slice(0, 200), summary: '' })) });
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


@dataclass
class Audits:
    """One tab on one screen, in the theme it is in, and what its audits have found. A view is
    audited in that theme, then in the other: the next view starts in that one."""

    page: object
    screen: Screen
    dark: bool = False
    found: list[dict] = field(default_factory=list)
    timings: list[dict] = field(default_factory=list)  # each audit's view and seconds
    since: float = field(default_factory=time.monotonic)  # when the last audit ended
    began: float = 0.0  # when the audit under way started waiting for its view
    drawn: float = 0.0  # when that view was drawn
    every: bool = True  # whether the audit under way runs every rule, or the colour rules

    def start(self, app: bool, every: bool = True) -> None:
        """Once the view is drawn whole in the tab's theme, start axe on it, with every rule or
        only the colour rules (it runs in this tab's renderer while another tab gets ready)."""
        self.began = time.monotonic()
        self.page.wait_for_function(
            "([dark]) => (DARK)() === dark".replace("DARK", DARK_JS if app else ROOM_DARK_JS),
            arg=[self.dark], timeout=ARRIVES_MS, polling=100)
        for _ in range(2):  # drawn, then drawn again in a window as tall as the page
            self.page.wait_for_function(APP_READY_JS if app else ROOM_READY_JS,
                                        timeout=60_000, polling=100)
            self.whole()
        if not self.page.evaluate("() => typeof axe !== 'undefined'"):
            self.page.add_script_tag(path=str(AXE))
        self.drawn = time.monotonic()
        self.page.evaluate(f"(a) => {{ window.posvizAudit = ({AUDIT_JS})(a); }}",
                           [TAGS if every else None, COLOUR_RULES])
        self.every = every

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

    def screen_size(self) -> None:
        """The window back to the screen's size, before the next view is shown."""
        size = {"width": self.screen.width, "height": self.screen.height}
        if self.page.viewport_size != size:
            self.page.set_viewport_size(size)

    def finish(self, view: str, lang: str, turn: bool = True) -> None:
        """Keep what axe found, and turn the tab to the other theme (unless turn is False)."""
        theme = "dark" if self.dark else "light"
        described = self.page.evaluate(DESCRIBED_JS, [lang_tag(lang)]) if self.every else []
        self.found += [violation | {"view": view, "lang": lang, "screen": self.screen.name,
                                    "theme": theme}
                       for violation in [*self.page.evaluate("() => window.posvizAudit"),
                                         *described]]
        self.timings.append({"view": view, "lang": lang, "theme": theme,
                             "rules": "every" if self.every else "colour",
                             "screen": self.screen.name,
                             "loaded": round(self.began - self.since, 2),
                             "drawn": round(self.drawn - self.began, 2),
                             "audited": round(time.monotonic() - self.drawn, 2)})
        if turn:
            self.dark = not self.dark
            self.page.emulate_media(color_scheme="dark" if self.dark else "light")
        self.since = time.monotonic()


def audit(tabs: list[Audits], view: str, lang: str, app: bool = True,
          both: bool = True) -> None:
    """Audit the view each tab shows in its theme by every rule, then (both) in the other one
    (which the tab stays in) by the colour rules; several tabs side by side, each axe run in its
    own tab's renderer while the next tab gets ready. A tab that walks every view in one theme,
    while another walks them in the other, audits each view in its own theme alone
    (both=False): a theme's change redraws every chart."""
    for first in (True, False) if both else (True,):
        for tab in tabs:
            tab.start(app, every=first)
        for tab in tabs:
            tab.finish(view, lang, turn=first and both)


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
