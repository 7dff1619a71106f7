"""Pieces every posviz chart shares: escaped labels, one layout, token-labelled heatmaps.

Figures are built in one call from plain dicts (`figure`), as plotly.js reads them: plotly.py
does not check them as they are built (its checks were most of a page's drawing time);
tests/documents/test_figures_checked.py checks that every figure a page draws is one plotly.py's
checks accept and would leave unchanged.
"""

from __future__ import annotations

import base64
import functools
import html
import re

import numpy as np
import plotly.graph_objects as go
from plotly.colors import get_colorscale

FONT_SIZE = 14
MIN_FONT_SIZE = 11
"""No text is drawn smaller (pixels): plotly hides a bar's value rather than shrink it further."""
MIN_WIDTH = 320
"""The narrowest a chart is drawn (pixels, a phone's column); `layout(min_width=)` asks for more
where panels side by side need it, and the app lets a wider chart scroll sideways
(static/chart.js)."""
MASKED_COLOR = "rgba(128, 128, 128, 0.35)"
"""The colour of a cell with no value (NaN), e.g. one hidden by a causal mask."""
LINE_GREY = "#888888"
"""Marker lines on the page's own background (limits, chance, a training length, a frame):
3.5:1 on white and 5.3:1 on a dark theme's page, where black would vanish."""
LEGEND = dict(orientation="h", xref="paper", x=0, xanchor="left", yref="container", y=0,
              yanchor="bottom")
"""Every legend: in a band of its own under the chart, below the axis titles, wrapping onto as
many rows as it needs. Placed on the figure's frame (yref "container"), it makes plotly reserve
that band beneath whatever the axes need, so it can never cover an axis title."""
COLORWAY = ["#0072B2", "#B47C00", "#009E73", "#C5689C", "#8A59B7", "#D55E00", "#868686",
            "#92880C"]
"""Okabe and Ito's hues (colour-blind safe), grey for their black, each made as light or dark as
reads 3:1 against both themes' backgrounds, white and a dark theme's #0e1117 (relative
luminance between 0.14 and 0.26: WCAG 1.4.11), since lines are drawn on the page's own
background; their sky blue, as dark as that only another blue, gave way to a purple."""
TEMPLATE = dict(layout=dict(
    colorway=COLORWAY, paper_bgcolor="white", plot_bgcolor="white", font=dict(color="#31333F"),
    xaxis=dict(automargin=True, gridcolor="#E8E8EC"), yaxis=dict(automargin=True,
                                                                 gridcolor="#E8E8EC"),
    hoverlabel=dict(font=dict(size=FONT_SIZE))))
"""posviz's own small template (plotly's default adds 6.5 kB to every figure). The app draws
charts on its page's colours (static/chart.js); a notebook shows them on white."""


def plain(text: str) -> str:
    """Text shown as typed: plotly would otherwise read <b>, <br>, &amp; ... as markup."""
    return html.escape(text, quote=False)


