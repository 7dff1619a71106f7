"""ALiBi against the paper's values, a slow port of the reference recipe and explicit loops;
its figures on their data."""

import json
import math

import numpy as np
import plotly.graph_objects as go
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from plotly.io.json import to_json_plotly as as_json

from posviz.alibi import (
    alibi_bias,
    alibi_by_distance,
    alibi_key_bias,
    alibi_slopes,
    base_head_count,
    causal_alibi_bias,
    causal_mask,
    heads_shown,
    hide_masked,
    learned_positions,
    mean_attention_distance,
    slope_exponents,
)
from posviz.attention import (
    alibi_attention,
    attention_stack,
    attention_weights,
    bias_form_gap,
    init_layers,
    queries_keys,
)
from posviz.embedding import token_embeddings
from posviz.figures.alibi import (
    HIDDEN_COLOR,
    ROOM_FLOOR,
    bias_grid,
    bias_lines,
    distance_bars,
    extrapolation,
    learned_table,
    slope_text,
    slopes_bar,
    t5_buckets,
)
from posviz.figures.common import as_array as array
from posviz.figures.common import for_the_room, plain, raised
from posviz.relative import buckets_by_distance
from posviz.tokens import token_labels
from tests.helpers.figure_data import figure_json, grey_layers, value_traces

SENTENCE = list("刚想到了") + ["the", "cat", "sat", "on", "the", "mat", "and", "then", "it", "sat",
                               "on", "the", "hat"]


def reference_get_slopes(n):
    """Port of get_slopes from ofirpress/attention_with_linear_biases, recursion included."""
    def get_slopes_power_of_2(n):
        start = 2 ** (-2 ** -(math.log2(n) - 3))
        ratio = start
        return [start * ratio**i for i in range(n)]

    if math.log2(n).is_integer():
        return get_slopes_power_of_2(n)
    closest_power_of_2 = 2 ** math.floor(math.log2(n))
    return (get_slopes_power_of_2(closest_power_of_2)
            + reference_get_slopes(2 * closest_power_of_2)[0::2][: n - closest_power_of_2])


def slow_softmax(row):
    top = max(v for v in row if v != -math.inf)
    e = [0.0 if v == -math.inf else math.exp(v - top) for v in row]
    return [v / sum(e) for v in e]


def test_alibi_slopes_for_eight_heads_are_the_papers():
    assert np.allclose(alibi_slopes(8), [1 / 2**k for k in range(1, 9)], rtol=1e-15, atol=0)


@pytest.mark.parametrize("n_heads", range(1, 65))
def test_alibi_slopes_follow_the_reference_recipe(n_heads):
    assert np.allclose(alibi_slopes(n_heads), reference_get_slopes(n_heads), rtol=1e-12, atol=0)


def test_twelve_heads_end_with_the_odd_half_powers_unsorted():
    slopes = alibi_slopes(12)
    assert np.allclose(slopes[8:], [2**-0.5, 2**-1.5, 2**-2.5, 2**-3.5])
    assert not np.all(np.diff(slopes) < 0)


@pytest.mark.parametrize("n_heads", range(1, 65))
def test_slope_exponents_are_exact_eighths_giving_the_slopes(n_heads):
    exponents = slope_exponents(n_heads)
    assert np.all(exponents * 8 == np.round(exponents * 8)) and np.all(exponents < 0)
    assert np.array_equal(2.0 ** exponents, alibi_slopes(n_heads))


@pytest.mark.parametrize(("exponent", "name"), [(-5, "2^−5 = 0.03125"), (-1, "2^−1 = 0.5"),
                                                (-8, "2^−8 = 0.00390625"),
                                                (-0.5, "2^−0.5 ≈ 0.7071"),
                                                (-0.125, "2^−0.125 ≈ 0.917")])
def test_slope_text_names_the_power_of_two_and_its_value(exponent, name):
    assert slope_text(exponent) == name


def test_alibi_slopes_are_not_two_to_minus_eight_over_n_for_other_counts():
    assert not np.allclose(alibi_slopes(12), [2 ** (-8 * h / 12) for h in range(1, 13)])


