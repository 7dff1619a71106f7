"""ALiBi: one fixed slope per head, a distance penalty on every attention score.

Figures are cached with st.cache_resource keyed on primitives: building them costs far more than
the page may take, unpickling a plotly Figure (st.cache_data) costs as much as building it, and
st.plotly_chart only reads them.
"""

import numpy as np
import plotly.graph_objects as go
import streamlit as st

import ui
from posviz.alibi import (
    FORMULA,
    KEY_FORMULA,
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
from posviz.attention import HEAD_DIM, alibi_attention, bias_form_gap
from posviz.figures.alibi import (
    bias_grid,
    buckets_beside_alibi,
    distance_bars,
    extrapolation,
    slope_text,
    slopes_bar,
)
from posviz.figures.common import token_heatmap
from posviz.relative import FORMULA as T5_FORMULA
from posviz.relative import buckets_by_distance, smallest_max_distance
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
def grid_figure(tokens: Tokens, n_heads: int, position: bool, lang: str) -> go.Figure:
    return bias_grid(
        causal_alibi_bias(n_heads, len(tokens), position), slope_exponents(n_heads),
        heads_shown(n_heads), token_labels(list(tokens)), title=text("alibi.fig_grid", lang),
        panel_format=text("alibi.panel" if position else "alibi.panel_off", lang),
        x_title=text("common.key_axis", lang), y_title=text("common.query_axis", lang),
        value_name=text("alibi.bias", lang))


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
        trained, learned_positions(test, trained, TABLE_DIM), title=text("alibi.fig_extra", lang),
        titles=(text("alibi.extra_left", lang), text("alibi.extra_right", lang)),
        line_name=text("alibi.line_name", lang), trained_label=text("alibi.trained_label", lang),
        missing_label=text("alibi.missing_label", lang),
        x_titles=(text("alibi.distance_axis_plain", lang), text("common.position_axis", lang)),
        y_titles=(text("alibi.bias", lang), text("common.dimension_axis", lang)))


@st.cache_resource(max_entries=32)
def buckets_figure(n_heads: int, n_buckets: int, max_distance: int, position: bool,
                   lang: str) -> go.Figure:
    r, both, causal = buckets_by_distance(T5_SPAN, n_buckets, max_distance)
    return buckets_beside_alibi(
        r, both, causal, alibi_by_distance(n_heads, r, position), heads_shown(n_heads, LINES),
        max_distance, title=text("alibi.fig_t5", lang),
        titles=(text("alibi.t5_left", lang), text("alibi.t5_right", lang)),
        names=(text("alibi.bidirectional", lang), text("alibi.causal", lang)),
        line_name=text("alibi.line_name", lang), x_title=text("alibi.relative_axis", lang),
        y_titles=(text("alibi.bucket_axis", lang), text("alibi.bias", lang)),
        hidden_label=text("alibi.hidden_label", lang),
        max_label=text("alibi.max_label", lang, d=max_distance))


s = ui.page("alibi")
st.markdown(s.prose("alibi"))
st.latex(FORMULA)
st.caption(s.t("alibi.formula_note"))
n_heads = st.slider(s.t("alibi.n_heads"), 1, 64, 8, key="alibi_heads",
                    help=s.t("alibi.n_heads_help"), bind="query-params", persist_state="session")
if not s.position:
    st.info(s.t("alibi.position_off"))
exponents = slope_exponents(n_heads)

st.subheader(s.t("alibi.slopes_head"))
ui.chart(slopes_figure(n_heads, s.lang), "slopes")
st.caption(s.t("alibi.slopes_caption"))

ui.need_tokens(s)
seq = tuple(s.tokens)

st.subheader(s.t("alibi.grid_head"))
ui.chart(grid_figure(seq, n_heads, s.position, s.lang), "grid")
st.caption(s.t("alibi.grid_caption"))
if len(shown := heads_shown(n_heads)) < n_heads:
    st.caption(s.t("alibi.grid_subset", k=len(shown), n=n_heads, heads=", ".join(map(str, shown))))


@st.fragment
def effect() -> None:
    st.subheader(s.t("alibi.effect_head"))
    head = st.number_input(s.t("alibi.head_choice", n=n_heads), 1, n_heads, 1, key="alibi_head",
                           bind="query-params", persist_state="session")
    left, right = st.columns(2)
    ui.chart(weights_figure(seq, n_heads, head, "none", s.t("alibi.fig_without", h=head), s.lang),
             "weights_none", where=left)
    ui.chart(weights_figure(
        seq, n_heads, head, "paper" if s.position else "none",
        s.t("alibi.fig_with" if s.position else "alibi.fig_with_off", h=head,
            m=slope_text(exponents[head - 1])), s.lang), "weights_alibi", where=right)
    st.caption(s.t("alibi.effect_caption", d=HEAD_DIM, n=n_heads, width=HEAD_DIM * n_heads))
    ui.chart(distance_figure(seq, n_heads, s.position, s.lang), "distance")

    st.subheader(s.t("alibi.forms_head"))
    st.markdown(s.prose("alibi_forms"))
    st.latex(KEY_FORMULA)
    if not s.position:
        st.caption(s.t("alibi.forms_off"))
        return
    left, right = st.columns(2)
    ui.chart(form_figure(seq, n_heads, head, "paper", s.lang), "form_paper", where=left)
    ui.chart(form_figure(seq, n_heads, head, "reference", s.lang), "form_reference", where=right)
    raw, gap = form_gap(seq, n_heads)
    left.metric(s.t("alibi.raw_gap"), f"{raw:.3g}")
    right.metric(s.t("alibi.weight_gap"), f"{gap:.1e}")


@st.fragment
def longer() -> None:
    st.subheader(s.t("alibi.extra_head"))
    left, right = st.columns(2)
    trained = left.slider(s.t("alibi.trained_len"), 4, 512, 32, key="alibi_trained",
                          bind="query-params", persist_state="session")
    test = right.slider(s.t("alibi.test_len"), 8, 1024, 128, key="alibi_test",
                        bind="query-params", persist_state="session")
    ui.chart(extrapolation_figure(n_heads, trained, test, s.position, s.lang), "extrapolation")
    st.caption(s.t("alibi.extra_caption"))


@st.fragment
def relatives() -> None:
    st.subheader(s.t("alibi.t5_head"))
    st.markdown(s.prose("alibi_t5"))
    st.latex(T5_FORMULA)
    left, right = st.columns(2)
    n_buckets = left.select_slider(s.t("alibi.num_buckets"), [8, 16, 32, 64, 128], 32,
                                   key="alibi_buckets", bind="query-params",
                                   persist_state="session")
    max_distance = right.select_slider(s.t("alibi.max_distance"), [16, 32, 64, 128, 256], 128,
                                       key="alibi_max_distance", bind="query-params",
                                       persist_state="session")
    # the causal staircase needs the larger max distance of the two
    if max_distance < (least := smallest_max_distance(n_buckets, bidirectional=False)):
        st.error(s.t("alibi.t5_too_short", n=n_buckets, least=least))
        return
    ui.chart(buckets_figure(n_heads, n_buckets, max_distance, s.position, s.lang), "buckets")
    if len(lines := heads_shown(n_heads, LINES)) == n_heads:
        drawn = s.t("alibi.lines_one") if n_heads == 1 else s.t("alibi.lines_all", n=n_heads)
    else:
        drawn = s.t("alibi.lines_some", k=len(lines), n=n_heads, heads=", ".join(map(str, lines)))
    st.caption(s.t("alibi.t5_caption", lines=drawn))


effect()
longer()
relatives()
