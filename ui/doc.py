"""A page written once, shown two ways: drawn with Streamlit, or recorded as a document.

Every page writes its content through a `Doc` (markdown, formula, chart, metric, table, notes,
token chips, columns, boxes, settings, the scene's question). `Doc` itself records what is
written as blocks of plain JSON, which a room's followers (static/viewer.js) and the offline
lesson file draw with the same chart module as the app; `StreamlitDoc` draws the same calls
with Streamlit, as the interactive app does. A control (slider, radio, switch, ...) is a
widget in Streamlit and, in a document, the value the view's URL gives it (every control of a
page is bound to the URL), shown as a read-only setting.

Only public Streamlit calls are made, and nothing of Streamlit is replayed: a document is the
page run again as plain Python, from the view's page and query string.
"""

from __future__ import annotations

import contextlib
import math
import re
from collections.abc import Callable, Container, Iterator, Mapping, Sequence
from typing import Any

import streamlit as st

from ui.chart import chart, figure_json, figure_summary
from ui.markup import cell_text, entities, text_table
from ui.state import coded_radio

CHOICES = ("radio", "coded_radio", "select_slider")  # controls whose first argument is options
FORMULA_CSS = """<style>
[data-testid=stMarkdownContainer]:has(> p > .katex:only-child) {overflow-x: auto}
[data-testid=stMarkdownContainer]:has(> p > .katex:only-child) .katex .base {margin: .3em 1em}
</style>"""
r"""A formula's parts (KaTeX's bases, one a part) keep 1em on each side: two side by side are a
\qquad apart, and a part that a narrow line puts under another stays centred (a \qquad of
TeX's would stay at the end of the line before). Stacked on a phone they keep a gap between
them; one wider than its line is set smaller (static/chart.js), and at its smallest scrolls
sideways in its line."""
CHIPS_CSS = """<style>.posviz-chip {display:inline-block; margin:0 .3em .3em 0;
    padding:.15em .5em; border:1px solid rgba(128,128,128,.5); border-radius:.4em;
    font-size:1.4rem}
    .posviz-chip sub {opacity:.75; font-size:.7em}</style>"""


def formula_markdown(parts: list[str]) -> str:
    """A formula's parts as the Markdown of one display formula, each part unbreakable and a
    line allowed to break between two (FORMULA_CSS spaces them)."""
    pieces = r"\allowbreak ".join(f"{{{part}}}" for part in parts)
    return f"$\\displaystyle {pieces}$"


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


def _number(kind: type, low: float, high: float) -> Callable[[str], Any]:
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


