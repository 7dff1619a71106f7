"""Guided lesson: the argument of the lessons in nine scenes, each with a question for the room.

Every scene draws the lesson pages' own figures for the sidebar's sentence and switch, and
answers its question with numbers computed on the spot. The scene lives in the URL (?scene=N),
so a lecturer can prepare one link per slide. Figures are cached whole, keyed on primitives
(building one costs more than the page may take); nothing mutates a figure once built.
"""

import numpy as np
import plotly.graph_objects as go
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

import ui
from posviz import rope
from posviz.alibi import (
    causal_alibi_bias,
    heads_shown,
    hide_masked,
    mean_attention_distance,
    slope_exponents,
)
from posviz.attention import (
    HEAD_DIM,
    AttentionRun,
    alibi_attention,
    attention_stack,
    init_layers,
    queries_keys,
)
from posviz.embedding import repeat_distances, token_embeddings
from posviz.figures.alibi import bias_grid, distance_bars
from posviz.figures.attention import twin_maps
from posviz.figures.common import token_heatmap
from posviz.figures.embedding import aligned_heatmaps
from posviz.figures.rope import plane_view
from posviz.figures.sinusoidal import offset_curve, pe_heatmap
from posviz.permutation import PermutationCheck, permutation_check, readable, reordered, reversal
from posviz.sinusoidal import (
    FORMULA,
    dot_by_offset,
    dots_from_starts,
    sinusoidal,
    sinusoidal_sampled,
)
from posviz.tokens import MAX_TOKENS, repeated, token_labels
from ui.i18n import text

SCENES = ("meaning", "position", "sum", "order", "sinusoidal", "rope", "alibi", "causal", "leak")
FULL_LESSON = dict(meaning="embedding", position="sinusoidal", sum="embedding", order="attention",
                   sinusoidal="sinusoidal", rope="rope", alibi="alibi", causal="attention",
                   leak="attention")
# Each lesson page's default settings, so a scene looks like the page its link opens.
EMBED_D = 16                    # embedding lesson width (scenes 1-3)
SAME, NEAR, FAR = 0, 1, 10      # the rows compared in scene 2
SINE_D, SINE_N, MAX_OFFSET = 128, 128, 40
OFFSET = 3                      # scene 5: k places after against k places before
ROPE_D, SHIFT = 64, 100         # one RoPE head; scene 6 moves the sentence this far
HEADS, LAYERS = 4, 2            # the attention lesson's seeded stack
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
def embedding_figure(tokens: Tokens, panels: tuple[str, ...], position: bool,
                     lang: str) -> go.Figure:
    """Some of E, P and E + P side by side, one row per token (the embedding lesson's chart)."""
    e, p = inputs(tokens, position)
    matrices = dict(panel_e=e, panel_p=p, panel_x=e + p)
    return aligned_heatmaps(
        [matrices[name] for name in panels], [text(f"embedding.{name}", lang) for name in panels],
        token_labels(list(tokens)), title=text("embedding.fig_sum", lang),
        x_title=text("common.dimension_axis", lang), y_title=text("common.token_axis", lang),
        marked_rows=sorted(t for ts in repeated(list(tokens)).values() for t in ts))


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
        sentence_len=seq_len, sentence_label=text("sinusoidal.your_sentence", lang))


@number_cache
def check(tokens: Tokens, order: tuple[int, ...], scheme: str, causal: bool) -> PermutationCheck:
    """The attention lesson's seeded stack on the sentence and on a reordering, by token."""
    x = token_embeddings(list(tokens), HEAD_DIM * HEADS)
    return permutation_check(x, np.array(order), LAYERS, HEADS, scheme, causal)