@pytest.mark.parametrize("n_heads", [0, -3])
def test_alibi_slopes_reject_fewer_than_one_head(n_heads):
    with pytest.raises(ValueError, match="n_heads"):
        alibi_slopes(n_heads)


@pytest.mark.parametrize("n_heads", range(1, 130))
def test_base_head_count_is_the_largest_power_of_two_not_above(n_heads):
    p = 1
    while p * 2 <= n_heads:
        p *= 2
    assert base_head_count(n_heads) == p


def test_causal_mask_lets_query_see_itself_and_earlier_keys():
    mask = causal_mask(7)
    assert all(mask[i, j] == (j <= i) for i in range(7) for j in range(7))


@given(st.integers(1, 64), st.integers(1, 40))
@settings(max_examples=60, deadline=None)
def test_alibi_bias_is_minus_slope_times_distance(n_heads, seq_len):
    bias, slopes = alibi_bias(n_heads, seq_len), alibi_slopes(n_heads)
    assert bias.shape == (n_heads, seq_len, seq_len)
    for h in range(n_heads):
        for i in range(seq_len):
            for j in range(i + 1):
                assert bias[h, i, j] == pytest.approx(-slopes[h] * (i - j), abs=1e-15)


@given(st.integers(1, 64), st.integers(1, 40))
@settings(max_examples=60, deadline=None)
def test_alibi_bias_is_nonpositive_symmetric_zero_on_diagonal(n_heads, seq_len):
    bias = alibi_bias(n_heads, seq_len)
    assert np.all(bias <= 0)
    assert np.array_equal(bias, bias.transpose(0, 2, 1))
    assert np.all(bias[:, np.arange(seq_len), np.arange(seq_len)] == 0)


@given(st.integers(1, 64), st.integers(3, 40))
@settings(max_examples=60, deadline=None)
def test_alibi_bias_falls_by_one_slope_per_step_back(n_heads, seq_len):
    last_row = alibi_bias(n_heads, seq_len)[:, -1, :]  # query T-1 over keys 0 .. T-1
    steps = np.diff(last_row, axis=1)
    assert np.allclose(steps, alibi_slopes(n_heads)[:, None], rtol=1e-12)


def test_alibi_key_bias_is_plus_slope_times_key_position():
    bias, slopes = alibi_key_bias(5, 6), alibi_slopes(5)
    assert all(bias[h, i, j] == pytest.approx(slopes[h] * j)
               for h in range(5) for i in range(6) for j in range(6))


def test_the_two_bias_forms_differ_as_raw_matrices():
    visible = causal_mask(6)
    assert not np.allclose(alibi_key_bias(8, 6)[:, visible], alibi_bias(8, 6)[:, visible])


@given(st.integers(1, 16), st.integers(1, 24), st.integers(0, 2**32 - 1))
@settings(max_examples=60, deadline=None)
def test_the_two_bias_forms_give_the_same_softmax_under_a_causal_mask(n_heads, seq_len, seed):
    scores = np.random.default_rng(seed).standard_normal((n_heads, seq_len, 4))
    paper = attention_weights(scores, scores, alibi_bias(n_heads, seq_len), causal=True)
    reference = attention_weights(scores, scores, alibi_key_bias(n_heads, seq_len), causal=True)
    assert np.allclose(paper, reference, atol=1e-12)


def test_the_two_bias_forms_differ_without_a_causal_mask():
    q = np.random.default_rng(1).standard_normal((4, 6, 8))
    paper = attention_weights(q, q, alibi_bias(4, 6))
    reference = attention_weights(q, q, alibi_key_bias(4, 6))
    assert not np.allclose(paper, reference)


def test_bias_form_gap_is_largest_row_shift_and_rounding_in_the_weights():
    raw, weights = bias_form_gap(SENTENCE, 8)
    assert raw == pytest.approx(0.5 * (len(SENTENCE) - 1))
    assert weights < 1e-12


@pytest.mark.parametrize("n_heads", [3, 5, 12])
def test_bias_form_gap_follows_the_steepest_head_not_head_one(n_heads):
    tokens = SENTENCE[:10]
    slow = max(abs(alibi_slopes(n_heads)[h] * j + alibi_slopes(n_heads)[h] * (i - j))
               for h in range(n_heads) for i in range(10) for j in range(i + 1))
    raw, weights = bias_form_gap(tokens, n_heads)
    assert raw == pytest.approx(slow) and weights < 1e-12
    assert raw != pytest.approx(alibi_slopes(n_heads)[0] * 9)
    if n_heads == 12:
        assert raw == pytest.approx(2**-0.5 * 9)  # head 9, not head 1 (m = 1/2)