def _question(poll: str, lead: str, text: str, options: Sequence[str], answer: list,
              hidden: bool) -> dict:
    """A question's block: its answer's blocks go into answer; hidden: behind a button."""
    return {"t": "question", "poll": poll, "lead": lead, "text": text, "options": list(options),
            "answer": answer, "hidden": hidden}


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

    def _put(self, block: dict, method: str, *args: Any, **kwargs: Any) -> Any:
        self.blocks.append(block)

    # ---- content ------------------------------------------------------------------------

    def markdown(self, body: str, **kwargs: Any) -> None:
        self._put({"t": "markdown", "text": body}, "markdown", body, **kwargs)

    def caption(self, body: str) -> None:
        self._put({"t": "caption", "text": body}, "caption", body)

    def title(self, body: str) -> None:
        self._put({"t": "heading", "level": 1, "text": body}, "title", body)

    def header(self, body: str) -> None:
        self._put({"t": "heading", "level": 2, "text": body}, "header", body, anchor=False)

    def subheader(self, body: str) -> None:
        self._put({"t": "heading", "level": 3, "text": body}, "subheader", body)

    def note(self, kind: str, body: str) -> None:
        """A callout: kind is info, warning, error or success."""
        self._put({"t": "note", "kind": kind, "text": body}, kind, body)

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
        parts = formula_parts(tex)
        self._put({"t": "formula", "parts": parts}, "markdown", formula_markdown(parts),
                  text_alignment="center")

    def chart(self, figure: Any, name: str, toolbar: bool = True, fit: bool = False) -> None:
        """A plotly figure, keyed by name on its page (see ui.chart; fit: in the window, in
        presentation mode)."""
        said = figure_summary(figure, self.lang)
        self._put({"t": "chart", "name": name, "figure": figure_json(figure, False),
                   "toolbar": toolbar, "summary": said}, "chart", figure, name, toolbar, said,
                  fit=fit)

    def metric(self, label: str, value: str, delta: str | None = None, **kwargs: Any) -> None:
        self._put({"t": "metric", "label": label, "value": value, "delta": delta}, "metric",
                  label, value, delta, **kwargs)

    def table(self, columns: Mapping[str, Sequence[object]]) -> None:
        """A small table, a column per header (cells as text)."""
        cells = {head: list(map(cell_text, column)) for head, column in columns.items()}
        self._put(self._table(cells), "table", cells, hide_index=True, hide_header=False)

    def text_table(self, columns: Mapping[str, Sequence[object]]) -> None:
        """A table whose cells are shown exactly as typed (ui.markup.text_table)."""
        self._put(self._table(columns), "html", text_table(dict(columns)))

    def dataframe(self, rows: list[dict[str, object]], labels: Mapping[str, str]) -> None:
        """Rows of a data grid, showing the columns labels names, under those labels."""
        rows = [{key: cell_text(v) if isinstance(v, float) else v for key, v in row.items()}
                for row in rows]  # numbers as every table writes them
        columns = {label: [row[key] for row in rows] for key, label in labels.items()}
        config = {key: labels.get(key) for key in (rows[0] if rows else labels)}
        self._put(self._table(columns), "dataframe", rows, hide_index=True, width="stretch",
                  column_config=config)

    @staticmethod
    def _table(columns: Mapping[str, Sequence[object]]) -> dict:
        return {"t": "table", "head": list(columns),
                "rows": [[cell_text(v) for v in row]
                         for row in zip(*columns.values(), strict=True)]}

    def chips(self, tokens: Sequence[str], labels: Sequence[str] | None = None) -> None:
        """The tokens as chips, exactly as typed, each with a small label (default: position)."""
        labels = [str(t) for t in range(len(tokens))] if labels is None else list(labels)
        self._put({"t": "chips", "tokens": list(tokens), "labels": labels}, "html",
                  f"{CHIPS_CSS}<div>{chips_html(tokens, labels)}</div>")

    def link(self, label: str, page: str, query: Mapping[str, str]) -> None:
        """A link to another page of the app (page: its script, e.g. pages/3_rope.py)."""
        self._put({"t": "link", "text": label}, "page_link", page, label=label,
                  query_params=dict(query))

    # ---- layout -------------------------------------------------------------------------

    def columns(self, spec: int | Sequence[float], **kwargs: Any) -> list[Doc]:
        n = spec if isinstance(spec, int) else len(spec)
        lists: list[list] = [[] for _ in range(n)]
        wheres = self._put({"t": "columns", "columns": lists}, "columns", spec, **kwargs)
        return [self._nested(blocks, where) for blocks, where in
                zip(lists, wheres or [None] * n, strict=True)]

    def container(self, border: bool = False, **kwargs: Any) -> Doc:
        blocks: list = []
        where = self._put({"t": "box", "border": border, "blocks": blocks}, "container",
                          border=border, **kwargs)
        return self._nested(blocks, where)

    def expander(self, label: str) -> Doc:
        blocks: list = []
        return self._nested(blocks, self._put({"t": "expander", "label": label,
                                               "blocks": blocks}, "expander", label))

    def empty(self) -> Doc:
        """A place that shows only what was last written in it."""
        slot: list = []
        where = self._put({"t": "box", "border": False, "blocks": slot}, "empty")
        return self._slot(slot, where)

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
        self.blocks.append({"t": "setting", "label": label, "value": shown(value)})
        return value

    def slider(self, label: str, min_value: float, max_value: float, value: float,
               step: float | None = None, *, key: str, **kwargs: Any) -> Any:
        return self._control("slider", label, key, value,
                             _number(type(value), min_value, max_value), str,
                             min_value, max_value, value, step, **kwargs)

    def number_input(self, label: str, min_value: float, max_value: float, value: float,
                     step: float | None = None, *, key: str, **kwargs: Any) -> Any:
        return self._control("number_input", label, key, value,
                             _number(type(value), min_value, max_value), str,
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

    # ---- the question ----------------------------------------------------------------------

    def question(self, poll: str, lead: str, text: str, options: Sequence[str],
                 ask: Callable[[Any, list[str]], bool | None]) -> Doc | None:
        """A question with lettered options, asked of the room as its poll `poll`; returns
        where its answer goes once it is shown, else None. ask(box, options) asks it in the
        app (ui.room.ask); a document holds the answer when the room has revealed it, or, in
        a file (revealed None), behind a button."""
        answer: list = []
        self.blocks.append(_question(poll, lead, text, options, answer, self.revealed is None))
        if self.revealed is None or poll in self.revealed:
            return self._nested(answer)
        return None


class _Slot(Doc):
    """Doc.empty: each block written replaces the last."""

    def _put(self, block: dict, method: str, *args: Any, **kwargs: Any) -> Any:
        self.blocks.clear()
        self.blocks.append(block)


class StreamlitDoc(Doc):
    """A page drawn with Streamlit into where (st, a column, a container, ...); with record,
    also recorded as Doc records it (the tests compare the two)."""

    live = True

    def __init__(self, where: Any, record: bool = False, blocks: list | None = None,
                 lang: str = "en") -> None:
        super().__init__(blocks=blocks, lang=lang)
        self.where = where
        self.record = record

    def _nested(self, blocks: list, where: Any = None) -> Doc:
        return StreamlitDoc(where, self.record, blocks, self.lang)

    def _put(self, block: dict, method: str, *args: Any, **kwargs: Any) -> Any:
        if self.record:
            self.blocks.append(block)
        if method == "chart":
            figure, name, toolbar, said = args
            return chart(figure, name, where=None if self.where is st else self.where,
                         toolbar=toolbar, summary=said, **kwargs)
        return getattr(self.where, method)(*args, **kwargs)

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
        if method == "coded_radio":
            value = coded_radio(self.where, label, *args, key=key, **kwargs)
        else:
            value = getattr(self.where, method)(label, *args, key=key, bind="query-params",
                                                persist_state="session", **kwargs)
        if self.record:
            self.blocks.append({"t": "setting", "label": label, "value": shown(value)})
            if method in CHOICES:
                st.session_state.posviz_choices[key] = list(args[0])
        return value

    def question(self, poll: str, lead: str, text: str, options: Sequence[str],
                 ask: Callable[[Any, list[str]], bool | None]) -> Doc | None:
        box = self.where.container(border=True, key=f"question_{poll}")
        box.markdown(f"**{lead}** {text}")
        answer: list = []
        if self.record:
            self.blocks.append(_question(poll, lead, text, options, answer, False))
        asked = ask(box, list(options))
        return StreamlitDoc(box, self.record, answer, self.lang) if asked else None


class _StreamlitSlot(StreamlitDoc):
    def _put(self, block: dict, method: str, *args: Any, **kwargs: Any) -> Any:
        self.blocks.clear()
        return super()._put(block, method, *args, **kwargs)
