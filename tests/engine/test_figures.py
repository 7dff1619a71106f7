"""Figure builders of the embedding and sinusoidal lessons, checked on their data."""

import itertools

import numpy as np
import pytest

from posviz.embedding import token_embeddings
from posviz.figures.attention import visibility_grid
from posviz.figures.common import SQUARE_TICKS, plain, token_heatmap
from posviz.figures.common import as_array as array
from posviz.figures.embedding import aligned_heatmaps
from posviz.figures.sinusoidal import offset_curve, pe_heatmap, vector_pair, waves
from posviz.modern import chunked_mask
from posviz.sinusoidal import dot_by_offset, sinusoidal, sinusoidal_sampled
from posviz.tokens import token_labels, tokenize
from tests.helpers.figure_data import figure_json

TOKENS = tokenize("the cat saw the <b>dog</b>")


def test_token_heatmap_keeps_values_and_one_row_per_token_in_order():
    z = np.arange(len(TOKENS) ** 2, dtype=float).reshape(len(TOKENS), -1)
    labels = token_labels(TOKENS)
    trace = figure_json(token_heatmap(z, labels, labels, title="t", x_title="x",
                                      y_title="y"))["data"][0]
    np.testing.assert_array_equal(array(trace["z"]), z)
    assert trace["y"] == [plain(label) for label in labels]
    assert len(set(trace["y"])) == len(TOKENS)
    assert "<b>" not in "".join(trace["y"]), "markup in tokens is escaped"


def test_token_heatmap_leaves_the_labels_shown_to_the_room_plotly_has():
    """Every row is a category; plotly labels as many as the drawn size has room for (the
    screen sweep checks in a browser that none of them overlap)."""
    labels = token_labels([f"w{i}" for i in range(64)])
    fig = figure_json(token_heatmap(np.zeros((64, 64)), labels, labels, title="", x_title="",
                                    y_title=""))
    for key in ("xaxis", "yaxis"):
        assert fig["layout"][key]["type"] == "category" and "tickvals" not in fig["layout"][key]
    assert fig["data"][0]["x"] == labels and fig["data"][0]["y"] == labels


def test_aligned_heatmaps_show_e_p_and_their_sum():
    e = token_embeddings(TOKENS, 8)
    p = sinusoidal(len(TOKENS), 8)
    fig = figure_json(aligned_heatmaps([e, p, e + p], ["E", "P", "E+P"], token_labels(TOKENS),
                                       title="", x_title="", y_title="", marked_rows=[0, 3]))
    for trace, expected in zip(fig["data"], [e, p, e + p], strict=True):
        np.testing.assert_allclose(array(trace["z"]), expected, atol=1e-6)
    rows = fig["data"][0]["y"]
    assert rows[0].startswith("◆ 0 the") and rows[3].startswith("◆ 3 the")
    assert not rows[1].startswith("◆")


@pytest.mark.parametrize(("n", "every"), [(1, True), (6, True), (12, True), (13, False),
                                          (40, False)])
def test_aligned_heatmaps_label_every_row_of_a_short_sentence(n, every):
    """Up to 12 rows each is labelled (plotly would label one in every 40 pixels, and the copied
    token's ◆ row could go bare), with the height a projector's fitted chart keeps for them;
    longer sentences leave plotly to label what its rows have room for."""
    tokens = [f"w{i}" for i in range(n)]
    e = token_embeddings(tokens, 8)
    fig = figure_json(aligned_heatmaps([e], ["E"], token_labels(tokens), title="", x_title="",
                                       y_title="", marked_rows=[0, n - 1]))
    rows, meta = fig["layout"]["yaxis"], fig["layout"]["meta"]
    assert (rows.get("dtick"), meta.get("least")) == ((1, 180 + 22 * n) if every else (None,
                                                                                      None))


@pytest.mark.parametrize("n", [1, 4, 12, 64])
def test_e_p_and_their_sum_stack_in_a_phones_column(n):
    """In a column narrower than the three panels need side by side (a phone's 358 px), they
    are drawn one under the other (meta.narrow): each full width, with its own token labels,
    in its own rows, none over another, all within one screen's width."""
    tokens = [f"w{i}" for i in range(n)]
    e, p = token_embeddings(tokens, 8), sinusoidal(n, 8)
    fig = figure_json(aligned_heatmaps([e, p, e + p], ["E", "P", "E+P"], token_labels(tokens),
                                       title="", x_title="d", y_title="t"))
    shape = fig["layout"]
    assert shape["meta"]["min_width"] > 358  # side by side, they need more than a phone has
    narrow = shape["meta"]["narrow"]
    assert narrow["meta"]["min_width"] <= 358
    rows = [narrow[f"yaxis{k}"]["domain"] for k in ("", "2", "3")]
    assert all(narrow[f"xaxis{k}"]["domain"] == [0.0, 1.0] for k in ("", "2", "3"))
    assert all(narrow[f"yaxis{k}"]["showticklabels"] for k in ("", "2", "3"))
    assert all(upper[0] > lower[1] for upper, lower in itertools.pairwise(rows))  # gaps between
    assert [t["yaxis"] for t in fig["data"]] == ["y", "y2", "y3"]
    assert all(shape[f"yaxis{k}"].get("matches") == "y" for k in ("2", "3"))


