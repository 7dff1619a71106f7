"""The ALiBi page's cached numbers and figures (the guided lesson draws some of them too).

Figures are cached with st.cache_resource keyed on primitives: building them costs far more than
the page may take, unpickling a plotly Figure (st.cache_data) costs as much as building it, and
st.plotly_chart only reads them.
"""

import numpy as np
import plotly.graph_objects as go
import streamlit as st

from posviz.alibi import (
    alibi_by_distance,
    alibi_key_bias,
    base_head_count,
    causal_alibi_bias,
    heads_shown,
    hide_masked,
    learned_positions,
    mean_attention_distance,
    slope_exponents,
)
from posviz.attention import alibi_attention, bias_form_gap
from posviz.figures.alibi import (
    HIDDEN_COLOR,
    bias_grid,
    bias_lines,
    distance_bars,
    extrapolation,
    learned_table,
    slopes_bar,
    t5_buckets,
)
from posviz.figures.common import token_heatmap
from posviz.relative import buckets_by_distance
from posviz.tokens import token_labels
from ui.i18n import text

LINES = 8          # heads drawn as lines in the distance charts
TABLE_DIM = 32     # width of the stand-in learned position table
T5_SPAN = 300      # distances -300 .. 300 in the T5 chart
FORMS = ("paper", "none")  # with the paper's bias, without any
Tokens = tuple[str, ...]


@st.cache_data(max_entries=16)
def weights(tokens: Tokens, n_heads: int) -> np.ndarray:
    """(2, H, T, T): both forms from one seeded layer, the slow part at many heads."""
    return alibi_attention(list(tokens), n_heads, FORMS)


@st.cache_resource(max_entries=32)
def slopes_figure(n_heads: int, lang: str) -> go.Figure:
    p = base_head_count(n_heads)
    return slopes_bar(
        slope_exponents(n_heads), p, title=text("alibi.fig_slopes", lang),
        x_title=text("alibi.head_axis", lang), y_title=text("alibi.slope_axis", lang),
        base_name=text("alibi.base_slopes", lang, p=p),
        extra_name=text("alibi.extra_slopes", lang, q=2 * p))


@st.cache_resource(max_entries=32)
def grid_figure(tokens: Tokens, n_heads: int, position: bool, lang: str,
                room: bool = False) -> go.Figure:
    """The bias of every head (up to 16 shown); room: with the first, a middle and the last
    head large for a projector in presentation mode (bias_grid's meta.room)."""
    return bias_grid(
        causal_alibi_bias(n_heads, len(tokens), position), slope_exponents(n_heads),
        heads_shown(n_heads), token_labels(list(tokens)), title=text("alibi.fig_grid", lang),
        panel_format=text("alibi.panel" if position else "alibi.panel_off", lang),
        x_title=text("common.key_axis", lang), y_title=text("common.query_axis", lang),
        value_name=text("alibi.bias", lang), room_heads=heads_shown(n_heads, 3) if room else None)


@st.cache_resource(max_entries=64)
def weights_figure(tokens: Tokens, n_heads: int, head: int, bias: str, title: str,
                   lang: str) -> go.Figure:
    labels = token_labels(list(tokens))
    return token_heatmap(
        hide_masked(weights(tokens, n_heads)[FORMS.index(bias), head - 1]), labels, labels,
        title=title, x_title=text("common.key_axis", lang),
        y_title=text("common.query_axis", lang), value_name=text("alibi.weight", lang),
        colorscale="Blues", zmid=None, zmin=0.0, zmax=1.0, height=520)


@st.cache_resource(max_entries=32)
def distance_figure(tokens: Tokens, n_heads: int, position: bool, lang: str) -> go.Figure:
    with_bias, without = weights(tokens, n_heads)
    return distance_bars(
        mean_attention_distance(with_bias if position else without),
        mean_attention_distance(without),
        title=text("alibi.fig_distance", lang), x_title=text("alibi.head_axis", lang),
        y_title=text("alibi.distance_axis", lang),
        names=(text("alibi.without_name", lang), text("alibi.with_name", lang)))


@st.cache_resource(max_entries=64)
def form_figure(tokens: Tokens, n_heads: int, head: int, form: str, lang: str) -> go.Figure:
    labels = token_labels(list(tokens))
    bias = (causal_alibi_bias(n_heads, len(tokens)) if form == "paper"
            else hide_masked(alibi_key_bias(n_heads, len(tokens))))
    return token_heatmap(
        bias[head - 1], labels, labels, title=text(f"alibi.fig_{form}_form", lang),
        x_title=text("common.key_axis", lang), y_title=text("common.query_axis", lang),
        value_name=text("alibi.bias", lang), height=520)


@st.cache_data(max_entries=16)
def form_gap(tokens: Tokens, n_heads: int) -> tuple[float, float]:
    return bias_form_gap(list(tokens), n_heads)


@st.cache_resource(max_entries=32)
def extrapolation_figure(n_heads: int, trained: int, test: int, position: bool,
                         lang: str) -> go.Figure:
    distances = np.arange(test)
    return extrapolation(
        distances, alibi_by_distance(n_heads, distances, position), heads_shown(n_heads, LINES),
        trained, title=text("alibi.extra_left", lang), line_name=text("alibi.line_name", lang),
        trained_label=text("alibi.trained_label", lang),
        x_title=text("alibi.distance_axis_plain", lang), y_title=text("alibi.bias", lang))


@st.cache_resource(max_entries=32)
def table_figure(trained: int, test: int, lang: str) -> go.Figure:
    return learned_table(
        learned_positions(test, trained, TABLE_DIM), trained,
        title=text("alibi.extra_right", lang), missing_label=text("alibi.missing_label", lang),
        x_title=text("common.position_axis", lang), y_title=text("common.dimension_axis", lang))


@st.cache_resource(max_entries=32)
def buckets_figure(n_buckets: int, max_distance: int, lang: str) -> go.Figure:
    r, both, causal = buckets_by_distance(T5_SPAN, n_buckets, max_distance)
    return t5_buckets(
        r, both, causal, max_distance, title=text("alibi.t5_left", lang),
        names=(text("alibi.bidirectional", lang), text("alibi.causal", lang)),
        x_title=text("alibi.relative_axis", lang), y_title=text("alibi.bucket_axis", lang),
        max_label=text("alibi.max_label", lang, d=max_distance))


@st.cache_resource(max_entries=32)
def relative_lines_figure(n_heads: int, position: bool, lang: str) -> go.Figure:
    """ALiBi's bias against the same r as T5's chart; r > 0 (a key after the query) is shaded,
    since a causal mask hides it."""
    r = np.arange(-T5_SPAN, T5_SPAN + 1)
    return bias_lines(
        r, alibi_by_distance(n_heads, r, position), heads_shown(n_heads, LINES),
        (0, T5_SPAN), title=text("alibi.t5_right", lang),
        line_name=text("alibi.line_name", lang), shade_label=text("alibi.hidden_label", lang),
        shade_color=HIDDEN_COLOR, x_title=text("alibi.relative_axis", lang),
        y_title=text("alibi.bias", lang))
