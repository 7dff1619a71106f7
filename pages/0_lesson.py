"""Guided lesson: the argument of the lessons in eleven scenes, each with a question for the room.

Every scene draws the lesson pages' own figures for the sidebar's sentence and switch, and
answers its question with numbers computed on the spot. The scene lives in the URL (?scene=N),
so a lecturer can prepare one link per slide. The figures and numbers are cached in
ui.cached.lesson, or in a lesson page's module where a scene shows that page's own. The
scenes, their questions and the pager are ui.lesson's.
"""

import streamlit as st

import ui
from ui import lesson_end
from ui.lesson.pager import COMPACT_CSS, PROJECTOR_CSS, navigation, scene_number, scene_picker
from ui.lesson.questions import ABOUT_THE_FIGURE, PROJECTOR_COLUMNS, Stage, in_room
from ui.lesson.scenes import SCENE_BODIES, SCENES


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


if __name__ == "__main__":
    ui.run("lesson", body)
