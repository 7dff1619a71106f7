"""The guided lesson's eleven scenes: each draws the lesson pages' own figures for the
sidebar's sentence and switch, and asks its question (ui.lesson.questions), answered with
numbers computed on the spot."""

import numpy as np

import ui
from posviz import modern, ports, proportional, rope
from posviz.alibi import heads_shown, mean_attention_distance
from posviz.attention import HEAD_DIM
from posviz.embedding import token_embeddings
from posviz.permutation import readable, reads_the_same, reordered, reversal
from posviz.sinusoidal import FORMULA, dot_by_offset
from posviz.tokens import MAX_TOKENS
from rooms import LETTERS
from ui import answer_key as right_option
from ui import live
from ui.cached import alibi, attention
from ui.cached import lesson as cached
from ui.cached import schemes as clinic
from ui.lesson.questions import (
    PICK_KEYS,
    Stage,
    ask,
    distance_table,
    picked_here,
    picked_keys,
    picture,
)
from ui.markup import literal, written

SCENES = ("meaning", "position", "sum", "order", "sinusoidal", "rope", "alibi", "causal", "leak",
          "today", "port")
FULL_LESSON = dict(meaning="embedding", position="sinusoidal", sum="embedding", order="attention",
                   sinusoidal="sinusoidal", rope="rope", alibi="alibi", causal="attention",
                   leak="attention", today="today", port="today")
# The scenes' own numbers; each lesson page's default settings are in ui.cached.lesson.
SAME, NEAR, FAR = 0, 1, 10      # the rows compared in scene 2
OFFSET = 3                      # scene 5: k places after against k places before
SHIFT = 100                     # scene 6 moves the sentence this far
CHUNK = 2                       # scene 10's chunk, standing in for Llama 4's 8,192
PORT_BUG = "gemma4_prefix"      # scene 11's port: Gemma 4's channels paired inside their stretch


# The scenes: each draws its figures for the sentence (seq) and asks its question.


def meaning(d: ui.Doc, s: ui.Settings, seq: tuple[str, ...], at: Stage) -> None:
    # the question's sentence: the copy's row is marked (◆) beside the token it copies
    at.figure.chart(cached.embedding_figure((*seq, seq[0]), ("panel_e",), s.position, s.lang,
                                       "lesson.meaning.fig"), "lesson_meaning", fit=True,
                    live=cached.embedding_live(("panel_e",), s.position, s.lang, True,
                                               "lesson.meaning.fig"))
    d.caption(s.t("lesson.copied"))
    d.chips([*s.tokens, s.tokens[0]])
    rows = cached.copy_distances(seq, s.position)
    copy = right_option.copy_row(rows, len(seq))
    if answer := ask(at.question, s, "meaning", right_option.meaning(copy["embedding_distance"])):
        distance_table(answer, s, rows, ("embedding_distance",))


def position(d: ui.Doc, s: ui.Settings, seq: tuple[str, ...], at: Stage) -> None:
    if not s.position:
        d.info(s.t("lesson.position.off"))
    at.figure.chart(cached.position_figure(len(seq), s.lang), "lesson_position", fit=True,
                    live=live.frame(MAX_TOKENS))
    same_dot, near_dot, far_dot = dot_by_offset(np.array([0, NEAR - SAME, FAR - SAME]),
                                                cached.EMBED_D)
    ask(at.question, s, "position", right_option.position(near_dot, far_dot), same=SAME, near=NEAR,
        far=FAR, same_dot=same_dot, near_dot=near_dot, far_dot=far_dot)


def total(d: ui.Doc, s: ui.Settings, seq: tuple[str, ...], at: Stage) -> None:
    if not s.position:
        d.info(s.t("lesson.sum.off"))
    at.figure.chart(cached.embedding_figure(seq, ("panel_e", "panel_p", "panel_x"), s.position,
                                       s.lang), "lesson_sum", fit=True,
                    live=cached.embedding_live(("panel_e", "panel_p", "panel_x"), s.position,
                                               s.lang, False))
    d.caption(s.t("embedding.sum_caption"))
    rows = cached.copy_distances(seq, s.position)
    copy = right_option.copy_row(rows, len(seq))
    if answer := ask(at.question, s, "sum", right_option.total(copy["input_distance"]),
                     None if s.position else "lesson.sum.answer_off"):
        distance_table(answer, s, rows, ("embedding_distance", "input_distance"))


