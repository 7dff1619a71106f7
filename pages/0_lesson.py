"""Guided lesson: the argument of the lessons in eleven scenes, each with a question for the room.

Every scene draws the lesson pages' own figures for the sidebar's sentence and switch, and
answers its question with numbers computed on the spot. The scene lives in the URL (?scene=N),
so a lecturer can prepare one link per slide. The figures and numbers are cached in
ui.cached.lesson, or in a lesson page's module where a scene shows that page's own.
"""


from typing import NamedTuple

import numpy as np
import streamlit as st

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
from ui import lesson_end, live
from ui.cached import alibi, attention
from ui.cached import lesson as cached
from ui.cached import schemes as clinic
from ui.markup import literal, written
from ui.room.picture import class_picture
from ui.room.polls import lesson_poll, options_list

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
PROJECTOR_COLUMNS = (4, 1)  # a projector's figure and question side by side, for a question
ABOUT_THE_FIGURE = ("port",)  # about what only the figure shows (which map is the port's)
PICK_KEYS = 6                   # a predicted picture's keys: the marked token is the last of
# the first six (a poll has at most six options)


class Stage(NamedTuple):
    """Where a scene puts its figure and its question: on a projector the figure under the
    scene's title, fitted to the window; a question about what only the figure shows beside it
    (PROJECTOR_COLUMNS), so that the two are on one screen."""
    figure: ui.Doc
    question: ui.Doc


def polled(d: ui.Doc, s: ui.Settings, name: str, lead: str, question: str, labels: list[str],
           right: int) -> ui.Doc | None:
    """A scene's question (poll `scene-<name>`, option `right` right): a poll of the room in a
    lecture room, else revealed by a toggle of its own; returns where its answer goes once it
    is shown."""
    def asked(box, options: list[str]) -> bool:
        revealed = lesson_poll(box, s, s.room, name, question, options, right)
        if revealed is None:
            options_list(box, options)
            revealed = box.toggle(s.t("lesson.reveal"), key=f"lesson_reveal_{name}")
        return revealed

    return d.question(f"scene-{name}", lead, question, labels, asked)


def ask(d: ui.Doc, s: ui.Settings, name: str, right: int, answer: str | None = None,
        **numbers: object) -> ui.Doc | None:
    """The scene's question in a box with its lettered options (option `right` is right).

    In a lecture room the question is a poll of the room (ui.room), and the answer shows once
    the lecturer reveals it; elsewhere a toggle (its own per scene) reveals it. The answer is
    filled with the live numbers. Returns the box once the answer is shown, for more of it.
    """
    question = s.t(f"lesson.{name}.question", **numbers)
    labels = [s.t(f"lesson.{name}.options.{letter}", **numbers)
              for letter in "abcdef"[:right_option.OPTIONS[name]]]
    box = polled(d, s, name, s.t("lesson.predict"), question, labels, right)
    if box is not None:
        said = s.t(answer or f"lesson.{name}.answer", **numbers)
        box.success(f"**{LETTERS[right]}.** " + said)
        if d.live:  # the app's page: the answer is said to a screen reader as it shows
            ui.announce(f"{LETTERS[right]}. {said}".replace("**", "").replace("$", ""))
    return box


def distance_table(d: ui.Doc, s: ui.Settings, rows: list[dict[str, object]],
                   columns: tuple[str, ...]) -> None:
    """The embedding lesson's table of repeated tokens, with the given distance columns."""
    d.dataframe(rows, {key: s.t(f"embedding.col.{key}")
                       for key in ("token", "first", "second", *columns)})


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
                                        ("same", "reversed")))
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
        answer.chart(cached.change_figure(seq, backwards, s.lang), "lesson_order_change")


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
    at.figure.chart(cached.rope_figure(seq, s.position, s.lang), "lesson_rope", fit=True)
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


def in_room(d: ui.Doc, s: ui.Settings) -> bool:
    """Whether the page is drawn for a lecture room: the app's page of a member, or a room's
    followers' document (a file has no room)."""
    return s.room is not None if d.live else d.room