@figure_cache
def twin_figure(tokens: Tokens, order: tuple[int, ...], scheme: str, causal: bool,
                title_key: str, lang: str) -> go.Figure:
    """Top-layer head-mean maps of both orders lined up by token, and their difference."""
    c = check(tokens, order, scheme, causal)
    return twin_maps(
        c.original.mean_weights(-1), c.aligned.mean_weights(-1), c.original.mask, c.aligned.mask,
        c.weight_difference(-1), token_labels(list(tokens)),
        [text(f"attention.panel_{key}", lang) for key in ("original", "aligned", "difference")],
        title=text(title_key, lang, layer=LAYERS, scheme=text(f"attention.schemes.{scheme}", lang)),
        x_title=text("common.key_axis", lang), y_title=text("common.query_axis", lang),
        value_name=text("attention.weight", lang),
        difference_name=text("attention.difference", lang))


@figure_cache
def sinusoidal_figures(seq_len: int, lang: str) -> tuple[go.Figure, go.Figure]:
    """The sinusoidal lesson's heatmap (sentence framed) and its dot product by offset."""
    values, rows, channels, _ = sinusoidal_sampled(SINE_N, SINE_D)
    offsets = np.arange(-MAX_OFFSET, MAX_OFFSET + 1)
    heatmap = pe_heatmap(
        values, rows, channels, title=text("sinusoidal.fig_heatmap", lang),
        x_title=text("common.dimension_axis", lang), y_title=text("common.position_axis", lang),
        sentence_len=min(seq_len, SINE_N), sentence_label=text("sinusoidal.your_sentence", lang))
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
    layer = init_layers(1, ROPE_D)[0]
    x = token_embeddings(list(tokens), ROPE_D)                     # (T, D)
    q, k = (heads[0] for heads in queries_keys(x, layer, n_heads=1))    # (T, D) each
    return x, q, k, layer.wq, layer.wk


@figure_cache
def rope_figure(tokens: Tokens, position: bool, lang: str) -> go.Figure:
    """Pair 0 of every query before and after its rotation (the RoPE lesson's first chart)."""
    _, q, _, _, _ = rope_head(tokens)
    positions = np.arange(len(tokens)) if position else np.zeros(len(tokens))
    theta = rope.rope_frequencies(ROPE_D)
    a, b = (channels[0] for channels in rope.pair_index(ROPE_D))
    return plane_view(
        rope.pair_coordinates(q, 0), rope.pair_coordinates(rope.apply_rope(q, positions), 0),
        token_labels(list(tokens)),
        title=text("rope.plane_title", lang, pair=0, a=a, b=b, theta=theta[0],
                   wavelength=rope.wavelengths(theta)[0]),
        before_name=text("rope.before", lang), after_name=text("rope.after", lang),
        arc_name=text("rope.arc", lang), x_title=text("rope.channel", lang, c=a),
        y_title=text("rope.channel", lang, c=b))


@number_cache
def alibi_weights(tokens: Tokens) -> np.ndarray:
    """(2, H, T, T): causal attention of the seeded layer with ALiBi's bias and without."""
    return alibi_attention(list(tokens), ALIBI_HEADS, ("paper", "none"))


@figure_cache
def alibi_figures(tokens: Tokens, position: bool, lang: str) -> tuple[go.Figure, go.Figure]:
    """The ALiBi lesson's bias grid and mean attention distance per head."""
    with_bias, without = (mean_attention_distance(w) for w in alibi_weights(tokens))
    grid = bias_grid(
        causal_alibi_bias(ALIBI_HEADS, len(tokens), position), slope_exponents(ALIBI_HEADS),
        heads_shown(ALIBI_HEADS), token_labels(list(tokens)),
        title=text("alibi.fig_grid", lang),
        panel_format=text("alibi.panel" if position else "alibi.panel_off", lang),
        x_title=text("common.key_axis", lang), y_title=text("common.query_axis", lang),
        value_name=text("alibi.bias", lang))
    bars = distance_bars(
        with_bias, without, title=text("alibi.fig_distance", lang),
        x_title=text("alibi.head_axis", lang), y_title=text("alibi.distance_axis", lang),
        names=(text("alibi.without_name", lang), text("alibi.with_name", lang)))
    return grid, bars


@number_cache
def causal_run(tokens: Tokens, scheme: str) -> AttentionRun:
    """One causal layer of the attention lesson's seeded model."""
    return attention_stack(token_embeddings(list(tokens), HEAD_DIM * HEADS), 1, HEADS, scheme)


