"""The guided lesson's own cached numbers and figures: those no lesson page draws the same way.

Figures are cached whole, keyed on primitives (building one costs more than the page may take);
nothing mutates a figure once built. Where a scene shows exactly a lesson page's figure or run,
it calls that page's wrapper (ui.cached.alibi, ui.cached.attention) instead.
"""

import functools

import numpy as np
import plotly.graph_objects as go
import streamlit as st

from posviz import rope
from posviz.alibi import hide_masked
from posviz.attention import one_head
from posviz.embedding import repeat_distances, token_embeddings
from posviz.figures.attention import change_bars, order_maps, visibility_grid
from posviz.figures.common import layout, token_heatmap
from posviz.figures.embedding import PANEL_FILES, aligned_heatmaps, aligned_layout
from posviz.figures.rope import plane_view
from posviz.figures.sinusoidal import offset_curve, pe_heatmap
from posviz.modern import chunked_mask
from posviz.permutation import reordered
from posviz.schemes import position_scheme
from posviz.sinusoidal import dot_by_offset, dots_from_starts, sinusoidal, sinusoidal_sampled
from posviz.tokens import MAX_TOKENS, repeated, token_labels
from ui import live
from ui.blocks import Live
from ui.cached import attention
from ui.i18n import text

# Each lesson page's default settings, so a scene looks like the page its link opens.
EMBED_D = 16                    # embedding lesson width (scenes 1-3)
SINE_D, SINE_N, MAX_OFFSET = 128, 128, 40
ROPE_D, ROPE_PAIR = 64, 0       # one RoPE head, and the pair its plane shows
HEADS, LAYERS = 4, 2            # the attention lesson's seeded stack
CHANGE_SCHEMES = ("none", "sinusoidal")  # scene 4's answer: each token's change under each
ALIBI_HEADS = 8
Tokens = tuple[str, ...]
figure_cache = st.cache_resource(max_entries=64, show_spinner=False)
number_cache = st.cache_data(max_entries=64, show_spinner=False)


@number_cache
def inputs(tokens: Tokens, position: bool) -> tuple[np.ndarray, np.ndarray]:
    """E and P of the embedding lesson: P is zero when position is switched off. (T, D) each."""
    e = token_embeddings(list(tokens), EMBED_D)
    return e, sinusoidal(len(tokens), EMBED_D) if position else np.zeros_like(e)


@figure_cache
def embedding_figure(tokens: Tokens, panels: tuple[str, ...], position: bool, lang: str,
                     title_key: str | None = None) -> go.Figure:
    """Some of E, P and E + P side by side, one row per token (the embedding lesson's chart),
    titled by title_key (default: what its rows are)."""
    e, p = inputs(tokens, position)
    matrices = dict(panel_e=e, panel_p=p, panel_x=e + p)
    marked = sorted(t for ts in repeated(list(tokens)).values() for t in ts)
    return aligned_heatmaps(
        [matrices[name] for name in panels],
        [text(f"embedding.{name}" + ("_off" if name == "panel_p" and not position else ""), lang)
         for name in panels],
        token_labels(list(tokens)), title=text(title_key or rows_title(marked), lang),
        x_title=text("common.dimension_axis", lang), y_title=text("common.token_axis", lang),
        marked_rows=marked, files=[PANEL_FILES[name] for name in panels])


def embedding_live(panels: tuple[str, ...], position: bool, lang: str, copied: bool,
                   title_key: str | None = None) -> Live:
    """embedding_figure's recipe for a typed sentence (copied: the sentence's first token copied
    to its end, as scene 1 shows it), with its title for rows marked and not, and its layout
    for every row count the recipe can draw."""
    titled = [layout(text(title_key or rows_title(marked), lang))["title"]["text"]
              for marked in ([0], [])]
    return live.embedding(EMBED_D, panels, position, copied, *titled,
                          embedding_sizes(panels, position, lang, MAX_TOKENS + copied))