def test_hide_masked_blanks_exactly_the_keys_after_the_query():
    shown = hide_masked(np.ones((2, 5, 5)))
    assert all(np.isnan(shown[h, i, j]) == (j > i)
               for h in range(2) for i in range(5) for j in range(5))


def test_causal_alibi_bias_is_zero_where_visible_when_position_is_off():
    off, on = causal_alibi_bias(3, 5, position=False), causal_alibi_bias(3, 5)
    visible = causal_mask(5)
    assert np.all(off[:, visible] == 0) and np.all(np.isnan(off[:, ~visible]))
    assert np.array_equal(on[:, visible], alibi_bias(3, 5)[:, visible])
    assert np.all(np.isnan(on[:, ~visible]))


@pytest.mark.parametrize("n_heads", [1, 3, 8, 12])
def test_alibi_attention_is_a_slow_softmax_of_seeded_scores_plus_bias(n_heads):
    tokens = SENTENCE[:9]
    d_model = n_heads * 16
    q, k = queries_keys(token_embeddings(tokens, d_model), init_layers(1, d_model, 0)[0], n_heads)
    slopes, got = alibi_slopes(n_heads), alibi_attention(tokens, n_heads)
    for h in range(n_heads):
        for i in range(len(tokens)):
            row = [float(q[h, i] @ k[h, j]) / 4.0 - slopes[h] * (i - j) if j <= i else -math.inf
                   for j in range(len(tokens))]
            assert np.allclose(got[h, i], slow_softmax(row), atol=1e-12)


@pytest.mark.parametrize(("bias", "scheme"), [("paper", "alibi"), ("none", "none")])
def test_alibi_attention_is_layer_one_of_the_shared_stack(bias, scheme):
    x = token_embeddings(SENTENCE, 8 * 16)
    stack = attention_stack(x, 2, 8, scheme, causal=True, seed=0)
    assert np.allclose(alibi_attention(SENTENCE, 8, bias), stack.weights[0], atol=1e-12)


def test_alibi_attention_rejects_an_unknown_bias_form():
    with pytest.raises(ValueError, match="bias"):
        alibi_attention(SENTENCE, 2, "sinusoidal")
    with pytest.raises(ValueError, match="sinusoidal"):
        alibi_attention(SENTENCE, 2, ("paper", "sinusoidal"))


def test_alibi_attention_stacks_several_forms_from_the_same_model():
    stacked = alibi_attention(SENTENCE, 5, ("paper", "none", "reference"))
    assert stacked.shape == (3, 5, len(SENTENCE), len(SENTENCE))
    for got, form in zip(stacked, ("paper", "none", "reference"), strict=True):
        assert np.array_equal(got, alibi_attention(SENTENCE, 5, form))


def test_steepest_head_looks_closer_with_the_bias_than_without():
    with_bias = mean_attention_distance(alibi_attention(SENTENCE, 8))
    without = mean_attention_distance(alibi_attention(SENTENCE, 8, "none"))
    assert with_bias[0] < 0.5 * without[0]
    assert with_bias[0] < with_bias[-1]


def test_mean_attention_distance_against_a_loop():
    w = alibi_attention(SENTENCE[:7], 3)
    slow = [sum(w[h, i, j] * abs(i - j) for i in range(7) for j in range(7)) / 7
            for h in range(3)]
    assert np.allclose(mean_attention_distance(w), slow, atol=1e-12)


def test_alibi_by_distance_continues_the_same_line_past_any_length():
    trained = alibi_bias(8, 16)[:, 15, ::-1]  # query 15 on keys 15 .. 0: distances 0 .. 15
    extended = alibi_by_distance(8, np.arange(1000))
    assert np.allclose(extended[:, :16], trained, atol=1e-15)
    assert np.allclose(np.diff(extended, axis=1), -alibi_slopes(8)[:, None], rtol=1e-12)


