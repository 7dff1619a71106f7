"""The document a page records, declared once: every kind of block with its fields, the one walk
over a document, and the check every document passes before it leaves the server.

A page writes through a `ui.doc.Doc`, which records blocks of these kinds only. Each kind is
drawn in two places, by a function of its name, in the order declared here: with Streamlit in
the app (ui/blocks_streamlit.py) and by the viewer's drawBlock on a room's screen, in the offline
files and in the lecture's report (assets/viewer/src/viewer/blocks.js). A kind is added in those
three places, side by side. What both renderers must know is decided here and sent in the block
(a chip's markup, which columns of a table hold numbers); the viewer is sent the fields of
every kind (`fields()`) and shows a note, never an empty space, for a block of any other kind or
with any other field.
"""

from __future__ import annotations

import types
from collections.abc import Iterator
from typing import Literal, TypedDict, Union, get_args, get_origin, get_type_hints, is_typeddict


class Heading(TypedDict):
    t: Literal["heading"]
    level: int  # 1 title, 2 header, 3 subheader
    text: str
    anchor: str | None  # its id on the page, which a link (#anchor) scrolls to; None: none set


class Markdown(TypedDict):
    t: Literal["markdown"]
    text: str


class Caption(TypedDict):
    t: Literal["caption"]
    text: str


class Note(TypedDict):
    t: Literal["note"]
    kind: Literal["info", "warning", "error", "success"]
    text: str


class Formula(TypedDict):
    t: Literal["formula"]
    parts: list[str]  # LaTeX, each part unbreakable (ui.doc.formula_parts)


class Live(TypedDict):
    """How the viewer draws a chart again for a sentence its reader types (ui.live declares
    each recipe, assets/viewer/src/viewer/live.js computes it with the browser's engine): the
    recipe's name, its sizes and switches, and the words it may put in the chart (each already
    as the figure shows text). Not a block: a field of one."""
    recipe: Literal["fixed", "embedding", "frame", "attention", "alibi", "plane",
                     "change"]
    params: dict[str, int | float | str | bool]
    words: dict[str, str]


class Chart(TypedDict):
    t: Literal["chart"]
    name: str
    figure: str  # the plotly figure as JSON
    toolbar: bool
    summary: str  # what it shows, in sentences (ui.summary)
    fit: bool  # seen whole in the window, in presentation mode (a lesson scene's figure)
    live: Live | None  # its recipe for a typed sentence; None: drawn for the page's sentence
    # only (the viewer says so beside it when its reader types another)


class Metric(TypedDict):
    t: Literal["metric"]
    label: str
    value: str
    delta: str | None  # said plainly: posviz's changes are neither good nor bad (no arrow)
    help: str | None
    border: bool


class Table(TypedDict):
    t: Literal["table"]
    head: list[str]
    rows: list[list[str]]  # cells as text (ui.markup.cell_text)
    holds: list[Literal["text", "number", "whole"]]  # per column: text, or numbers (set
    # right-aligned), or whole numbers (which a data grid also sorts as numbers)
    form: Literal["table", "text", "grid"]  # in the app: a table (its cells read as Markdown),
    # every cell shown exactly as typed, or a data grid the reader can sort


class Chips(TypedDict):
    t: Literal["chips"]
    tokens: list[str]  # exactly as typed
    labels: list[str]
    html: str  # the chips' markup, every character of a token or label an entity


class Link(TypedDict):
    t: Literal["link"]
    text: str
    page: str  # the page it opens in the app (its script, e.g. pages/3_rope.py)
    query: dict[str, str]


class Setting(TypedDict):
    t: Literal["setting"]  # a control, shown read-only with the value the view gives it
    label: str
    value: str


class Columns(TypedDict):
    t: Literal["columns"]
    widths: list[float]  # relative, one per column
    border: bool
    columns: list[list[Block]]


class Box(TypedDict):
    t: Literal["box"]
    border: bool
    key: str | None  # its name on the app's page (styled by it)
    blocks: list[Block]


class Slot(TypedDict):
    t: Literal["slot"]  # a place that shows the last block written in it
    blocks: list[Block]


class Expander(TypedDict):
    t: Literal["expander"]
    label: str
    blocks: list[Block]


