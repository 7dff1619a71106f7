"""What the app and the viewer both must know is decided once, in Python, and sent: the
parameters personal to a reader (ui.state.PERSONAL, in the room element's data), a question's
letters (rooms.LETTERS, in the viewer's configuration), the viewer's words (the catalog's viewer
section), the selector of the app's formulas (ui.blocks_streamlit.FORMULAS, in the page
element's data) and the chips' style (one CSS file both renderers load). A copy of any of them
written into the viewer's sources, or the chips' rule into the app's, fails here."""

import re

import pytest

from rooms import LETTERS
from tests.conftest import ROOT
from ui.blocks_streamlit import CHIPS_CSS, FORMULAS
from ui.documents import viewer_strings
from ui.i18n import LANGS
from ui.state import PERSONAL

SRC = ROOT / "assets" / "viewer" / "src"
SCRIPTS = sorted(SRC.rglob("*.js"))
ARRAY = re.compile(r"\[([^\[\]]*)\]")
QUOTED = re.compile(r"""(["'`])((?:\\.|(?!\1).)*)\1""")
VIEWER_KEYS = {key for key in viewer_strings("en")}


def arrays(source: str) -> list[set[str]]:
    """The strings written in each array literal of a script (and in each bracketed list)."""
    return [{found[2] for found in QUOTED.finditer(inside[1])}
            for inside in ARRAY.finditer(source)]


def strings(source: str) -> set[str]:
    """Every string literal of a script."""
    return {found[2] for found in QUOTED.finditer(source)}


def copies(source: str, names: set[str], least: int) -> list[set[str]]:
    """The array literals of source that hold least or more of names."""
    return [held & names for held in arrays(source) if len(held & names) >= least]


@pytest.mark.parametrize("path", SCRIPTS, ids=[p.relative_to(SRC).as_posix() for p in SCRIPTS])
def test_no_script_copies_what_python_decides(path):
    source = path.read_text("utf-8")
    assert not copies(source, set(PERSONAL), 3), "the personal parameters: ui.state.PERSONAL"
    assert not copies(source, VIEWER_KEYS, 3), "the viewer's words' keys: assets/i18n/viewer.toml"
    assert not copies(source, set(LETTERS), 3), "a question's letters: rooms.LETTERS"
    assert not any(LETTERS[:3] in each for each in strings(source)), "rooms.LETTERS"
    assert FORMULAS not in source, "the app's formulas: ui.blocks_streamlit.FORMULAS"


def test_the_copies_are_found():
    """The checks above find a copy written as the viewer used to hold one."""
    assert copies('const PERSONAL = ["lang", "present", "room", "key", "follow", "t"];',
                  set(PERSONAL), 3)
    assert copies("const KEYS = ['room', 'following', 'explore'];", VIEWER_KEYS, 3)
    assert any(LETTERS[:3] in each for each in strings('export const LETTERS = "ABCDEF";'))
    assert copies('const LETTERS = ["A", "B", "C", "D"];', set(LETTERS), 3)


def test_the_chips_style_is_written_once():
    """The chips' rule is in chips.css alone: the app loads it, and the viewer's style file is
    built headed by it."""
    rule = re.compile(r"(^|[>}])\s*\.posviz-chip\s*(sub\s*)?\{", re.MULTILINE)
    own = [path for path in [*SRC.rglob("*.css"), *(ROOT / "ui").rglob("*.py"),
                             *(ROOT / "pages").rglob("*.py"), ROOT / "app.py"]
           if rule.search(path.read_text("utf-8"))]
    assert own == [SRC / "viewer" / "chips.css"]
    chips = (ROOT / "static" / "chips.css").read_text("utf-8")
    assert chips in CHIPS_CSS
    viewer = (ROOT / "static" / "viewer.css").read_text("utf-8")
    assert chips.split("\n", 1)[1] in viewer


def test_every_word_the_viewer_says_is_sent():
    """Each key the viewer's scripts say (say("key")) is among the words it is sent, in every
    language."""
    said = {found[1] for path in SCRIPTS
            for found in re.finditer(r"""\bsay\(["'](\w+)["']""", path.read_text("utf-8"))}
    assert said
    for lang in LANGS:
        assert said <= set(viewer_strings(lang)), sorted(said - set(viewer_strings(lang)))