@functools.cache
def embedding_sizes(panels: tuple[str, ...], position: bool, lang: str, most: int) -> str:
    """embedding_figure's layout for 1 .. most rows, what differs between them (ui.live.sizes;
    the title aside: it does not change with the sentence)."""
    titles = [text(f"embedding.{name}" + ("_off" if name == "panel_p" and not position else ""),
                   lang) for name in panels]
    return live.sizes([aligned_layout(n, titles, title="",
                                      x_title=text("common.dimension_axis", lang),
                                      y_title=text("common.token_axis", lang))
                       for n in range(1, most + 1)])


def rows_title(marked: list[int]) -> str:
    """The embedding chart's title key: the ◆ explained only when some token is marked."""
    return "embedding.fig_sum" if marked else "embedding.fig_rows"


@number_cache
def copy_distances(tokens: Tokens, position: bool) -> list[dict[str, object]]:
    """The sentence with its first token copied to the end: every repeated pair's distances."""
    copied = (*tokens, tokens[0])
    e, p = inputs(copied, position)
    return repeat_distances(list(copied), e, e + p)


@figure_cache
def position_figure(seq_len: int, lang: str) -> go.Figure:
    """The sinusoidal table of positions 0 .. MAX_TOKENS-1, the sentence's rows framed."""
    values, rows, channels, _ = sinusoidal_sampled(MAX_TOKENS, EMBED_D)
    return pe_heatmap(
        values, rows, channels, title=text("lesson.position.fig", lang, last=MAX_TOKENS - 1,
                                           d=EMBED_D),
        x_title=text("common.dimension_axis", lang), y_title=text("common.position_axis", lang),
        sentence_len=seq_len, sentence_label=text("sinusoidal.the_sentence", lang))


@figure_cache
def order_figure(tokens: Tokens, order: tuple[int, ...], lang: str) -> go.Figure:
    """Scene 4's question, drawn: top-layer head-mean attention with no position signal and no
    causal mask on the sentence and on its reordering, each labelled by its own order."""
    moved = tuple(reordered(list(tokens), order))
    maps = [attention.stack(seq, LAYERS, HEADS, "none", False).mean_weights(-1)
            for seq in (tokens, moved)]
    return order_maps(
        maps, [token_labels(list(seq)) for seq in (tokens, moved)],
        [text("attention.panel_original", lang), text("lesson.order.panel_reversed", lang)],
        title=text("lesson.order.fig", lang, layer=LAYERS), x_title=text("common.key_axis", lang),
        y_title=text("common.query_axis", lang), value_name=text("attention.weight", lang))


@figure_cache
def change_figure(tokens: Tokens, order: tuple[int, ...], lang: str) -> go.Figure:
    """Scene 4's answer: how far each token's output moved under the reordering (its largest
    change over every layer and channel), with no position and with the sinusoidal encoding."""
    return change_bars(
        token_labels(list(tokens)),
        {text(position_scheme(scheme).words["attention"], lang):
         attention.check(tokens, order, LAYERS, HEADS, scheme, False).token_gaps
         for scheme in CHANGE_SCHEMES},
        title=text("lesson.order.change_fig", lang, layers=LAYERS),
        x_title=text("common.token_axis", lang), y_title=text("lesson.order.change_axis", lang))


@figure_cache
def irope_figure(tokens: Tokens, chunk: int, lang: str) -> go.Figure:
    """Which keys each query sees in Llama 4's two kinds of layer: a RoPE layer's chunk of
    `chunk` tokens (its 8,192 scaled down) and a position-free layer's whole causal context."""
    n = len(tokens)
    masks = np.stack([chunked_mask(n, chunk), chunked_mask(n, n)])
    return visibility_grid(masks, token_labels(list(tokens)),
                           [text("today.irope_rope_panel", lang, demo=chunk),
                            text("today.irope_nope_panel", lang)],
                           title=text("today.irope_fig", lang),
                           x_title=text("common.key_axis", lang),
                           y_title=text("common.query_axis", lang),
                           names=(text("today.visible", lang), text("today.hidden", lang)))


