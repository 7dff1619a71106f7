"""The attention page's cached runs and figures (the guided lesson draws on them too)."""

import plotly.graph_objects as go
import streamlit as st

from posviz.attention import ATTENTION_SCHEMES, HEAD_DIM, AttentionRun, attention_stack
from posviz.embedding import token_embeddings
from posviz.figures.attention import map_grid, twin_maps
from posviz.permutation import PermutationCheck, compare_runs, reordered
from posviz.schemes import position_scheme
from posviz.tokens import token_labels
from ui.i18n import text


# A reordered sentence is just another sentence: both runs of a comparison come from here.
@st.cache_data(max_entries=32, show_spinner=False)
def stack(tokens: tuple[str, ...], n_layers: int, n_heads: int, scheme: str,
          causal: bool) -> AttentionRun:
    """The sentence through the seeded stack."""
    x = token_embeddings(list(tokens), HEAD_DIM * n_heads)
    return attention_stack(x, n_layers, n_heads, scheme, causal)


@st.cache_data(max_entries=16, show_spinner=False)
def check(tokens: tuple[str, ...], order: tuple[int, ...], n_layers: int, n_heads: int,
          scheme: str, causal: bool) -> PermutationCheck:
    """The sentence and its reordering through the same seeded stack, compared by token."""
    moved = tuple(reordered(list(tokens), order))
    return compare_runs(stack(tokens, n_layers, n_heads, scheme, causal),
                        stack(moved, n_layers, n_heads, scheme, causal), order)


@st.cache_data(max_entries=32, show_spinner=False)
def scheme_gaps(tokens: tuple[str, ...], order: tuple[int, ...], n_layers: int, n_heads: int,
                causal: bool) -> list[float]:
    """The headline difference under each scheme of the stack."""
    return [check(tokens, order, n_layers, n_heads, name, causal).gap for name in ATTENTION_SCHEMES]


def scheme_name(name: str, causal: bool, lang: str) -> str:
    """A scheme's label (posviz.schemes); without a causal mask a scheme that turns into
    another variant (ALiBi, symmetric) is named as it."""
    return text(position_scheme(name).words_for("attention", causal), lang)


# Figures are cached whole: building a plotly figure costs more than the attention itself.
@st.cache_resource(max_entries=32, show_spinner=False)
def head_figure(tokens: tuple[str, ...], n_layers: int, n_heads: int, scheme: str, causal: bool,
                lang: str) -> go.Figure:
    """Every head of the top layer, then their mean."""
    run = stack(tokens, n_layers, n_heads, scheme, causal)
    titles = [text("attention.head_panel", lang, h=h + 1) for h in range(n_heads)]
    return map_grid(run.head_maps(-1), run.mask, token_labels(list(tokens)),
                    [*titles, text("attention.mean_panel", lang)],
                    title=text("attention.maps_title", lang, layer=n_layers,
                               scheme=scheme_name(scheme, causal, lang)),
                    **axis_titles(lang))


@st.cache_resource(max_entries=32, show_spinner=False)
def scheme_figure(tokens: tuple[str, ...], n_layers: int, n_heads: int, causal: bool,
                  lang: str) -> go.Figure:
    """The head-mean map of the top layer under each scheme of the stack."""
    runs = [stack(tokens, n_layers, n_heads, name, causal) for name in ATTENTION_SCHEMES]
    return map_grid([run.mean_weights(-1) for run in runs], runs[0].mask,
                    token_labels(list(tokens)),
                    [scheme_name(name, causal, lang) for name in ATTENTION_SCHEMES], n_cols=2,
                    title=text("attention.grid_title", lang, layer=n_layers), **axis_titles(lang))


@st.cache_resource(max_entries=32, show_spinner=False)
def twin_figure(tokens: tuple[str, ...], order: tuple[int, ...], n_layers: int, n_heads: int,
                scheme: str, causal: bool, lang: str,
                title_key: str = "attention.twin_title") -> go.Figure:
    """Top-layer head-mean maps of both orders, lined up by token, and their difference."""
    c = check(tokens, order, n_layers, n_heads, scheme, causal)
    return twin_maps(c.original.mean_weights(-1), c.aligned.mean_weights(-1), c.original.mask,
                     c.aligned.mask, c.weight_difference(-1), token_labels(list(tokens)),
                     [text(f"attention.panel_{key}", lang)
                      for key in ("original", "aligned", "difference")],
                     title=text(title_key, lang, layer=n_layers),
                     difference_name=text("attention.difference", lang),
                     flat_note=text("attention.difference_flat", lang), **axis_titles(lang))


def axis_titles(lang: str) -> dict[str, str]:
    """Query rows, key columns, attention weight values."""
    return dict(x_title=text("common.key_axis", lang), y_title=text("common.query_axis", lang),
                value_name=text("attention.weight", lang))