def test_alibi_by_distance_is_zero_when_position_is_off():
    assert np.all(alibi_by_distance(4, np.arange(-5, 6), position=False) == 0)


def test_learned_positions_have_no_row_past_the_table():
    short, long = learned_positions(10, 16, 8), learned_positions(40, 16, 8)
    assert not np.isnan(long[:16]).any() and np.isnan(long[16:]).all()
    assert np.array_equal(short, long[:10])


@pytest.mark.parametrize(("n_heads", "max_shown"), [(1, 16), (12, 16), (16, 16), (17, 16),
                                                    (64, 16), (64, 4)])
def test_heads_shown_span_first_to_last_within_the_limit(n_heads, max_shown):
    shown = heads_shown(n_heads, max_shown)
    assert shown[0] == 1 and shown[-1] == n_heads and len(shown) <= max_shown
    assert all(a < b for a, b in zip(shown, shown[1:], strict=False))
    if n_heads <= max_shown:
        assert shown == list(range(1, n_heads + 1))


def test_slopes_bar_shows_every_slope_in_head_order():
    fig = slopes_bar(slope_exponents(12), 8, title="t", x_title="x", y_title="y", base_name="b",
                     extra_name="e")
    assert [t.name for t in fig.data] == ["b", "e"]
    assert np.concatenate([t.x for t in fig.data]).tolist() == list(range(1, 13))
    assert np.allclose(np.concatenate([t.y for t in fig.data]), alibi_slopes(12), rtol=1e-6)
    assert fig.data[0].text[4] == "2⁻⁵<br>= 0.03125"  # the exponent raised
    assert fig.data[1].customdata[0] == "2<sup>−0.5</sup> ≈ 0.7071"


def test_slopes_bar_leaves_room_above_the_tallest_bar():
    fig = slopes_bar(slope_exponents(12), 8, title="t", x_title="x", y_title="y",
                     base_name="b", extra_name="e")
    low, high = fig.layout.yaxis.range
    assert low < np.log10(2.0**-8) and high > np.log10(2**-0.5) + 0.5


def test_bias_grid_draws_each_shown_head_with_token_labels():
    tokens = ["<b>", "the", "cat", "the"]
    labels = token_labels(tokens)
    bias = causal_alibi_bias(20, 4)
    shown = heads_shown(20)
    fig = bias_grid(bias, slope_exponents(20), shown, labels, title="t", panel_format="h{h} {m}",
                    x_title="x", y_title="y", value_name="v")
    assert len(value_traces(fig.data)) == len(shown)
    for trace, h in zip(value_traces(fig.data), shown, strict=True):
        assert np.allclose(trace.z, bias[h - 1], equal_nan=True)
        assert list(trace.x) == list(trace.y) == [plain(label) for label in labels]
    assert len(set(value_traces(fig.data)[0].x)) == 4
    titles = [a.text for a in fig.layout.annotations][: len(shown)]
    assert titles == [f"h{h} {raised(slope_text(slope_exponents(20)[h - 1]))}" for h in shown]
    two_lines = bias_grid(causal_alibi_bias(20, 1), slope_exponents(20), [1], ["<i>"], title="t",
                          panel_format="<b>{h}\n{m}", x_title="x", y_title="y", value_name="v")
    assert two_lines.layout.annotations[0].text == "&lt;b&gt;1<br>2<sup>−0.5</sup> ≈ 0.7071"


@pytest.mark.parametrize("n_shown", [1, 3, 4, 5, 16])
def test_bias_grid_panels_do_not_overlap_and_share_rows(n_shown):
    heads = list(range(1, n_shown + 1))
    fig = figure_json(bias_grid(causal_alibi_bias(16, 5), slope_exponents(16), heads,
                                token_labels(list("abcde")), title="t", panel_format="{h}",
                                x_title="x", y_title="y", value_name="v"))
    boxes = []
    for n, trace in enumerate(value_traces(fig["data"])):
        x = fig["layout"][trace.get("xaxis", "x").replace("x", "xaxis")]["domain"]
        y = fig["layout"][trace.get("yaxis", "y").replace("y", "yaxis")]["domain"]
        assert 0 <= x[0] < x[1] <= 1 and 0 <= y[0] < y[1] <= 1
        boxes.append((x, y))
        if n % 4:
            assert y == boxes[n - 1][1]  # same row as the panel to its left
    for a, (ax, ay) in enumerate(boxes):
        for bx, by in boxes[a + 1:]:
            assert ax[1] <= bx[0] or bx[1] <= ax[0] or ay[1] <= by[0] or by[1] <= ay[0]
    assert len(grey_layers(fig["data"])) == n_shown


