"""Attention: maps per head and per scheme, the position switch, and the twin-order check."""

import plotly.graph_objects as go
import streamlit as st

import ui
from posviz.attention import (
    FORMULA,
    HEAD_DIM,
    LAYER_FORMULA,
    SCHEMES,
    AttentionRun,
    attention_stack,
)
from posviz.embedding import token_embeddings
from posviz.figures.attention import map_grid, twin_maps
from posviz.permutation import (
    PermutationCheck,
    parse_order,
    permutation_check,
    repeat_gap,
    reversal,
    shuffle,
)
from posviz.tokens import token_labels
from ui.i18n import text

HEADS = (1, 2, 4, 8)
ORDERS = ("reverse", "shuffle", "typed")
WIDGET = dict(bind="query-params", persist_state="session")


@st.cache_data(max_entries=128, show_spinner=False)
def stack(tokens: tuple[str, ...], n_layers: int, n_heads: int, scheme: str,
          causal: bool) -> AttentionRun:
    """The sentence through the seeded stack."""
    x = token_embeddings(list(tokens), HEAD_DIM * n_heads)
    return attention_stack(x, n_layers, n_heads, scheme, causal)


@st.cache_data(max_entries=128, show_spinner=False)
def check(tokens: tuple[str, ...], order: tuple[int, ...], n_layers: int, n_heads: int,
          scheme: str, causal: bool) -> PermutationCheck:
    """The sentence and its reordering through the same seeded stack."""
    x = token_embeddings(list(tokens), HEAD_DIM * n_heads)
    return permutation_check(x, order, n_layers, n_heads, scheme, causal)


# Figures are cached whole: building a plotly figure costs far more than the attention itself.
@st.cache_resource(max_entries=64, show_spinner=False)
def head_figure(tokens: tuple[str, ...], n_layers: int, n_heads: int, scheme: str, causal: bool,
                lang: str) -> go.Figure:
    """Every head of the top layer, then their mean."""
    run = stack(tokens, n_layers, n_heads, scheme, causal)
    titles = [text("attention.head_panel", lang, h=h + 1) for h in range(n_heads)]
    return map_grid(run.head_maps(-1), run.mask, token_labels(list(tokens)),
                    [*titles, text("attention.mean_panel", lang)],
                    title=text("attention.maps_title", lang, layer=n_layers,
                               scheme=text(f"attention.schemes.{scheme}", lang)),
                    **axis_titles(lang))


@st.cache_resource(max_entries=64, show_spinner=False)
def scheme_figure(tokens: tuple[str, ...], n_layers: int, n_heads: int, causal: bool,
                  lang: str) -> go.Figure:
    """The head-mean map of the top layer under each of the four schemes."""
    runs = [stack(tokens, n_layers, n_heads, name, causal) for name in SCHEMES]
    return map_grid([run.mean_weights(-1) for run in runs], runs[0].mask,
                    token_labels(list(tokens)),
                    [text(f"attention.schemes.{name}", lang) for name in SCHEMES], n_cols=2,
                    title=text("attention.grid_title", lang, layer=n_layers), **axis_titles(lang))


@st.cache_resource(max_entries=64, show_spinner=False)
def twin_figure(tokens: tuple[str, ...], order: tuple[int, ...], n_layers: int, n_heads: int,
                scheme: str, causal: bool, lang: str) -> go.Figure:
    """Top-layer head-mean maps of both orders, lined up by token, and their difference."""
    c = check(tokens, order, n_layers, n_heads, scheme, causal)
    return twin_maps(c.original.mean_weights(-1), c.aligned.mean_weights(-1), c.original.mask,
                     c.aligned.mask, c.weight_difference(-1), token_labels(list(tokens)),
                     [text(f"attention.panel_{key}", lang)
                      for key in ("original", "aligned", "difference")],
                     title=text("attention.twin_title", lang, layer=n_layers),
                     difference_name=text("attention.difference", lang), **axis_titles(lang))


def axis_titles(lang: str) -> dict[str, str]:
    """Query rows, key columns, attention weight values."""
    return dict(x_title=text("common.key_axis", lang), y_title=text("common.query_axis", lang),
                value_name=text("attention.weight", lang))


s = ui.page("attention")
ui.need_tokens(s)
st.markdown(s.prose("attention"))
st.latex(FORMULA)
st.latex(LAYER_FORMULA)
st.caption(s.t("attention.stack_caption"))

scheme_col, causal_col, heads_col, layers_col = st.columns([3, 2, 2, 2])
picked = scheme_col.radio(s.t("attention.scheme"), SCHEMES[1:], key="attention_scheme",
                          format_func=lambda name: s.t(f"attention.schemes.{name}"),
                          horizontal=True, disabled=not s.position,
                          help=s.t("attention.scheme_help"), **WIDGET)
causal = causal_col.toggle(s.t("attention.causal"), True, key="attention_causal",
                           help=s.t("attention.causal_help"), **WIDGET)
