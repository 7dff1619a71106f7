"""What a chart says to a screen reader (ui/summary.py): sentences computed from the figure's
own numbers, checked against plain loops over the same numbers, and present, whole and in the
reader's language for every chart of every page."""

import re

import numpy as np
import plotly.graph_objects as go
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from posviz.figures.attention import change_bars, map_grid
from tests.helpers.figure_data import chart_blocks, figure_json
from ui import documents
from ui.summary import number, plain, summary

LABELS = ["0 刚", "1 想", "2 到", "3 了"]


def causal(n: int) -> np.ndarray:
    return np.tril(np.ones((n, n), dtype=bool))


def softmax_rows(scores: np.ndarray, mask: np.ndarray) -> np.ndarray:
    held = np.where(mask, scores, -np.inf)
    e = np.exp(held - held.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.floats(-4, 4), min_size=32, max_size=32))
def test_attention_rows_name_where_each_row_looks_most(scores):
    """Each row's named column and weight are the row's largest visible weight (a plain loop),
    and the hidden cells are counted."""
    maps = np.stack([softmax_rows(np.reshape(scores[:16], (4, 4)), causal(4)),
                     softmax_rows(np.reshape(scores[16:], (4, 4)), causal(4))])
    figure = map_grid(maps, causal(4), LABELS, ["head 1", "head 2"], title="Attention",
                      x_title="key", y_title="query", value_name="weight")
    said = summary(figure_json(figure), "en")
    assert said.startswith("Attention. 2 panels. head 1: 4 rows (query) by 4 columns (key)")
    sent = maps.astype(np.float32)  # the figure holds its weights as float32: ties as it does
    for head, part in zip(sent, said.split("head ")[1:], strict=True):
        for r in range(4):
            best, top = None, -1.0
            for c in range(r + 1):  # the visible keys of query r
                if head[r, c] > top:
                    best, top = c, head[r, c]
            assert f"{LABELS[r]} → {LABELS[best]} ({number(top)})" in part
        assert "6 of 16 cells hidden (grey)" in part


def test_a_map_that_is_not_attention_says_its_smallest_and_largest_cell():
    z = np.array([[0.5, -2.0, 3.0], [7.25, 0.0, 1.0]])
    figure = go.Figure(go.Heatmap(z=z, x=["a", "b", "c"], y=["p", "q"],
                                  hovertemplate="row: %{y}<br>col: %{x}<br>score: %{z}"))
    figure.update_layout(title="Scores")
    assert summary(figure_json(figure), "en") == (
        "Scores. 2 rows (row) by 3 columns (col); score from -2 (row p, column b) to 7.25 "
        "(row q, column a).")


def test_lines_and_bars_say_their_values():
    x = np.arange(10)
    figure = go.Figure([go.Scatter(x=x, y=(x - 3.0) ** 2, name="square"),
                        go.Scatter(x=x, y=-x, name="down")])
    figure.update_layout(title="Two lines", xaxis_title="step")
    assert summary(figure_json(figure), "en") == (
        "Two lines. 2 lines against step. square: from 9 at 0 to 36 at 9, highest 36 at 9. "
        "down: from 0 at 0 to -9 at 9, highest 0 at 0.")
    bars = change_bars(["刚", "想"], {"no position": np.array([1e-15, 2e-15]),
                                     "sinusoidal": np.array([2.867, 0.94])},
                       title="Change", x_title="token", y_title="change")
    said = summary(figure_json(bars), "zh")
    assert "no position：刚 1.00e-15，想 2.00e-15。" in said
    assert "sinusoidal：刚 2.87，想 0.94。" in said


def test_cells_laid_in_rows_are_counted_per_row():
    from posviz.figures.modern import layer_stacks

    stacks = {"A": ["rope", "rope", "nope", "rope"], "B": ["linear", "nope", "linear"]}
    figure = layer_stacks(stacks, {"rope": "RoPE", "nope": "NoPE", "linear": "linear"},
                          title="Layers", x_title="layer")
    assert summary(figure_json(figure), "en") == ("Layers. RoPE: A 3. NoPE: A 1, B 1. linear: B 2.")


@pytest.mark.parametrize("value, said", [(0.0, "0"), (1.0, "1"), (0.62, "0.62"),
                                         (0.6174, "0.617"), (-22.08, "-22.1"), (64.0, "64"),
                                         (54410.1, "54,410"), (1.1e-15, "1.10e-15")])
def test_numbers_are_read_to_three_significant_digits(value, said):
    assert number(value) == said


def test_labels_lose_their_markup():
    assert plain("PE(p)<br>M<sub>k</sub> &amp; 2<sup>−1</sup>") == "PE(p) M k & 2 −1"


def views():
    for page in documents.pages():
        queries = ([f"scene={n}" for n in range(1, len(documents.scenes()) + 1)]
                   if page == documents.LESSON else [""])
        for query in queries:
            for lang in ("en", "zh"):
                yield page, query, lang


@pytest.mark.parametrize("page, query, lang", list(views()))
def test_every_chart_of_every_view_has_a_whole_summary_in_its_language(page, query, lang):
    charts = chart_blocks(documents.blocks(page, query, lang))
    for chart in charts:
        said = chart["summary"]
        assert len(said) > 40, (chart["name"], said)
        assert not re.search(r"[<>{}]|nan|inf\b", said.replace("→", "")), (chart["name"], said)
        if lang == "zh":
            assert re.search(r"[\u4e00-\u9fff]", said) and "rows" not in said, said
        else:
            assert not re.search(r"[，；。：]", said.replace("。", "")), said
