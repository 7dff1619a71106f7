"""A page written once, shown two ways: drawn with Streamlit, or recorded as a document.

Every page writes its content through a `Doc` (markdown, formula, chart, metric, table, notes,
token chips, columns, boxes, settings, the scene's question). Each call makes one block of a
kind ui/blocks.py declares, with everything either renderer needs decided here; `Doc` records
the blocks, which a room's followers and the offline files draw (the viewer,
assets/viewer/src/viewer/blocks.js), and `StreamlitDoc` draws each block as it is made, with the
function of its kind (ui/blocks_streamlit.py), as the interactive app does. A control (slider,
radio, switch, ...) is a widget in Streamlit and, in a document, the value the view's URL gives
it (every control of a page is bound to the URL), shown as a read-only setting.

Only public Streamlit calls are made, and nothing of Streamlit is replayed: a document is the
page run again as plain Python, from the view's page and query string.
"""

from __future__ import annotations

import contextlib
import math
import numbers
import re
from collections.abc import Callable, Container, Iterator, Mapping, Sequence
from typing import Any

import streamlit as st

from ui.blocks import (
    Asked,
    Box,
    Caption,
    Chart,
    Check,
    Chips,
    Columns,
    Expander,
    Formula,
    Heading,
    Link,
    Live,
    Markdown,
    Metric,
    Note,
    Question,
    Setting,
    Slot,
    Table,
)
from ui.blocks_streamlit import draw
from ui.chart import figure_json, figure_summary
from ui.markup import cell_text, entities
from ui.state import coded_radio

CHOICES = ("radio", "coded_radio", "select_slider")  # controls whose first argument is options
NUMBER = re.compile(r"-?[\d.]+(e[-+]?\d+)?", re.IGNORECASE)  # a cell that reads as a number


class Stop(Exception):
    """The page has nothing more to show (Doc.stop)."""


def formula_parts(tex: str) -> list[str]:
    """A formula cut at each \\qquad outside braces and environments: the parts it lists."""
    parts, depth, start = [], 0, 0
    for match in re.finditer(r"\\begin\{[^}]*\}|\\end\{[^}]*\}|\\qquad|\\[{}]|[{}]", tex):
        token = match.group()
        if token == "{" or token.startswith("\\begin"):
            depth += 1
        elif token == "}" or token.startswith("\\end"):
            depth -= 1
        elif token == "\\qquad" and depth == 0:
            parts.append(tex[start:match.start()])
            start = match.end()
    return [part.strip() for part in [*parts, tex[start:]] if part.strip()]


def chips_html(tokens: Sequence[str], labels: Sequence[str]) -> str:
    """Token chips as HTML: each token exactly as typed, with its small label."""
    return "".join(
        f'<span class="posviz-chip"><sub>{entities(label)}</sub>&nbsp;{entities(tok)}</span>'
        for label, tok in zip(labels, tokens, strict=True))


def holds(column: Sequence[object]) -> str:
    """What a table's column holds, for every renderer: "whole" numbers (ints), a "number" in
    every cell (its text reads as one), or "text"."""
    if column and all(isinstance(v, numbers.Integral) and not isinstance(v, bool)
                      for v in column):
        return "whole"
    if column and all(NUMBER.fullmatch(cell_text(v)) for v in column):
        return "number"
    return "text"


def _in_range(kind: type, low: float, high: float) -> Callable[[str], Any]:
    """A number from the URL, of the control's kind, between its ends."""
    def parse(raw: str) -> Any:
        value = float(raw)
        if not math.isfinite(value) or not low <= value <= high:
            raise ValueError(raw)
        return int(value) if kind is int and value == int(value) else kind(raw)
    return parse


def _option(options: Sequence, format_func: Callable = str) -> Callable[[str], Any]:
    """An option from the URL, named by its text as shown (as Streamlit's bound widgets name
    it)."""
    def parse(raw: str) -> Any:
        for option in options:
            if raw == str(format_func(option)):
                return option
        raise ValueError(raw)
    return parse


def _switch(raw: str) -> bool:
    if raw.lower() not in ("true", "false"):
        raise ValueError(raw)
    return raw.lower() == "true"


