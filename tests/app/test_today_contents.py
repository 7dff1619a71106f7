"""The page on today's models opens with a list of its contents: a link to every section's
heading, by its anchor, in the page's order, in both languages, in the app and in its
document (the viewer gives a heading its anchor as its id)."""

import re

import pytest

from tests.helpers.figure_data import chart_blocks
from ui.blocks import walk
from ui.documents import blocks
from ui.i18n import text


def contents_links(made: list[dict]) -> list[tuple[str, str]]:
    """(label, anchor) of every in-page link of the document's first Markdown blocks."""
    found = []
    for block in walk(made):
        if block["t"] == "chart":  # the contents come before the first chart
            break
        if block["t"] == "markdown":
            found += re.findall(r"\[([^\]]+)\]\(#([\w-]+)\)", block["text"])
    return found


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_contents_link_every_section_heading_in_order(lang):
    made = blocks("today", "text=刚想到了", lang)
    assert chart_blocks(made), "the page draws its charts"
    headings = [(b["text"], b["anchor"]) for b in walk(made)
                if b["t"] == "heading" and b["level"] > 1]
    assert len(headings) >= 15
    assert all(anchor for _, anchor in headings), headings
    assert len({anchor for _, anchor in headings}) == len(headings)
    assert contents_links(made) == headings
    assert any(text("today.contents", lang) in b.get("text", "") for b in walk(made))


def test_the_app_gives_each_heading_its_anchor():
    """In the app a heading's anchor is its element's id (Streamlit's anchor)."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file("../../pages/7_today.py", default_timeout=60)
    at.query_params.update({"text": "刚想到了"})
    at.run()
    assert not at.exception
    anchors = {h.proto.anchor for h in [*at.header, *at.subheader]}
    assert {"today-complex", "schemes-head", "schemes-clinic"} <= anchors