@figure_cache
def causal_figure(tokens: Tokens, scheme: str, lang: str) -> go.Figure:
    """Head-mean weights of layer 1, the cells the mask hides grey."""
    labels = token_labels(list(tokens))
    return token_heatmap(
        hide_masked(causal_run(tokens, scheme).mean_weights(0)), labels, labels,
        title=text("lesson.causal.fig", lang, heads=HEADS,
                   scheme=text(f"attention.schemes.{scheme}", lang)),
        x_title=text("common.key_axis", lang), y_title=text("common.query_axis", lang),
        value_name=text("attention.weight", lang), colorscale="Blues", zmid=None, zmin=0.0,
        zmax=1.0, height=520)


def ask(name: str, answer: str | None = None, **numbers: object) -> DeltaGenerator | None:
    """The scene's question in a box, with a toggle (its own per scene) that reveals the answer
    filled with the live numbers. Returns the box once the answer is shown, for more of it."""
    box = st.container(border=True)
    box.markdown(f"**{s.t('lesson.predict')}** {s.t(f'lesson.{name}.question', **numbers)}")
    if box.toggle(s.t("lesson.reveal"), key=f"lesson_reveal_{name}"):
        box.success(s.t(answer or f"lesson.{name}.answer", **numbers))
        return box
    return None


def distance_table(where, rows: list[dict[str, object]], columns: tuple[str, ...]) -> None:
    """The embedding lesson's table of repeated tokens, with the given distance columns."""
    where.dataframe(rows, hide_index=True, width="stretch", column_config={
        key: s.t(f"embedding.col.{key}") if key in ("token", "first", "second", *columns)
        else None for key in ("token", "first", "second", "embedding_distance",
                              "input_distance")})


# The scenes: each draws its figures for the sidebar's sentence and asks its question.


def meaning() -> None:
    ui.chart(embedding_figure(seq, ("panel_e",), s.position, s.lang), "lesson_meaning")
    st.caption(s.t("lesson.copied"))
    ui.token_chips([*s.tokens, s.tokens[0]])
    if answer := ask("meaning"):
        distance_table(answer, copy_distances(seq, s.position), ("embedding_distance",))


def position() -> None:
    if not s.position:
        st.info(s.t("lesson.position.off"))
    ui.chart(position_figure(len(seq), s.lang), "lesson_position")
    same_dot, near_dot, far_dot = dot_by_offset(np.array([0, NEAR - SAME, FAR - SAME]), EMBED_D)
    ask("position", same=SAME, near=NEAR, far=FAR, same_dot=same_dot, near_dot=near_dot,
        far_dot=far_dot)


def total() -> None:
    ui.chart(embedding_figure(seq, ("panel_e", "panel_p", "panel_x"), s.position, s.lang),
             "lesson_sum")
    st.caption(s.t("embedding.sum_caption"))
    if answer := ask("sum", None if s.position else "lesson.sum.answer_off"):
        distance_table(answer, copy_distances(seq, s.position),
                       ("embedding_distance", "input_distance"))


def order() -> None:
    ui.token_chips(s.tokens)
    if len(seq) < 2:
        st.info(s.t("lesson.need_two"))
        return
    backwards = tuple(reversal(len(seq)).tolist())
    st.caption(s.t("lesson.order.reversed"))
    ui.token_chips(reordered(s.tokens, backwards), [str(k) for k in backwards])
    scheme = "sinusoidal" if s.position else "none"
    ui.chart(twin_figure(seq, backwards, scheme, False, "lesson.order.fig", s.lang),
             "lesson_order")
    ask("order", none=readable(check(seq, backwards, "none", False).gap),
        sinusoidal=readable(check(seq, backwards, "sinusoidal", False).gap))