def picture(d: ui.Doc, s: ui.Settings, name: str, seq: tuple[str, ...], weights: np.ndarray,
            query: int, truth: int, **answered: object) -> bool:
    """In a lecture room, the predicted picture: before the map is shown, the class taps a key
    of the first PICK_KEYS for the marked token (query), and `truth` is the right key, decided
    by weights (the model's (T, T) attention). Once revealed, the answer
    (`lesson.<name>.pick_answer`, filled with answered), and on the app's page the class's
    picture beside the model's row. Returns whether the answer is shown (always, outside a
    room)."""
    n = min(len(seq), PICK_KEYS)
    row = weights[query, :n]
    options = [f"{key} {token[:40]}" for key, token in enumerate(seq[:n])]
    question = s.t(f"lesson.{name}.pick", n=query, token=literal(seq[query]))
    box = polled(d, s, f"{name}pick", s.t("lesson.predict_picture"), question, options, truth)
    if box is None:
        return False
    box.success(s.t(f"lesson.{name}.pick_answer", n=query, cell=truth,
                    token=literal(seq[truth]), weight=float(row[truth]), **answered))
    if d.live:
        class_picture(box.where, s, f"scene-{name}pick", seq[:n], row, query, truth)
    return True


def picked_here(d: ui.Doc, s: ui.Settings, seq: tuple[str, ...]) -> bool:
    """Whether a predicted picture is asked here: in a lecture room, of two tokens or more."""
    return min(len(seq), PICK_KEYS) >= 2 and in_room(d, s)


def penalty(d: ui.Doc, s: ui.Settings, seq: tuple[str, ...], at: Stage) -> None:
    if not s.position:
        d.info(s.t("alibi.position_off"))
    at.figure.chart(alibi.grid_figure(seq, cached.ALIBI_HEADS, s.position, s.lang, room=True),
                    "lesson_alibi", fit=True,
                    live=live.alibi(cached.ALIBI_HEADS, heads_shown(cached.ALIBI_HEADS),
                                    s.position))
    weights = alibi.weights(seq, cached.ALIBI_HEADS)
    if s.position and picked_here(d, s, seq):  # where head 1's weight goes, under its penalty
        query = min(len(seq), PICK_KEYS) - 1
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
    query = (min(len(seq), PICK_KEYS) - 1) // 2
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


def turn_to(scene: int) -> None:
    """Previous / next: the scene lives in the URL (?scene=N)."""
    st.query_params["scene"] = str(scene)


def picked(key: str) -> None:
    turn_to(st.session_state[key])


def scene_number(raw: str) -> int:
    """The scene a link names (?scene=N), 1 for anything else."""
    return int(raw) if raw.isdigit() and 1 <= int(raw) <= len(SCENES) else 1


def scene_picker() -> int:
    """The scene picker showing the scene the URL names (the last one shown in this session
    when the link names none, 1 when it names no scene); returns that scene.

    Previous / next and the browser's back button change the URL, never the picker's value:
    Streamlit warns whenever code sets an st.pagination (it always holds its default against a
    value set through st.session_state). A picker left showing another scene is replaced by a
    new one, under a new key, with the scene as its default.
    """
    scene = scene_number(st.query_params.get("scene", st.session_state.get("lesson_scene", "1")))
    key = f"lesson_picker_{st.session_state.setdefault('lesson_pickers', 0)}"
    if st.session_state.get(key, scene) != scene:
        st.session_state.lesson_pickers += 1
        key = f"lesson_picker_{st.session_state.lesson_pickers}"
    st.pagination(len(SCENES), default=scene, key=key, max_visible_pages=None, on_change=picked,
                  args=(key,))
    st.session_state.lesson_scene = st.query_params["scene"] = str(scene)
    return scene


