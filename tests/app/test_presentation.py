"""Presentation mode: every figure on every page is enlarged for the room, values untouched."""


import numpy as np
import pytest

from posviz.figures.common import FONT_SIZE, ROOM_SCALE, for_the_room
from posviz.figures.common import as_array as array
from posviz.figures.rope import line_chart
from tests.conftest import PAGES
from tests.helpers.controls import opened
from tests.helpers.figure_data import chart_specs, figure_json


def sizes(node, key=""):
    """Every font size in a figure's JSON."""
    if isinstance(node, list):
        return [s for item in node for s in sizes(item, key)]
    if not isinstance(node, dict):
        return []
    own = [node["size"]] if key in ("font", "tickfont", "textfont") and "size" in node else []
    return own + [s for k, v in node.items() if k != "template" for s in sizes(v, k)]


def test_for_the_room_enlarges_text_and_lines_and_leaves_the_numbers():
    figure = figure_json(line_chart(np.arange(8), {"a": np.arange(8.0) ** 2}, title="t",
                                    x_title="x", y_title="y"))
    room = for_the_room(figure)
    assert room["layout"]["font"]["size"] == FONT_SIZE * ROOM_SCALE
    assert room["layout"]["title"]["font"]["size"] > FONT_SIZE * ROOM_SCALE
    assert min(sizes(room)) >= FONT_SIZE * ROOM_SCALE * 0.8
    assert room["data"][0]["line"]["width"] >= 2 * figure["data"][0]["line"].get("width", 2)
    np.testing.assert_array_equal(array(room["data"][0]["y"]), array(figure["data"][0]["y"]))
    assert figure["layout"]["font"]["size"] == FONT_SIZE, "the input is not changed"


@pytest.mark.parametrize("page", PAGES)
def test_the_presentation_switch_enlarges_every_figure_on_every_page(page):
    at = opened(page)
    plain = chart_specs(at)
    at.toggle(key="present").set_value(True).run()
    assert not at.exception
    room = chart_specs(at)
    assert room and len(room) == len(plain)
    for before, after in zip(plain, room, strict=True):
        assert after["layout"]["font"]["size"] == FONT_SIZE * ROOM_SCALE
        assert min(sizes(after)) >= FONT_SIZE * ROOM_SCALE * 0.8
        for old, new in zip(before["data"], after["data"], strict=True):
            assert all(old.get(key) == new.get(key) for key in ("x", "y", "z"))
