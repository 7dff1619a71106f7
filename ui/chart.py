"""Charts drawn by posviz's own plotly.js bundle instead of st.plotly_chart, and their export.

st.plotly_chart loads a 4.7 MB script before its first chart; a page that draws one chart then
takes twice as long to show as a page without. posviz serves a 1.2 MB plotly.js build with only
the traces it draws (static/plotly-posviz.min.js, built from assets/viewer/src/plotly/) through
a small component (static/chart.js) that loads it once per browser tab and updates charts in
place.

Export happens in the browser, from the figure it already holds: each chart's toolbar saves PNG,
SVG, CSV (every matrix, or every line) and .npy, and the sidebar's tools pack all of a page's
charts into one zip. Nothing is computed on the server for it.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
from pathlib import Path

import plotly.graph_objects as go
import streamlit as st

from posviz.figures.common import for_the_room
from ui.i18n import text
from ui.summary import TABLE_LABELS, summary

STATIC = Path(__file__).resolve().parent.parent / "static"


def version(name: str) -> str:
    """A file of static/ named by its content: a proxy may let browsers keep it for a year."""
    return hashlib.sha256((STATIC / name).read_bytes()).hexdigest()[:12]


def module(name: str, element: str = "default") -> str:
    """A component's JavaScript as a few bytes that import static/<name> once per browser tab
    (served by Streamlit, its URL versioned by its content) and draw with its export named
    element, rather than the whole module inlined in every element: each chart would otherwise
    carry 20 kB of code over the websocket, on every run, to every student of a room. The
    elements one module exports share what it keeps for the tab. What the element's function
    returns, a function to call when the element goes, is called then."""
    url = json.dumps(f"app/static/{name}?v={version(name)}")
    return (f"const loaded = import(new URL({url}, document.baseURI).href);\n"
            "export default (component) => {\n"
            f"  const drawn = loaded.then((module) => module[{json.dumps(element)}](component));\n"
            "  return () => drawn.then((done) => typeof done === \"function\" && done());\n"
            "};\n")


_CHART = st.components.v2.component(
    "posviz_chart", js=module("chart.js", "chart"),
    css=""".posviz-scroll-cue {display: none}
        .posviz-wide > .posviz-scroll-cue {display: block; position: sticky; left: 0;
            font-size: .8rem; opacity: .75; padding-bottom: .2rem}""",
    isolate_styles=False)
_TOOLS = st.components.v2.component(
    "posviz_tools", js=module("chart.js", "tools"),
    css=""".posviz-tools button {width: 100%; margin: 0 0 .4rem; padding: .3rem .75rem;
        font: inherit; color: inherit; background: transparent; cursor: pointer;
        border: 1px solid rgba(128, 128, 128, .4); border-radius: .5rem}
        .posviz-tools button:hover {border-color: currentColor}
        .posviz-tools-note {font-size: .8rem; opacity: .7; overflow-wrap: anywhere}""",
    isolate_styles=False)


BUNDLE_VERSION = version("plotly-posviz.min.js")
"""The plotly bundle's content hash, in its URL (static/chart.js loads it)."""


def presenting() -> bool:
    """Whether presentation mode is on for this session (the sidebar switch)."""
    return bool(st.session_state.get("kept_present", False))


def _lang() -> str:
    return st.session_state.get("kept_lang", "en")


def figure_json(figure: go.Figure) -> str:
    """The figure as JSON, made once per figure object: a cached figure that a whole class of
    followers is shown is serialized once, not once each."""
    spec = getattr(figure, "_posviz_json", None)
    if spec is None:
        spec = figure.to_json()
        figure._posviz_json = spec
    return spec


@functools.lru_cache(maxsize=32)
def room_json(spec: str) -> str:
    """A figure's JSON enlarged for the room (for_the_room), made once per figure: a cached
    figure's JSON is one string, found again at the cost of comparing it with itself."""
    return json.dumps(for_the_room(json.loads(spec)))


def figure_summary(figure: go.Figure, lang: str) -> str:
    """What the figure shows, in sentences (ui.summary), made once per figure and language."""
    kept = f"_posviz_summary_{lang}"
    said = getattr(figure, kept, None)
    if said is None:
        said = summary(json.loads(figure_json(figure)), lang)
        setattr(figure, kept, said)
    return said


def chart_labels(lang: str) -> dict[str, str]:
    """A chart's words: its buttons, its sideways cue, its data table."""
    return ({key: text(f"common.export.{key}", lang) for key in CHART_LABELS}
            | {key: text(f"summary.{key}", lang) for key in TABLE_LABELS})


CHART_LABELS = ("svg", "csv", "npy", "scroll")  # a chart's buttons, and its sideways cue


def chart(figure: go.Figure, name: str, where=None, toolbar: bool = True,
          summary: str | None = None, fit: bool = False) -> None:
    """Draw a figure full width, in where (a column, ...) or the current container.

    name keys the chart on its page and names its files (`posviz-<name>.png`, ...). In
    presentation mode the figure is enlarged for the room (`for_the_room`), and with fit it
    is fitted in the window too (static/chart.js: a lesson scene's figure, seen whole on a
    projector). toolbar=False leaves out plotly's toolbar (zoom, export), e.g. for a room's
    small vote counts. summary: what it shows, said to a screen reader (figure_summary's,
    unless given).
    """
    said = figure_summary(figure, _lang()) if summary is None else summary
    chart_json(figure_json(figure), name, where, toolbar, said, fit)


def chart_json(spec: str, name: str, where=None, toolbar: bool = True, summary: str = "",
               fit: bool = False) -> None:
    """Draw a figure given as its JSON (a chart block's), as chart() draws a figure."""
    shown = room_json(spec) if presenting() else spec
    with where if where is not None else contextlib.nullcontext():
        _CHART(data={"figure": shown, "name": name, "labels": chart_labels(_lang()),
                     "lang": _lang(), "modebar": toolbar, "summary": summary,
                     "bundle": BUNDLE_VERSION, "fit": fit and presenting()},
               key=f"chart_{name}", width="stretch")


def tools(page: str) -> None:
    """Sidebar buttons: copy a link to this exact view; export every chart of the page (zip)."""
    labels = {key: text(f"common.export.{key}", _lang())
              for key in ("link", "copied", "zip", "packing", "packed")}
    _TOOLS(data={"page": page, "labels": labels}, key="posviz_tools", width="stretch")
