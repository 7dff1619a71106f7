"""What a chart shows, in a few sentences computed from its numbers, for a reader who cannot see
it (a screen reader reads it as the chart's description; the chart's data table holds the rest).

Every figure posviz draws is summarized the same way, from the figure as the browser receives
it (its JSON): its title; for each
map (heatmap) its panel, its size and what its rows and columns are, then either where each row
puts most of its weight (rows that sum to 1: attention) or its smallest and largest value, and
how many cells are hidden; for lines, each line's start, end and highest point; for bars, each
bar's value. Row, column and value names come from the hover text the figure already carries.
"""

from __future__ import annotations

import html
import math
import re
from collections import Counter
from collections.abc import Sequence

import numpy as np

from posviz.figures.common import as_array
from ui.i18n import catalog, text

ROWS_SAID = 8  # rows of a map named one by one; the table has the others
LINES_SAID = 6
BARS_SAID = 12
PANELS_SAID = 8
TABLE_LABELS = ("table", "table_rows", "table_note", "hidden_cell", "series")  # a chart's data
# table's words, of the same catalog section (ui.chart sends them with the chart's)

SENTENCE_GAP = {"en": " ", "zh": ""}  # what stands between two sentences
_TAG = re.compile(r"<[^>]+>")


def plain(label: object) -> str:
    """A label as a reader hears it: plotly's markup (<br>, <sup>) gone, entities decoded."""
    return " ".join(html.unescape(_TAG.sub(" ", str(label))).split())


def number(value: float) -> str:
    """Three significant digits, as a lecturer reads them out."""
    if not math.isfinite(value):
        return str(value)
    if value == 0:
        return "0"
    if abs(value) >= 100:
        return f"{value:,.0f}"
    if abs(value) < 1e-3:
        return f"{value:.2e}"
    digits = 2 - math.floor(math.log10(abs(value)))
    return f"{value:.{digits}f}".rstrip("0").rstrip(".")


def _names(template: str | None) -> dict[str, str]:
    """What a trace's hover text calls its x, y and z ("key (position): %{x}" names x)."""
    found = {}
    for line in (template or "").split("<br>"):
        match = re.match(r"\s*([^%<]+?)\s*[:=]\s*%\{([xyz])", line)
        if match:
            found[match.group(2)] = plain(match.group(1))
    return found


def _title(part: dict | None) -> str:
    """The title of a layout or an axis, as text."""
    title = (part or {}).get("title")
    return plain((title.get("text") if isinstance(title, dict) else title) or "")


def _axis(layout: dict, axis: str) -> dict:
    """An axis ('x', 'y2', ...) of the layout."""
    return layout.get(f"{axis[0]}axis{axis[1:]}") or {}


def _panel_titles(figure: dict) -> dict[str, str]:
    """Each subplot's title by its x axis ('x', 'x2', ...): the annotation above its plot."""
    layout = figure.get("layout", {})
    notes = [(note.get("x"), note.get("y"), note["text"]) for note in layout.get("annotations", ())
             if note.get("xref") == "paper" and note.get("yref") == "paper" and note.get("text")]
    titles = {}
    for xaxis, yaxis in {(t.get("xaxis") or "x", t.get("yaxis") or "y") for t in figure["data"]}:
        x_domain, y_domain = _axis(layout, xaxis).get("domain"), _axis(layout, yaxis).get("domain")
        if x_domain is None or y_domain is None:
            continue
        (x0, x1), top = x_domain, y_domain[1]
        near = [text for x, y, text in notes if x0 - 1e-6 <= x <= x1 + 1e-6
                and abs(y - top) < 0.02]
        if near:
            titles[xaxis] = plain(near[0])
    return titles


def _labels(values: Sequence | dict | None, n: int) -> list[str]:
    return [plain(v) for v in as_array(values)] if values is not None else [
        str(i) for i in range(n)]


def _heatmap(trace: dict, panel: str, layout: dict, lang: str) -> str:
    z = as_array(trace.get("z", ())).astype(float)
    if z.ndim != 2 or z.size == 0:
        return ""
    rows, cols = _labels(trace.get("y"), z.shape[0]), _labels(trace.get("x"), z.shape[1])
    names = _names(trace.get("hovertemplate"))
    row_name = names.get("y") or _title(_axis(layout, trace.get("yaxis") or "y"))
    col_name = names.get("x") or _title(_axis(layout, trace.get("xaxis") or "x"))
    value, one = names.get("z"), names.get("z")
    value, one = value or text("summary.values", lang), one or text("summary.value", lang)
    said = [text("summary.map" if row_name and col_name else "summary.map_bare", lang,
                 rows=z.shape[0], row=row_name, cols=z.shape[1], col=col_name)]
    seen = np.isfinite(z)
    if not seen.any():
        return _join(panel, said, lang)
    full = np.where(seen, z, 0.0)
    sums = full.sum(axis=1)
    if (full >= 0).all() and np.allclose(sums[seen.any(axis=1)], 1.0, atol=1e-3):
        pairs = []
        for r in range(min(ROWS_SAID, z.shape[0])):
            if seen[r].any():
                c = int(np.argmax(np.where(seen[r], z[r], -np.inf)))
                pairs.append(text("summary.pair", lang, row=rows[r], col=cols[c],
                                  v=number(z[r, c])))
        said.append(text("summary.most", lang, value=one, pairs=text(
            "summary.list_sep", lang).join(pairs)))
        if z.shape[0] > ROWS_SAID:
            said.append(text("summary.more_rows", lang, k=z.shape[0] - ROWS_SAID))
    elif np.ptp(z[seen]) == 0:
        said.append(text("summary.constant", lang, value=value, v=number(z[seen][0])))
    else:
        low = np.unravel_index(np.argmin(np.where(seen, z, np.inf)), z.shape)
        high = np.unravel_index(np.argmax(np.where(seen, z, -np.inf)), z.shape)
        said.append(text("summary.range", lang, value=value, low=number(z[low]),
                         low_at=text("summary.cell", lang, row=rows[low[0]], col=cols[low[1]]),
                         high=number(z[high]),
                         high_at=text("summary.cell", lang, row=rows[high[0]],
                                      col=cols[high[1]])))
    hidden = int((~seen).sum())
    if hidden:
        said.append(text("summary.hidden", lang, k=hidden, n=z.size))
    return _join(panel, said, lang)


