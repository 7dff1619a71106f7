"""posviz.attention (the seeded stack) and posviz.figures.attention, against slow loops."""

import json
import math

import numpy as np
import plotly.graph_objects as go
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from plotly.io.json import to_json_plotly as as_json

from posviz.alibi import alibi_bias
from posviz.attention import (
    ATTENTION_SCHEMES,
    attention_mask,
    attention_stack,
    attention_weights,
    init_layers,
    queries_keys,
)
from posviz.embedding import token_embeddings
from posviz.figures.attention import map_grid, order_maps, twin_maps
from posviz.figures.common import masked_layer
from posviz.permutation import permutation_check, reversal
from posviz.sinusoidal import sinusoidal
from posviz.tokens import token_labels
from tests.helpers.figure_data import grey_layers, value_traces

WORDS = ["刚", "想", "到", "了", "the", "dog", "<b>", "$x$"]


def slow_stack(x, n_layers, n_heads, scheme, causal, seed=0, base=10_000.0):
    """The stack written as explicit sums over every index, one number at a time."""
    seq_len, d_model = x.shape
    d = d_model // n_heads
    x = [[float(v) for v in row] for row in x]
    if scheme == "sinusoidal":
        for t in range(seq_len):
            for i in range(d_model // 2):
                w = base ** (-2 * i / d_model)
                x[t][2 * i] += math.sin(t * w)
                x[t][2 * i + 1] += math.cos(t * w)
    slopes = [2.0 ** (-8.0 * h / n_heads) for h in range(1, n_heads + 1)]
    all_weights, all_outputs = [], []
    for layer in init_layers(n_layers, d_model, seed):
        def project(w, t, c, x=x):
            return math.fsum(x[t][a] * w[a, c] for a in range(d_model))

        weights = np.zeros((n_heads, seq_len, seq_len))
        mixed = [[0.0] * d_model for _ in range(seq_len)]
        for h in range(n_heads):
            cols = range(h * d, (h + 1) * d)
            q = [[project(layer.wq, t, c) for c in cols] for t in range(seq_len)]
            k = [[project(layer.wk, t, c) for c in cols] for t in range(seq_len)]
            v = [[project(layer.wv, t, c) for c in cols] for t in range(seq_len)]
            if scheme == "rope":
                for vecs in (q, k):
                    for m in range(seq_len):
                        for i in range(d // 2):
                            angle = m * base ** (-2 * i / d)
                            a, b = vecs[m][2 * i], vecs[m][2 * i + 1]
                            vecs[m][2 * i] = a * math.cos(angle) - b * math.sin(angle)
                            vecs[m][2 * i + 1] = a * math.sin(angle) + b * math.cos(angle)
            if scheme == "partial_rope":  # Qwen3-Next's quarter: pairs (i, i + r/2) of r = d/4
                r = d // 4
                for vecs in (q, k):
                    for m in range(seq_len):
                        for i in range(r // 2):
                            angle = m * base ** (-2 * i / r)
                            a, b = vecs[m][i], vecs[m][i + r // 2]
                            vecs[m][i] = a * math.cos(angle) - b * math.sin(angle)
                            vecs[m][i + r // 2] = a * math.sin(angle) + b * math.cos(angle)
            for i in range(seq_len):
                keys = range(i + 1) if causal else range(seq_len)
                scores = {}
                for j in keys:
                    scores[j] = math.fsum(q[i][e] * k[j][e] for e in range(d)) / math.sqrt(d)
                    if scheme == "alibi":
                        scores[j] -= slopes[h] * abs(i - j)  # = m (i - j) for every j <= i
                top = max(scores.values())
                total = math.fsum(math.exp(s - top) for s in scores.values())
                for j in keys:
                    weights[h, i, j] = math.exp(scores[j] - top) / total
                for e in range(d):
                    mixed[i][h * d + e] = math.fsum(weights[h, i, j] * v[j][e] for j in keys)
        x = [[x[t][c] + math.fsum(mixed[t][a] * layer.wo[a, c] for a in range(d_model))
              for c in range(d_model)] for t in range(seq_len)]
        all_weights.append(weights)
        all_outputs.append(np.array(x))
    return all_weights, all_outputs


@pytest.mark.parametrize("scheme", ATTENTION_SCHEMES)
@pytest.mark.parametrize("causal", [True, False])
@pytest.mark.parametrize("n_heads", [1, 2, 4])
def test_stack_matches_explicit_sums(scheme, causal, n_heads):
    width = 32 if scheme == "partial_rope" else 8  # a quarter of a head: 2 channels from 8 on
    x = token_embeddings(["刚", "想", "到", "了", "刚"], width, seed=3)
    run = attention_stack(x, 2, n_heads, scheme, causal, seed=5)
    weights, outputs = slow_stack(x, 2, n_heads, scheme, causal, seed=5)
    for layer in range(2):
        np.testing.assert_allclose(run.weights[layer], weights[layer], rtol=0, atol=1e-12)
        np.testing.assert_allclose(run.outputs[layer], outputs[layer], rtol=0, atol=1e-12)


@pytest.mark.parametrize("scheme", ["none", "sinusoidal", "alibi"])
def test_first_layer_is_attention_weights_of_the_shared_layer(scheme):
    x = token_embeddings(["dog", "bites", "man"], 16)
    x_in = x + sinusoidal(3, 16) if scheme == "sinusoidal" else x
    bias = alibi_bias(2, 3) if scheme == "alibi" else None
    expected = attention_weights(*queries_keys(x_in, init_layers(3, 16, 7)[0], 2), bias, True)
    np.testing.assert_array_equal(attention_stack(x, 3, 2, scheme, seed=7).weights[0], expected)


def test_layers_keep_their_weights_when_more_are_stacked():
    x = token_embeddings(list("刚想到了"), 8)
    short, tall = attention_stack(x, 1, 2, "rope"), attention_stack(x, 4, 2, "rope")
    np.testing.assert_array_equal(short.outputs[0], tall.outputs[0])


def test_alibi_bias_is_the_paper_slope_times_distance_under_the_mask():
    # 2 heads: slopes 1/16 and 1/256 (Press et al. 2022); one query sees its own key and one before
    x = np.zeros((2, 4))  # zero queries and keys: the scores are the bias alone
    w = attention_stack(x, 1, 2, "alibi", causal=True).weights[0]
    for h, m in enumerate([2.0 ** -4, 2.0 ** -8]):
        expected = math.exp(-m) / (math.exp(-m) + 1.0)
        assert w[h, 1, 0] == pytest.approx(expected, abs=1e-15)


@st.composite
def sentences(draw, min_size=1, max_size=10):
    return draw(st.lists(st.sampled_from(WORDS), min_size=min_size, max_size=max_size))


@settings(max_examples=40, deadline=None)
@given(tokens=sentences(), scheme=st.sampled_from(ATTENTION_SCHEMES), causal=st.booleans(),
       n_heads=st.sampled_from([1, 2, 4]), n_layers=st.integers(1, 3))
def test_rows_sum_to_one_and_masked_weights_are_exactly_zero(tokens, scheme, causal, n_heads,
                                                             n_layers):
    run = attention_stack(token_embeddings(tokens, 16 * n_heads), n_layers, n_heads, scheme,
                          causal)
    hidden = ~attention_mask(len(tokens), causal)
    for w in run.weights:
        np.testing.assert_allclose(w.sum(axis=-1), 1.0, rtol=0, atol=1e-12)
        assert ((w >= 0) & (w <= 1)).all()
        assert (w[:, hidden] == 0.0).all()


def test_causal_mask_wins_over_any_bias_on_a_hidden_key():
    # a finite mask (-1e9) would lose to this bias and hand the hidden key all the weight
    q, k = np.ones((3, 4)), np.ones((3, 4))
    bias = np.zeros((3, 3))
    bias[0, 2] = bias[1, 2] = 1e10  # keys after their query
    w = attention_weights(q, k, bias, causal=True)
    assert w[0, 2] == 0.0 and w[1, 2] == 0.0
    assert w[0, 0] == 1.0
    np.testing.assert_allclose(w.sum(axis=-1), 1.0, rtol=0, atol=1e-15)


def test_mask_is_lower_triangular_when_causal_and_full_otherwise():
    assert attention_mask(3, True).tolist() == [[True, False, False], [True, True, False],
                                                [True, True, True]]
    assert attention_mask(3, False).all()


def test_head_maps_are_every_head_then_their_mean():
    run = attention_stack(token_embeddings(list("刚想到了"), 16), 2, 4, "rope")
    maps = run.head_maps(1)
    assert maps.shape == (5, 4, 4)
    np.testing.assert_array_equal(maps[:4], run.weights[1])
    np.testing.assert_allclose(maps[4], sum(run.weights[1][h] for h in range(4)) / 4, atol=1e-15)


@pytest.mark.parametrize(("args", "message"), [
    ((np.zeros((0, 8)), 1, 2, "none"), "at least one token"),
    ((np.zeros((3, 8)), 1, 2, "learned"), "scheme must be one of"),
    ((np.zeros((3, 8)), 1, 3, "none"), "multiple of n_heads"),
    ((np.zeros((3, 6)), 1, 2, "rope"), "even"),
    ((np.zeros((3, 8)), 1, 2, "partial_rope"), "of 4 channels is 1: not an even count"),
    ((np.zeros((3, 8)), 0, 2, "none"), "n_layers"),
])
def test_stack_rejects_settings_it_cannot_run(args, message):
    with pytest.raises(ValueError, match=message):
        attention_stack(*args)


def test_map_grid_draws_the_maps_with_masked_cells_grey_and_labels_in_order():
    tokens = ["the", "dog", "chased", "the", "dog"]
    run = attention_stack(token_embeddings(tokens, 16), 1, 2, "alibi", causal=True)
    labels = token_labels(tokens)
    fig = map_grid(run.head_maps(0), run.mask, labels, ["h1", "h2", "mean"], title="t",
                   x_title="key", y_title="query", value_name="w")
    hidden, maps = grey_layers(fig.data), value_traces(fig.data)
    assert len(maps) == 3
    for grey, trace, expected in zip(hidden, maps, run.head_maps(0), strict=True):
        z = np.asarray(trace.z, dtype=float)
        np.testing.assert_allclose(z[run.mask], expected[run.mask], rtol=1e-6)
        assert np.isnan(z[~run.mask]).all()
        # the grey layer is the shared one, painting exactly the masked cells
        hidden_only = masked_layer(np.where(run.mask, 0.0, np.nan), labels, labels)["z"]
        np.testing.assert_array_equal(np.asarray(grey.z), hidden_only)
        assert list(trace.x) == list(trace.y) == labels  # unique, in token order
        assert trace.coloraxis == "coloraxis"
    assert fig.layout.coloraxis.cmin == 0.0


def test_twin_maps_hold_both_orders_and_their_difference():
    tokens = list("刚想到了")
    check = permutation_check(token_embeddings(tokens, 16), reversal(4), 2, 2, "none", True)
    fig = twin_maps(check.original.mean_weights(1), check.aligned.mean_weights(1),
                    check.original.mask, check.aligned.mask, check.weight_difference(1),
                    token_labels(tokens), ["a", "b", "c"], title="t", x_title="k",
                    y_title="q", value_name="w", difference_name="d")
    original, aligned, difference = (np.asarray(t.z, dtype=float) for t in value_traces(fig.data))
    for z, run in [(original, check.original), (aligned, check.aligned)]:
        np.testing.assert_allclose(z[run.mask], run.mean_weights(1)[run.mask], rtol=1e-6)
        assert np.isnan(z[~run.mask]).all()
    # reversal under a causal mask: every cell is seen in one order or the other
    np.testing.assert_allclose(difference, check.weight_difference(1), rtol=1e-6, atol=1e-7)
    assert [t.coloraxis for t in value_traces(fig.data)] == ["coloraxis", "coloraxis", "coloraxis2"]


def test_twin_difference_scale_does_not_magnify_rounding():
    tokens = ["the", "dog", "chased", "the", "dog"]
    check = permutation_check(token_embeddings(tokens, 16), reversal(5), 2, 2, "none", False)
    fig = twin_maps(check.original.mean_weights(1), check.aligned.mean_weights(1),
                    check.original.mask, check.aligned.mask, check.weight_difference(1),
                    token_labels(tokens), ["a", "b", "c"], title="t", x_title="k",
                    y_title="q", value_name="w", difference_name="d")
    assert np.abs(check.weight_difference(1)).max() < 1e-12
    assert fig.layout.coloraxis2.cmax == -fig.layout.coloraxis2.cmin >= 1e-6


@pytest.mark.parametrize("causal", [False, True])
def test_a_difference_of_rounding_only_says_so_in_its_panel(causal):
    """With no mask the two orders agree to rounding: the all-white difference panel carries
    its note, in the side-by-side and the stacked layout; under a causal mask it does not."""
    tokens = ["the", "dog", "chased", "the", "dog"]
    check = permutation_check(token_embeddings(tokens, 16), reversal(5), 2, 2, "none", causal)
    fig = twin_maps(check.original.mean_weights(1), check.aligned.mean_weights(1),
                    check.original.mask, check.aligned.mask, check.weight_difference(1),
                    token_labels(tokens), ["a", "b", "c"], title="t", x_title="k",
                    y_title="q", value_name="w", difference_name="d",
                    flat_note="0 in every cell (below 10^−6)")
    for shape in (fig.to_dict()["layout"], fig.layout.meta["narrow"]):
        notes = [a for a in shape["annotations"] if a["xref"] == "x3 domain"]
        assert notes == ([] if causal else [{
            "text": "0 in every cell (below 10⁻⁶)", "xref": "x3 domain", "yref": "y3 domain",
            "x": 0.5, "y": 0.5, "showarrow": False, "font": {"color": "#333333"}}])


@pytest.mark.parametrize(("tokens", "upright"), [
    (list("刚想到了"), True),
    (["the", "dog", "chased", "the", "cat"], True),
    (list("春眠不觉晓处处闻啼鸟夜来风雨声花落知多少"), False),  # 20 keys
    (["internationalisation"] * 12, False),                    # too wide to stand side by side
])
def test_key_labels_stand_upright_when_few_and_rows_leave_room_for_them(tokens, upright):
    labels = token_labels(tokens)
    seq_len = len(tokens)
    fig = map_grid(np.full((5, seq_len, seq_len), 0.5), True, labels, list("abcde"), title="t",
                   x_title="key", y_title="query", value_name="w")
    keys = fig.layout.xaxis
    assert keys.tickangle == (0 if upright else -90)
    if upright:  # position over token, every key labelled
        assert list(keys.ticktext) == [label.replace(" ", "<br>", 1) for label in labels]
        room = 2 * 1.2 * 11  # two lines of 11 px text
    else:
        assert keys.tickvals is None  # plotly labels as many keys as fit
        room = 11 * max(len(label) for label in labels) * 0.6  # one line on its side
    plot = fig.layout.height - fig.layout.margin.t - fig.layout.margin.b
    gap = (fig.layout.yaxis.domain[0] - fig.layout.yaxis4.domain[1]) * plot  # row 1 to row 2
    assert gap >= room + 20  # and a panel title above row 2
    titles = {a.text: a.y for a in fig.layout.annotations}
    assert titles["d"] == pytest.approx(fig.layout.yaxis4.domain[1])


def test_panels_side_by_side_carry_their_stacked_layout_for_a_phone():
    """A phone's column is too narrow for the panels side by side: the figure carries the same
    panels one under the other, no wider than a phone's column, every panel full width and
    below the one before."""
    labels = token_labels(list("刚想到了"))
    fig = map_grid(np.random.default_rng(0).random((5, 4, 4)), np.ones((4, 4), bool), labels,
                   [f"h{p}" for p in range(5)], title="t", x_title="k", y_title="q",
                   value_name="w")
    side, narrow = fig.layout.to_plotly_json(), fig.layout.meta["narrow"]
    assert side["meta"]["min_width"] > 390 >= narrow["meta"]["min_width"]
    tops = [narrow[f"yaxis{'' if p == 0 else p + 1}"]["domain"][1] for p in range(5)]
    assert all(list(narrow[f"xaxis{'' if p == 0 else p + 1}"]["domain"]) == [0.0, 1.0]
               for p in range(5))
    assert tops == sorted(tops, reverse=True) and len(set(tops)) == 5
    # the same colours: a scale's name is spelled out as in the figure (plotly.js reads "Blues"
    # the other way round)
    assert [list(c) for c in side["coloraxis"]["colorscale"]] == [
        list(c) for c in narrow["coloraxis"]["colorscale"]]
    # the whole stacked layout is one plotly.py accepts, and writes the same
    assert json.loads(as_json(go.Layout(narrow).to_plotly_json())) == json.loads(as_json(narrow))


def test_maps_of_two_orders_label_each_panels_keys_and_rows_with_its_own_order():
    yours, turned = token_labels(list("刚想到了")), token_labels(list("了到想刚"))
    fig = order_maps([np.eye(4), np.eye(4)], [yours, turned], ["a", "b"], title="t",
                     x_title="k", y_title="q", value_name="w")
    for shape in (fig.layout.to_plotly_json(), fig.layout.meta["narrow"]):
        assert list(shape["xaxis"]["tickvals"]) == yours
        assert list(shape["xaxis2"]["tickvals"]) == turned
        assert shape["yaxis"]["showticklabels"] and shape["yaxis2"]["showticklabels"]
    assert [list(t.y) for t in fig.data if t.type == "heatmap"] == [yours, turned]
    side = fig.layout.to_plotly_json()  # the rows of the second panel fit between the two
    assert side["xaxis2"]["domain"][0] - side["xaxis"]["domain"][1] >= 0.08