POWER = re.compile(r"\^(−?\d+(?:\.\d+)?)(?![\w.])")
SUPERSCRIPTS = str.maketrans("−0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def raised(text: str) -> str:
    """Text (escaped by plain) with each power of a number written ^e (2^−5, 2^−0.5) raised:
    a whole exponent in superscript characters (2⁻⁵, as large as the text around it), another
    as plotly's <sup> (there is no superscript point)."""
    def power(match: re.Match) -> str:
        exponent = match.group(1)
        return exponent.translate(SUPERSCRIPTS) if "." not in exponent else f"<sup>{exponent}</sup>"

    return POWER.sub(power, text)


def spelled_out(value: object, key: str = "") -> object:
    """Figure parts (dicts, lists, plotly objects, arrays) as plotly.py's checks would write
    them: a named colour scale spelled out as its colours (plotly.js reads a name such as
    "Blues" as a scale of its own, the other way round), tuples as lists."""
    if isinstance(value, dict):
        return {k: spelled_out(v, k) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [spelled_out(v) if isinstance(v, (dict, list, tuple)) else v for v in value]
    if key == "colorscale" and isinstance(value, str):
        return [list(stop) for stop in _named_scale(value)]
    return value


@functools.cache
def _named_scale(name: str) -> tuple[tuple[float, str], ...]:
    return tuple(tuple(stop) for stop in get_colorscale(name))


def as_array(value: object) -> np.ndarray:
    """A figure's array as its JSON holds it (a list, or plotly's base64 typed array: {dtype,
    bdata, shape}), as numbers."""
    if isinstance(value, dict) and "bdata" in value:
        flat = np.frombuffer(base64.b64decode(value["bdata"]), dtype=value["dtype"])
        shape = value.get("shape")
        if isinstance(shape, str):
            shape = [int(n) for n in shape.split(",")]
        return flat.reshape(shape) if shape else flat
    return np.asarray(value)


def figure(data: list, shape: dict) -> go.Figure:
    """The figure of traces (dicts or plotly objects) and a layout, spelled out, unchecked."""
    return go.Figure(spelled_out(data), spelled_out(shape), _validate=False)


def layout(title: str, height: int | None = None, *, min_width: int = MIN_WIDTH,
           **extra: object) -> dict:
    """The layout every posviz chart shares (title, font size, margins, the legend under the
    chart), plus extra keys.

    The title has one line's room above the plot; a chart drawn narrower than its title wraps
    it and makes room for the extra lines (static/chart.js). min_width (pixels, MIN_WIDTH at
    least) is the narrowest the chart stays legible at, kept in the layout's meta for the app's
    chart element.
    """
    return dict(title=dict(text=raised(plain(title)), y=1, yanchor="top", yref="container",
                           pad=dict(t=12)),
                font=dict(size=FONT_SIZE), margin=dict(l=10, r=10, t=50, b=10), legend=LEGEND,
                uniformtext=dict(minsize=MIN_FONT_SIZE, mode="hide"),
                meta=dict(min_width=max(min_width, MIN_WIDTH)), height=height,
                template=TEMPLATE) | extra


ROOM_SCALE = 1.6
"""Presentation mode: every font this many times larger, lines twice as thick."""
_FONTS = ("font", "tickfont", "textfont")


def for_the_room(figure: dict, scale: float = ROOM_SCALE) -> dict:
    """A figure (as its JSON dict) readable from the back of a room: larger text, thicker lines.

    Every font size (titles, ticks, hover, annotations, colour bars) is multiplied by scale,
    including the default ones, and none stays under 0.8 of the enlarged default; line widths
    double (3 px at least); the chart grows by a quarter and its margins with the text they
    hold, to make room; values are untouched. A figure that carries a figure of its own for
    the room (meta.room: fewer, larger panels) is replaced by it first.
    """
    figure = figure.get("layout", {}).get("meta", {}).get("room") or figure
    def walk(node: object, key: str = "") -> object:
        if isinstance(node, list):
            return [walk(item, key) for item in node]
        if not isinstance(node, dict) or "bdata" in node:
            return node
        out = {k: walk(v, k) for k, v in node.items()}
        if key in _FONTS and isinstance(out.get("size"), int | float):  # small ticks too
            out["size"] = max(out["size"] * scale, FONT_SIZE * scale * 0.8)
        if key == "line" and isinstance(out.get("width"), int | float) and out["width"] > 0:
            out["width"] = max(3.0, 2 * out["width"])
        return out

    room = walk(figure)
    layout = room.setdefault("layout", {})
    if "margin" in layout:  # room for the larger title, and for larger labels set in margins
        layout["margin"] = {**layout["margin"], **{
            side: size * (1.4 if side == "t" else scale)
            for side, size in layout["margin"].items() if side in ("l", "r", "t", "b")}}
    if layout.get("height"):
        layout["height"] = round(layout["height"] * 1.25)
    layout["font"] = {**layout.get("font", {}), "size": FONT_SIZE * scale}
    if "uniformtext" in layout:  # a value too small to read is hidden, not shrunk
        layout["uniformtext"] = {**layout["uniformtext"], "minsize": MIN_FONT_SIZE * scale}
    layout["hoverlabel"] = {"font": {"size": FONT_SIZE * scale}}
    if isinstance(layout.get("title"), dict):
        layout["title"]["font"] = {**layout["title"].get("font", {}),
                                   "size": FONT_SIZE * scale * 1.25}
    for key in [k for k in layout if k[1:5] == "axis"]:  # room for the larger tick labels
        layout[key] = {**layout[key], "automargin": True}
    for trace in room.get("data", []):
        if trace.get("type", "scatter") == "scatter" and "width" not in trace.get("line", {}):
            trace["line"] = {**trace.get("line", {}), "width": 4}
    return room


def axis(title: str, **extra: object) -> dict:
    """An axis with an escaped title and no grid lines."""
    return dict(title=dict(text=plain(title)), showgrid=False, zeroline=False) | extra


def masked_layer(z: np.ndarray, x: list[str], y: list[str], **placement: object) -> dict:
    """A grey heatmap trace painting exactly the NaN cells of z, to draw beneath z's own trace.

    The plot background cannot do this: a theme pads the axes, and the padding would show as
    a grey frame around every map. Sent as one byte per cell (1 = grey, 0 = transparent).
    placement (xaxis=, yaxis=) puts it in a subplot.
    """
    return dict(type="heatmap", z=np.isnan(z).astype(np.int8), x=x, y=y, zmin=0, zmax=1,
                colorscale=[[0, "rgba(0, 0, 0, 0)"], [1, MASKED_COLOR]], showscale=False,
                hoverinfo="skip", **placement)


SQUARE_TICKS = 16  # a square map labels at most about this many rows, and as many columns
NICE_STEPS = (1, 2, 5, 10, 20, 25, 50, 100)


def shared_ticks(labels: list[str], ticks: int = SQUARE_TICKS) -> dict:
    """Ticks for both axes of a square map (the same labels on each): one step for both, the
    smallest of NICE_STEPS that labels at most about ticks of them (plotly would pick a step
    per axis: every 3rd column beside every 7th row)."""
    step = next((s for s in NICE_STEPS if len(labels) / s <= ticks), NICE_STEPS[-1])
    return dict(tickvals=labels[::step]) if step > 1 else {}


def token_heatmap(z: np.ndarray, row_labels: list[str], col_labels: list[str], *, title: str,
                  x_title: str, y_title: str, value_name: str = "", colorscale: str = "RdBu_r",
                  zmid: float | None = 0.0, zmin: float | None = None, zmax: float | None = None,
                  height: int | None = None, ticks: int = SQUARE_TICKS) -> go.Figure:
    """Heatmap of a (rows, cols) matrix with one labelled row per token, row 0 on top.

    Labels must be unique (`token_labels` makes them so): they are the categories of both axes,
    so repeated tokens keep their own rows and hover names the exact cell. Plotly labels as
    many rows and columns as the drawn size has room for (every n-th on a long sentence); a
    square map of positions (the same numbers on both axes) labels both at one step
    (`shared_ticks`), about ticks of them at most (fewer in a half-width column). NaN
    cells (e.g. hidden by a causal mask) are grey. Values go out as float32.
    """
    rows, cols = [plain(r) for r in row_labels], [plain(c) for c in col_labels]
    z = np.asarray(z, dtype=np.float32)
    hidden = [masked_layer(z, cols, rows)] if np.isnan(z).any() else []
    square = (shared_ticks(rows, ticks) if rows == cols and all(map(str.isdigit, rows))
              else {})
    heatmap = dict(
        type="heatmap", z=z, x=cols, y=rows,
        colorscale=colorscale, zmid=zmid, zmin=zmin, zmax=zmax, hoverongaps=False,
        hovertemplate=(f"{plain(y_title)}: %{{y}}<br>{plain(x_title)}: %{{x}}<br>"
                       f"{plain(value_name)} %{{z:.4f}}<extra></extra>"))
    return figure([*hidden, heatmap], layout(
        title, height,
        xaxis=axis(x_title, type="category", range=[-0.5, len(cols) - 0.5], **square),
        yaxis=axis(y_title, type="category", range=[len(rows) - 0.5, -0.5], **square)))
