"""The document declared once (ui/blocks.py): every block every page records is of a declared
kind with exactly its fields, each of its type; one walk reaches every block; each kind is drawn
by a function of its name in both renderers, side by side in the declared order; the viewer
says so, visibly, for a block of any other kind or with any other field; a page holding one
block of every kind is drawn by both renderers (Streamlit in the app, the viewer in a file
opened in Chromium); the server checks every document it sends under POSVIZ_CHECK_DOCUMENTS."""

from __future__ import annotations

import ast
import json
import re

import pytest
from playwright.sync_api import expect
from streamlit.testing.v1 import AppTest

from tests.conftest import ROOT
from ui import blocks_streamlit, documents
from ui.blocks import KINDS, check, check_document, walk
from ui.doc import Doc
from ui.i18n import text

VIEWER_BLOCKS = ROOT / "assets" / "viewer" / "src" / "viewer" / "blocks.js"


def every_kind(d, link: bool = True) -> None:
    """A page that writes one block of every kind, some of them nested (a link only in the
    app's pages, whose folder holds the page it names)."""
    import plotly.graph_objects as go

    d.title("Every kind")
    d.markdown("**Markdown**, $x^2$")
    d.caption("A caption")
    d.info("A note")
    d.formula(r"a^2 + b^2 \qquad c^2")
    d.chart(go.Figure(go.Scatter(x=[0, 1], y=[1, 0])), "line")
    d.metric("A metric", "1.0", "+0.5")
    d.table({"col": [1, 2]})
    d.chips(["刚", "想"])
    if link:
        d.link("RoPE", "pages/3_rope.py", {})
    d.slider("A slider", 0, 10, 3, key="every_slider")
    left, right = d.columns(2)
    left.markdown("Left")
    right.caption("Right")
    d.container(border=True).markdown("In a box")
    slot = d.empty()
    slot.markdown("Replaced")
    slot.markdown("In a slot")
    d.expander("More").markdown("Inside")
    answer = d.question("q1", "Question:", "Which?", ["A thing", "Another"],
                        lambda box, options: True)
    if answer is not None:
        answer.success("The answer")
    d.asked("q2", "A question from the lecturer", "Typed *as is* <b>?</b>", ["Yes", "No"])
    d.check("Concept check", "Answer what you think now.").asked(
        "check-pre-1", "Question 1 of 1", "Which one?", ["This", "That"])


def recorded() -> list[dict]:
    d = Doc()  # a file's: every answer kept, behind a button
    every_kind(d)
    return d.blocks


def test_the_fixture_holds_every_kind_and_each_block_is_declared():
    made = list(walk(recorded()))
    assert {block["t"] for block in made} == set(KINDS)
    for block in made:
        check(block)
    assert [b["text"] for b in made if b["t"] in ("markdown", "caption")][-5:] == [
        "Left", "Right", "In a box", "In a slot", "Inside"]  # nested blocks, in reading order


CHART = {"t": "chart", "name": "c", "figure": "{}", "toolbar": True, "summary": "", "fit": False}


@pytest.mark.parametrize("bad", [
    {"t": "bogus"}, {"t": "caption"}, {"t": "caption", "text": "x", "extra": 1}, {}, "caption",
    {"t": "caption", "text": 1}, {"t": "heading", "level": "1", "text": "x"},
    {"t": "heading", "level": True, "text": "x"}, CHART | {"fit": None},
    {"t": "note", "kind": "shout", "text": "x"},
    {"t": "table", "head": ["a"], "rows": [["1"]], "holds": ["digits"], "form": "table"},
    {"t": "table", "head": ["a"], "rows": [[1]], "holds": ["whole"], "form": "table"},
    {"t": "link", "text": "x", "page": "pages/3_rope.py", "query": {"a": 1}},
    {"t": "columns", "widths": [1], "border": False, "columns": [[{"t": "caption"}]]},
    {"t": "box", "border": False, "key": None, "blocks": [{"t": "hologram"}]},
    {"t": "check", "head": "h", "body": "b", "questions": [{"t": "caption", "text": "x"}]},
])
def test_a_block_of_no_declared_kind_fields_or_types_is_refused(bad):
    with pytest.raises(ValueError):
        check(bad)
    with pytest.raises(ValueError):
        check_document([{"t": "caption", "text": "fine"}, bad])


def test_each_kind_is_drawn_by_a_function_of_its_name_in_both_renderers_in_one_order():
    """A kind is added in three places, side by side: its type (ui/blocks.py), its drawing
    with Streamlit (ui/blocks_streamlit.py, where a setting is the app's own control) and in
    the viewer (blocks.js), each renderer's functions defined and listed in the same order."""
    kinds = list(KINDS)
    drawn_in_app = [kind for kind in kinds if kind != "setting"]
    assert list(blocks_streamlit.DRAWN) == drawn_in_app
    module = ast.parse((ROOT / "ui" / "blocks_streamlit.py").read_text("utf-8"))
    defined = [node.name for node in module.body if isinstance(node, ast.FunctionDef)]
    assert [name for name in defined if name in KINDS] == drawn_in_app
    assert all(blocks_streamlit.DRAWN[kind].__name__ == kind for kind in drawn_in_app)
    source = VIEWER_BLOCKS.read_text("utf-8")
    table = re.search(r"const DRAWN = \{([^}]*)\}", source).group(1)
    assert re.findall(r"\w+", table) == kinds
    defined = re.findall(r"^(?:function (\w+)\(|const (\w+) = \()", source, re.M)
    assert [a or b for a, b in defined if (a or b) in KINDS] == kinds


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("page", list(documents.pages()))
def test_every_block_every_page_records_is_declared(page, lang):
    """At the defaults, every answer shown: the lesson's first scene, and every other page."""
    for block in walk(documents.blocks(page, "", lang, None)):
        check(block)