n_heads = heads_col.select_slider(s.t("attention.heads"), HEADS, 4, key="attention_heads",
                                  help=s.t("attention.heads_help", d=HEAD_DIM), **WIDGET)
n_layers = layers_col.slider(s.t("attention.layers"), 1, 4, 2, key="attention_layers",
                             help=s.t("attention.layers_help"), **WIDGET)
scheme = picked if s.position else "none"
if not s.position:
    st.info(s.t("attention.position_off"))
tokens = tuple(s.tokens)

st.subheader(s.t("attention.maps_head"))
st.plotly_chart(head_figure(tokens, n_layers, n_heads, scheme, causal, s.lang), width="stretch")
st.caption(s.t("attention.maps_caption"))

st.subheader(s.t("attention.twin_head"))
st.markdown(s.prose("attention_cases"))
order_col, keep_col, extra_col = st.columns([3, 2, 3])
kind = order_col.radio(s.t("attention.order"), ORDERS, key="attention_order", horizontal=True,
                       format_func=lambda name: s.t(f"attention.orders.{name}"),
                       help=s.t("attention.order_help"), **WIDGET)
keep_last = keep_col.toggle(s.t("attention.keep_last"), False, key="attention_keep_last",
                            help=s.t("attention.keep_last_help"), disabled=kind == "typed",
                            **WIDGET)
if kind == "shuffle":
    seed = extra_col.number_input(s.t("attention.shuffle_seed"), 0, 9999, 0,
                                  key="attention_seed", **WIDGET)
if kind == "typed":
    typed = extra_col.text_input(s.t("attention.typed_order"), key="attention_typed",
                                 help=s.t("attention.typed_help"), **WIDGET)

if len(tokens) < 2:
    st.info(s.t("attention.one_token"))
elif kind == "typed" and not typed.strip():
    st.info(s.t("attention.typed_prompt", last=len(tokens) - 1,
                example=" ".join(map(str, reversal(len(tokens))))))
else:
    with ui.guard(s):
        if kind == "reverse":
            order = tuple(reversal(len(tokens), keep_last).tolist())
        elif kind == "shuffle":
            order = tuple(shuffle(len(tokens), seed, keep_last).tolist())
        else:
            order = tuple(parse_order(typed, len(tokens)).tolist())
        c = check(tokens, order, n_layers, n_heads, scheme, causal)
        st.caption(s.t("attention.reordered"))
        ui.token_chips([s.tokens[k] for k in order], [str(k) for k in order])

        st.metric(s.t("attention.headline"), f"{c.gap:.2e}", help=s.t("attention.headline_help"),
                  border=True)
        if scheme != "none":
            case = "alibi_symmetric" if scheme == "alibi" and not causal else "position"
            st.info(s.t(f"attention.case.{case}", gap=c.gap))
        elif not causal:
            st.success(s.t("attention.case.bag", gap=c.gap))
            gap = repeat_gap(s.tokens, c.original.outputs[-1])
            st.success(s.t("attention.case.try_repeats") if gap is None
                       else s.t("attention.case.repeats", gap=gap))
        elif not c.keeps_last:
            st.warning(s.t("attention.case.causal_moved", gap=c.gap))
        elif n_layers == 1:
            st.warning(s.t("attention.case.causal_one", last=c.last_gaps[0], gap=c.gap))
        else:
            st.warning(s.t("attention.case.causal_many", layers=n_layers, first=c.last_gaps[0],
                           last=c.last_gaps[-1]))

        for col, name in zip(st.columns(len(SCHEMES)), SCHEMES, strict=True):
            col.metric(s.t("attention.scheme_gap", scheme=s.t(f"attention.schemes.{name}")),
                       f"{check(tokens, order, n_layers, n_heads, name, causal).gap:.2e}")
        st.caption(s.t("attention.scheme_gaps_caption"))

        st.plotly_chart(twin_figure(tokens, order, n_layers, n_heads, scheme, causal, s.lang),
                        width="stretch")
        st.caption(s.t("attention.twin_caption"))
        st.markdown(f"**{s.t('attention.gaps_head')}**")
        st.dataframe({"layer": range(1, n_layers + 1), "all": c.layer_gaps, "last": c.last_gaps},
                     hide_index=True, column_config={
                         "layer": st.column_config.NumberColumn(s.t("attention.col.layer")),
                         "all": st.column_config.NumberColumn(s.t("attention.col.all"),
                                                              format="%.2e"),
                         "last": st.column_config.NumberColumn(s.t("attention.col.last"),
                                                               format="%.2e")})
        st.caption(s.t("attention.gaps_caption"))

st.subheader(s.t("attention.grid_head"))
st.plotly_chart(scheme_figure(tokens, n_layers, n_heads, causal, s.lang), width="stretch")
st.caption(s.t("attention.grid_caption"))