def order(d: ui.Doc, s: ui.Settings, seq: tuple[str, ...], at: Stage) -> None:
    if len(seq) < 2:
        d.chips(s.tokens)
        d.info(s.t("lesson.need_two"))
        return
    backwards = tuple(reversal(len(seq)).tolist())
    turned_tokens = reordered(s.tokens, backwards)
    same = reads_the_same(s.tokens, backwards)  # 我我我: the same sentence again
    # the scene's text speaks of the typed sentence (刚想到了 and 了到想刚 when it is that one)
    d.markdown(s.t("lesson.order.body_same" if same else "lesson.order.body",
                   sentence=literal(written(s.tokens)), reversed=literal(written(turned_tokens)),
                   a=literal(s.tokens[0]), b=literal(s.tokens[1])))
    # the case the question asks about, whatever the switch: no position, no causal mask
    at.figure.chart(cached.order_figure(seq, backwards, s.lang), "lesson_order", fit=True,
                    live=live.attention(cached.LAYERS, cached.HEADS, "none", False, -1,
                                        ("same", "reversed"), layout="order_maps"))
    yours, turned = d.columns(2)
    yours.caption(s.t("lesson.order.yours"))
    yours.chips(s.tokens)
    turned.caption(s.t("lesson.order.reversed"))
    turned.chips(turned_tokens, [str(k) for k in backwards])
    none, sinusoidal = (attention.check(seq, backwards, cached.LAYERS, cached.HEADS, name, False)
                        for name in ("none", "sinusoidal"))
    if answer := ask(at.question, s, "order", right_option.order(none.gap),
                     "lesson.order.answer_same" if same else None, none=readable(none.gap),
                     sinusoidal=readable(sinusoidal.gap)):
        answer.chart(cached.change_figure(seq, backwards, s.lang), "lesson_order_change",
                     live=live.change(cached.LAYERS, cached.HEADS, cached.CHANGE_SCHEMES, False))


def sinusoid(d: ui.Doc, s: ui.Settings, seq: tuple[str, ...], at: Stage) -> None:
    d.formula(FORMULA)
    if not s.position:
        d.info(s.t("sinusoidal.position_off"))
    heatmap, curve = cached.sinusoidal_figures(len(seq), s.lang)
    at.figure.chart(heatmap, "lesson_sinusoidal", fit=True, live=live.frame(cached.SINE_N))
    after, before = dot_by_offset(np.array([OFFSET, -OFFSET]), cached.SINE_D)
    if answer := ask(at.question, s, "sinusoidal", right_option.sinusoidal(after, before), k=OFFSET,
                     after=after, before=before):
        answer.chart(curve, "lesson_offset", live=live.fixed())


def rotation(d: ui.Doc, s: ui.Settings, seq: tuple[str, ...], at: Stage) -> None:
    if not s.position:
        d.warning(s.t("rope.no_position"))
    at.figure.chart(cached.rope_figure(seq, s.position, s.lang), "lesson_rope", fit=True,
                    live=cached.rope_live(s.position, s.lang))
    d.formula(rope.FORMULA)  # under the figure: a projector shows the figure first
    d.markdown(s.t("lesson.rope.pairing"))  # which channels pair: what scene 11 asks about
    x, q, k, wq, wk = cached.rope_head(seq)
    last, moved = len(seq) - 1, np.array([0, SHIFT])
    rope_before, rope_after = rope.shifted_rope_scores(q, k, last, 0, moved)
    added_before, added_after = rope.shifted_added_scores(x, wq, wk, last, 0, moved)
    ask(at.question, s, "rope",
        right_option.rope(rope_before, rope_after, added_before, added_after),
        shift=SHIFT, rope_before=rope_before, rope_after=rope_after,
        rope_gap=readable(abs(rope_after - rope_before)), added_before=added_before,
        added_after=added_after)



def penalty(d: ui.Doc, s: ui.Settings, seq: tuple[str, ...], at: Stage) -> None:
    if not s.position:
        d.info(s.t("alibi.position_off"))
    at.figure.chart(alibi.grid_figure(seq, cached.ALIBI_HEADS, s.position, s.lang, room=True),
                    "lesson_alibi", fit=True,
                    live=live.alibi(cached.ALIBI_HEADS, heads_shown(cached.ALIBI_HEADS),
                                    s.position))
    weights = alibi.weights(seq, cached.ALIBI_HEADS)
    if s.position and picked_here(d, s, seq):  # where head 1's weight goes, under its penalty
        query = picked_keys(seq) - 1
        picture(at.question, s, "alibi", seq, weights[0, 0], query,
                right_option.most_attended(weights[0, 0][query, :query + 1]))
    with_bias, without = (mean_attention_distance(w) for w in weights)
    if answer := ask(at.question, s, "alibi", right_option.alibi(with_bias[0], without[0],
                                                       with_bias[-1], without[-1]),
                     last=cached.ALIBI_HEADS, first_with=with_bias[0],
                     first_without=without[0], last_with=with_bias[-1],
                     last_without=without[-1]):
        # with the bias and without, whatever the switch: the ALiBi page's bars with position on
        answer.chart(alibi.distance_figure(seq, cached.ALIBI_HEADS, True, s.lang),
                     "lesson_alibi_distance")


