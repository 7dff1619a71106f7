"""The schemes of 2026 and the port-bug clinic, cached: the figures that do not depend on the
sentence (made once per language: a figure's JSON and spoken summary are made once per figure
object, ui.chart), the sentence's M-RoPE tables and its last query's scores under each scheme,
a bug read on a sentence, and how far each bug moves the head's scores with the distance
between query and key (the page on today's models and the guided lesson's last scene both draw
them)."""

import numpy as np
import plotly.graph_objects as go
import streamlit as st

from posviz import bands, layered, modern, multimodal, ports, proportional, rope
from posviz.figures.attention import map_grid
from posviz.figures.common import token_heatmap
from posviz.figures.rope import line_chart
from posviz.figures.schemes import axis_grid, drift_chart, kind_stack, lane_strips
from posviz.modern import AXES, value
from posviz.tokens import token_labels
from ui.cached.today import mrope_columns
from ui.i18n import text
from ui.summary import number

Tokens = tuple[str, ...]
figure_cache = st.cache_resource(max_entries=16, show_spinner=False)
number_cache = st.cache_data(max_entries=32, show_spinner=False)
VIDEO = (2, 2, 3)  # the video the M-RoPE tables insert after the first token: frames, rows, cols
STAMPS = ("<0.5 seconds>", "<1.5 seconds>")  # its frames' timestamps, one token each here


def finite(values: np.ndarray) -> np.ndarray:
    """inf (a pair or lane that never turns) as NaN: a gap in a line chart."""
    return np.where(np.isfinite(values), values, np.nan)


@figure_cache
def lanes_figure(lang: str) -> go.Figure:
    """Each channel's wavelength in Gemma 4 31B's global and sliding layers and in GPT-NeoX
    20B's partial RoPE; no line where a channel never turns."""
    g, n = "gemma4_31b", "gpt_neox_20b"
    wide = value(g, "global_head_dim")
    lanes = {
        text("schemes.lanes_global", lang): proportional.lane_wavelengths(
            wide, value(g, "full_partial_rotary_factor"), value(g, "full_rope_theta")),
        text("schemes.lanes_sliding", lang):
        proportional.lane_wavelengths(value(g, "head_dim"), 1.0, value(g, "sliding_rope_theta")),
        text("schemes.lanes_neox", lang):
        proportional.lane_wavelengths(value(n, "head_dim_computed"), value(n, "rotary_pct"),
                                      value(n, "rotary_emb_base"), "neox")}
    return lane_strips(lanes, title=text("schemes.lanes_fig", lang),
                       x_title=text("schemes.lane_axis", lang),
                       value_name=text("today.wavelength_axis", lang),
                       never_name=text("schemes.never_turns", lang))


@figure_cache
def v4_figures(lang: str) -> tuple[go.Figure, go.Figure]:
    """DeepSeek-V4-Flash's layers by kind, and its two RoPEs' wavelengths pair by pair."""
    m = "deepseek_v4_flash"
    kinds = layered.layer_kinds(value(m, "compress_ratios"), value(m, "num_hidden_layers"))
    main, compress = value(m, "rope_theta"), value(m, "compress_rope_theta")
    factor = value(m, "rope_scaling_factor")
    original = value(m, "rope_scaling_original_max_position_embeddings")
    dim, window = value(m, "qk_rope_head_dim"), value(m, "sliding_window")
    context = value(m, "max_position_embeddings")
    bases = dict(main=number(main), compress=number(compress))
    stack = kind_stack(kinds, {k: text(f"schemes.kind.{k}", lang, **bases)
                               for k in ("sliding", "csa", "hca")},
                       model="DeepSeek-V4-Flash", title=text("schemes.v4_fig", lang),
                       x_title=text("today.layer_axis", lang))
    waves = line_chart(np.arange(dim // 2), {
        text("schemes.v4_main", lang, base=number(main)): rope.wavelengths(
            layered.rope_speeds("main", dim, main, compress, factor, original)),
        text("schemes.v4_compress", lang, base=number(compress), factor=factor):
        rope.wavelengths(layered.rope_speeds("compress", dim, main, compress, factor,
                                             original))},
        title=text("schemes.v4_waves_fig", lang, dim=dim),
        x_title=text("today.pair_axis", lang), y_title=text("today.wavelength_axis", lang),
        log_y=True, marked_y={text("today.window_mark", lang, n=number(window)): window,
                              text("today.trained_mark", lang, n=number(original)): original,
                              text("today.context_mark", lang, n=number(context)): context})
    return stack, waves


