"""Every chart of every page and of every scene of the guided lesson, checked where the viewer draws
it (static/viewer.js with static/chart.js: a room's screens, the offline files, the lecture's
report), on the three screens a room uses, in English with a long sentence and in Chinese with
刚想到了 (and the RoPE scene's labelled arrows again, with four English tokens and eight Chinese
ones), in the light and the dark theme.

Every page's document and every scene (its answer shown) go into one offline file per language,
made by the code that makes the app's downloads (ui.documents.offline_html); the projector's
figures are the ones presentation mode sends it, enlarged for the room. The file is opened from
disk, with no network, in headless Chromium at the screen's size, its main column and its
columns as wide as Streamlit's on that screen (tests/helpers/screens.py: a rule the screen sweep
holds Streamlit to), every chart drawn, then in the other theme drawn again. In each theme no
chart may have a label overlapping another, text cut off or smaller than the screen's minimum,
or plots side by side out of line (tests/helpers/drawn.py); no formula may be unreadable or cut
off, no chart may scroll sideways without saying so, no title may break inside an equation, a
bracket or a Chinese word, and no tool bar button may speak another language
(tests/helpers/chart_text.py); every chart's text must be in the page's colours. Every chart is
named and described, its drawing hidden from screen readers; on the phone (a chart's table is
the same on every screen) every data table opens with its numbers, headed in the reader's
words. The file asks nothing of any host and logs no script error.

The lesson file as a live handout (ui.handout) joins the sweep on the desk and the phone, in each
language: a sentence typed into its box (tapped on the phone, clicked on the desk, no Enter),
every live figure redrawn for it by the browser's engine (a map scaled to its largest value
scaled to the typed sentence's), then held in the light theme and the dark to the same checks
of its charts, by axe (every rule in the light theme, the colour rules
in the dark, the window as tall as the page) and, on the phone, by its data tables.
tests/documents/test_handout.py checks the figures' numbers and hostile text.

A picture of each chart with a finding is kept in test-artifacts/viewer/ (elsewhere than under
CI, of every chart, in the light theme).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from posviz.tokens import MAX_TOKENS, clip_tokens, tokenize
from tests.conftest import ROOT
from tests.helpers.axe import DESCRIBED_JS, Audits, report
from tests.helpers.chart_text import VIEWER_FORMULA, chart_text
from tests.helpers.drawn import problems
from tests.helpers.screens import SCREENS, WIDTHS_JS, Screen
from tests.helpers.viewer import (
    DOCUMENT,
    LABELLED,
    drawn_whole,
    every_view,
    opened,
    tabled,
    views,
)
from ui import handout
from ui.i18n import lang_tag, text

pytestmark = pytest.mark.browser

LONG = ("the quick brown fox jumps over the lazy dog while the old cat watches it from a warm "
        "sunny window seat")
SENTENCES = {"en": LONG, "zh": "刚想到了"}  # the screen sweep's phone and projector walks
SHOTS = ROOT / "test-artifacts" / "viewer"
CI = os.environ.get("CI") == "true"
VIEWS = [name for name, *_ in views(LABELLED["en"])]
TYPED = {"en": ("on a small phone a student types a long sentence of twenty four english words to "
               "see how every attention map grows with it"),  # 24 tokens
         "zh": "了到想刚"}  # typed into the live handout's box
HANDHELD = [screen for screen in SCREENS if not screen.room]  # where a handout is read

# True once every chart of the handout shows the typed sentence of n tokens: a live one redrawn
# for it by the engine (a fixed one as it was), any other saying beside it that it does not.
TYPED_JS = """(n) => [...document.querySelectorAll('.posviz-chart-host')].every((host) => {
  const live = host.dataset.live ? JSON.parse(host.dataset.live) : null;
  if (!live) return !!host.previousElementSibling?.matches('.posviz-live-note.stale');
  return live.recipe === 'fixed' || (host.posvizLive && host.posvizLive.tokens.length === n);
})"""

# Of each live chart scaled to its largest value, its colour scale's top as drawn (in the layout
# the screen draws: a phone's narrow one) and its largest value drawn.
TOP_JS = """() => [...document.querySelectorAll('.posviz-chart-host[data-live]')]
  .filter((host) => (JSON.parse(host.dataset.live).params || {}).scale === 'top').map((host) => {
    const gd = host.querySelector('.posviz-chart');
    const z = gd.data.filter((t) => t.type === 'heatmap' && t.hoverinfo !== 'skip')
      .flatMap((t) => t.z.flat()).filter(Number.isFinite);
    return [host.dataset.name, gd.layout.coloraxis.cmax, Math.max(...z)];
  })"""


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Each language's file, as it is drawn on a desk or a phone and on a projector."""
    folder = tmp_path_factory.mktemp("viewer")
    made = {}
    for lang, sentence in SENTENCES.items():
        for room in (False, True):
            html, where = every_view({"text": sentence}, lang, room, labelled=True)
            path = folder / f"{lang}{'-room' if room else ''}.html"
            path.write_text(html, encoding="utf-8")
            made[lang, room] = path, where
    return made