class Question(TypedDict):
    t: Literal["question"]  # a page's question, asked of a room as its poll
    poll: str
    lead: str
    text: str  # Markdown, as the catalog writes it
    options: list[str]
    answer: list[Block]  # shown once revealed (or behind a button, when hidden)
    hidden: bool


class Asked(TypedDict):
    t: Literal["asked"]  # a question the lecturer asks the room: its text exactly as typed
    poll: str
    lead: str
    text: str
    options: list[str]


class Check(TypedDict):
    t: Literal["check"]  # the concept check: every question at once
    head: str
    body: str
    questions: list[Asked]


Block = (Heading | Markdown | Caption | Note | Formula | Chart | Metric | Table | Chips | Link
         | Setting | Columns | Box | Slot | Expander | Question | Asked | Check)

KINDS: dict[str, type] = {get_args(get_type_hints(kind)["t"])[0]: kind for kind in get_args(Block)}
"""Every kind of block, by the name in its "t", in the order the renderers draw them."""

FIELDS = {name: get_type_hints(kind) for name, kind in KINDS.items()}
"""Each kind's fields and their types."""

CHILDREN = {"columns": "columns", "box": "blocks", "slot": "blocks", "expander": "blocks",
            "question": "answer", "check": "questions"}
"""The field that holds a kind's inner blocks (columns: a list of them per column)."""


def fields() -> dict[str, list[str]]:
    """The fields of every kind, as the viewer is sent them (it refuses any other)."""
    return {name: sorted(hints) for name, hints in FIELDS.items()}


def inner(block: dict) -> Iterator[list[dict]]:
    """The lists of blocks a block holds (none, one, or one per column)."""
    field = CHILDREN.get(block["t"])
    if field == "columns":
        yield from block["columns"]
    elif field is not None:
        yield block[field]


def walk(blocks: list[dict]) -> Iterator[dict]:
    """Every block of a document in reading order: each block, then the blocks it holds."""
    for block in blocks:
        yield block
        for held in inner(block):
            yield from walk(held)


def check(block: object) -> None:
    """Raise ValueError unless block is of a declared kind with exactly its fields, each of its
    declared type, and every block it holds is too."""
    kind = FIELDS.get(block.get("t")) if isinstance(block, dict) else None
    if kind is None:
        raise ValueError(f"a block of unknown kind {_kind(block)!r}")
    if set(block) != set(kind):
        raise ValueError(f"a {block['t']} block with fields {sorted(block)}, not {sorted(kind)}")
    for field, hint in kind.items():
        if not _fits(block[field], hint):
            raise ValueError(f"a {block['t']} block whose {field} is not {hint}: "
                             f"{block[field]!r:.80}")


def check_document(blocks: object) -> None:
    """Raise ValueError unless blocks is a list of blocks check() passes."""
    if not isinstance(blocks, list):
        raise ValueError(f"a document is a list of blocks, not {type(blocks).__name__}")
    for block in blocks:
        check(block)


def _kind(block: object) -> object:
    return block.get("t") if isinstance(block, dict) else type(block).__name__


def _fits(value: object, hint: object) -> bool:
    """Whether value is of the declared type hint (a block is checked, raising, by check())."""
    origin, args = get_origin(hint), get_args(hint)
    if origin is Literal:
        return value in args
    if origin in (Union, types.UnionType):
        if all(is_typeddict(arg) for arg in args):  # Block: any kind
            check(value)
            return True
        return any(_fits(value, arg) for arg in args)
    if origin is list:
        return isinstance(value, list) and all(_fits(item, args[0]) for item in value)
    if origin is dict:
        return isinstance(value, dict) and all(
            _fits(key, args[0]) and _fits(item, args[1]) for key, item in value.items())
    if is_typeddict(hint) and "t" not in get_type_hints(hint):  # a field's record (Live)
        hints = get_type_hints(hint)
        return (isinstance(value, dict) and set(value) == set(hints)
                and all(_fits(value[name], kind) for name, kind in hints.items()))
    if is_typeddict(hint):
        check(value)
        return value["t"] == get_args(get_type_hints(hint)["t"])[0]
    if hint is type(None):
        return value is None
    if hint is float:
        return isinstance(value, int | float) and not isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, hint)