def _join(panel: str, said: list[str], lang: str) -> str:
    body = text("summary.clause_sep", lang).join(said)
    return text("summary.panel", lang, panel=panel, body=body) if panel else body + \
        text("summary.stop", lang)


def _line(trace: dict, lang: str) -> str:
    y = as_array(trace.get("y", ())).astype(float)
    x = (np.arange(len(y)) if trace.get("x") is None else
         np.asarray([plain(v) if isinstance(v, str) else v for v in as_array(trace["x"]).tolist()],
                    dtype=object))
    keep = np.isfinite(y)
    if not keep.any() or len(x) != len(y):
        return ""
    x, y = x[keep], y[keep]
    at = lambda v: v if isinstance(v, str) else number(float(v))  # noqa: E731
    steps = np.diff(x.astype(float)) if not any(isinstance(v, str) for v in x) else None
    if steps is not None and len(steps) and not ((steps >= 0).all() or (steps <= 0).all()):
        return text("summary.path", lang, name=plain(trace.get("name") or ""), n=len(y),
                    start=f"({at(x[0])}, {number(y[0])})", end=f"({at(x[-1])}, {number(y[-1])})")
    top = int(np.argmax(y))
    return text("summary.line", lang, name=plain(trace.get("name") or ""), first=number(y[0]),
                first_at=at(x[0]), last=number(y[-1]), last_at=at(x[-1]), high=number(y[top]),
                high_at=at(x[top]))


def _bars(trace: dict, lang: str) -> str:
    """A trace's bars, each label with its value; cells laid on a base (a row of layers) as
    how many cells each label has."""
    across = trace.get("orientation") == "h"
    values = as_array(trace.get("x" if across else "y", ())).astype(float)
    labels = _labels(trace.get("y" if across else "x"), len(values))
    if trace.get("base") is not None:
        counts = Counter(labels)  # labels in the order they first come
        labels, values = list(counts), np.array(list(counts.values()), dtype=float)
    shown = [text("summary.bar", lang, label=label, v=number(v))
             for label, v in zip(labels[:BARS_SAID], values[:BARS_SAID], strict=False)]
    name = plain(trace.get("name") or "")
    body = text("summary.list_sep", lang).join(shown)
    if len(values) > BARS_SAID:
        body += text("summary.list_sep", lang) + text("summary.more_bars", lang,
                                                      k=len(values) - BARS_SAID)
    return (text("summary.named", lang, name=name, body=body) if name else body) + text(
        "summary.stop", lang)


def browser_words(lang: str) -> dict:
    """What the viewer's twin of summary() (assets/viewer/src/engine/summary.js) is sent: the
    words in lang, the gap between sentences and how many rows, lines, bars and panels are
    named one by one."""
    return {"words": {key.removeprefix("summary."): text(key, lang) for key in catalog()
                      if key.startswith("summary.")
                      and key.removeprefix("summary.") not in TABLE_LABELS},
            "gap": SENTENCE_GAP[lang], "rows": ROWS_SAID, "lines": LINES_SAID,
            "bars": BARS_SAID, "panels": PANELS_SAID}


def summary(figure: dict, lang: str) -> str:
    """The figure's title and what its maps, lines or bars show, as sentences in lang. figure:
    as the browser receives it (plotly's JSON, read)."""
    layout = figure.get("layout", {})
    title = _title(layout)
    said = [title + text("summary.stop", lang)] if title else []
    shown = [t for t in figure["data"]
             if t.get("hoverinfo") != "skip" and t.get("visible") is not False]
    maps = [t for t in shown if t.get("type") == "heatmap"]
    if maps:
        panels = _panel_titles(figure)
        if len(maps) > 1:
            said.append(text("summary.panels", lang, n=len(maps)))
        said += [_heatmap(t, panels.get(t.get("xaxis") or "x") or plain(t.get("name") or ""),
                          layout, lang) for t in maps[:PANELS_SAID]]
        if len(maps) > PANELS_SAID:
            said.append(text("summary.more_panels", lang, k=len(maps) - PANELS_SAID))
    lines = [t for t in shown if t.get("type") == "scatter" and t.get("y") is not None
             and np.isfinite(as_array(t["y"]).astype(float)).any()]
    if lines and not maps:
        x_title = _title(_axis(layout, lines[0].get("xaxis") or "x"))
        count = "one" if len(lines) == 1 else "many"
        said.append(text(f"summary.lines_{count}" + ("" if x_title else "_bare"), lang,
                         n=len(lines), x=x_title))
        said += [_line(t, lang) for t in lines[:LINES_SAID]]
        if len(lines) > LINES_SAID:
            said.append(text("summary.more_lines", lang, k=len(lines) - LINES_SAID))
    said += [_bars(t, lang) for t in shown if t.get("type") == "bar"]
    return SENTENCE_GAP[lang].join(s for s in said if s)