@figure_cache
def qwen_axes_figure(lang: str) -> go.Figure:
    """Which axis each channel pair turns by: Qwen2-VL's blocks, Qwen3-VL's interleaving."""
    old, new = (tuple(value(m, "mrope_section")) for m in ("qwen2_vl_7b", "qwen3_vl_8b"))
    return axis_grid({text("schemes.qwen2_row", lang, sections=list(old)):
                      multimodal.axes(old, "contiguous"),
                      text("schemes.qwen3_row", lang, sections=list(new)):
                      multimodal.axes(new, "interleaved")},
                     tuple(text(f"today.mrope_col.{a}", lang) for a in AXES),
                     title=text("schemes.qwen_fig", lang),
                     x_title=text("today.pair_axis", lang))


def patch_name(n: int, rows: int, cols: int, lang: str) -> str:
    """Patch n of a video, as the tables name it: its frame, row and column."""
    frame, row, col = multimodal.patch_place(n, rows, cols)
    return text("schemes.frame_patch", lang, f=frame, r=row, c=col)


@number_cache
def video_table(tokens: Tokens, stamped: bool, lang: str) -> dict[str, list]:
    """The sentence with VIDEO after its first token, each token's three ids: Qwen3-VL's
    with its frames' timestamps as text (stamped), Qwen2-VL's with a time id."""
    frames, rows, cols = VIDEO
    ids, kinds = multimodal.video_positions(1, frames, rows, cols, 1, len(tokens) - 1,
                                            timestamps=stamped)
    stamps, patches, words = iter(STAMPS), iter(range(frames * rows * cols)), iter(tokens)
    what = [next(words) if kind == "text" else next(stamps) if kind == "stamp" else
            patch_name(next(patches), rows, cols, lang) for kind in kinds]
    return mrope_columns(ids, what, lang)


@number_cache
def gemma4_scores(tokens: Tokens) -> tuple[list[float], list[float]]:
    """The sentence's last query against every key (Gemma 4 31B's global head width), turned
    by its proportional RoPE and by GPT-NeoX's partial RoPE at the same share and base."""
    g = "gemma4_31b"
    wide, share, base = (value(g, k) for k in ("global_head_dim", "full_partial_rotary_factor",
                                                "full_rope_theta"))
    return tuple(ports.last_scores(list(tokens), wide, turn).tolist() for turn in (
        lambda x, p: proportional.proportional_rope(x, p, share, base),
        lambda x, p: modern.partial_rope(x, p, share, base)))


def fope_setting() -> tuple[int, int, float, tuple[np.ndarray, np.ndarray]]:
    """The canonical FoPE configuration's head width, trained length and base, and one head's
    initial coefficients."""
    m = "fope_olmo_60m"
    dim, length, base = (value(m, k) for k in ("head_dim_computed", "max_sequence_length",
                                               "rope_theta"))
    return dim, length, base, bands.fope_coefficients(
        dim, base, length, value(m, "fourier_init_norm_gain"), value(m, "n_heads"))


@figure_cache
def bands_figures(lang: str) -> tuple[go.Figure, go.Figure]:
    """Which pairs carry position under RoPE, HoPE's cut and FoPE (each pair's strongest
    frequency), and FoPE's cosine series at the start of training."""
    dim, length, base, coefficients = fope_setting()
    kept, series = bands.fope_sizes(dim, base, length)
    waves = line_chart(np.arange(dim // 2), {
        text("schemes.band_rope", lang): rope.wavelengths(rope.rope_frequencies(dim, base)),
        text("schemes.band_hope", lang): finite(bands.kept_wavelengths(dim, base, length)),
        text("schemes.band_fope", lang): finite(bands.dominant_wavelengths(
            dim, base, length, coefficients))},
        title=text("schemes.bands_fig", lang, dim=dim, length=length),
        x_title=text("today.pair_axis", lang), y_title=text("today.wavelength_axis", lang),
        log_y=True, marked_y={text("today.trained_mark", lang, n=number(length)): length},
        dashed=(text("schemes.band_fope", lang),))  # over HoPE's kept pairs, which it shares
    basis = token_heatmap(
        coefficients[0], [f"{n}" for n in range(kept)], [f"{n}" for n in range(series)],
        title=text("schemes.fope_fig", lang, gain=value("fope_olmo_60m",
                                                         "fourier_init_norm_gain")),
        x_title=text("today.pair_axis", lang), y_title=text("schemes.frequency_axis", lang),
        value_name=text("schemes.weight", lang))
    return waves, basis