def sinusoid() -> None:
    st.latex(FORMULA)
    if not s.position:
        st.info(s.t("sinusoidal.position_off"))
    heatmap, curve = sinusoidal_figures(len(seq), s.lang)
    ui.chart(heatmap, "lesson_sinusoidal")
    after, before = dot_by_offset(np.array([OFFSET, -OFFSET]), SINE_D)
    if answer := ask("sinusoidal", k=OFFSET, after=after, before=before):
        ui.chart(curve, "lesson_offset", where=answer)


def rotation() -> None:
    st.latex(rope.FORMULA)
    if not s.position:
        st.warning(s.t("rope.no_position"))
    ui.chart(rope_figure(seq, s.position, s.lang), "lesson_rope")
    x, q, k, wq, wk = rope_head(seq)
    last, moved = len(seq) - 1, np.array([0, SHIFT])
    rope_before, rope_after = rope.shifted_rope_scores(q, k, last, 0, moved)
    added_before, added_after = rope.shifted_added_scores(x, wq, wk, last, 0, moved)
    ask("rope", shift=SHIFT, rope_before=rope_before, rope_after=rope_after,
        added_before=added_before, added_after=added_after)


def penalty() -> None:
    if not s.position:
        st.info(s.t("alibi.position_off"))
    grid, bars = alibi_figures(seq, s.position, s.lang)
    ui.chart(grid, "lesson_alibi")
    with_bias, without = (mean_attention_distance(w) for w in alibi_weights(seq))
    if answer := ask("alibi", last=ALIBI_HEADS, first_with=with_bias[0],
                     first_without=without[0], last_with=with_bias[-1],
                     last_without=without[-1]):
        ui.chart(bars, "lesson_alibi_distance", where=answer)


def mask() -> None:
    scheme = "sinusoidal" if s.position else "none"
    ui.chart(causal_figure(seq, scheme, s.lang), "lesson_causal")
    ask("causal", weight=causal_run(seq, scheme).mean_weights(0)[0, 0], n=len(seq))


def leak() -> None:
    if len(seq) < 3:
        st.info(s.t("lesson.need_three"))
        return
    new_order = tuple(reversal(len(seq), keep_last=True).tolist())
    moved = reordered(s.tokens, new_order)
    st.caption(s.t("lesson.leak.reordered"))
    ui.token_chips(moved, [str(k) for k in new_order])
    ui.chart(twin_figure(seq, new_order, "none", True, "lesson.leak.fig", s.lang), "lesson_leak")
    first, second = check(seq, new_order, "none", True).last_gaps[:2]
    ask("leak", None if moved != s.tokens else "lesson.leak.answer_same",
        first=readable(first), second=readable(second))


def turn_to(scene: int) -> None:
    """Previous / next: set the scene picker, which keeps the scene in the URL."""
    st.session_state["scene"] = scene


s = ui.page("lesson")
scene = st.pagination(len(SCENES), key="scene", max_visible_pages=None, bind="query-params",
                      persist_state="session")
name = SCENES[scene - 1]
st.caption(s.t("lesson.scene_of", n=scene, total=len(SCENES)))
st.header(f"{scene}. {s.t(f'lesson.{name}.head')}", anchor=False)
ui.need_tokens(s)
seq = tuple(s.tokens)
st.markdown(s.t(f"lesson.{name}.body"))
dict(meaning=meaning, position=position, sum=total, order=order, sinusoidal=sinusoid,
     rope=rotation, alibi=penalty, causal=mask, leak=leak)[name]()

if ui.in_app():
    page = FULL_LESSON[name]
    st.page_link(dict(ui.lesson_pages())[page], label=s.t("lesson.open", page=s.t(f"{page}.nav")),
                 icon=":material/school:", query_params=ui.shared_query(s))
back, forward = st.columns(2)
if scene > 1:
    back.button(f"← {scene - 1}. {s.t(f'lesson.{SCENES[scene - 2]}.head')}", key="lesson_prev",
                on_click=turn_to, args=(scene - 1,), width="stretch")
if scene < len(SCENES):
    forward.button(f"{scene + 1}. {s.t(f'lesson.{SCENES[scene]}.head')} →", key="lesson_next",
                   on_click=turn_to, args=(scene + 1,), width="stretch")