@pytest.mark.parametrize("scene", range(1, len(documents.scenes()) + 1))
def test_every_block_of_every_lesson_scene_is_declared(scene):
    for block in walk(documents.blocks(documents.LESSON, f"scene={scene}", "en", None)):
        check(block)


def test_streamlit_draws_the_page_of_every_kind():
    at = AppTest.from_function(_streamlit_page, default_timeout=60).run()
    assert not at.exception
    assert at.title[0].value == "Every kind" and at.metric[0].value == "1.0"
    assert [c.value for c in at.caption][:2] == ["A caption", "Right"]
    assert at.info[0].value == "A note" and at.success[0].value == "The answer"
    said = [m.value for m in at.markdown]
    assert "**A question from the lecturer**" in said and "**Concept check**" in said
    assert "Answer what you think now." in said and "**Question:** Which?" in said


def _streamlit_page() -> None:
    import streamlit as st

    from tests.documents.test_blocks import every_kind
    from ui.doc import StreamlitDoc

    every_kind(StreamlitDoc(st), link=False)  # a link drawn: tests/documents/test_documents.py


@pytest.mark.browser
def test_the_viewer_draws_the_page_of_every_kind_and_says_so_for_an_unknown_one(
        browser, tmp_path, monkeypatch):
    """A file holding a block of every kind, then one of a kind and one with a field that
    ui/blocks.py does not declare (as from a newer server: files are not checked here)."""
    monkeypatch.setenv("POSVIZ_CHECK_DOCUMENTS", "0")
    blocks = [*recorded(), {"t": "hologram", "text": "from a newer server"},
              {"t": "caption", "text": "a caption", "colour": "red"}]
    saved = tmp_path / "every.html"
    saved.write_text(documents.offline_html("every", [{"title": "", "blocks": blocks}], "en"),
                     encoding="utf-8")
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(saved.as_uri())
    for selector in ("h1", ".posviz-markdown", ".posviz-caption", ".posviz-note.info",
                     ".katex", ".posviz-chart .main-svg", ".posviz-metric", "table",
                     ".posviz-chip", ".posviz-link", ".posviz-setting", ".posviz-columns",
                     ".posviz-box.bordered", "details.posviz-expander", ".posviz-question",
                     ".posviz-question.posviz-live", ".posviz-check .posviz-question"):
        expect(page.locator(selector).first, selector).to_be_attached()
    expect(page.locator(".posviz-box", has_text="In a slot")).to_have_count(1)
    expect(page.locator(".posviz-live .posviz-question-text")).to_have_text(
        "Typed *as is* <b>?</b>")  # exactly as typed
    expect(page.locator(".posviz-chip").first).to_have_text("0\u00a0刚")
    unknown = page.locator(".posviz-unknown")
    expect(unknown).to_have_count(2)
    expect(unknown.first).to_contain_text("hologram")
    expect(unknown.last).to_contain_text("“colour”")
    assert errors == ['posviz: a block of unknown kind "hologram"',
                      'posviz: a caption block with a field "colour" not declared']
    page.close()


def test_the_server_checks_every_document_it_sends_when_asked(monkeypatch, caplog):
    """Under POSVIZ_CHECK_DOCUMENTS=1 (the tests' own setting) a page that records a block
    ui/blocks.py does not declare gives a room's followers a note and the log its reason, and
    a file of it is refused; without, it is sent as made."""
    class Stray:
        @staticmethod
        def body(d, s):
            d.blocks.append({"t": "caption", "text": "x", "colour": "red"})
    monkeypatch.setattr(documents, "_module", lambda script: Stray)
    made, _ = documents.document("rope", "text=x", "en", frozenset())
    assert json.loads(made) == [{"t": "note", "kind": "warning",
                                 "text": text("viewer.unavailable", "en")}]
    assert "a caption block with fields" in caplog.text
    with pytest.raises(ValueError, match="colour"):
        documents.page_file("rope", "text=x", "en")
    monkeypatch.setenv("POSVIZ_CHECK_DOCUMENTS", "0")
    made, _ = documents.document("rope", "text=y", "en", frozenset())
    assert json.loads(made)[-1] == {"t": "caption", "text": "x", "colour": "red"}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_rooms_own_question_and_the_concept_check_are_documents_of_declared_kinds(lang):
    """What a room puts in front of the class above the view, in the reader's language: the
    lecturer's question exactly as typed, and the check's questions in the catalog's words
    (the room keeps the lecturer's)."""
    typed = {"id": "q1", "question": "</script> $x$ *a*", "options": ["<b>", "2"]}
    [own] = json.loads(documents.live(typed, lang))
    assert own == {"t": "asked", "poll": "q1", "lead": text("room.question_head", lang),
                   "text": typed["question"], "options": typed["options"]}
    from ui.answer_key import check_questions
    kept = check_questions("en")
    sitting = {"id": "check-pre", "check": [
        {"id": f"check-pre-{n}", "question": q, "options": o}
        for n, (q, o, _) in enumerate(kept, start=1)]}
    [made] = json.loads(documents.live(sitting, lang))
    check(made)
    assert made["head"] == text("viewer.check_head", lang)
    assert [q["text"] for q in made["questions"]] == [q for q, _, _ in check_questions(lang)]
    assert made["questions"][-1]["lead"] == text("viewer.check_lead", lang, n=len(kept),
                                                 total=len(kept))
