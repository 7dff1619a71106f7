"""The guided lesson's end, under its last scene: a recap of the eleven scenes on the reader's
sentence, the next steps (every lesson page and the concept check), and the concept check taken
alone: the student answers, sees their own score and why each answer is right, and nothing
leaves the session."""

from __future__ import annotations

import pytest

from tests.helpers.controls import opened
from tests.helpers.lesson import SCENES
from ui import documents, lesson_pages
from ui.answer_key import CHECK
from ui.blocks import walk
from ui.i18n import text
from ui.solo_check import ANCHOR, DONE, PICK


def made(scene: int, lang: str, sentence: str = "刚想到了") -> list[dict]:
    return documents.blocks("lesson", f"scene={scene}&text={sentence}", lang)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_last_scene_ends_with_a_recap_of_every_scene_on_the_sentence(lang):
    blocks = list(walk(made(11, lang)))
    heads = [b["text"] for b in blocks if b["t"] == "heading"]
    assert text("ending.head", lang) in heads
    recap = next(b["text"] for b in blocks if b["t"] == "markdown"
                 and b["text"].startswith(text("ending.intro", lang, sentence="刚想到了")))
    lines = [line for line in recap.splitlines() if line[:1].isdigit()]
    assert len(lines) == len(SCENES) == 11
    for n, (line, name) in enumerate(zip(lines, SCENES, strict=True), start=1):
        assert line.startswith(f"{n}. **{text(f'lesson.{name}.head', lang)}**")
    assert "了到想刚" in recap and "4" in lines[7]  # the reversal; scene 8: four tokens


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_lesson_ends_with_links_to_every_lesson_page_and_the_check(lang):
    blocks = list(walk(made(11, lang)))
    linked = {b["page"] for b in blocks if b["t"] == "link"}
    assert linked == {path for name, path in lesson_pages() if name != "lesson"}
    assert any(f"](#{ANCHOR})" in b["text"] for b in blocks if b["t"] == "markdown")
    assert {"t": "heading", "level": 3, "text": text("ending.check_head", lang),
            "anchor": ANCHOR} in blocks


def test_only_the_last_scene_has_the_end():
    assert not [b for b in walk(made(10, "en")) if b["t"] == "heading"
                and b["text"] == text("ending.head", "en")]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_file_holds_the_check_with_each_right_answer_and_its_reason(lang):
    """In the offline file each question's answer is behind its button: the right option and
    why."""
    questions = [b for b in walk(made(11, lang)) if b["t"] == "question"
                 and b["poll"].startswith("solo-check-")]
    assert len(questions) == len(CHECK) == 6
    for n, (q, right) in enumerate(zip(questions, CHECK, strict=True), start=1):
        assert q["hidden"] and len(q["options"]) == 4
        said = q["answer"][-1]["text"]
        assert said.startswith(f"**{'ABCD'[right]}.**")
        assert text(f"check.q{n}.reason", lang) in said


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_student_alone_answers_and_sees_their_score_and_the_reasons(lang):
    at = opened("pages/0_lesson.py", "刚想到了", lang)
    at.query_params["scene"] = "11"
    at.run()
    assert not at.exception
    at.button(key="solo_check_submit").click().run()  # nothing answered yet: told, not scored
    assert not at.session_state[DONE] and not at.metric
    assert any(text("ending.unanswered", lang, left=6) == w.value for w in at.warning)
    picks = [*CHECK[:5], (CHECK[5] + 1) % 4]  # five right, the last wrong
    for n, pick in enumerate(picks, start=1):
        at.radio(key=PICK.format(n=n)).set_value(pick)
    at.run()
    assert not at.metric  # nothing shown before the student checks
    at.button(key="solo_check_submit").click().run()
    assert not at.exception
    assert at.metric[-1].value == text("ending.score_value", lang, right=5, total=6)
    reasons = " ".join(m.value for m in at.markdown)
    assert all(text(f"check.q{n}.reason", lang) in reasons for n in range(1, 7))
    assert len(at.success) >= 5 and any(
        text("ending.wrong", lang, letter="ABCD"[picks[5]]) == w.value for w in at.warning)
    assert all(r.disabled for r in at.radio if r.key and r.key.startswith("solo_check_"))
    assert "room" not in at.query_params  # taken alone: no room, nothing in the URL
    assert not [k for k in at.query_params if k.startswith("solo")]
    at.button(key="solo_check_again").click().run()
    assert not at.session_state[DONE] and not at.metric
    assert at.radio(key=PICK.format(n=1)).value is None


def test_in_a_room_the_check_is_the_lecturers():
    """A room's followers see the recap, and the check named as the lecturer's, not taken
    alone."""
    blocks = list(walk(documents.blocks("lesson", "scene=11&text=刚想到了", "en", frozenset(),
                                        room=True)))
    assert any(b["t"] == "heading" and b["text"] == text("ending.head", "en") for b in blocks)
    assert not [b for b in blocks if b["t"] == "question" and b["poll"].startswith("solo")]
    assert {"t": "caption", "text": text("ending.check_in_room", "en")} in blocks
