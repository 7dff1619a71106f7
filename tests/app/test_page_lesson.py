"""The guided lesson: eleven scenes in order, kept in the URL, each answering with live numbers."""

import base64
import json

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from posviz.attention import HEAD_DIM, init_layers, queries_keys
from posviz.embedding import token_embeddings
from posviz.permutation import permutation_check, readable, reversal
from posviz.rope import shifted_added_scores, shifted_rope_scores
from posviz.sinusoidal import dot_by_offset
from posviz.tokens import repeated, token_labels, tokenize
from tests.helpers.figure_data import chart_blocks, chart_payloads
from tests.helpers.lesson import SCENES, lesson, reveal
from ui.blocks import walk
from ui.documents import blocks
from ui.i18n import text


def heading(at: AppTest) -> str:
    return at.header[0].value


def expected_heading(n: int, lang: str = "en") -> str:
    return f"{n}. {text(f'lesson.{SCENES[n - 1]}.head', lang)}"


def charts(at: AppTest) -> list[dict]:
    """What the page's charts send to the browser (the sidebar's tools left out)."""
    return [payload for payload in chart_payloads(at) if "figure" in payload]


def buttons(at: AppTest) -> set[str]:
    return {button.key for button in at.button}


@pytest.mark.parametrize(("sentence", "position"), [
    ("刚想到了", True), ("the dog chased the dog", True), ("x", True), ("刚想到了", False)])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_next_and_previous_walk_every_scene_in_order(lang, sentence, position):
    """Forward through every scene revealing each answer, then back to the first."""
    at = lesson(lang=lang, sentence=sentence, position=position)
    for n in range(1, len(SCENES) + 1):
        assert heading(at) == expected_heading(n, lang)
        assert at.pagination[0].value == n
        assert charts(at) or sentence == "x" and n in (4, 9, 11), f"no chart in scene {n}"
        assert (n > 1) == ("lesson_prev" in buttons(at))
        if sentence != "x" or n not in (4, 9, 10, 11):  # one token: nothing to compare
            assert not at.success, "the answer waits for the reveal"
            assert reveal(at, n)
        if n < len(SCENES):
            at.button(key="lesson_next").click().run()
            assert not at.exception
    assert "lesson_next" not in buttons(at)
    for n in range(len(SCENES), 1, -1):
        assert heading(at) == expected_heading(n, lang)
        at.button(key="lesson_prev").click().run()
        assert not at.exception
    assert heading(at) == expected_heading(1, lang)


def test_every_scene_takes_the_longest_sentence():
    """64 tokens, the most a page draws, with a repeat: every scene and answer still works."""
    words = [f"w{chr(97 + i % 26)}{chr(97 + i // 26)}" for i in range(62)]
    at = lesson(sentence=" ".join(["刚", *words, "刚"]))
    assert any(c.value == text("common.n_tokens", "en", n=64) for c in at.caption)
    assert not at.warning
    for n in range(1, len(SCENES) + 1):
        at.pagination[0].set_value(n).run()
        assert not at.exception
        assert charts(at)
        assert reveal(at, n)


def test_the_scene_in_the_link_is_the_scene_shown():
    for n in range(1, len(SCENES) + 1):
        assert heading(lesson(str(n))) == expected_heading(n)


@pytest.mark.parametrize("raw", ["0", "12", "99", "-2", "abc", "", "3.5", "1e3", "scene"])
def test_a_scene_that_does_not_exist_falls_back_to_the_first(raw):
    at = lesson(raw)
    assert heading(at) == expected_heading(1)
    assert at.pagination[0].value == 1


def test_the_picker_jumps_to_any_scene():
    at = lesson()
    at.pagination[0].set_value(7).run()
    assert heading(at) == expected_heading(7)
    at.button(key="lesson_next").click().run()
    assert heading(at) == expected_heading(8)