@figure_cache
def sinusoidal_figures(seq_len: int, lang: str) -> tuple[go.Figure, go.Figure]:
    """The sinusoidal lesson's heatmap (sentence framed) and its dot product by offset."""
    values, rows, channels, _ = sinusoidal_sampled(SINE_N, SINE_D)
    offsets = np.arange(-MAX_OFFSET, MAX_OFFSET + 1)
    heatmap = pe_heatmap(
        values, rows, channels, title=text("sinusoidal.fig_heatmap", lang),
        x_title=text("common.dimension_axis", lang), y_title=text("common.position_axis", lang),
        sentence_len=min(seq_len, SINE_N), sentence_label=text("sinusoidal.the_sentence", lang))
    curve = offset_curve(
        offsets, dot_by_offset(offsets, SINE_D),
        {text("sinusoidal.from_start", lang, p=p): v
         for p, v in dots_from_starts(sinusoidal(SINE_N, SINE_D), offsets).items()},
        title=text("sinusoidal.fig_offset", lang), x_title=text("sinusoidal.offset_axis", lang),
        y_title=text("sinusoidal.dot_axis", lang),
        formula_name=text("sinusoidal.closed_form", lang))
    return heatmap, curve


@number_cache
def rope_head(tokens: Tokens) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                       np.ndarray]:
    """The RoPE lesson's single head: embeddings x, queries q, keys k and W_q, W_k."""
    x, q, k, layer = one_head(list(tokens), ROPE_D)
    return x, q, k, layer.wq, layer.wk


@figure_cache
def rope_figure(tokens: Tokens, position: bool, lang: str) -> go.Figure:
    """Pair ROPE_PAIR of every query before and after its rotation (the RoPE lesson's first
    chart)."""
    _, q, _, _, _ = rope_head(tokens)
    positions = np.arange(len(tokens)) if position else np.zeros(len(tokens))
    theta = rope.rope_frequencies(ROPE_D)
    a, b = (channels[ROPE_PAIR] for channels in rope.pair_index(ROPE_D))
    return plane_view(
        rope.pair_coordinates(q, ROPE_PAIR),
        rope.pair_coordinates(rope.apply_rope(q, positions), ROPE_PAIR),
        token_labels(list(tokens)),
        title=text("rope.plane_title", lang, pair=ROPE_PAIR, a=a, b=b, theta=theta[ROPE_PAIR],
                   wavelength=rope.wavelengths(theta)[ROPE_PAIR]),
        before_name=text("rope.before", lang), after_name=text("rope.after", lang),
        arc_name=text("rope.arc", lang), x_title=text("rope.channel", lang, c=a),
        y_title=text("rope.channel", lang, c=b))


def rope_live(position: bool, lang: str) -> Live:
    """rope_figure's recipe for a typed sentence."""
    return live.plane(ROPE_D, ROPE_PAIR, position, *(text(f"rope.{name}", lang)
                                              for name in ("before", "after", "arc")))


@figure_cache
def causal_figure(tokens: Tokens, scheme: str, lang: str) -> go.Figure:
    """Head-mean weights of layer 1, the cells the mask hides grey."""
    labels = token_labels(list(tokens))
    return token_heatmap(
        hide_masked(attention.stack(tokens, 1, HEADS, scheme, True).mean_weights(0)), labels,
        labels, title=text("lesson.causal.fig", lang, heads=HEADS,
                           scheme=text(position_scheme(scheme).words["attention"], lang)),
        x_title=text("common.key_axis", lang), y_title=text("common.query_axis", lang),
        value_name=text("attention.weight", lang), colorscale="Blues", zmid=None, zmin=0.0,
        zmax=1.0, height=520)
