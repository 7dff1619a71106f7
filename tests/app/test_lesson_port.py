"""The guided lesson's last scene: two attention maps of one head on the typed sentence, one
with Gemma 4's RoPE and one with a port's, and the room asked which is the port's; the answer
is where the port's map is drawn, and the reveal quotes the engine's numbers."""

import json

import numpy as np
import pytest

from posviz import ports
from posviz.figures.common import as_array
from posviz.tokens import tokenize
from tests.helpers.figure_data import chart_blocks
from ui.blocks import walk
from ui.documents import blocks
from ui.i18n import text

BUG = "gemma4_prefix"


def scene(sentence: str, lang: str = "en", **options) -> list[dict]:
    return list(walk(blocks("lesson", f"scene=11&text={sentence}", lang, **options)))


@pytest.mark.parametrize("sentence", ["刚想到了", "the cat sat on the mat", "我我我"])
def test_the_right_option_is_the_side_the_ports_map_is_drawn_on(sentence):
    tokens = tokenize(sentence)
    side = ports.port_side("\x1f".join(tokens))
    found = scene(sentence)
    question = next(b for b in found if b["t"] == "question")
    assert question["poll"] == "scene-port"
    assert question["options"] == [text("lesson.port.options.a", "en"),
                                   text("lesson.port.options.b", "en")]
    answer = next(b for b in walk(question["answer"]) if b["t"] == "note")
    letter = "AB"[side]
    assert answer["text"].startswith(f"**{letter}.** Map {letter} is the port's")
    figure = json.loads(next(b["figure"] for b in chart_blocks(found)
                             if b["name"] == "lesson_port"))
    maps = [as_array(t["z"]) for t in figure["data"] if t.get("coloraxis")]
    read = ports.reading(tokens, BUG)
    mask = np.tril(np.ones_like(read.weights[0], dtype=bool))
    np.testing.assert_allclose(maps[side][mask], read.weights[1][mask], atol=1e-6)
    np.testing.assert_allclose(maps[1 - side][mask], read.weights[0][mask], atol=1e-6)


def test_the_reveal_quotes_the_habit_kept_and_lost_and_the_largest_change():
    tokens = tokenize("the cat sat on the mat")
    read = ports.reading(tokens, BUG)
    kept, lost = (ports.looks_back(w) for w in read.weights)
    i, j = read.largest
    question = next(b for b in scene("the cat sat on the mat") if b["t"] == "question")
    said = next(b["text"] for b in walk(question["answer"]) if b["t"] == "note")
    assert f"{kept} of the 5 queries" in said and f"with the port's, {lost}." in said
    assert (f"query {i}, key {j} (positions in the maps): "
            f"{read.weights[0][i, j]:.3f} with the model's RoPE, "
            f"{read.weights[1][i, j]:.3f} with the port's") in said
    assert "11.6% → 1.55%" in said
    assert kept > lost  # the port loses the look-back the model keeps


def test_in_a_room_the_answer_waits_for_the_reveal_and_then_shows_the_largest_change():
    hidden = scene("刚想到了", room=True, revealed=frozenset())
    question = next(b for b in hidden if b["t"] == "question")
    assert question["answer"] == [] and not question["hidden"]
    shown = scene("刚想到了", room=True, revealed=frozenset({"scene-port"}))
    question = next(b for b in shown if b["t"] == "question")
    metric = next(b for b in question["answer"] if b["t"] == "metric")
    assert metric["label"] == text("schemes.largest", "en")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_one_token_is_told_why_there_is_nothing_to_compare(lang):
    found = scene("x", lang)
    assert not [b for b in found if b["t"] == "chart" or (  # the lesson's end asks its own
        b["t"] == "question" and b["poll"].startswith("scene-"))]
    assert any(b["t"] == "note" and b["text"] == text("lesson.port.need_two", lang)
               for b in found)
