"""Figures of the RoPE lesson: arrows in a pair's plane, the clock-hand ladder, line charts.

Figures are built in one go from plain dicts (see posviz.figures.common): plotly validates a
whole spec far faster than a chain of update calls, which keeps the page quick on every rerun.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.colors import sample_colorscale

from posviz.figures.common import LINE_GREY, MIN_WIDTH, axis, figure, layout, plain

MAX_TIP_LABELS = 8
"""Arrows carry their token's label up to this many tokens; beyond, hover names them (more
labels pile up round the origin, in a projector's square of a few hundred pixels most of all)."""
MAX_BEFORE_LABELS = 4
"""The arrows before rotation carry labels too up to this many tokens; beyond, each one's
dotted arc leads to its labelled arrow after rotation, in its colour."""
SIDE_LEGEND = 0.74
"""On a short window (a projector), the share of the chart's width the plot may take: the
legend stands in the rest, beside the plot, and the plot gets the height it left."""
TOKEN_SCALE = [[0.0, "#1F6FD6"], [0.34, "#8B4FC9"], [0.67, "#C23A7F"], [1.0, "#C25A00"]]
"""Token colours run along this colour scale with position, blue to purple, magenta and orange:
hues of one lightness (relative luminance 0.14 to 0.19), so that every token's arrow reads 3:1
against both themes' backgrounds (Plasma's navy first token read 1.26:1 on a dark page)."""
KEY_COLOR = LINE_GREY
"""Legend keys that explain a line style rather than one token."""
ROTATED_COLOR = "#d62728"
PLAIN_COLOR = LINE_GREY
TRAIL_COLOR = "#0072B2"
LABEL_SIZE = 18
LABEL_OFFSET = 22
"""Pixels from an arrow's tip to the centre of its label, outward, before the chart element
moves labels clear of each other."""
LEADER_STANDOFF = 9
"""Pixels a label's leader line stops short of the tip: the arrow head stays whole."""
LABEL_ROOM = 0.25
"""Room kept round the arrows for their labels, as a share of the longest arrow."""
ARC_POINTS = 64
ARC_DOT = 3.5  # pixels: a dot of a turn's arc
HEAD_SIZES = (13, 18)  # pixels: an arrow head before rotation, after it
SHAFT_WIDTHS = (2.5, 4.5)  # pixels: an arrow's shaft before rotation (dashed), after it
LEADER_WIDTH = 2  # pixels: a label's leader line
PLAIN_ROOM = 0.08
"""Room kept round the arrows when they carry no labels, as a share of the longest arrow."""
MARK_MARGIN = 170
"""Right margin in pixels for the labels of marked horizontal lines, clear of every curve."""
DIAL_WIDTH = 170
"""The narrowest a dial of the clock-hand ladder is drawn (its title's room), in pixels."""
DIAL_HEIGHT, DIAL_TITLE_LINE, DIAL_GAP = 200, 22, 0.06
"""A row of dials: the pixels of its dials and of a line of their titles, and the gap between
two dials (a fraction of the width)."""
NARROW_DIALS = 2
"""Dials to a row in a column too narrow for all of them side by side (a phone's)."""


def _arrows(tips: np.ndarray, labels: list[str], *, name: str, color: str,
            tails: np.ndarray, dash: str = "solid", **trace: object) -> dict:
    """A scatter trace of arrows from tails to tips, both (K, 2), in one colour: segments
    tail -> tip separated by gaps, an arrow head on every tip, hover naming each."""
    k = len(tips)
    xy = np.full((k, 3, 2), np.nan, dtype=np.float32)  # (K, tail/tip/gap, 2)
    xy[:, 0], xy[:, 1] = tails, tips
    return dict(
        type="scatter", x=xy[..., 0].ravel(), y=xy[..., 1].ravel(), mode="lines+markers",
        name=plain(name), line=dict(color=color, width=2, dash=dash),
        customdata=np.repeat(np.array([plain(label) for label in labels], dtype=object), 3),
        marker=dict(symbol="arrow", angleref="previous", color=color,  # sizes per point make
                    size=np.tile(np.array([0, 13, 0], dtype=np.float32), k),  # plotly fade it
                    opacity=1),  # to 0.7, as a bubble, under 3:1 on one theme or the other
        hovertemplate="%{customdata}<extra></extra>", **trace)


