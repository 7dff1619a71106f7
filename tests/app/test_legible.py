"""Rules every chart of every page keeps, read from the figures the pages send (the screen sweep,
tests/browser/test_browser_screens.py, checks the drawn result): each legend under its own chart and
belonging to it, a width below which the chart scrolls rather than shrinks, and no line that
vanishes on a dark page."""

import json

import pytest

from posviz.figures.common import LEGEND, MIN_WIDTH
from tests.conftest import PAGES
from tests.helpers.controls import opened
from tests.helpers.figure_data import chart_payloads

INVISIBLE_ON_SOME_THEME = {"black", "#000", "#000000", "rgb(0,0,0)", "white", "#fff", "#ffffff",
                           "rgb(255,255,255)"}


def columns(layout: dict) -> set[tuple[float, float]]:
    """The x domains of a figure's panels (one for a single plot)."""
    return {tuple(axis.get("domain", (0, 1))) for key, axis in layout.items()
            if key[:5] == "xaxis" and axis.get("visible", True)}


def in_legend(trace: dict) -> bool:
    return trace.get("showlegend", trace.get("type", "scatter") != "heatmap") is not False


@pytest.fixture(scope="module", params=PAGES)
def figures(request) -> dict[str, dict]:
    """Every chart a page draws with its default settings, by name."""
    return {payload["name"]: json.loads(payload["figure"])
            for payload in chart_payloads(opened(request.param))}


def test_every_legend_sits_under_its_chart(figures):
    for name, figure in figures.items():
        assert {k: figure["layout"]["legend"].get(k) for k in LEGEND} == LEGEND, name


def test_a_legend_names_what_is_in_every_panel_it_stands_under(figures):
    """Side-by-side panels share a legend only for series drawn in each of them (the same
    schemes on two axes); anything else is a chart of its own, with a legend of its own."""
    for name, figure in figures.items():
        panels = columns(figure["layout"])
        named = [t for t in figure["data"] if in_legend(t) and t.get("name")]
        if len(panels) < 2 or len(named) < 2:
            continue
        for trace in named:
            group = trace.get("legendgroup")
            axes = {t.get("xaxis", "x") for t in figure["data"]
                    if group is not None and t.get("legendgroup") == group}
            assert len(axes) == len(panels), f"{name}: {trace['name']} is in one panel only"


def test_every_chart_states_the_width_it_stays_legible_at(figures):
    for name, figure in figures.items():
        assert figure["layout"]["meta"]["min_width"] >= MIN_WIDTH, name
        if len(columns(figure["layout"])) > 2:  # three or four panels a row: no phone fits them
            assert figure["layout"]["meta"]["min_width"] > 600, name


def test_no_line_is_black_or_white(figures):
    """Charts are drawn on the page's own background, light or dark."""
    for name, figure in figures.items():
        layout = figure["layout"]
        colours = [t.get("line", {}).get("color") for t in figure["data"]
                   if t.get("type", "scatter") == "scatter"]
        colours += [t.get("marker", {}).get("color") for t in figure["data"]
                    if t.get("type", "scatter") == "scatter"]
        if not any(t.get("type") == "heatmap" for t in figure["data"]):  # lines over cells may
            colours += [s.get("line", {}).get("color") for s in layout.get("shapes", [])]
        colours += layout["template"]["layout"]["colorway"]
        assert not {c for c in colours if isinstance(c, str)} & INVISIBLE_ON_SOME_THEME, name
