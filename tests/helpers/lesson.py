"""The guided lesson opened as a link opens it (AppTest), and a scene's answer revealed."""

from streamlit.testing.v1 import AppTest

PAGE = "../../pages/0_lesson.py"  # from this folder, as AppTest reads it
SCENES = ["meaning", "position", "sum", "order", "sinusoidal", "rope", "alibi", "causal", "leak",
          "today", "port"]


def lesson(scene: str | None = None, lang: str = "en", sentence: str = "刚想到了",
           position: bool = True) -> AppTest:
    """The lesson page opened from a link with these query parameters."""
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.query_params.update({"lang": lang, "text": sentence, "pos": str(position).lower()})
    if scene is not None:
        at.query_params["scene"] = scene
    at.run()
    assert not at.exception
    return at


def reveal(at: AppTest, n: int) -> tuple[str, str]:
    """Reveal scene n's answer; return the right option's letter and the answer's text."""
    at.toggle(key=f"lesson_reveal_{SCENES[n - 1]}").set_value(True).run()
    assert not at.exception
    letter, text = at.success[0].value.split(" ", 1)
    return letter.strip("*."), text