def _legend_key(name: str, **line: object) -> dict:
    """A legend entry that explains a line style; it draws nothing in the plot."""
    return dict(type="scatter", x=[None], y=[None], mode="lines", name=plain(name),
                line=dict(color=KEY_COLOR, width=3, **line))


def token_colors(n: int) -> list[str]:
    """n colours that run with position, each reading 3:1 on a light and a dark page."""
    return sample_colorscale(TOKEN_SCALE, list(np.linspace(0.0, 1.0, n)))


def _by_position(positions: np.ndarray, n: int) -> dict:
    """Marker colours as numbers on the token colour scale: position t gets token_colors(n)[t].
    (A number per marker is far cheaper for plotly to check than a colour string.)"""
    return dict(color=np.asarray(positions, dtype=np.float32), colorscale=TOKEN_SCALE, cmin=0,
                cmax=max(n - 1, 1))


def _shafts(tips: np.ndarray, colors: list[str], **line: object) -> list[dict]:
    """A line shape from the origin to each tip (K, 2), in that arrow's colour: shapes take one
    colour each at a fraction of the cost of a trace per arrow."""
    return [dict(type="line", x0=0, y0=0, x1=float(x), y1=float(y), layer="below",
                 line=dict(color=color, **line))
            for (x, y), color in zip(tips, colors, strict=True)]


def _heads(tips: np.ndarray, labels: list[str], *, name: str, size: float,
           **trace: object) -> dict:
    """An arrow head on each tip (K, 2), pointing away from the origin; hover names the token
    and the trace."""
    direction = np.degrees(np.arctan2(tips[:, 1], tips[:, 0]))  # (K,) counter-clockwise from x
    return dict(type="scatter", x=tips[:, 0].astype(np.float32),
                y=tips[:, 1].astype(np.float32), mode="markers", name=plain(name),
                marker=dict(symbol="arrow", size=size, angle=(90 - direction).astype(np.float32),
                            **_by_position(np.arange(len(tips)), len(tips))),
                customdata=[plain(label) for label in labels], showlegend=False,
                hovertemplate="%{customdata}<extra>%{fullData.name}</extra>", **trace)


def _turn_arcs(before: np.ndarray, after: np.ndarray) -> dict:
    """Dotted arcs along which each tip turned, counter-clockwise from before to after (the net
    turn, modulo full turns), as one trace of dots in each token's colour."""
    start = np.arctan2(before[:, 1], before[:, 0])                                   # (T,)
    turn = np.mod(np.arctan2(after[:, 1], after[:, 0]) - start, 2 * np.pi)           # (T,)
    angle = start[:, None] + turn[:, None] * np.linspace(0, 1, ARC_POINTS)           # (T, A)
    radius = np.hypot(before[:, 0], before[:, 1])[:, None]                           # (T, 1)
    return dict(type="scatter", x=(radius * np.cos(angle)).astype(np.float32).ravel(),
                y=(radius * np.sin(angle)).astype(np.float32).ravel(), mode="markers",
                marker=dict(size=ARC_DOT, **_by_position(
                    np.repeat(np.arange(len(before)), ARC_POINTS), len(before))),
                showlegend=False, hoverinfo="skip")


def _tip_notes(tips: np.ndarray, labels: list[str], colors: list[str]) -> list[dict]:
    """Each label as an annotation at its arrow's tip (K, 2), set LABEL_OFFSET pixels outward
    from the origin, a leader line in the token's colour from the label to the tip, its text
    in the page's text colour (the token colours, dark enough for white, would fade on a dark
    theme's page). The chart element moves a label that would meet another, or an arrow head,
    round its tip to the nearest clear place (layout meta.spread: static/chart.js)."""
    length = np.hypot(tips[:, 0], tips[:, 1])[:, None]                            # (K, 1)
    direction = np.divide(tips, length, out=np.zeros_like(tips), where=length > 0)
    direction[length[:, 0] == 0] = (0.0, 1.0)  # a tip at the origin: its label above it
    return [dict(x=float(x), y=float(y), xref="x", yref="y", text=plain(label),
                 showarrow=True, arrowhead=0, arrowwidth=LEADER_WIDTH, arrowcolor=color,
                 standoff=LEADER_STANDOFF, ax=float(LABEL_OFFSET * dx),
                 ay=float(-LABEL_OFFSET * dy), font=dict(size=LABEL_SIZE))
            for (x, y), (dx, dy), label, color in zip(tips, direction, labels, colors,
                                                       strict=True)]


