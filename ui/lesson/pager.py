"""The guided lesson's pager: the scene lives in the URL (?scene=N), picked with a scene picker
or previous / next, and the way to the scene's full lesson page."""

import streamlit as st

import ui
from ui.lesson.scenes import FULL_LESSON, SCENES


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