def test_the_url_leads_the_picker_and_a_link_without_a_scene_keeps_the_last_one():
    """Next writes ?scene=N; a changed URL (the browser's back button) moves the picker; a link
    from another page names no scene and gets the one last shown."""
    at = lesson("5")
    at.button(key="lesson_next").click().run()
    assert at.query_params["scene"] == "6" and at.pagination[0].value == 6
    at.query_params["scene"] = "2"
    at.run()
    assert heading(at) == expected_heading(2) and at.pagination[0].value == 2
    at.pagination[0].set_value(7).run()
    assert at.query_params["scene"] == "7"
    del at.query_params["scene"]
    at.run()
    assert heading(at) == expected_heading(7) and at.query_params["scene"] == "7"


def test_a_revealed_answer_is_hidden_again_after_a_scene_change():
    at = lesson()
    reveal(at, 1)
    at.button(key="lesson_next").click().run()
    assert not at.success
    at.button(key="lesson_prev").click().run()
    assert not at.toggle(key="lesson_reveal_meaning").value
    assert not at.success


def test_empty_sentence_gets_the_friendly_prompt_in_every_scene():
    at = lesson(sentence="")
    for n in range(1, len(SCENES) + 1):
        at.pagination[0].set_value(n).run()
        assert not at.exception
        assert heading(at) == expected_heading(n)
        assert [info.value for info in at.info] == [text("common.empty", "en")]
        assert not charts(at)


def test_one_token_explains_why_the_order_scenes_need_more():
    at = lesson("4", sentence="x")
    assert any(info.value == text("lesson.need_two", "en") for info in at.info)
    for sentence in ("x", "x y"):
        at = lesson("9", sentence=sentence)
        assert any(info.value == text("lesson.need_three", "en") for info in at.info)


def test_embedding_answers_report_the_copy_distances():
    at = lesson("1")
    reveal(at, 1)
    table = at.dataframe[0].value  # its columns named as the reader sees them
    assert table[text("embedding.col.embedding_distance", "en")].tolist() == ["0"]
    at = lesson("3")
    reveal(at, 3)
    inputs = text("embedding.col.input_distance", "en")
    assert float(at.dataframe[0].value[inputs].iloc[0]) > 0.1
    at = lesson("3", position=False)
    assert reveal(at, 3) == ("A", text("lesson.sum.answer_off", "en"))
    assert at.dataframe[0].value[inputs].tolist() == ["0"]


def test_order_answers_quote_the_stack_run_on_both_orders():
    tokens = list("刚想到了")
    x = token_embeddings(tokens, HEAD_DIM * 4)
    bag = permutation_check(x, reversal(4), 2, 4, "none", causal=False).gap
    placed = permutation_check(x, reversal(4), 2, 4, "sinusoidal", causal=False).gap
    assert bag < 1e-12 < 0.1 < placed
    said = reveal(lesson("4"), 4)[1]
    assert readable(bag) in said and readable(placed) in said

    first, second = permutation_check(x, reversal(4, keep_last=True), 2, 4, "none").last_gaps
    assert first < 1e-12 < 0.1 < second
    said = reveal(lesson("9"), 9)[1]
    assert said.startswith("**Not after layer 1")
    assert readable(first) in said and readable(second) in said


def test_a_reordering_that_reads_the_same_says_so():
    assert reveal(lesson("9", sentence="a b a c"), 9)[1].startswith("**Here it changes in neither")


def test_rope_answer_shows_the_score_unmoved_and_the_added_one_moved():
    layer = init_layers(1, 64)[0]
    x = token_embeddings(list("刚想到了"), 64)
    q, k = (heads[0] for heads in queries_keys(x, layer, n_heads=1))
    moved = np.array([0, 100])
    rope_before, rope_after = shifted_rope_scores(q, k, 3, 0, moved)
    added_before, added_after = shifted_added_scores(x, layer.wq, layer.wk, 3, 0, moved)
    said = reveal(lesson("6"), 6)[1]
    gap = readable(abs(rope_after - rope_before))
    assert f"{rope_before:.3f} before the move, {rope_after:.3f} after (difference {gap}:" in said
    assert abs(rope_after - rope_before) < 1e-9 and f"{rope_before:.3f}" == f"{rope_after:.3f}"
    assert f"from {added_before:.3f} to {added_after:.3f}" in said
    assert abs(added_after - added_before) > 0.01  # 9.062 to 9.025: moved, at the digits shown