def _tight(points: np.ndarray, pad: float) -> list[float]:
    """An axis range round the points (N,) and the origin, pad beyond them on both sides."""
    return [min(0.0, float(points.min(initial=0.0))) - pad,
            max(0.0, float(points.max(initial=0.0))) + pad]


def plane_view(before: np.ndarray, after: np.ndarray, labels: list[str], *, title: str,
               before_name: str, after_name: str, arc_name: str, x_title: str,
               y_title: str) -> go.Figure:
    """One channel pair of every token, (T, 2) before and after rotation, as arrows from the
    origin on equal axes. Each token has one colour (running with position): its arrow before
    rotation dashed, thinner and with a smaller head, after rotation solid (both at full
    strength: a faded arrow would read under 3:1 on one theme or the other). Up to
    MAX_TIP_LABELS tokens, a dotted arc along the turn joins the two tips and the tip after
    rotation carries the token's label (up to MAX_BEFORE_LABELS tokens the tip before it too),
    placed clear of the other labels and of the arrow heads where the chart is drawn; beyond,
    hover names each arrow.

    Traces: legend keys (before, after, and arc for short sentences), the heads before, the
    heads after, then for short sentences the arcs. Shafts are layout shapes, before rotation
    first; labels are annotations, after rotation first. The axes span the arrows and the
    origin, with room for labels around them, and nothing more: a projector's plot, as tall as
    the window allows, spends its height on the arrows; there (meta.short) the legend stands
    beside the plot instead of under it.
    """
    before, after = np.asarray(before, dtype=float), np.asarray(after, dtype=float)
    colors = token_colors(len(labels))
    short = len(labels) <= MAX_TIP_LABELS
    data = [_legend_key(before_name, dash="dash"), _legend_key(after_name),
            *([_legend_key(arc_name, dash="dot")] if short else []),
            _heads(before, labels, name=before_name, size=HEAD_SIZES[0]),
            _heads(after, labels, name=after_name, size=HEAD_SIZES[1])]
    reach = max(float(np.hypot(*before.T).max(initial=0.0)),
                float(np.hypot(*after.T).max(initial=0.0)), 1e-9)
    notes = []
    if short:
        data.append(_turn_arcs(before, after))
        notes = _tip_notes(after, labels, colors)
        if len(labels) <= MAX_BEFORE_LABELS:  # a token that did not turn: one label
            moved = np.flatnonzero(~np.isclose(before, after).all(axis=-1))
            notes += _tip_notes(before[moved], [labels[t] for t in moved],
                                [colors[t] for t in moved])
    shafts = _shafts(before, colors, width=SHAFT_WIDTHS[0], dash="dash")
    arcs = [np.stack([data[-1]["x"], data[-1]["y"]], axis=-1)] if short else []
    both = np.concatenate([before, after, *arcs])                   # tips, and arcs: (N, 2)
    pad = (LABEL_ROOM if short else PLAIN_ROOM) * reach
    # Equal axes: a plot wider than tall narrows to the arrows' width (a short projector plot
    # would otherwise span -8..8 for arrows of 2); a taller one (a phone's) shows more of y.
    xaxis = axis(x_title, constrain="domain", zeroline=True, zerolinecolor="gray",
                 range=_tight(both[:, 0], pad))
    spec = layout(title, 620, shapes=shafts + _shafts(after, colors, width=SHAFT_WIDTHS[1]),
                  annotations=notes, xaxis=xaxis,
                  yaxis=axis(y_title, scaleanchor="x", zeroline=True, zerolinecolor="gray",
                             range=_tight(both[:, 1], pad)))
    # a projector's window: the legend beside the plot, the title from the left (clear of the
    # tool bar's corner, which a centred title as long reaches and makes room above itself for)
    spec["meta"] |= dict(spread=short, short=dict(
        legend=dict(orientation="v", xref="paper", x=1, xanchor="right", yref="paper", y=1,
                    yanchor="top"),
        xaxis=dict(xaxis, domain=[0, SIDE_LEGEND]), title=dict(x=0, xanchor="left")))
    return figure(data, spec)


