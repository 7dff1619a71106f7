"""The document declared once (ui/blocks.py): every block every page records is of a declared
kind with exactly its fields; one walk reaches every block; the viewer draws exactly the declared
kinds and says so, visibly, for any other; a page holding one block of every kind is drawn by
both renderers (Streamlit in the app, static/viewer.js in a file opened in Chromium)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect
from streamlit.testing.v1 import AppTest

from tests.conftest import ROOT
from ui import documents
from ui.blocks import KINDS, check, walk
from ui.doc import Doc


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
    d.expander("More").markdown("Inside")
    answer = d.question("q1", "Question:", "Which?", ["A thing", "Another"],
                        lambda box, options: True)
    if answer is not None:
        answer.success("The answer")


def recorded() -> list[dict]:
    d = Doc()  # a file's: every answer kept, behind a button
    every_kind(d)
    return d.blocks


def test_the_fixture_holds_every_kind_and_each_block_is_declared():
    made = list(walk(recorded()))
    assert {block["t"] for block in made} == set(KINDS)
    for block in made:
        check(block)
    assert [b["text"] for b in made if b["t"] in ("markdown", "caption")][-4:] == [
        "Left", "Right", "In a box", "Inside"]  # nested blocks, in reading order


@pytest.mark.parametrize("bad", [{"t": "bogus"}, {"t": "caption"},
                                 {"t": "caption", "text": "x", "extra": 1}, {}])
def test_a_block_of_no_declared_kind_or_fields_is_refused(bad):
    with pytest.raises(ValueError):
        check(bad)


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


def test_the_viewer_draws_exactly_the_declared_kinds():
    """The viewer's drawBlock has one case per declared kind, and a default that says so."""
    source = (ROOT / "assets" / "viewer" / "src" / "viewer" / "blocks.js").read_text("utf-8")
    body = source[source.index("function drawBlock"):source.index("function draw(")]
    assert set(re.findall(r'case "(\w+)":', body)) == set(KINDS)
    assert "default:" in body and "unknown_block" in body


def test_streamlit_draws_the_page_of_every_kind():
    at = AppTest.from_function(_streamlit_page, default_timeout=60).run()
    assert not at.exception
    assert at.title[0].value == "Every kind" and at.metric[0].value == "1.0"
    assert [c.value for c in at.caption][:2] == ["A caption", "Right"]
    assert at.info[0].value == "A note" and at.success[0].value == "The answer"


def _streamlit_page() -> None:
    import streamlit as st

    from tests.documents.test_blocks import every_kind
    from ui.doc import StreamlitDoc

    every_kind(StreamlitDoc(st), link=False)  # a link drawn: tests/documents/test_documents.py


@pytest.mark.browser
def test_the_viewer_draws_the_page_of_every_kind_and_says_so_for_an_unknown_one(
        browser, tmp_path):
    blocks = [*recorded(), {"t": "hologram", "text": "from a newer server"}]
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
                     ".posviz-box.bordered", "details.posviz-expander", ".posviz-question"):
        expect(page.locator(selector).first, selector).to_be_attached()
    unknown = page.locator(".posviz-unknown")
    expect(unknown).to_have_count(1)
    expect(unknown).to_contain_text("hologram")
    assert errors == ['posviz: a block of unknown kind "hologram"']
    page.close()