def pair_span(mask: np.ndarray) -> str:
    """The pairs a mask picks, as "first–last" (they are always one run here), or "–"."""
    picked = np.flatnonzero(mask)
    return f"{picked[0]}–{picked[-1]}" if len(picked) else "–"


@number_cache
def cut_table(lang: str) -> dict[str, list]:
    """HoPE and FoPE on the FoPE configuration's head: which pairs turn with the position, which
    carry none, and the fixed turn and stretch those get instead (bands.fixed_turns)."""
    dim, length, base, coefficients = fope_setting()
    positions = np.arange(length)
    rows = {"HoPE": bands.hope_tables(positions, dim, base, length),
            "FoPE": bands.fope_tables(positions, dim, base, length,
                                                                coefficients)}
    columns: dict[str, list] = {text(f"schemes.cut_col.{k}", lang): [] for k in (
        "scheme", "turning", "still", "angle", "stretch")}
    for name, tables in rows.items():
        angle, stretch = bands.fixed_turns(*tables)
        still = np.isfinite(angle)
        for column, cell in zip(columns.values(), (
                name, pair_span(~still), pair_span(still),
                number(float(np.unique(angle[still])[0])),
                number(float(np.unique(stretch[still])[0]))), strict=True):
            column.append(cell)
    return columns


@number_cache
def band_scores(tokens: Tokens) -> tuple[list[float], list[float], list[float]]:
    """The sentence's last query against every key (the FoPE configuration's head), turned by
    RoPE, by HoPE's cut and by FoPE's series."""
    dim, length, base, coefficients = fope_setting()
    return tuple(ports.last_scores(list(tokens), dim, turn).tolist() for turn in (
        lambda x, p: rope.apply_rope(x, p, base, "half"),
        lambda x, p: bands.hope(x, p, base, length),
        lambda x, p: bands.fope(x, p, base, length, coefficients)))


@st.cache_data(max_entries=64, show_spinner=False)
def reading(tokens: Tokens, key: str) -> ports.Reading:
    """Bug key read on the sentence: both rotations' scores and attention."""
    return ports.reading(list(tokens), key)


@figure_cache
def maps_figure(tokens: Tokens, key: str, panel_titles: tuple[str, str], flip: bool,
                lang: str) -> go.Figure:
    """A bug's two attention maps on the sentence, the port's first when flip."""
    read = reading(tokens, key)
    weights = read.weights[::-1] if flip else read.weights
    return map_grid(np.stack(weights), np.tril(np.ones_like(weights[0], dtype=bool)),
                    token_labels(read.tokens), list(panel_titles),
                    title=text("schemes.maps_fig", lang, bug=text(f"schemes.bug.{key}.name",
                                                                   lang)),
                    x_title=text("common.key_axis", lang),
                    y_title=text("common.query_axis", lang),
                    value_name=text("attention.weight", lang), n_cols=2)


@st.cache_data(max_entries=1, show_spinner=False)
def drifts() -> tuple[np.ndarray, dict[str, np.ndarray], dict[str, int | None]]:
    """The offsets, each bug's drift over them (within its window, NaN past it) and its
    onset."""
    deltas = ports.offsets()
    curves, onsets = {}, {}
    for b in ports.bugs():
        moved, seen = ports.drift(b.key, deltas), ports.reach(b.key, deltas)
        curves[b.key] = np.where(seen, moved, np.nan)
        onsets[b.key] = ports.first_over(deltas, moved, seen)
    return deltas, curves, onsets


@figure_cache
def drift_figure(lang: str, key: str) -> go.Figure:
    """How far each bug moves the head's scores with the distance between query and key, the
    onset's share and DeepSeek-V4's window marked, the chosen bug's curve (key) drawn over the
    others."""
    deltas, curves, _ = drifts()
    window = value("deepseek_v4_flash", "sliding_window")
    return drift_chart(deltas, {text(f"schemes.bug.{b.key}.short", lang): curves[b.key]
                                for b in ports.bugs()},
                       title=text("schemes.drift_fig", lang),
                       x_title=text("today.offset_axis", lang),
                       y_title=text("schemes.drift_axis", lang), threshold=ports.ONSET,
                       threshold_name=text("schemes.onset_mark", lang),
                       marks={text("today.window_mark", lang, n=window): window},
                       chosen=text(f"schemes.bug.{key}.short", lang))
