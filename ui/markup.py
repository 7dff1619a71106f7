"""Typed text shown exactly as typed: no Markdown, LaTeX or HTML in it survives."""

import re
import string
import unicodedata
from collections.abc import Sequence

from posviz.permutation import readable
from rooms import LETTERS

TABLE_CSS = """<style>.posviz-table {border-collapse: collapse; font-size: .9rem; width: 100%}
.posviz-table th, .posviz-table td {padding: .3rem .6rem; text-align: left;
  border-bottom: 1px solid rgba(128, 128, 128, .3)}
.posviz-table th {font-weight: 600} .posviz-table td.number {text-align: right;
  font-variant-numeric: tabular-nums}</style>"""


FIGURES = re.compile(r"[-+.\deE]*")  # the characters a number's text is written with


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


def figures(cell: str) -> str:
    """A number's text for st.html: as it is when it holds only a number's characters, else
    every character an entity."""
    return cell if FIGURES.fullmatch(cell) else entities(cell)


def options_html(labels: Sequence[str]) -> str:
    """A question's options for st.html, lettered A, B, ..., each shown exactly as typed."""
    items = "".join(f"<li><b>{letter}</b>&ensp;{entities(label)}</li>"
                    for letter, label in zip(LETTERS[:len(labels)], labels, strict=True))
    return (f'<ol class="posviz-options">{items}</ol><style>.posviz-options {{'
            "list-style: none; padding: 0; margin: .2rem 0 .6rem; font-size: 1.1rem}"
            ".posviz-options li {margin: .25rem 0}</style>")


def text_table(head: Sequence[str], rows: Sequence[Sequence[str]], numbers: Sequence[bool]
               ) -> str:
    """A table for st.html, every cell shown exactly as typed, the columns of numbers
    right-aligned. Unlike st.table it renders no Markdown in a cell, and unlike st.dataframe it
    loads no data-grid script before the page shows."""
    def cells(row: Sequence[str]) -> str:
        return "".join(f'<td class="number">{figures(cell)}</td>' if number
                       else f"<td>{entities(cell)}</td>"
                       for cell, number in zip(row, numbers, strict=True))

    names = "".join(f"<th>{entities(name)}</th>" for name in head)
    body = "".join(f"<tr>{cells(row)}</tr>" for row in rows)
    return f'{TABLE_CSS}<table class="posviz-table"><tr>{names}</tr>{body}</table>'