class Doc:
    """A page recorded as a document: each call appends a block; controls take the values of
    the view's query string (query: name -> its values) or their defaults. revealed names the
    room's polls whose answers are shown; None (a file) keeps every answer, behind a button.
    room: whether it is drawn for a lecture room's followers (the room's own questions)."""

    live = False  # whether controls are widgets a reader can move

    def __init__(self, query: Mapping[str, Sequence[str]] | None = None,
                 revealed: Container[str] | None = None, blocks: list | None = None,
                 lang: str = "en", room: bool = False) -> None:
        self.query = query or {}
        self.revealed = revealed
        self.blocks: list[dict] = [] if blocks is None else blocks
        self.lang = lang  # the reader's: charts are summarized in it
        self.room = room

    def _nested(self, blocks: list, where: Any = None) -> Doc:
        return Doc(self.query, self.revealed, blocks, self.lang, self.room)

    def _put(self, block: dict) -> Any:
        """Record a block (a renderer also draws it, and returns where its blocks go)."""
        self.blocks.append(block)

    # ---- content ------------------------------------------------------------------------

    def markdown(self, body: str) -> None:
        self._put(Markdown(t="markdown", text=body))

    def caption(self, body: str) -> None:
        self._put(Caption(t="caption", text=body))

    def title(self, body: str) -> None:
        self._put(Heading(t="heading", level=1, text=body, anchor=None))

    def header(self, body: str, anchor: str | None = None) -> None:
        """A section's heading; anchor: its id, for a link to it (`[...](#anchor)`)."""
        self._put(Heading(t="heading", level=2, text=body, anchor=anchor))

    def subheader(self, body: str, anchor: str | None = None) -> None:
        self._put(Heading(t="heading", level=3, text=body, anchor=anchor))

    def note(self, kind: str, body: str) -> None:
        """A callout: kind is info, warning, error or success."""
        self._put(Note(t="note", kind=kind, text=body))

    def info(self, body: str) -> None:
        self.note("info", body)

    def warning(self, body: str) -> None:
        self.note("warning", body)

    def error(self, body: str) -> None:
        self.note("error", body)

    def success(self, body: str) -> None:
        self.note("success", body)

    def formula(self, tex: str) -> None:
        """A display formula that fits a phone: its parts (formula_parts) are each unbreakable
        and stand side by side on a desk, one under the other on a phone."""
        self._put(Formula(t="formula", parts=formula_parts(tex)))

    def chart(self, figure: Any, name: str, toolbar: bool = True, fit: bool = False,
              live: Live | None = None) -> None:
        """A plotly figure, keyed by name on its page (see ui.chart; fit: in the window, in
        presentation mode; live: how a viewer draws it for a sentence its reader types,
        ui.live)."""
        self._put(Chart(t="chart", name=name, figure=figure_json(figure), toolbar=toolbar,
                        summary=figure_summary(figure, self.lang), fit=fit, live=live))

    def metric(self, label: str, value: str, delta: str | None = None, help: str | None = None,
               border: bool = False) -> None:
        """A number, large, under its label; a delta beside it is said plainly (posviz's
        changes are neither good nor bad: no arrow, no colour)."""
        self._put(Metric(t="metric", label=label, value=value, delta=delta, help=help,
                         border=border))

    def table(self, columns: Mapping[str, Sequence[object]]) -> None:
        """A small table, a column per header (cells as text, read as Markdown in the app)."""
        self._put(self._table(columns, "table"))

    def text_table(self, columns: Mapping[str, Sequence[object]]) -> None:
        """A table whose cells are shown exactly as typed (no Markdown, LaTeX or HTML)."""
        self._put(self._table(columns, "text"))

    def dataframe(self, rows: list[dict[str, object]], labels: Mapping[str, str]) -> None:
        """Rows of a data grid the reader can sort, showing the columns labels names, under
        those labels."""
        self._put(self._table({label: [row[key] for row in rows]
                               for key, label in labels.items()}, "grid"))

    @staticmethod
    def _table(columns: Mapping[str, Sequence[object]], form: str) -> Table:
        rows = [[cell_text(v) for v in row] for row in zip(*columns.values(), strict=True)]
        return Table(t="table", head=list(columns), rows=rows,
                     holds=[holds(list(column)) for column in columns.values()], form=form)

    def chips(self, tokens: Sequence[str], labels: Sequence[str] | None = None) -> None:
        """The tokens as chips, exactly as typed, each with a small label (default: position)."""
        labels = [str(t) for t in range(len(tokens))] if labels is None else list(labels)
        self._put(Chips(t="chips", tokens=list(tokens), labels=labels,
                        html=chips_html(tokens, labels)))

    def link(self, label: str, page: str, query: Mapping[str, str]) -> None:
        """A link to another page of the app (page: its script, e.g. pages/3_rope.py)."""
        self._put(Link(t="link", text=label, page=page, query=dict(query)))

    # ---- layout -------------------------------------------------------------------------

    def columns(self, spec: int | Sequence[float], border: bool = False) -> list[Doc]:
        """Columns side by side: spec is their number, or their relative widths."""
        widths = [1] * spec if isinstance(spec, int) else list(spec)
        lists: list[list] = [[] for _ in widths]
        wheres = self._put(Columns(t="columns", widths=widths, border=border, columns=lists))
        return [self._nested(blocks, where) for blocks, where in
                zip(lists, wheres or [None] * len(lists), strict=True)]

    def container(self, border: bool = False, key: str | None = None) -> Doc:
        blocks: list = []
        where = self._put(Box(t="box", border=border, key=key, blocks=blocks))
        return self._nested(blocks, where)

    def expander(self, label: str) -> Doc:
        blocks: list = []
        return self._nested(blocks, self._put(Expander(t="expander", label=label,
                                                       blocks=blocks)))

    def empty(self) -> Doc:
        """A place that shows only what was last written in it."""
        slot: list = []
        return self._slot(slot, self._put(Slot(t="slot", blocks=slot)))

    def _slot(self, blocks: list, where: Any) -> Doc:
        return _Slot(self.query, self.revealed, blocks, self.lang)

    def fragment(self, body: Callable[[], None]) -> None:
        """Run a part of the page (in Streamlit, one that reruns by itself: st.fragment)."""
        body()

    def stop(self) -> None:
        raise Stop

    @contextlib.contextmanager
    def guard(self, message: Callable[[str], str]) -> Iterator[None]:
        """Turn a ValueError (a setting posviz refuses) into an error note: message(detail)."""
        try:
            yield
        except ValueError as err:
            self.error(message(str(err)))

    # ---- controls -----------------------------------------------------------------------

    def _control(self, method: str, label: str, key: str, default: Any, parse: Callable,
                 shown: Callable[[Any], str], *args: Any, **kwargs: Any) -> Any:
        raw = self.query.get(key)
        value = default
        if raw:
            with contextlib.suppress(ValueError, TypeError):
                value = parse(raw if method == "multiselect" else raw[-1])
        self.blocks.append(Setting(t="setting", label=label, value=shown(value)))
        return value

    def slider(self, label: str, min_value: float, max_value: float, value: float,
               step: float | None = None, *, key: str, **kwargs: Any) -> Any:
        return self._control("slider", label, key, value,
                             _in_range(type(value), min_value, max_value), str,
                             min_value, max_value, value, step, **kwargs)

    def number_input(self, label: str, min_value: float, max_value: float, value: float,
                     step: float | None = None, *, key: str, **kwargs: Any) -> Any:
        return self._control("number_input", label, key, value,
                             _in_range(type(value), min_value, max_value), str,
                             min_value, max_value, value, step, **kwargs)

    def select_slider(self, label: str, options: Sequence, value: Any, *, key: str,
                      format_func: Callable | None = None, **kwargs: Any) -> Any:
        options, shown = list(options), format_func or str
        return self._control("select_slider", label, key, value, _option(options, shown), shown,
                             options, value, format_func=shown, **kwargs)

    def radio(self, label: str, options: Sequence, *, key: str, format_func: Callable = str,
              **kwargs: Any) -> Any:
        options = list(options)
        return self._control("radio", label, key, options[0], _option(options, format_func),
                             format_func, options, format_func=format_func, **kwargs)

    def coded_radio(self, label: str, options: Sequence[str], *, key: str,
                    format_func: Callable, **kwargs: Any) -> str:
        """A radio whose option codes, not labels, live in the URL (ui.state.coded_radio)."""
        return self._control("coded_radio", label, key, options[0], _option(options),
                             format_func, list(options), format_func=format_func, **kwargs)

    def toggle(self, label: str, value: bool = False, *, key: str, **kwargs: Any) -> bool:
        return self._control("toggle", label, key, value, _switch,
                             lambda on: "✓" if on else "✗", value, **kwargs)

    def multiselect(self, label: str, options: Sequence, *, key: str, default: Sequence = (),
                    **kwargs: Any) -> list:
        options = list(options)
        pick = _option(options)
        return self._control("multiselect", label, key, list(default),
                             lambda raw: [pick(r) for r in dict.fromkeys(raw)],
                             lambda values: ", ".join(map(str, values)), options, **kwargs)

    def text_input(self, label: str, *, key: str, **kwargs: Any) -> str:
        return self._control("text_input", label, key, "", str, str, **kwargs)

    def button(self, label: str, *, key: str, **kwargs: Any) -> bool:
        """A button; in a document, never pressed (and not shown)."""
        return False

    # ---- questions ----------------------------------------------------------------------

    def question(self, poll: str, lead: str, text: str, options: Sequence[str],
                 ask: Callable[[Any, list[str]], bool | None]) -> Doc | None:
        """A question with lettered options, asked of the room as its poll `poll`; returns
        where its answer goes once it is shown, else None. ask(box, options) asks it in the
        app (ui.room.ask); a document holds the answer when the room has revealed it, or, in
        a file (revealed None), behind a button."""
        answer: list = []
        box = self._put(Question(t="question", poll=poll, lead=lead, text=text,
                                 options=list(options), answer=answer,
                                 hidden=self._hides_answers()))
        return self._nested(answer, box) if self._shows_answer(poll, box, options, ask) else None

    def _hides_answers(self) -> bool:
        return self.revealed is None

    def _shows_answer(self, poll: str, box: Any, options: Sequence[str],
                      ask: Callable[[Any, list[str]], bool | None]) -> bool:
        return self.revealed is None or poll in self.revealed

    def asked(self, poll: str, lead: str, text: str, options: Sequence[str]) -> None:
        """A question the lecturer asks the room (its poll `poll`), its text and options shown
        exactly as typed, under lead."""
        self._put(Asked(t="asked", poll=poll, lead=lead, text=text, options=list(options)))

    def check(self, head: str, body: str) -> Doc:
        """The concept check, every question at once: its questions are asked in the Doc
        returned."""
        questions: list = []
        return self._nested(questions, self._put(Check(t="check", head=head, body=body,
                                                       questions=questions)))