def test_causal_answer_gives_the_first_token_all_its_attention():
    assert "its weight on itself is 1.0000" in reveal(lesson("8"), 8)[1]


def test_position_answer_compares_real_dot_products():
    same, near, far = dot_by_offset(np.array([0, 1, 10]), 16)
    assert near > far
    said = reveal(lesson("2"), 2)[1]
    assert f"row 0 is {near:.2f}; row 10 gets only {far:.2f} (row 0 with itself: {same:.2f})" \
        in said


@pytest.mark.parametrize(("position", "letters"), [
    (True, "BABBBBAAB"),   # the facts of each scene, for 刚想到了
    (False, "..A......")])  # without position the copies' inputs stay equal (scene 3)
def test_the_right_options_follow_from_the_live_numbers(position, letters):
    for n, letter in enumerate(letters, start=1):
        if letter != ".":
            at = lesson(scene=str(n), sentence="刚想到了", position=position)
            assert reveal(at, n)[0] == letter, SCENES[n - 1]


@pytest.mark.parametrize("sentence", ["刚想到了", "the dog chased the dog"])
def test_the_first_scene_draws_the_questions_sentence_with_the_copy_marked(sentence):
    """Scene 1 asks about the first token copied to the end: its chart has that row, marked
    like the token it copies (and any other repeated token); its title says the copy is there
    and explains the mark."""
    figure = json.loads(next(block["figure"] for block in blocks(
        "lesson", f"scene=1&text={sentence}", "en") if block["t"] == "chart"))
    tokens = tokenize(sentence)
    rows = figure["data"][0]["y"]
    assert len(rows) == len(tokens) + 1
    marked = [n for n, row in enumerate(rows) if row.startswith("◆")]
    assert 0 in marked and len(tokens) in marked
    assert marked == sorted(t for ts in repeated([*tokens, tokens[0]]).values() for t in ts)
    assert figure["layout"]["title"]["text"] == text("lesson.meaning.fig", "en")


def chart_figures(sentence: str, scene: int, lang: str = "en") -> dict[str, dict]:
    """A scene's charts (its answer's included), by name, as the browser gets them."""
    return {block["name"]: json.loads(block["figure"]) for block in
            chart_blocks(blocks("lesson", f"scene={scene}&text={sentence}", lang))}


def values(array: dict | list) -> np.ndarray:
    """A figure's array as plotly's JSON holds it (base64 with its type and shape, or a list)."""
    if isinstance(array, list):
        return np.asarray(array, dtype=float)
    flat = np.frombuffer(base64.b64decode(array["bdata"]), dtype=array["dtype"])
    return flat.reshape([int(n) for n in str(array.get("shape", len(flat))).split(",")])