def mask(d: ui.Doc, s: ui.Settings, seq: tuple[str, ...], at: Stage) -> None:
    scheme = "sinusoidal" if s.position else "none"
    run = attention.stack(seq, 1, cached.HEADS, scheme, True)
    weights = run.mean_weights(0)
    # predicted before it is shown: where the mask makes a middle token's row grey
    query = (picked_keys(seq) - 1) // 2
    if not picked_here(d, s, seq) or picture(
            at.question, s, "causal", seq, weights, query,
            right_option.first_hidden(weights[query, :PICK_KEYS]),
            seen=float(weights[query, :query + 1].sum())):
        at.figure.chart(cached.causal_figure(seq, scheme, s.lang), "lesson_causal", fit=True,
                        live=live.attention(1, cached.HEADS, scheme, True, 0, scale="fixed"))
    else:
        d.info(s.t("lesson.picture_hidden"))
    weight = run.mean_weights(0)[0, 0]
    ask(at.question, s, "causal", right_option.causal(weight, len(seq)), weight=weight, n=len(seq))


def leak(d: ui.Doc, s: ui.Settings, seq: tuple[str, ...], at: Stage) -> None:
    if len(seq) < 3:
        d.info(s.t("lesson.need_three"))
        return
    new_order = tuple(reversal(len(seq), keep_last=True).tolist())
    moved = reordered(s.tokens, new_order)
    at.figure.chart(attention.twin_figure(seq, new_order, cached.LAYERS, cached.HEADS, "none", True,
                                      s.lang, "lesson.leak.fig"),
               "lesson_leak", fit=True)
    d.caption(s.t("lesson.leak.reordered"))
    d.chips(moved, [str(k) for k in new_order])
    leaked = attention.check(seq, new_order, cached.LAYERS, cached.HEADS, "none", True)
    first, second = leaked.last_gaps[:2]
    ask(at.question, s, "leak", right_option.leak(first, second),
        None if moved != s.tokens else "lesson.leak.answer_same",
        first=readable(first), second=readable(second))


def today(d: ui.Doc, s: ui.Settings, seq: tuple[str, ...], at: Stage) -> None:
    at.figure.chart(cached.irope_figure(seq, CHUNK, s.lang), "lesson_today", fit=True)
    if len(seq) < 2:
        d.info(s.t("lesson.need_two"))
        return
    backwards = reversal(len(seq))
    x = token_embeddings(list(seq), HEAD_DIM * cached.HEADS)
    mixed, bag = (modern.layered_gap(x, backwards, schemes, cached.HEADS)
                  for schemes in (("rope", "none"), ("none", "none")))
    if reads_the_same(s.tokens, backwards):  # 我我我: the same sentence, nothing moves
        ask(at.question, s, "today", 0, "lesson.today.answer_same")
    else:
        ask(at.question, s, "today", right_option.today(mixed), mixed=readable(mixed),
            bag=readable(bag))


def port(d: ui.Doc, s: ui.Settings, seq: tuple[str, ...], at: Stage) -> None:
    b = ports.bug(PORT_BUG)
    share = modern.value(b.model, "full_partial_rotary_factor")
    lanes = 2 * proportional.turned_pairs(b.width, share)
    d.markdown(s.t("lesson.port.body", wide=b.width, lanes=lanes, across=b.width // 2,
                   inside=lanes // 2))
    if len(seq) < 2:
        d.chips(s.tokens)
        d.info(s.t("lesson.port.need_two"))
        return
    side = ports.port_side("\x1f".join(seq))  # the same on every screen, for this sentence
    letters = [LETTERS[n] for n in range(2)]
    at.figure.chart(clinic.maps_figure(seq, PORT_BUG, tuple(s.t("lesson.port.panel", letter=letter)
                                                        for letter in letters), side == 0,
                                  s.lang), "lesson_port", fit=True)
    read = clinic.reading(seq, PORT_BUG)
    i, j = read.largest
    kept, lost = (ports.looks_back(w) for w in read.weights)
    figure = next(r["figure"] for r in ports.reports(PORT_BUG) if "figure" in r)
    if answer := ask(at.question, s, "port", right_option.port(side), letter=letters[side],
                     model=letters[1 - side], kept=kept, lost=lost, queries=len(seq) - 1,
                     query=i, cell=j,
                     own=f"{read.weights[0][i, j]:.3f}", port=f"{read.weights[1][i, j]:.3f}",
                     figure=figure):
        answer.metric(s.t("schemes.largest"), readable(read.change), border=True)



SCENE_BODIES = dict(meaning=meaning, position=position, sum=total, order=order,
                    sinusoidal=sinusoid, rope=rotation, alibi=penalty, causal=mask, leak=leak,
                    today=today, port=port)