class _Slot(Doc):
    """Doc.empty: each block written replaces the last."""

    def _put(self, block: dict) -> Any:
        self.blocks.clear()
        self.blocks.append(block)


class StreamlitDoc(Doc):
    """A page drawn with Streamlit into where (st, a column, a container, ...), each block as
    it is made, by its kind's function (ui.blocks_streamlit); with record, also recorded as Doc
    records it (the tests compare the two)."""

    live = True

    def __init__(self, where: Any, record: bool = False, blocks: list | None = None,
                 lang: str = "en") -> None:
        super().__init__(blocks=blocks, lang=lang)
        self.where = where
        self.record = record

    def _nested(self, blocks: list, where: Any = None) -> Doc:
        return StreamlitDoc(where, self.record, blocks, self.lang)

    def _put(self, block: dict) -> Any:
        if self.record:
            self.blocks.append(block)
        return draw(self.where, block)

    def _slot(self, blocks: list, where: Any) -> Doc:
        return _StreamlitSlot(where, self.record, blocks, self.lang)

    def button(self, label: str, *, key: str, **kwargs: Any) -> bool:
        return self.where.button(label, key=key, **kwargs)

    def fragment(self, body: Callable[[], None]) -> None:
        st.fragment(body)()

    def stop(self) -> None:
        st.stop()

    def _control(self, method: str, label: str, key: str, default: Any, parse: Callable,
                 shown: Callable[[Any], str], *args: Any, **kwargs: Any) -> Any:
        """The control itself, a widget bound to the URL (what a document shows as a
        setting)."""
        if method == "coded_radio":
            value = coded_radio(self.where, label, *args, key=key, **kwargs)
        else:
            value = getattr(self.where, method)(label, *args, key=key, bind="query-params",
                                                persist_state="session", **kwargs)
        if self.record:
            self.blocks.append(Setting(t="setting", label=label, value=shown(value)))
            if method in CHOICES:
                st.session_state.posviz_choices[key] = list(args[0])
        return value

    def _hides_answers(self) -> bool:
        return False

    def _shows_answer(self, poll: str, box: Any, options: Sequence[str],
                      ask: Callable[[Any, list[str]], bool | None]) -> bool:
        return bool(ask(box, list(options)))


class _StreamlitSlot(StreamlitDoc):
    def _put(self, block: dict) -> Any:
        self.blocks.clear()
        return super()._put(block)
