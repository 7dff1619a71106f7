"""The page on today's models, its figures and its sentence's numbers, cached: the figures drawn
from published values made once per language, those drawn on the sentence once per sentence
and language (a figure's JSON and spoken summary are made once per figure object, ui.chart).
Nothing mutates a figure or a table once made. The part on 2026 and the port-bug clinic have
theirs in ui.cached.schemes; the iRoPE maps are the guided lesson's (ui.cached.lesson).
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import streamlit as st

from posviz import frontier, modern, rope
from posviz.attention import one_head
from posviz.embedding import token_embeddings
from posviz.figures.common import token_heatmap
from posviz.figures.modern import cache_bars, layer_stacks, share_bars
from posviz.figures.rope import line_chart
from ui.i18n import text
from ui.summary import number

Tokens = tuple[str, ...]
figure_cache = st.cache_resource(max_entries=32, show_spinner=False)
number_cache = st.cache_data(max_entries=32, show_spinner=False)

D_MODEL = 64  # the sentence's queries: one head of this size, as on the RoPE page
FRONTIER_DIM = 64  # a head's width for the frontier's drawings
FAR = 4_096  # the xPos chart's longest offset
GRID = (1, 2, 3)  # the image M-RoPE's table inserts: 1 frame of 2 x 3 patches
PARTIAL = (("gpt_neox_20b", "GPT-NeoX 20B"), ("pythia_6_9b", "Pythia 6.9B"),
           ("phi_2", "Phi-2"), ("qwen3_next_80b_a3b", "Qwen3-Next"))
"""The partial-RoPE models the chart draws, and their names on it."""
STACKS = (("llama4_scout", "Llama 4 Scout"), ("smollm3_3b", "SmolLM3 3B"),
          ("qwen3_next_80b_a3b", "Qwen3-Next 80B-A3B"),
          ("kimi_linear_48b_a3b", "Kimi Linear 48B-A3B"))
"""The stacks whose layers the frontier draws by kind, and their names."""
TEMPERATURE_STEPS = 128  # the temperature chart runs over this many of its floor's steps


@figure_cache
def partial_figure(lang: str) -> go.Figure:
    """Each partial-RoPE model's head: the channels RoPE turns and those it leaves, beside a
    full RoPE head (Llama 3.1's)."""
    shares = [modern.turned_share(model) for model, _ in PARTIAL]
    full = modern.value("llama3_1_8b", "head_dim")
    return share_bars([name for _, name in PARTIAL] + [text("today.full_rope", lang)],
                      [turned for turned, _ in shares] + [full],
                      [width for _, width in shares] + [full],
                      title=text("today.partial_fig", lang),
                      x_title=text("today.channels_axis", lang),
                      turned_name=text("today.turned", lang), kept_name=text("today.kept", lang))


@figure_cache
def mla_figure(lang: str) -> go.Figure:
    """What DeepSeek-V3 and Kimi K2 would keep per token and layer with full multi-head
    attention, and what MLA keeps."""
    (latent, full), (_, k2_full) = (modern.kv_cache(m) for m in ("deepseek_v3",
                                                                 "kimi_k2_instruct"))
    kept = text("today.mla_full", lang)
    return cache_bars([("DeepSeek-V3", kept), ("Kimi K2", kept),
                       ("DeepSeek-V3, Kimi K2", text("today.mla_latent", lang))],
                      [full, k2_full, latent], title=text("today.mla_fig", lang),
                      x_title=text("today.mla_axis", lang))


@figure_cache
def temperature_figure(lang: str) -> go.Figure:
    """Llama 4's query temperature in its layers without position, over the positions."""
    m = "llama4_scout"
    floor = modern.value(m, "floor_scale")
    positions = np.arange(0, TEMPERATURE_STEPS * floor + 1, floor // 8)
    name = text("today.temperature_axis", lang)
    return line_chart(positions, {name: modern.attention_temperature(
        positions, floor, modern.value(m, "attn_scale"))},
        title=text("today.temperature_fig", lang), x_title=text("today.position_axis", lang),
        y_title=name)


def stretch_curves(dim: int, stretched: modern.Stretch, base: float,
                   lang: str) -> dict[str, np.ndarray]:
    """Each pair's wavelength under every method of stretching a head (rope.METHODS, and YaRN
    with the paper's ramp beside its code's), named in lang."""
    curves = {text(f"today.method_{m}", lang): rope.wavelengths(rope.context_frequencies(
        m, dim, stretched.factor, stretched.original, base)) for m in rope.METHODS}
    curves[text("today.method_yarn_paper", lang)] = rope.wavelengths(rope.context_frequencies(
        "yarn", dim, stretched.factor, stretched.original, base, ramp="paper"))
    return curves


def stretch_figure(dim: int, stretched: modern.Stretch, curves: dict[str, np.ndarray],
                   title: str, lang: str) -> go.Figure:
    """Wavelengths pair by pair on a log axis, the trained and the target lengths marked, the
    unstretched and the paper's YaRN dashed."""
    return line_chart(
        np.arange(dim // 2), curves, title=title, x_title=text("today.pair_axis", lang),
        y_title=text("today.wavelength_axis", lang), log_y=True,
        marked_y={text("today.trained_mark", lang, n=number(stretched.original)):
                  stretched.original,
                  text("today.target_mark", lang, n=number(stretched.context)):
                  stretched.context},
        dashed=(text("today.method_original", lang), text("today.method_yarn_paper", lang)))


@figure_cache
def llama_figure(lang: str) -> go.Figure:
    """Llama 3.1 8B's head stretched by its published factor, by every method (llama3 as
    it was published)."""
    m = "llama3_1_8b"
    dim, base, stretched = modern.value(m, "head_dim"), modern.value(m, "rope_theta"), \
        modern.stretch(m)
    return stretch_figure(dim, stretched, stretch_curves(dim, stretched, base, lang), text(
        "today.llama_fig", lang, factor=number(stretched.factor), dim=dim, base=number(base)),
        lang)


@figure_cache
def longrope_figure(lang: str) -> go.Figure:
    """Phi-3 mini 128K's head stretched by every method to its context, and by its own
    searched long and short factors (LongRoPE)."""
    m = "phi3_mini_128k"
    dim, base, stretched = modern.value(m, "head_dim_computed"), modern.value(m, "rope_theta"), \
        modern.stretch(m)
    curves = stretch_curves(dim, stretched, base, lang)
    for kind in ("long", "short"):
        curves[text(f"today.longrope_{kind}", lang)] = rope.wavelengths(
            frontier.longrope_frequencies(dim, base, modern.value(m, f"{kind}_factor")))
    return stretch_figure(dim, stretched, curves, text(
        "today.longrope_fig", lang, factor=number(stretched.factor), dim=dim), lang)


def mrope_columns(ids: np.ndarray, what: list[str], lang: str) -> dict[str, list]:
    """A table of tokens and their three M-RoPE ids (3, T), a column per axis."""
    return {text("today.mrope_col.what", lang): what,
            **{text(f"today.mrope_col.{a}", lang): ids[n].tolist()
               for n, a in enumerate(modern.AXES)}}


@number_cache
def mrope_table(tokens: Tokens, lang: str) -> dict[str, list]:
    """The sentence with GRID's image after its first token, each token's three ids
    (Qwen2-VL's `get_rope_index`)."""
    _, rows, cols = GRID
    ids = modern.mrope_positions(1, GRID, len(tokens) - 1)
    what = [tokens[0], *(text("today.patch", lang, r=r, c=c) for r in range(rows)
                         for c in range(cols)), *tokens[1:]]
    return mrope_columns(ids, what, lang)


@figure_cache
def grid_figures(lang: str) -> tuple[go.Figure, go.Figure]:
    """The image's patches laid out as the image, coloured by their height and their width
    ids."""
    _, rows, cols = GRID
    patches = modern.mrope_positions(1, GRID, 0)[:, 1:]                  # (3, rows * cols)
    return tuple(token_heatmap(
        patches[n].reshape(rows, cols).astype(float), [str(r) for r in range(rows)],
        [str(c) for c in range(cols)],
        title=text("today.grid_fig", lang, axis=text(f"today.mrope_col.{axis}", lang)),
        x_title=text("today.grid_col_axis", lang), y_title=text("today.grid_row_axis", lang),
        colorscale="Viridis", zmid=None) for axis, n in (("h", 1), ("w", 2)))


@figure_cache
def gemma_figure(lang: str) -> go.Figure:
    """Gemma 3 27B's wavelengths pair by pair: its local layers' base, and its global layers'
    base stretched by linear scaling."""
    m = "gemma3_27b"
    dim, local, far, factor, window, context = (modern.value(m, k) for k in (
        "head_dim", "rope_local_base_freq", "rope_theta_global", "rope_scaling_factor",
        "sliding_window", "max_position_embeddings"))
    return line_chart(np.arange(dim // 2), {
        text("today.gemma_local", lang, base=number(local)):
        rope.wavelengths(rope.rope_frequencies(dim, local)),
        text("today.gemma_global", lang, base=number(far), factor=number(factor)):
        rope.wavelengths(rope.rope_frequencies(dim, far) / factor)},
        title=text("today.gemma_fig", lang, dim=dim), x_title=text("today.pair_axis", lang),
        y_title=text("today.wavelength_axis", lang), log_y=True,
        marked_y={text("today.window_mark", lang, n=number(window)): window,
                  text("today.context_mark", lang, n=number(context)): context})


@figure_cache
def stacks_figure(lang: str) -> go.Figure:
    """Four stacks layer by layer, coloured by what carries position in each layer."""
    return layer_stacks({name: frontier.layer_kinds(model) for model, name in STACKS},
                        {kind: text(f"today.kind.{kind}", lang) for kind in frontier.STACK_KINDS},
                        title=text("today.stacks_fig", lang),
                        x_title=text("today.layer_axis", lang))


@number_cache
def pairing_gaps(tokens: Tokens) -> modern.PairingGaps:
    """RoPE's three writings compared on the sentence's queries (one head of D_MODEL)."""
    return modern.pairing_gaps(one_head(list(tokens), D_MODEL)[1])


@number_cache
def reversal_gaps(tokens: Tokens) -> dict[str, float]:
    """How differently one layer of each kind reads the sentence and its reversal."""
    return frontier.reversal_gaps(token_embeddings(list(tokens), FRONTIER_DIM))


@number_cache
def xpos_reading(tokens: Tokens) -> frontier.XposReading:
    """The sentence's last query against its first key, RoPE's and xPos's, out to FAR."""
    _, q, k, _ = one_head(list(tokens), FRONTIER_DIM)
    return frontier.xpos_reading(q, k, FAR)


@figure_cache
def xpos_figure(tokens: Tokens, lang: str) -> go.Figure:
    """xpos_reading's two curves, a line at 0 (what xPos pulls each term toward)."""
    read = xpos_reading(tokens)
    return line_chart(read.offsets, {text(f"today.xpos_{kind}", lang): curve for kind, curve in
                                     (("rope", read.rope), ("decayed", read.xpos))},
                      title=text("today.xpos_fig", lang, last=tokens[-1], first=tokens[0],
                                 d=FRONTIER_DIM),
                      x_title=text("today.offset_axis", lang),
                      y_title=text("today.score_axis", lang),
                      marked_y={text("today.xpos_zero", lang): 0.0})


@number_cache
def longrope_scores(tokens: Tokens) -> frontier.LongRopeScores:
    """The sentence's last query against every key, as RoPE and as Phi-3's LongRoPE turn
    them (one head of Phi-3 mini's width)."""
    m = "phi3_mini_128k"
    dim, base, stretched = modern.value(m, "head_dim_computed"), modern.value(m, "rope_theta"), \
        modern.stretch(m)
    _, q, k, _ = one_head(list(tokens), dim)
    return frontier.longrope_scores(
        q, k, base, modern.value(m, "short_factor"), modern.value(m, "long_factor"),
        frontier.longrope_attention_factor(stretched.factor, stretched.original))

