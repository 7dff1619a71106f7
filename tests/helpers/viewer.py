"""The viewer's offline files in a browser (static/viewer.js with static/chart.js, the code that
draws a room's screens, the offline files and the lecture's report): a file of every page and
every scene of the lesson, made as the app makes its downloads (ui.documents.offline_html),
opened from disk with no network, laid out as the app lays out its pages on a screen, and drawn
whole."""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping
from pathlib import Path
from urllib.parse import urlencode

import streamlit

from posviz.figures.common import for_the_room
from tests.helpers.axe import CHARTS_JS
from tests.helpers.load_fixtures import still
from tests.helpers.screens import Screen
from ui import documents
from ui.blocks import walk
from ui.i18n import text

DOCUMENT = "#posviz-viewer"  # the viewer's document; part n of a file is #scene-n
STREAMLIT_MEDIA = Path(streamlit.__file__).parent / "static" / "static" / "media"


LABELLED = {"en": "the cat sat down", "zh": "刚想到了一个办法"}
"""Scene 6's arrows carry their tokens' labels up to eight tokens (a long sentence leaves them
to hover): drawn again with the other length in each language, four tokens and eight."""


def views(labelled: str | None = None) -> list[tuple[str, str, dict[str, str]]]:
    """Every view a page or a scene shows: its name, its page and its own settings; with
    labelled (a sentence of LABELLED), scene 6 again with that sentence."""
    out = []
    for page in documents.pages():
        if page == documents.LESSON:
            out += [(f"lesson-{n}", page, {"scene": str(n)})
                    for n in range(1, len(documents.scenes()) + 1)]
            if labelled:
                out.append(("lesson-6-labelled", page, {"scene": "6", "text": labelled}))
        else:
            out.append((page, page, {}))
    return out


def every_view(settings: Mapping[str, str], lang: str, room: bool = False,
               labelled: bool = False) -> tuple[str, dict[str, str]]:
    """One offline file of every view (views()) with these shared settings (the sentence, the
    switch) in lang, each view a part of its own (#scene-1, ...); room: its figures enlarged
    for the room, as presentation mode sends them. Returns the file and the view each chart is
    in, by the chart's name."""
    made, where = [], {}
    for name, page, own in views(LABELLED[lang] if labelled else None):
        blocks = documents.blocks(page, urlencode(dict(settings) | own), lang)
        for block in walk(blocks):
            if block["t"] == "chart":
                if block["name"] in where:  # a view shown twice: its charts named apart
                    block["name"] = f"{block['name']}-{name}"
                where[block["name"]] = name
                if room:
                    block["figure"] = json.dumps(for_the_room(json.loads(block["figure"])))
        made.append({"title": name, "blocks": blocks})
    return documents.offline_html("every view", made, lang), where


def app_font() -> str:
    """The font the app's charts are drawn in: Streamlit's own Source Sans (its frontend's
    woff2, as a data: URL), then the system's sans-serif (for Chinese)."""
    woff2 = next(STREAMLIT_MEDIA.glob("SourceSansVF-Upright*.woff2")).read_bytes()
    return ('@font-face {font-family: "Source Sans"; font-weight: 100 900; src: url('
            f'data:font/woff2;base64,{base64.b64encode(woff2).decode()}) format("woff2")}}\n'
            'html, body, [lang] {font-family: "Source Sans", sans-serif !important}\n')


def layout_css(screen: Screen) -> str:
    """The viewer laid out as Streamlit lays out the app on the screen: its main column
    screen.main wide, a bordered box's padding and border a rem (the root font size, larger in
    presentation mode); its columns are Streamlit's already (a rem apart, side by side where
    two fit, each growing alike). A lecturer's screen is drawn in the app's font; a student's
    phone in the viewer's own."""
    side = (screen.width - screen.main) / 2
    return ((app_font() if screen.lecturer else "")
            + f"html {{font-size: {screen.rem}px}}\n"
            f"#posviz-viewer {{max-width: none; padding-left: {side}px; padding-right: {side}px}}\n"
            ".posviz-question, .posviz-box.bordered {padding-left: calc(1rem - 1px);"
            " padding-right: calc(1rem - 1px)}")


