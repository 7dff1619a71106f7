"""What the app and the viewer both must know is decided once, in Python, and sent: the
parameters personal to a reader (ui.state.PERSONAL, in the room element's data), a question's
letters (rooms.LETTERS, in the viewer's configuration), the viewer's words (the catalog's viewer
section), the selector of the app's formulas (ui.blocks_streamlit.FORMULAS, in the page
element's data), the chips' style (one CSS file both renderers load), the position schemes
(posviz.schemes, in the viewer's configuration: the browser's engine chooses by an entry's kind)
the layout rule of maps of panels (posviz.figures.attention.panel_rule, there too) and the steps
a long axis labels by (posviz.figures.common.NICE_STEPS, there too), and the words of a chart's
spoken summary with the counts it names one by one (ui.summary.browser_words, there too).
A copy of any of them written into the viewer's sources, or the chips' rule into the app's,
fails here."""

import re

import pytest

from posviz.figures.attention import panel_rule
from posviz.figures.common import NICE_STEPS
from posviz.schemes import KINDS, SCHEMES
from rooms import LETTERS
from tests.conftest import ROOT
from ui.blocks_streamlit import CHIPS_CSS, FORMULAS
from ui.documents import viewer_strings
from ui.i18n import LANGS
from ui.state import PERSONAL
from ui.summary import BARS_SAID, LINES_SAID, PANELS_SAID, ROWS_SAID, browser_words

SRC = ROOT / "assets" / "viewer" / "src"
SCRIPTS = sorted(SRC.rglob("*.js"))
ARRAY = re.compile(r"\[([^\[\]]*)\]")
NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?![\w.])")
QUOTED = re.compile(r"""(["'`])((?:\\.|(?!\1).)*)\1""")
VIEWER_KEYS = {key for key in viewer_strings("en")}
SCHEME_NAMES = {each.name for each in SCHEMES}
ENGINE = SRC / "engine"
# the fixed text of each summary word (between its placeholders) that is its own: words, or
# Chinese characters
SUMMARY_PIECES = {piece.strip() for lang in LANGS for word in browser_words(lang)["words"].values()
                  for piece in re.split(r"\{\w+\}", word)
                  if re.search(r"\w \w|[\u4e00-\u9fff]{2}", piece)}


def summary_copies(source: str) -> list[str]:
    """The string literals of a script that hold a summary word's text."""
    return [held for held in strings(source) if any(piece in held for piece in SUMMARY_PIECES)]


def scheme_choices(source: str) -> list[str]:
    """Where a script chooses by a scheme's name: a scheme compared with a string, or a string
    naming a scheme compared with anything (`scheme === 'rope'`, `'alibi' !== name`)."""
    names = "|".join(sorted(SCHEME_NAMES - {"none"}))  # "none" is also a CSS and HTML word
    quoted = r"""(["'`])(?:""" + names + r""")\1"""
    return [found[0] for found in re.finditer(
        rf"""scheme\w*\s*[!=]==?\s*["'`]|{quoted}\s*[!=]==?|[!=]==?\s*{quoted}""", source)]


def arrays(source: str) -> list[set[str]]:
    """The strings written in each array literal of a script (and in each bracketed list)."""
    return [{found[2] for found in QUOTED.finditer(inside[1])}
            for inside in ARRAY.finditer(source)]


def strings(source: str) -> set[str]:
    """Every string literal of a script."""
    return {found[2] for found in QUOTED.finditer(source)}


def number_copies(source: str, numbers: tuple, least: int) -> list[set[float]]:
    """The array literals of source that hold least or more of numbers."""
    return [held & set(map(float, numbers)) for held in (
        {float(n) for n in NUMBER.findall(inside[1])} for inside in ARRAY.finditer(source))
            if len(held & set(map(float, numbers))) >= least]


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
    assert not copies(source, SCHEME_NAMES, 2), "the position schemes: posviz.schemes"
    assert not scheme_choices(source), "choose by the entry's kind: posviz.schemes"
    assert not number_copies(source, NICE_STEPS, 4), "posviz.figures.common.NICE_STEPS"
    assert not summary_copies(source), "a chart summary's words: assets/i18n/summary.toml"
    if path.is_relative_to(ENGINE):  # the engine names no scheme at all, and only its kinds
        code = re.sub(r"^\s*//.*$", "", source, flags=re.MULTILINE)  # its comments may
        assert not strings(code) & SCHEME_NAMES, "a scheme's name: posviz.schemes"


def test_the_copies_are_found():
    """The checks above find a copy written as the viewer used to hold one."""
    assert copies('const PERSONAL = ["lang", "present", "room", "key", "follow", "t"];',
                  set(PERSONAL), 3)
    assert copies("const KEYS = ['room', 'following', 'explore'];", VIEWER_KEYS, 3)
    assert any(LETTERS[:3] in each for each in strings('export const LETTERS = "ABCDEF";'))
    assert copies('const LETTERS = ["A", "B", "C", "D"];', set(LETTERS), 3)
    assert copies("export const ATTENTION_SCHEMES = ['none', 'sinusoidal', 'rope', 'alibi'];",
                  SCHEME_NAMES, 2)
    for line in ("if (scheme === 'rope') {", "scheme === 'alibi' ? alibi_bias(h, t) : null",
                 "if (params.scheme !== `none`)", "const rotates = 'partial_rope' == name;"):
        assert scheme_choices(line), line
    assert not scheme_choices("if (how.kind === 'rotate') { node.style.display = 'none'; }")
    assert number_copies("const NICE_STEPS = [1, 2, 5, 10, 20, 25, 50, 100];", NICE_STEPS, 4)
    assert number_copies("const steps = [10, 20, 25, 50];", NICE_STEPS, 4)
    assert summary_copies('const more = `${k} more rows in the data table`;')
    assert summary_copies("said.push('其余 ' + k + ' 行见数据表');")


def test_the_engine_dispatches_on_every_kind_the_registry_names():
    """attention.js chooses by each kind but "none" (which does nothing): a new kind in
    posviz.schemes needs its case in both engines."""
    source = (ENGINE / "attention.js").read_text("utf-8")
    chosen = set(re.findall(r"""\.kind\s*===\s*["'](\w+)["']""", source))
    assert chosen == set(KINDS) - {"none"}


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


def test_the_layout_rule_of_maps_of_panels_is_sent():
    """engine/panels.js lays maps of panels out with the constants posviz.figures.attention
    sends (panel_rule): it writes no number but 0, 1, 2 (halves, pairs) and 36 (the table's
    base), and no script writes a character's width in ems."""
    panels = re.sub(r"//.*$", "", (ENGINE / "panels.js").read_text("utf-8"), flags=re.MULTILINE)
    numbers = {float(n) for n in re.findall(r"(?<![\w.])\d+(?:\.\d+)?(?![\w.])", panels)}
    assert numbers <= {0, 1, 2, 36}, numbers
    narrow = str(panel_rule()["narrow_em"])
    assert not [path for path in SCRIPTS if narrow in path.read_text("utf-8")]


def test_a_charts_summary_counts_what_python_sends():
    """engine/summary.js names as many rows, lines, bars and panels one by one as ui/summary.py
    does because it is sent the counts (browser_words): it writes none of them."""
    code = re.sub(r"//.*$", "", (ENGINE / "summary.js").read_text("utf-8"), flags=re.MULTILINE)
    counts = {ROWS_SAID, LINES_SAID, BARS_SAID, PANELS_SAID}
    assert not {float(n) for n in re.findall(r"(?<![\w.-])\d+(?:\.\d+)?(?![\w.])", code)} & counts
