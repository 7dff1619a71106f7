"""The guided lesson's end, under its last scene: what each scene showed, one line each on the
reader's sentence; where to go next (every lesson page, and the concept check); and the concept
check taken alone (ui.solo_check)."""

from __future__ import annotations

from collections.abc import Sequence

from ui import solo_check
from ui.doc import Doc
from ui.markup import literal, written
from ui.navigation import in_app, shared_query
from ui.shared import Settings, lesson_pages

ANCHOR = "lesson-end"


def recap(d: Doc, s: Settings, scenes: Sequence[str]) -> None:
    """One line per scene, with the reader's sentence, its reversal and its length."""
    tokens = list(s.tokens)
    numbers = dict(sentence=literal(written(tokens)), reversed=literal(written(tokens[::-1])),
                   first=literal(tokens[0]), n=len(tokens))
    lines = [s.t("ending.line", n=n, head=s.t(f"lesson.{name}.head"),
                 recap=s.t(f"ending.recap.{name}", **numbers))
             for n, name in enumerate(scenes, start=1)]
    d.markdown(s.t("ending.intro", **numbers) + "\n\n" + "\n".join(lines))


def next_steps(d: Doc, s: Settings) -> None:
    """Every lesson page (in the app only when it runs as the app: a page run alone has no
    others to link to), and the concept check below."""
    d.subheader(s.t("ending.next_head"))
    d.markdown(s.t("ending.next_intro"))
    if d.live and not in_app():
        return
    for name, path in lesson_pages():
        if name != "lesson":  # a link as long as its page's name (a phone clips a longer one)
            d.link(f"**{s.t(f'{name}.nav')}**", path, shared_query(s))
            d.caption(s.t(f"{name}.blurb"))


def section(d: Doc, s: Settings, scenes: Sequence[str], in_room: bool) -> None:
    """The lesson's end (scenes: the lesson's, in order)."""
    if not s.tokens:
        return
    d.header(s.t("ending.head"), anchor=ANCHOR)
    recap(d, s, scenes)
    next_steps(d, s)
    solo_check.section(d, s, in_room)