def navigation(s: ui.Settings, scene: int, name: str) -> None:
    """Under the scene, in the app: its full lesson page, back and next, the keys' hint."""
    if ui.in_app():
        page = FULL_LESSON[name]
        st.page_link(dict(ui.lesson_pages())[page],
                     label=s.t("lesson.open", page=s.t(f"{page}.nav")),
                     icon=":material/school:", query_params=ui.shared_query(s))
    back, forward = st.columns(2)
    if scene > 1:
        back.button(f"← {scene - 1}. {s.t(f'lesson.{SCENES[scene - 2]}.head')}",
                    key="lesson_prev", on_click=turn_to, args=(scene - 1,), width="stretch")
    if scene < len(SCENES):
        forward.button(f"{scene + 1}. {s.t(f'lesson.{SCENES[scene]}.head')} →",
                       key="lesson_next", on_click=turn_to, args=(scene + 1,), width="stretch")
    st.caption(s.t("lesson.keys"))


# The scene's title is the headline: the lesson's own title shrinks to a line above it, and
# the scene picker shares a row with "Scene 4 of 9", so that a projector (1280 x 720) shows the
# scene's figure on its first screen.
COMPACT_CSS = """<style>
[data-testid=stMain] h1 {font-size: 1rem; font-weight: 600; padding: 0 0 .25rem; opacity: .8}
.st-key-lesson_bar {gap: 0}
.st-key-lesson_bar [data-testid=stCaptionContainer] {text-align: right}
[data-testid=stMain] h2 {padding-top: .25rem}
</style>"""
# In presentation mode the scene's title is the page's headline: the lesson's own title is
# left to screen readers, and the scene's takes less height, which its figure gets.
PROJECTOR_CSS = """<style>
[data-testid=stMain] h1 {position: absolute; width: 1px; height: 1px; overflow: hidden;
  clip-path: inset(50%); white-space: nowrap}
[data-testid=stMain] h2 {font-size: 2rem !important; padding: 0 0 .5rem}
</style>"""


def body(d: ui.Doc, s: ui.Settings) -> None:
    if d.live:
        st.html(COMPACT_CSS + (PROJECTOR_CSS if s.present else ""))
        picker, where = st.container(key="lesson_bar").columns(
            [4, 1], vertical_alignment="center")
        with picker:
            scene = scene_picker()
        ui.open_at_top(f"lesson/{scene}", next_button="lesson_next", back_button="lesson_prev",
                       pager={"nav": s.t("lesson.pager_nav"),
                              "previous": s.t("lesson.pager_previous"),
                              "next": s.t("lesson.pager_next"),
                              "pages": [s.t("lesson.pager_scene", n=n, head=s.t(
                                  f"lesson.{name}.head")) for n, name in enumerate(SCENES, 1)]})
        beside = ui.StreamlitDoc(where, d.record, d.blocks, d.lang)  # in the page's document, too
    else:
        scene = scene_number((d.query.get("scene") or ["1"])[-1])
        beside = d
    beside.caption(s.t("lesson.scene_of", n=scene, total=len(SCENES)))
    name = SCENES[scene - 1]
    d.header(f"{scene}. {s.t(f'lesson.{name}.head')}")
    ui.need_tokens(d, s)
    # a projector shows the scene's figure under its heading, whole (fitted in the window:
    # ui.chart), a question about the figure beside it, and the words under the figure
    if s.present and name in ABOUT_THE_FIGURE:
        at = Stage(*d.columns(PROJECTOR_COLUMNS))
    else:
        at = Stage(d.container() if s.present else d, d)
    if name not in ("order", "port"):  # scenes 4 and 11 write their own, with their numbers
        d.markdown(s.t(f"lesson.{name}.body"))
    SCENE_BODIES[name](d, s, tuple(s.tokens), at)
    if d.live:
        navigation(s, scene, name)
    if scene == len(SCENES):  # the lesson's end: a recap, what next, the concept check alone
        lesson_end.section(d, s, SCENES, in_room(d, s))


SCENE_BODIES = dict(meaning=meaning, position=position, sum=total, order=order,
                    sinusoidal=sinusoid, rope=rotation, alibi=penalty, causal=mask, leak=leak,
                    today=today, port=port)

if __name__ == "__main__":
    ui.run("lesson", body)
