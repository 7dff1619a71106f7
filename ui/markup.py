"""Typed text shown exactly as typed: no Markdown, LaTeX or HTML in it survives."""

import string
import unicodedata
from collections.abc import Sequence

from posviz.permutation import readable

TABLE_CSS = """<style>.posviz-table {border-collapse: collapse; font-size: .9rem; width: 100%}
.posviz-table th, .posviz-table td {padding: .3rem .6rem; text-align: left;
  border-bottom: 1px solid rgba(128, 128, 128, .3)}
.posviz-table th {font-weight: 600} .posviz-table td.number {text-align: right;
  font-variant-numeric: tabular-nums}</style>"""


def entities(typed: str) -> str:
    """Every character as an HTML entity, for st.html."""
    return "".join(f"&#{ord(c)};" for c in typed)


def literal(typed: str) -> str:
    """Typed text for an element that reads Markdown (and LaTeX): every ASCII punctuation mark
    backslash-escaped, line breaks as spaces, so that it shows as typed."""
    return "".join("\\" + c if c in string.punctuation else " " if c in "\r\n" else c
                   for c in typed)


def written(tokens: list[str]) -> str:
    """Tokens as a sentence: a space between two, unless both are wide (Chinese) characters."""
    wide = [unicodedata.east_asian_width(t[0]) in "WF" and
            unicodedata.east_asian_width(t[-1]) in "WF" for t in tokens]
    return "".join(("" if i == 0 or (wide[i - 1] and wide[i]) else " ") + t
                   for i, t in enumerate(tokens))


def cell_text(value: object) -> str:
    """A table's cell as every renderer shows it (the app, a room's screen, a file): a float as
    the pages write numbers (posviz.permutation.readable: 2.209, 3.4e-05, 0), anything else as
    it is."""
    return readable(value) if isinstance(value, float) else str(value)


def text_table(columns: dict[str, Sequence[object]]) -> str:
    """A table for st.html, a column per header, every cell shown exactly as typed (floats
    as cell_text writes them, right-aligned). Unlike st.table it renders no Markdown in a cell,
    and unlike st.dataframe it loads no data-grid script before the page shows."""
    def cell(value: object) -> str:
        if isinstance(value, float):
            return f'<td class="number">{cell_text(value)}</td>'
        return f"<td>{entities(str(value))}</td>"

    head = "".join(f"<th>{entities(name)}</th>" for name in columns)
    body = "".join(f"<tr>{''.join(map(cell, row))}</tr>" for row in zip(*columns.values(),
                                                                          strict=True))
    return f'{TABLE_CSS}<table class="posviz-table"><tr>{head}</tr>{body}</table>'