def test_distance_bars_show_both_series_per_head():
    with_bias, without = np.array([1.0, 2.0, 3.0]), np.array([4.0, 4.5, 5.0])
    fig = distance_bars(with_bias, without, title="t", x_title="x", y_title="y",
                        names=("off", "on"))
    assert np.allclose(fig.data[0].y, without) and np.allclose(fig.data[1].y, with_bias)
    assert list(fig.data[0].x) == [1, 2, 3]


def test_extrapolation_draws_each_head_and_shades_the_trained_distances():
    distances = np.arange(40)
    lines = alibi_by_distance(8, distances)
    fig = extrapolation(distances, lines, [1, 8], 16, title="t", line_name="h{h}",
                        trained_label="tr", x_title="d", y_title="b")
    assert [t.name for t in fig.data] == ["h1", "h8", "tr"]  # the shading named in the legend
    assert np.allclose(fig.data[1].y, lines[7], rtol=1e-6)
    assert (fig.layout.shapes[0].x0, fig.layout.shapes[0].x1) == (0, 15)
    longer = extrapolation(np.arange(20), alibi_by_distance(4, np.arange(20)), [1, 4], 64,
                           title="t", line_name="h{h}", trained_label="tr", x_title="d",
                           y_title="b")
    assert longer.layout.shapes[0].x1 == 19  # the shading ends with the test length


def test_learned_table_greys_the_positions_it_has_no_row_for():
    table = learned_positions(40, 16, 6)
    fig = learned_table(table, 16, title="t", missing_label="m", x_title="p", y_title="c")
    heatmap = value_traces(fig.data)[0]
    assert np.allclose(heatmap.z, table.T, equal_nan=True, rtol=1e-6)
    assert np.isnan(np.asarray(heatmap.z, dtype=float)[:, 16:]).all()
    grey = np.asarray(grey_layers(fig.data)[0].z)  # 1 where the table has no row
    assert (grey[:, :16] == 0).all() and (grey[:, 16:] == 1).all()
    assert "m" in [t.name for t in fig.data] and len(fig.layout.shapes) == 1
    assert fig.layout.showlegend  # a legend of one entry: shown all the same
    covered = learned_table(learned_positions(20, 64, 6), 64, title="t", missing_label="m",
                            x_title="p", y_title="c")
    assert "m" not in [t.name for t in covered.data] and not covered.layout.shapes


def test_t5_buckets_and_alibi_lines_are_two_charts_each_with_its_own_legend():
    r, both, causal = buckets_by_distance(300)
    fig = t5_buckets(r, both, causal, 128, title="t", names=("bi", "ca"), x_title="r",
                     y_title="k", max_label="m")
    assert np.array_equal(fig.data[0].y, both) and np.array_equal(fig.data[1].y, causal)
    assert [t.name for t in fig.data] == ["bi", "ca", "m"]
    assert set(fig.data[2].x) == {-128, 128, None}
    lines = alibi_by_distance(4, r)
    fig = bias_lines(r, lines, [1, 4], (0, 300), title="t", line_name="h{h}", shade_label="h",
                     shade_color=HIDDEN_COLOR, x_title="r", y_title="b")
    assert [t.name for t in fig.data] == ["h1", "h4", "h"]
    assert np.allclose(fig.data[1].y, lines[3], rtol=1e-6)
    assert fig.layout.shapes[0].fillcolor == HIDDEN_COLOR


@pytest.mark.parametrize(("typed", "shown"), [
    ("m = 2^−5", "m = 2⁻⁵"), ("2^−0.5 ≈ 0.7071", "2<sup>−0.5</sup> ≈ 0.7071"),
    ("2^(−8h/8): the 8-head list", "2^(−8h/8): the 8-head list"),
    ("<b>x^2</b>", "&lt;b&gt;x²&lt;/b&gt;"), ("no power", "no power")])
