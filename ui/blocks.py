"""The document a page records, declared once: every kind of block, its fields, and the one walk
over a document.

A page writes through a `ui.doc.Doc`, which records blocks of plain JSON; `StreamlitDoc` draws
the same calls in the app, and static/viewer.js draws the recorded blocks on a room's screen and
in the offline files. Each block is a dict whose "t" names its kind; the kinds that hold other
blocks (columns, box, expander, question) hold them in the fields CHILDREN names. The viewer
is sent the kinds it may meet (`kinds()`) and shows a note, never an empty space, for any other.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Literal, TypedDict, get_args, get_type_hints


class Heading(TypedDict):
    t: Literal["heading"]
    level: int  # 1 title, 2 header, 3 subheader
    text: str


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


class Chart(TypedDict):
    t: Literal["chart"]
    name: str
    figure: str  # the plotly figure as JSON
    toolbar: bool
    summary: str  # what it shows, in sentences (ui.summary)


class Metric(TypedDict):
    t: Literal["metric"]
    label: str
    value: str
    delta: str | None


class Table(TypedDict):
    t: Literal["table"]
    head: list[str]
    rows: list[list[str]]  # cells as text


class Chips(TypedDict):
    t: Literal["chips"]
    tokens: list[str]  # exactly as typed
    labels: list[str]


class Link(TypedDict):
    t: Literal["link"]
    text: str


class Setting(TypedDict):
    t: Literal["setting"]  # a control, shown read-only with the value the view gives it
    label: str
    value: str


class Columns(TypedDict):
    t: Literal["columns"]
    columns: list[list[Block]]


class Box(TypedDict):
    t: Literal["box"]
    border: bool
    blocks: list[Block]


class Expander(TypedDict):
    t: Literal["expander"]
    label: str
    blocks: list[Block]


class Question(TypedDict):
    t: Literal["question"]
    poll: str
    lead: str
    text: str
    options: list[str]
    answer: list[Block]  # shown once revealed (or behind a button, when hidden)
    hidden: bool


Block = (Heading | Markdown | Caption | Note | Formula | Chart | Metric | Table | Chips | Link
         | Setting | Columns | Box | Expander | Question)

KINDS: dict[str, type] = {get_args(get_type_hints(kind)["t"])[0]: kind for kind in get_args(Block)}
"""Every kind of block, by the name in its "t"."""

CHILDREN = {"columns": "columns", "box": "blocks", "expander": "blocks", "question": "answer"}
"""The field that holds a kind's inner blocks (columns: a list of them per column)."""


def kinds() -> list[str]:
    """The kinds of block a renderer must draw, as sent to static/viewer.js."""
    return list(KINDS)


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


def check(block: dict) -> None:
    """Raise ValueError unless block is of a declared kind with exactly its fields."""
    kind = KINDS.get(block.get("t"))
    if kind is None:
        raise ValueError(f"a block of unknown kind {block.get('t')!r}")
    fields = set(get_type_hints(kind))
    if set(block) != fields:
        raise ValueError(f"a {block['t']} block with fields {sorted(block)}, not {sorted(fields)}")