def test_pe_heatmap_at_the_largest_size_stays_small():
    values, rows, channels, _ = sinusoidal_sampled(4096, 1024)
    fig = pe_heatmap(values, rows, channels, title="", x_title="", y_title="",
                     sentence_len=4, sentence_label="s")
    trace = figure_json(fig)["data"][0]
    np.testing.assert_allclose(array(trace["z"]), values, atol=1e-6)
    np.testing.assert_array_equal(array(trace["x"]), channels)
    assert len(fig.to_json()) < 1_500_000
    note, = figure_json(fig)["layout"]["annotations"]  # in the frame's top right corner
    assert (note["x"], note["xanchor"], note["y"], note["yanchor"]) == (0.995, "right", -0.5,
                                                                       "top")


def test_waves_draw_the_chosen_channels():
    pe = sinusoidal(100, 16)
    fig = figure_json(waves(pe, [0, 5], base=10_000.0, layout_name="interleaved", title="",
                            x_title="", y_title="", name_format="{channel} {fn} {pair}"))
    assert [t["name"] for t in fig["data"]] == ["0 sin 0", "5 cos 2"]
    np.testing.assert_allclose(array(fig["data"][1]["y"]), pe[:, 5], atol=1e-6)


def test_offset_curve_and_vector_pair_carry_their_inputs():
    k = np.arange(-5, 6)
    fig = figure_json(offset_curve(k, dot_by_offset(k, 8), {"p=0": dot_by_offset(k, 8)},
                                   title="", x_title="", y_title="", formula_name="f"))
    assert len(fig["data"]) == 2
    np.testing.assert_allclose(array(fig["data"][0]["y"]), dot_by_offset(k, 8))
    a, b = np.linspace(-1, 1, 6), np.linspace(1, -1, 6)
    fig = figure_json(vector_pair(a, b, names=("a", "b"), title="", x_title="", y_title=""))
    np.testing.assert_allclose(array(fig["data"][1]["y"]), b, atol=1e-6)


@pytest.mark.parametrize(("n", "step"), [(4, 1), (16, 1), (17, 2), (40, 5), (64, 5), (128, 10)])
def test_a_square_map_of_positions_labels_both_axes_at_one_step(n, step):
    labels = [str(p) for p in range(n)]
    fig = token_heatmap(np.eye(n), labels, labels, title="t", x_title="x", y_title="y")
    x, y = fig.layout.xaxis.tickvals, fig.layout.yaxis.tickvals
    assert x == y and (x is None if step == 1 else list(x) == labels[::step])
    assert x is None or len(x) <= SQUARE_TICKS
    wide = token_heatmap(np.ones((n, 3)), labels, ["a", "b", "c"], title="t", x_title="x",
                         y_title="y")
    assert wide.layout.xaxis.tickvals is None and wide.layout.yaxis.tickvals is None


def test_a_square_map_in_half_a_column_labels_half_as_many_positions():
    labels = [str(p) for p in range(32)]
    fig = token_heatmap(np.eye(32), labels, labels, title="t", x_title="x", y_title="y",
                        ticks=SQUARE_TICKS // 2)
    assert list(fig.layout.xaxis.tickvals) == labels[::5] == list(fig.layout.yaxis.tickvals)


def test_layer_stacks_draw_each_layer_once_in_its_kind():
    from posviz.figures.modern import layer_stacks

    stacks = {"a": ["rope", "nope", "rope"], "b": ["linear", "rope"]}
    figure = layer_stacks(stacks, {"rope": "R", "nope": "N", "linear": "L"}, title="t",
                          x_title="layer").to_dict()
    cells = sorted((y, float(base), t["name"]) for t in figure["data"]
                   for y, base in zip(t["y"], array(t["base"]), strict=True))
    assert cells == [("a", 0, "R"), ("a", 1, "N"), ("a", 2, "R"), ("b", 0, "L"), ("b", 1, "R")]
    assert list(figure["layout"]["xaxis"]["range"]) == [0, 3]


def test_a_visibility_grid_has_two_colours_and_a_legend_in_either_layout():
    """Seen or hidden is one of two, not a scale: no colour bar, a legend of both, wide or
    stacked."""
    masks = np.stack([chunked_mask(5, 2), chunked_mask(5, 5)])
    figure = visibility_grid(masks, [f"{i} t" for i in range(5)], ["chunk", "all"], title="t",
                             x_title="key", y_title="query", names=("seen", "hidden"))
    narrow = figure.layout.meta["narrow"]
    for shown in (figure.layout.to_plotly_json(), narrow):
        assert shown["coloraxis"]["showscale"] is False and shown["showlegend"] is True
    assert [t.name for t in figure.data if t.type == "scatter"] == ["seen", "hidden"]
    visible = [t for t in figure.data if t.type == "heatmap" and t.coloraxis]
    assert all(np.nanmin(np.asarray(t.z, dtype=float)) == 1.0 for t in visible)