def test_a_power_in_a_charts_text_is_raised_and_nothing_typed_becomes_markup(typed, shown):
    assert raised(plain(typed)) == shown


def test_the_bias_grid_carries_a_two_column_layout_for_a_phone():
    shown = heads_shown(8)
    labels = token_labels(list("刚想到了"))
    fig = bias_grid(causal_alibi_bias(8, 4), slope_exponents(8), shown, labels, title="t",
                    panel_format="h{h} {m}", x_title="x", y_title="y", value_name="v")
    narrow = fig.layout.meta["narrow"]
    assert fig.layout.meta["min_width"] > 390 >= narrow["meta"]["min_width"]
    lefts = {round(narrow[f"xaxis{'' if n == 0 else n + 1}"]["domain"][0], 6)
             for n in range(len(shown))}
    assert len(lefts) == 2 and len(narrow["annotations"]) == len(shown)
    assert [list(c) for c in fig.layout.coloraxis.colorscale] == [
        list(c) for c in narrow["coloraxis"]["colorscale"]]
    # the whole narrow layout is one plotly.py accepts, and writes the same
    assert json.loads(as_json(go.Layout(narrow).to_plotly_json())) == json.loads(as_json(narrow))


@pytest.mark.parametrize("n_tokens", [4, 18])
def test_the_bias_grid_carries_a_shorter_layout_for_a_projectors_window(n_tokens):
    """Rows of 150 pixels, each keeping 2 x 28 pixels for its two-line panel titles above its
    panels and 12 under them, and no shorter (meta.least); a long sentence's keys unlabelled."""
    shown = heads_shown(8)
    labels = token_labels([f"t{i}" for i in range(n_tokens)])
    fig = bias_grid(causal_alibi_bias(8, n_tokens), slope_exponents(8), shown, labels,
                    title="t", panel_format="h{h}\n{m}", x_title="x", y_title="y",
                    value_name="v")
    short = fig.layout.meta["short"]
    assert short["height"] < fig.layout.height and short["meta"]["least"] == short["height"]
    plot = short["height"] - 90 - 70
    for n in range(4):  # head n + 1 above head n + 5: its panel ends where the title room starts
        upper = short[f"yaxis{'' if n == 0 else n + 1}"]["domain"]
        lower = short[f"yaxis{n + 5}"]["domain"]
        assert (upper[0] - lower[1]) * plot == pytest.approx(56 + 12)
        assert (lower[1] - lower[0]) * plot == pytest.approx(150 - 56 - 12)
    assert short["xaxis5"]["showticklabels"] is (n_tokens <= 8)
    assert json.loads(as_json(go.Layout(short).to_plotly_json())) == json.loads(as_json(short))


def test_the_room_grid_draws_a_few_heads_large_none_of_them_white():
    """Scene 7 on a projector: the first, a middle and the last of eight heads, every query
    labelled, each penalty coloured by its order of magnitude (head 8's hundredths are not
    white); for_the_room draws it in its figure's place."""
    labels = token_labels(list("刚想到了一个办法"))
    bias = causal_alibi_bias(8, len(labels))
    fig = bias_grid(bias, slope_exponents(8), heads_shown(8), labels, title="t",
                    panel_format="{h}", x_title="x", y_title="y", value_name="v",
                    room_heads=heads_shown(8, 3))
    room = fig.layout.meta["room"]
    assert [a["text"] for a in room["layout"]["annotations"]] == ["1", "4", "8"]
    assert room["layout"]["yaxis"]["tickvals"] == [plain(label) for label in labels]
    scale = room["layout"]["coloraxis"]
    assert scale["colorscale"][0][1] != "#FFFFFF" and scale["cmin"] == np.log10(ROOM_FLOOR)
    last = array(room["data"][-1]["z"])
    seen = last[~np.isnan(last)]
    lowest = (seen.min() - scale["cmin"]) / (scale["cmax"] - scale["cmin"])
    assert np.nanmax(last) > scale["cmin"] + 1  # head 8's penalties a decade above the floor
    assert lowest == 0.0  # the diagonal (no penalty) at the scale's lightest blue, not white
    assert for_the_room(figure_json(fig))["layout"]["annotations"][0]["text"] == "1"