def plane_style() -> dict[str, int | float | str]:
    """What plane_view decides for any sentence, as scalars a viewer is sent to draw the same
    figure for a sentence its reader types (ui.live.plane): the label and arc thresholds, the
    sizes, the token colour scale ("stop colour stop colour ...")."""
    return dict(tip_labels=MAX_TIP_LABELS, before_labels=MAX_BEFORE_LABELS,
                label_room=LABEL_ROOM, plain_room=PLAIN_ROOM, label_offset=LABEL_OFFSET,
                label_size=LABEL_SIZE, standoff=LEADER_STANDOFF, leader_width=LEADER_WIDTH,
                arc_points=ARC_POINTS, arc_dot=ARC_DOT, head_before=HEAD_SIZES[0],
                head_after=HEAD_SIZES[1], shaft_before=SHAFT_WIDTHS[0],
                shaft_after=SHAFT_WIDTHS[1],
                colors=" ".join(f"{stop} {color}" for stop, color in TOKEN_SCALE))


def clock_ladder(trails: np.ndarray, panel_titles: list[str], *, title: str, hand_name: str,
                 trail_name: str, start_name: str) -> go.Figure:
    """One token's vector turning in several pairs' planes, a dial each, fast to slow: side by
    side, or NARROW_DIALS to a row in a column too narrow for them (meta.narrow: a phone's),
    where a newline in a dial's title starts a second line (side by side it is left out: put
    it after a space, or after a full-width colon).

    trails (N, K, 2): pair n's point at positions 0 .. K-1. Each dial shows the point at every
    position as a dot, the hand at position 0 (dotted) and at K-1 (the chosen position), on
    equal axes of its own. Only directions matter here, so every dial is drawn at the same size
    (each pair's points divided by their common length).

    Traces: a legend key for the dots, the first hand and the chosen hand (each key shows or
    hides its kind on every dial), then for each dial its dots, its first hand and its chosen
    hand, named by the dial's title.
    """
    n, k = trails.shape[:2]
    lengths = np.hypot(trails[:, :1, 0], trails[:, :1, 1])[..., None]     # (N, 1, 1)
    unit = (trails / np.where(lengths > 0, lengths, 1.0)).astype(np.float32)  # (N, K, 2)
    origin = np.zeros((1, 2), dtype=np.float32)
    kinds = {"trail": dict(mode="markers", marker=dict(size=6, color=TRAIL_COLOR)),
             "start": dict(mode="lines", line=dict(color=PLAIN_COLOR, width=2, dash="dot")),
             "hand": dict(mode="lines", line=dict(color=ROTATED_COLOR, width=2))}
    names = {"trail": trail_name, "start": start_name, "hand": hand_name}
    data = [dict(type="scatter", x=[None], y=[None], name=plain(names[kind]), legendgroup=kind,
                 **style) for kind, style in kinds.items()]  # the legend's keys
    for i, panel in enumerate(panel_titles):
        dial = plain(panel.replace("\n", ""))
        place = dict(xaxis=f"x{_suffix(i)}", yaxis=f"y{_suffix(i)}", showlegend=False)
        data += [
            dict(type="scatter", x=unit[i, :, 0], y=unit[i, :, 1],
                 name=f"{dial} · {plain(trail_name)}", legendgroup="trail",
                 customdata=np.arange(k), hovertemplate="%{customdata}<extra></extra>",
                 **kinds["trail"], **place),
            _arrows(unit[i, :1], ["0"], tails=origin, name=f"{dial} · {plain(start_name)}",
                    color=PLAIN_COLOR, dash="dot", legendgroup="start", **place),
            _arrows(unit[i, -1:], [str(k - 1)], tails=origin,
                    name=f"{dial} · {plain(hand_name)}", color=ROTATED_COLOR,
                    legendgroup="hand", **place)]

    def dials(per_row: int, wrap: bool) -> dict:
        """The dials per_row to a row, their titles on as many lines as they have if wrap."""
        per_row = min(per_row, n)
        rows = -(-n // per_row)
        lines = max(p.count("\n") + 1 for p in panel_titles) if wrap else 1
        row_height = DIAL_HEIGHT + DIAL_TITLE_LINE * lines
        plot = rows * row_height
        width = (1 - DIAL_GAP * (per_row - 1)) / per_row
        axes, circles, titles = {}, [], []
        for i, panel in enumerate(panel_titles):
            row, col = divmod(i, per_row)
            left, top = col * (width + DIAL_GAP), 1 - row / rows
            x_domain, y_domain = (left, left + width), (top - 1 / rows,
                                                        top - DIAL_TITLE_LINE * lines / plot)
            hidden = dict(visible=False, range=[-1.15, 1.15])
            axes[f"xaxis{_suffix(i)}"] = dict(hidden, domain=x_domain, anchor=f"y{_suffix(i)}")
            axes[f"yaxis{_suffix(i)}"] = dict(hidden, domain=y_domain, anchor=f"x{_suffix(i)}",
                                             scaleanchor=f"x{_suffix(i)}")
            circles.append(dict(type="circle", xref=f"x{_suffix(i)}", yref=f"y{_suffix(i)}",
                                x0=-1, x1=1, y0=-1, y1=1,
                                line=dict(color=LINE_GREY, width=1, dash="dot")))
            text = ("<br>".join(plain(line.strip()) for line in panel.split("\n")) if wrap
                    else plain(panel.replace("\n", "")))
            titles.append(dict(text=text, x=sum(x_domain) / 2, y=y_domain[1], xref="paper",
                               yref="paper", xanchor="center", yanchor="bottom",
                               showarrow=False, font=dict(size=13)))
        return layout(title, 60 + plot, min_width=DIAL_WIDTH * per_row, shapes=circles,
                      annotations=titles, **axes)

    drawn = dials(n, wrap=False)
    if n > NARROW_DIALS:
        drawn["meta"]["narrow"] = dials(NARROW_DIALS, wrap=True)
    return figure(data, drawn)


def _suffix(i: int) -> str:
    """The i-th subplot's axis suffix: "", "2", "3", ..."""
    return "" if i == 0 else str(i + 1)


def line_chart(x: np.ndarray, curves: dict[str, np.ndarray], *, title: str, x_title: str,
               y_title: str, log_y: bool = False, marked_x: float | None = None,
               marked_y: dict[str, float] | None = None, dashed: tuple[str, ...] = (),
               height: int = 420) -> go.Figure:
    """One line per named curve over x (those named in dashed drawn dashed); an optional
    dotted vertical line at marked_x and dashed horizontal lines at the marked_y values.

    The horizontal lines' labels sit in the right margin, where no curve can cross them,
    alternately below and above their lines: give close values in increasing order; in a
    column too narrow for that margin (a phone's), inside the plot at its left edge instead
    (meta.narrow), so that they show without the chart scrolling sideways. A legend (two or
    more curves) goes under the plot, wrapping onto more rows when it must.
    """
    x = np.asarray(x, dtype=np.float32)
    data = [dict(type="scatter", x=x, y=np.asarray(y, dtype=np.float32), mode="lines",
                 name=plain(name), line=dict(width=2.5, dash="dash" if name in dashed else
                                             "solid")) for name, y in curves.items()]
    shapes, notes = [], []
    if marked_x is not None:
        shapes.append(dict(type="line", xref="x", yref="paper", x0=marked_x, x1=marked_x, y0=0,
                           y1=1, line=dict(color="gray", dash="dot")))
    for i, (label, value) in enumerate((marked_y or {}).items()):
        shapes.append(dict(type="line", xref="paper", yref="y", x0=0, x1=1, y0=value, y1=value,
                           line=dict(color=LINE_GREY, dash="dash", width=1)))
        notes.append(dict(text=plain(label), xref="paper", yref="y", x=1, xanchor="left",
                          xshift=6, y=np.log10(value) if log_y else value,
                          yanchor=("top", "bottom")[i % 2], showarrow=False))
    drawn = layout(
        title, height, shapes=shapes, annotations=notes,
        min_width=MIN_WIDTH + (MARK_MARGIN if notes else 0),
        margin=dict(l=10, r=MARK_MARGIN if notes else 10, t=50, b=10),
        xaxis=axis(x_title),
        # a log axis labels its decades only: no small digits in between
        yaxis=axis(y_title, **(dict(type="log", dtick=1) if log_y else {})))
    if notes:
        drawn["meta"]["narrow"] = dict(
            annotations=[note | dict(x=0, xshift=4) for note in notes],
            margin=dict(l=10, r=10, t=50, b=10), meta=dict(min_width=MIN_WIDTH))
    return figure(data, drawn)
