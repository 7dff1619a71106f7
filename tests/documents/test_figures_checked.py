"""posviz builds its figures unchecked (posviz.figures.common.figure): plotly.py's checks were
most of a page's drawing time. Here every figure the pages draw is checked as plotly.py would
have checked it as it was built: plotly.py accepts it, and its checks change nothing in what
the browser receives (they would spell out a named colour scale, turn a bare title string into
a title, drop an empty list)."""

import json

import numpy as np
import plotly.graph_objects as go
import pytest

from posviz.figures.common import as_array as array
from posviz.figures.common import figure, spelled_out
from tests.helpers.figure_data import chart_blocks
from ui import documents

VIEWS = (("the cat sat on the mat", "true", "en"), ("刚想到了", "false", "zh"),
         ("x", "false", "en"), ("", "true", "zh"))
"""A sentence, position on or off, a language."""


def plain(value: object) -> object:
    """A figure's JSON with typed arrays as lists, and empty lists and objects left out."""
    if isinstance(value, dict):
        if "bdata" in value:
            return array(value).tolist()
        kept = {key: plain(v) for key, v in value.items()}
        return {key: v for key, v in kept.items() if v not in ([], {})}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def checking_changes(spec: str) -> list[str]:
    """Where plotly.py's checks change a figure's JSON (the figure as sent): a path each."""
    sent = json.loads(spec)
    checked = json.loads(go.Figure(sent).to_json())  # raises on anything plotly.py refuses
    return differences(plain(sent), plain(checked))


def differences(sent: object, checked: object, at: str = "") -> list[str]:
    if isinstance(sent, dict) and isinstance(checked, dict):
        return [found for key in sorted(set(sent) | set(checked))
                for found in differences(sent.get(key), checked.get(key), f"{at}/{key}")]
    if isinstance(sent, list) and isinstance(checked, list) and len(sent) == len(checked):
        return [found for n, (a, b) in enumerate(zip(sent, checked, strict=True))
                for found in differences(a, b, f"{at}[{n}]")]
    same = (sent == checked if not isinstance(sent, float) or not isinstance(checked, float)
            else np.isclose(sent, checked, rtol=1e-6, atol=0, equal_nan=True))
    return [] if same else [f"{at}: {str(sent)[:60]} -> {str(checked)[:60]}"]


def views(page: str) -> list[dict]:
    """A page's views (VIEWS), the guided lesson's scene by scene."""
    scenes = range(1, len(documents.scenes()) + 1) if page == documents.LESSON else [None]
    return [{"text": [typed], "pos": [pos], "lang": [lang]}
            | ({"scene": [str(scene)]} if scene else {})
            for scene in scenes for typed, pos, lang in VIEWS]


@pytest.mark.parametrize("page", list(documents.pages()))
def test_every_figure_a_page_draws_is_one_plotlys_checks_leave_unchanged(page):
    charted = 0
    for params in views(page):
        for block in chart_blocks(documents.drawn(page, params, params["lang"][0], frozenset())):
            charted += 1
            changed = checking_changes(block["figure"])
            assert not changed, f"{page} {params} {block['name']}: " + "; ".join(changed[:5])
    assert charted or page == "home"


def test_the_check_sees_what_plotly_would_change():
    """A named colour scale spelled out and a bare title string are seen; spelled_out makes
    the first as plotly.py writes it."""
    named = go.Figure([dict(type="heatmap", z=[[1, 2]], colorscale="Blues")], {},
                      _validate=False)
    assert [c.split(":")[0] for c in checking_changes(named.to_json())] == [
        "/data[0]/colorscale"]
    titled = go.Figure([], {"xaxis": {"title": "position"}}, _validate=False)
    assert [c.split(":")[0] for c in checking_changes(titled.to_json())] == [
        "/layout/xaxis/title", "/layout/xaxis/title/text"] or checking_changes(titled.to_json())
    made = figure([dict(type="heatmap", z=np.eye(2), colorscale="Blues_r")],
                  {"xaxis": {"domain": (0.0, 0.5)}})
    assert checking_changes(made.to_json()) == []
    assert spelled_out({"colorscale": "Blues"})["colorscale"][0] == [0.0, "rgb(247,251,255)"]