def checked(page, screen: Screen, lang: str, where: dict[str, str]) -> dict[str, list[str]]:
    """What is wrong with the drawn file, by chart (or by view, for its formulas)."""
    found: dict[str, list[str]] = {}
    for line in problems(page, screen.min_font):
        found.setdefault(line.split(":")[0].split(" and ")[0], []).append(line)
    for name, drawn, rule in page.evaluate(WIDTHS_JS, [DOCUMENT, screen.rule()]):
        found.setdefault(name, []).append(
            f"{name}: drawn {drawn:.1f} px wide, where the app gives it {rule:.1f}")
    for n, view in enumerate(VIEWS, start=1):
        if said := chart_text(page, f"#scene-{n}", lang, VIEWER_FORMULA):
            found.setdefault(view, []).extend(said)
    return found


def shot(page, name: str, path: Path) -> None:
    """A picture of a chart (or as much of it as the window holds), or of a view's top."""
    where = (page.locator(f".posviz-chart[data-name='{name}']") if name not in VIEWS
             else page.locator(f"#scene-{VIEWS.index(name) + 1}"))
    where.scroll_into_view_if_needed()
    box = where.bounding_box()
    size = page.viewport_size
    top, bottom = max(box["y"], 0), min(box["y"] + box["height"], size["height"])
    page.screenshot(path=path, clip={"x": 0, "y": top, "width": size["width"],
                                     "height": max(bottom - top, 1)})


@pytest.mark.parametrize("lang", list(SENTENCES))
@pytest.mark.parametrize("screen", SCREENS, ids=[s.name for s in SCREENS])
def test_every_chart_of_every_view_is_legible_where_the_viewer_draws_it(browser, files, screen,
                                                                        lang):
    """Every page and scene of one language on one screen, in the light theme, then the dark."""
    path, where = files[lang, screen.room]
    said: list[str] = []
    context, page = opened(browser, screen, path, said)
    SHOTS.mkdir(parents=True, exist_ok=True)
    for theme in ("light", "dark"):
        page.emulate_media(color_scheme=theme)
        drawn_whole(page)
        found = checked(page, screen, lang, where)
        for name in found if CI else [*found, *(where if theme == "light" else [])]:
            shot(page, name, SHOTS / f"{screen.name}-{lang}-{theme}-{name}.png")
        said += [f"{screen.name}, {lang}, {theme}, {where.get(name, name)}: {line}"
                 for name, lines in found.items() for line in lines]
    said += [f"{screen.name}, {lang}: {finding['help']}: "
             f"{[node['target'] for node in finding['nodes']]}"
             for finding in page.evaluate(DESCRIBED_JS, [lang_tag(lang)])]
    if screen.phone:  # a chart's table is the same on every screen: opened on the phone's
        said += [f"{screen.name}, {lang}, {where[line.split(':')[0]]}: {line}"
                 for line in tabled(page, lang)]
    context.close()
    assert not said, "\n".join(said)


@pytest.fixture(scope="module")
def handouts(tmp_path_factory):
    """The live handout (python -m ui.handout) in each language."""
    folder = tmp_path_factory.mktemp("handout")
    return {lang: handout.main(["--lang", lang, "--out", str(folder / f"{lang}.html")])
            for lang in TYPED}


@pytest.mark.parametrize("lang", list(TYPED))
@pytest.mark.parametrize("screen", HANDHELD, ids=[s.name for s in HANDHELD])
def test_the_live_handout_typed_into_is_legible_and_accessible(browser, handouts, screen, lang):
    """The handout as it lays itself out on one screen, a sentence typed into its box, every
    chart redrawn for it: legible in the light theme, then the dark, and audited in each."""
    said: list[str] = []
    context, page = opened(browser, screen, handouts[lang], said, as_app=False)
    box = page.locator("#posviz-try-input")
    if screen.phone:
        box.tap()
    else:
        box.click()
    page.keyboard.type(TYPED[lang])
    tokens, n = clip_tokens(tokenize(TYPED[lang]), MAX_TOKENS)
    assert n <= MAX_TOKENS
    page.locator(".posviz-try-status").filter(
        has_text=text("viewer.try_tokens", lang, n=n)).wait_for()
    page.wait_for_function(TYPED_JS, arg=len(tokens), timeout=60_000, polling=100)
    drawn_whole(page)
    said += [f"{screen.name}, {lang}, {name}: its colour scale tops at {top}, its values at {most}"
             for name, top, most in page.evaluate(TOP_JS) if abs(top - most) > 1e-9]
    tab = Audits(page, screen)
    SHOTS.mkdir(parents=True, exist_ok=True)
    for theme in ("light", "dark"):
        drawn_whole(page)
        found: dict[str, list[str]] = {}
        for line in problems(page, screen.min_font):
            found.setdefault(line.split(":")[0].split(" and ")[0], []).append(line)
        if formulas := chart_text(page, DOCUMENT, lang, VIEWER_FORMULA):
            found.setdefault("formulas", []).extend(formulas)
        for name in found:
            if name != "formulas":
                shot(page, name, SHOTS / f"handout-{screen.name}-{lang}-{theme}-{name}.png")
        said += [f"{screen.name}, {lang}, {theme}: {line}"
                 for lines in found.values() for line in lines]
        tab.start(app=False, every=theme == "light")  # axe: every rule, then the colours'
        tab.finish("handout", lang)  # and the page turned to the other theme
        tab.screen_size()
    if screen.phone:
        said += [f"{screen.name}, {lang}: {line}" for line in tabled(page, lang)]
    context.close()
    assert not said and not tab.found, "\n".join([*said, report(tab.found)])