# Every question's answer shown (in a file they are behind a button).
REVEAL_JS = """() => document.querySelectorAll('.posviz-reveal[aria-expanded=false]')
  .forEach((button) => button.click())"""


def file_only(target, asked: list[str], said: str = "{}") -> None:
    """Let target (a page or a browser context) load nothing but the file it opens and the
    data: and blob: URLs inside it, offline; every other address it asks for is refused and
    noted in asked (as said formats it)."""
    def route(r) -> None:
        if r.request.url.startswith(("file:", "data:", "blob:")):
            r.continue_()
        else:
            asked.append(said.format(r.request.url))
            r.abort()
    target.route("**/*", route)
    (target.context if hasattr(target, "context") else target).set_offline(True)


def opened(browser, screen: Screen, path: Path, found: list[str], as_app: bool = True):
    """The file on the screen, offline, laid out as the app (unless as_app is False: as the
    file lays itself out), every answer shown; the requests it tried and its script errors go
    to found. Returns its browser context and its page."""
    context = screen.context(browser, dark=False)
    page = context.new_page()
    file_only(page, found, "asked a host: {}")
    page.on("pageerror", lambda err: found.append(f"script error: {err}"))
    page.on("console", lambda m: m.type == "error" and found.append(f"console error: {m.text}"))
    page.goto(path.as_uri())
    if as_app:
        page.add_style_tag(content=layout_css(screen))
    page.locator("section.posviz-document").first.wait_for()
    page.evaluate(REVEAL_JS)
    return context, page


def drawn_whole(page) -> None:
    """Wait until every chart is drawn at its width in the page's theme (scrolled to, as a
    reader scrolls), and has stopped moving (a chart's own redraws: margins that grow)."""
    page.wait_for_function(f"() => ({CHARTS_JS})(document.querySelector('{DOCUMENT}'))",
                           timeout=120_000, polling=100)
    still(page, f"{DOCUMENT} .js-plotly-plot .draglayer")
    page.evaluate("window.scrollTo(0, 0)")


# Every chart's data table opened (it fills as it opens).
OPEN_TABLES_JS = """() => document.querySelectorAll('.posviz-chart-host > .posviz-data')
  .forEach((details) => { details.open = true; })"""
FILLED_JS = """() => [...document.querySelectorAll('.posviz-chart-host > .posviz-data')]
  .every((details) => details.querySelector('table'))"""
# Of each chart, its name and its data table's tables, each as its head and its rows' labels.
TABLES_JS = """() => {
  const texts = (cells) => [...cells].map((cell) => cell.textContent);
  const firsts = (table) => texts([...table.tBodies[0].rows].map((row) => row.cells[0]));
  return [...document.querySelectorAll('.posviz-chart')].map((c) => [c.dataset.name,
    [...c.parentElement.querySelectorAll(':scope > .posviz-data table')]
      .map((t) => [texts(t.tHead.rows[0].cells), firsts(t)])]);
}"""


def tables(page) -> list[tuple[str, list[tuple[list[str], list[str]]]]]:
    """Every chart's data table, opened: its name and its tables (head, rows' labels)."""
    page.evaluate(OPEN_TABLES_JS)
    page.wait_for_function(FILLED_JS, timeout=60_000, polling=100)
    return page.evaluate(TABLES_JS)


def tabled(page, lang: str) -> list[str]:
    """What is wrong with the charts' data tables: each holds a table at least, each table a
    row; a table of lines or bars is headed by the reader's word for a line, and each row by
    its line's name (never plotly's "trace 0")."""
    found = []
    for name, held in tables(page):
        if not held or any(not rows for _, rows in held):
            found.append(f"{name}: its data table is empty")
        for head, rows in held:
            if head[0] and (head[0] != text("summary.series", lang)
                            or any(row.startswith("trace ") for row in rows)):
                found.append(f"{name}: its data table is headed {head}, its rows {rows[:2]}")
    return found
