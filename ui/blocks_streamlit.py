"""The app's renderer: each kind of block (ui/blocks.py) drawn with Streamlit by the function of its
name, in the order ui/blocks.py declares the kinds, as the viewer's drawBlock draws it on a room's
screen and in the offline files (assets/viewer/src/viewer/blocks.js). `draw` picks the function.

A kind that holds blocks returns where they go (a container, or one per column), having drawn
the blocks it already holds. A setting has no function here: in the app it is the control
itself, a widget (ui.doc.StreamlitDoc); a question's options are asked by the page's own
widgets (ui.room.ask), under its text.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from ui.chart import STATIC, chart_json
from ui.markup import entities, options_html, text_table

FORMULAS = "[data-testid=stMarkdownContainer]:has(> p > .katex:only-child)"
"""The box of each formula on the app's page (Streamlit's Markdown holding one KaTeX formula
alone), as styled here and fitted to its line by the page element (ui.view, static/view.js)."""
FORMULA_CSS = f"""<style>
{FORMULAS} {{overflow-x: auto}}
{FORMULAS} .katex .base {{margin: .3em 1em}}
</style>"""
r"""A formula's parts (KaTeX's bases, one a part) keep 1em on each side: two side by side are a
\qquad apart, and a part that a narrow line puts under another stays centred (a \qquad of
TeX's would stay at the end of the line before). Stacked on a phone they keep a gap between
them; one wider than its line is set smaller (static/view.js), and at its smallest scrolls
sideways in its line. The page holds it once (ui.page)."""
CHIPS_CSS = f"<style>{(STATIC / 'chips.css').read_text(encoding='utf-8')}</style>"
"""The chips' style, the viewer's too (static/chips.css, built from
assets/viewer/src/viewer/chips.css)."""


def draw(where: Any, block: dict) -> Any:
    """Draw a block into where (st, a column, a container, ...); returns where the blocks it
    holds go, if it holds any."""
    return DRAWN[block["t"]](where, block)


def draw_all(where: Any, blocks: list[dict]) -> None:
    for block in blocks:
        draw(where, block)


def formula_markdown(parts: list[str]) -> str:
    """A formula's parts as the Markdown of one display formula, each part unbreakable and a
    line allowed to break between two (FORMULA_CSS spaces them)."""
    pieces = r"\allowbreak ".join(f"{{{part}}}" for part in parts)
    return f"$\\displaystyle {pieces}$"


def heading(where: Any, block: dict) -> None:
    anchor = {} if block["anchor"] is None else {"anchor": block["anchor"]}
    if block["level"] == 1:
        where.title(block["text"])
    elif block["level"] == 2:
        where.header(block["text"], **(anchor or {"anchor": False}))
    else:
        where.subheader(block["text"], **anchor)


def markdown(where: Any, block: dict) -> None:
    where.markdown(block["text"])


def caption(where: Any, block: dict) -> None:
    where.caption(block["text"])


def note(where: Any, block: dict) -> None:
    getattr(where, block["kind"])(block["text"])


def formula(where: Any, block: dict) -> None:
    where.markdown(formula_markdown(block["parts"]), text_alignment="center")


def chart(where: Any, block: dict) -> None:
    chart_json(block["figure"], block["name"], where=None if where is st else where,
               toolbar=block["toolbar"], summary=block["summary"], fit=block["fit"])


def metric(where: Any, block: dict) -> None:
    plainly = {} if block["delta"] is None else {"delta_color": "off", "delta_arrow": "off"}
    where.metric(block["label"], block["value"], block["delta"], help=block["help"],
                 border=block["border"], **plainly)


def table(where: Any, block: dict) -> None:
    head, rows, holds = block["head"], block["rows"], block["holds"]
    if block["form"] == "text":
        where.html(text_table(head, rows, [held != "text" for held in holds]))
    elif block["form"] == "grid":  # a column of whole numbers sorts as numbers
        whole = [held == "whole" for held in holds]
        where.dataframe([{name: int(cell) if whole[i] else cell
                          for i, (name, cell) in enumerate(zip(head, row, strict=True))}
                         for row in rows], hide_index=True, width="stretch")
    else:
        where.table({name: [row[i] for row in rows] for i, name in enumerate(head)},
                    hide_index=True, hide_header=False)


def chips(where: Any, block: dict) -> None:
    where.html(f"{CHIPS_CSS}<div>{block['html']}</div>")


def link(where: Any, block: dict) -> None:
    where.page_link(block["page"], label=block["text"], query_params=block["query"])


def columns(where: Any, block: dict) -> list:
    made = where.columns(block["widths"], border=block["border"])
    for column, blocks in zip(made, block["columns"], strict=True):
        draw_all(column, blocks)
    return made


def box(where: Any, block: dict) -> Any:
    made = where.container(border=block["border"], key=block["key"])
    draw_all(made, block["blocks"])
    return made


def slot(where: Any, block: dict) -> Any:
    made = where.empty()
    draw_all(made, block["blocks"][-1:])
    return made


def expander(where: Any, block: dict) -> Any:
    made = where.expander(block["label"])
    draw_all(made, block["blocks"])
    return made


def question(where: Any, block: dict) -> Any:
    made = where.container(border=True, key=f"question_{block['poll']}")
    made.markdown(f"**{block['lead']}** {block['text']}")
    draw_all(made, block["answer"])
    return made


def asked(where: Any, block: dict) -> Any:
    made = where.container(border=True)
    made.markdown(f"**{block['lead']}**")
    made.html(f'<p style="font-size: 1.3rem; margin: 0">{entities(block["text"])}</p>')
    made.html(options_html(block["options"]))
    return made


def check(where: Any, block: dict) -> Any:
    made = where.container(border=True)
    made.markdown(f"**{block['head']}**")
    made.markdown(block["body"])
    draw_all(made, block["questions"])
    return made


DRAWN = {"heading": heading, "markdown": markdown, "caption": caption, "note": note,
         "formula": formula, "chart": chart, "metric": metric, "table": table, "chips": chips,
         "link": link, "columns": columns, "box": box, "slot": slot, "expander": expander,
         "question": question, "asked": asked, "check": check}
"""Each kind's function, in the order ui/blocks.py declares the kinds (a setting aside)."""