def test_the_order_scene_draws_the_case_it_asks_about_and_answers_with_the_output_change():
    """Scene 4 asks about no position and no causal mask: its maps are that case (the reversed
    sentence's map is yours with rows and columns reversed), and its answer draws the output
    change it quotes: rounding error without position, the quoted number with sinusoidal."""
    charts = chart_figures("刚想到了", 4)
    maps = [t for t in charts["lesson_order"]["data"] if t["type"] == "heatmap"]
    assert [m["y"] for m in maps] == [token_labels(list("刚想到了")),
                                     token_labels(list("了到想刚"))]
    yours, turned = (values(m["z"]) for m in maps)
    np.testing.assert_allclose(turned, yours[::-1, ::-1], atol=1e-6)
    none, sinusoidal = charts["lesson_order_change"]["data"]
    assert values(none["y"]).max() < 1e-12
    said = reveal(lesson("4"), 4)[1]
    assert readable(float(values(sinusoidal["y"]).max())) in said


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_sentence_that_reads_the_same_reversed_says_nothing_moved(lang):
    at = lesson("4", lang=lang, sentence="我我我")
    assert reveal(at, 4) == ("B", text("lesson.order.answer_same", lang))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_position_answer_says_similarity_is_not_monotone_with_the_true_numbers(lang):
    """Scene 2's answer quotes PE(0)·PE(19) > PE(0)·PE(2) > PE(0)·PE(3) at the scene's width:
    similarity peaks at the neighbours but does not fall steadily with the distance."""
    from ui.cached.lesson import EMBED_D

    far, two, three = dot_by_offset(np.array([19, 2, 3]), EMBED_D)
    assert EMBED_D == 16 and far > two > three
    said = reveal(lesson("2", lang=lang), 2)[1]
    for row, dot in ((19, far), (2, two), (3, three)):
        assert str(row) in said and f"{dot:.2f}" in said


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_rope_answer_names_the_signed_offset(lang):
    assert "n − m" in reveal(lesson("6", lang=lang), 6)[1]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_with_position_off_the_p_panel_says_it_is_zero(lang):
    """Scene 3 with the switch off: the P panel is all zeros, and says so in its title rather
    than showing a blank panel."""
    def titles(query: str) -> str:
        return json.dumps([json.loads(b["figure"]) for b in walk(blocks("lesson", query, lang))
                           if b["t"] == "chart"], ensure_ascii=False)  # as text, not escapes
    off, on = titles("scene=3&pos=false"), titles("scene=3")
    assert text("embedding.panel_p_off", lang) in off
    assert text("embedding.panel_p_off", lang) not in on and text("embedding.panel_p", lang) in on


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_with_position_off_scene_3_says_the_input_is_e_alone(lang):
    """Scene 3's body speaks of x = E + P in general: with the switch off, a note says P is
    zeros and x = E, in the app's words (the sidebar) and in a room screen's (this view)."""
    said = text("lesson.sum.off", lang)
    assert lesson("3", lang=lang, position=False).info[0].value == said
    assert said not in [i.value for i in lesson("3", lang=lang).info]
    viewer = [b["text"] for b in walk(blocks("lesson", "scene=3&pos=false", lang))
              if b["t"] == "note"]
    assert viewer[0] == text("lesson.sum.off_viewer", lang) and "x = E" in viewer[0]


@pytest.mark.parametrize(("typed", "lang", "said"), [
    ("刚想到了", "zh", ["“刚想到了”和“了到想刚”", "“刚”紧挨在“想”之前"]),
    ("刚想到了", "en", ["“刚想到了” and “了到想刚”", "“刚” comes right before “想”"]),
    ("the cat sat", "en", ["“the cat sat” and “sat cat the”", "“the” comes right before “cat”"]),
    ("猫 sat", "zh", ["“猫 sat”和“sat 猫”", "“猫”紧挨在“sat”之前"]),
    ("我我我", "en", ["“我我我” reads the same reversed"]),
])
def test_scene_4_speaks_of_the_typed_sentence_and_its_reversal(typed, lang, said):
    made = blocks("lesson", f"scene=4&text={typed}", lang)
    prose = " ".join(b["text"] for b in made if b["t"] == "markdown")
    for words in said:
        assert words in prose, prose
    if typed != "刚想到了":
        assert "“刚想到了” and “了到想刚” hold" not in prose
        assert "“刚想到了”和“了到想刚”用" not in prose


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_scene_6_teaches_the_channel_pairing_that_scene_11_asks_about(lang):
    """Scene 11 asks which map comes from a port that paired channels wrongly: scene 6 says
    which channels RoPE pairs, that the code chooses, and that scene 11 asks about it."""
    from ui import documents
    from ui.i18n import text

    said = [b.get("text") for b in documents.blocks("lesson", "scene=6", lang)]
    assert text("lesson.rope.pairing", lang) in said
