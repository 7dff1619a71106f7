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


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_on_a_projector_the_port_question_stands_beside_the_maps_it_asks_about(lang):
    """Scene 11 asks which map is the port's: on a projector its question stands beside the
    maps (one row of columns), so that both are on the first screen; elsewhere, as ever, the
    question follows the words under the maps."""
    def row_of(at) -> list[list[dict]] | None:
        rows = [b for b in at.session_state["posviz_doc"] if b["t"] == "columns"]
        return next((r["columns"] for r in rows if any(
            b["t"] == "chart" and b["name"] == "lesson_port" for b in r["columns"][0])), None)

    at = opened("pages/0_lesson.py", "刚想到了", lang)
    at.query_params["scene"] = "11"
    at.run()
    assert row_of(at) is None and not at.exception
    at.toggle(key="present").set_value(True).run()
    assert not at.exception
    beside = row_of(at)
    assert beside is not None, "the maps are not in a row beside the question"
    assert [b["t"] for b in beside[1]] == ["question"]
