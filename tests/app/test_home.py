"""The home page's first offer to a reader who is in no room: the guided lesson, before a
room's join field and Start a room."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from tests.helpers.controls import opened
from ui.i18n import text


def drawn(node) -> list:
    """The elements of a run's tree in the order the page shows them."""
    children = getattr(node, "children", None)
    if children is None:
        return [node]
    return [leaf for key in sorted(children) for leaf in drawn(children[key])]


def order(at: AppTest) -> list[tuple[str, str]]:
    """(type, what it says) of every element of the main area, in order."""
    said = []
    for element in drawn(at.main):
        kind = element.type
        if kind == "page_link":
            said.append((kind, element.proto.label))
        elif kind in ("button", "text_input"):
            said.append((kind, element.key or ""))
    return said


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_first_offer_is_the_guided_lesson_then_a_room(lang):
    at = opened(None, lang=lang)
    assert not at.exception
    shown = order(at)
    start = ("page_link", text("home.start", lang))
    assert start in shown, shown
    first_room = next(i for i, (kind, key) in enumerate(shown)
                      if kind in ("button", "text_input") and key.startswith(("room", "join")))
    assert shown.index(start) < first_room
    link = next(e for e in drawn(at.main) if e.type == "page_link"
                and e.proto.label == start[1])
    assert link.proto.page.endswith("0_lesson.py") or "lesson" in link.proto.page
