"""Figures of the RoPE lesson: arrows in a pair's plane, the clock-hand ladder, line charts.

Figures are built from one dict each: plotly validates a whole spec far faster than a chain of
update calls, which keeps the page quick on every rerun.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from posviz.figures.common import base_layout, plain

MAX_TIP_LABELS = 16
"""Arrow tips carry their token's label up to this many arrows; beyond, hover names them."""
ROTATED_COLOR = "#d62728"
PLAIN_COLOR = "rgba(120, 120, 120, 0.7)"
TRAIL_COLOR = "rgba(31, 119, 180, 0.5)"
DIAL_SPACING = 2.4
"""Distance between the centres of neighbouring dials, in dial radii."""
LEGEND_ON_TOP = dict(orientation="h", yanchor="bottom", y=1.02, x=0)
LEGEND_MARGIN = 95
"""Top margin in pixels: the title, then a one-line legend above the plot."""


def _arrows(tips: np.ndarray, labels: list[str], *, name: str, color: str,
            tails: np.ndarray | None = None, dash: str = "solid",
            tip_colors: np.ndarray | None = None) -> dict:
    """A scatter trace of arrows from tails (default: the origin) to tips, both (K, 2):
    segments tail -> tip separated by gaps, an arrow head on every tip, hover naming each."""
    k = len(tips)
    xy = np.full((k, 3, 2), np.nan, dtype=np.float32)  # (K, tail/tip/gap, 2)
    xy[:, 0], xy[:, 1] = 0.0 if tails is None else tails, tips
    return dict(
        type="scatter", x=xy[..., 0].ravel(), y=xy[..., 1].ravel(), mode="lines+markers",
        name=plain(name), line=dict(color=color, width=2, dash=dash),
        customdata=np.repeat(np.array([plain(label) for label in labels], dtype=object), 3),
        marker=dict(symbol="arrow", angleref="previous", colorscale="Viridis",
                    size=np.tile(np.array([0, 13, 0], dtype=np.float32), k),
                    color=color if tip_colors is None else np.repeat(tip_colors, 3)),
        hovertemplate="%{customdata}<extra></extra>")


def _finish(fig: go.Figure, title: str, height: int) -> go.Figure:
    """The shared title and font, with room above the plot for a legend under the title."""
    base_layout(fig, title, height)
    fig.layout.margin.t = LEGEND_MARGIN
    return fig


def _square_axis(radius: float, **axis: object) -> dict:
    """An axis reaching +-radius with a line through 0."""
    return dict(range=[-radius, radius], zeroline=True, zerolinecolor="gray", **axis)


def plane_view(before: np.ndarray, after: np.ndarray, labels: list[str], *, title: str,
               before_name: str, after_name: str, x_title: str, y_title: str) -> go.Figure:
    """One channel pair of every token, (T, 2) before and after rotation, as arrows from the
    origin on equal axes; rotated tips are coloured by position and, for short sentences,
    labelled."""
    data = [_arrows(before, labels, name=before_name, color=PLAIN_COLOR, dash="dot"),
            _arrows(after, labels, name=after_name, color=ROTATED_COLOR,
                    tip_colors=np.arange(len(after), dtype=np.float32))]
    if len(labels) <= MAX_TIP_LABELS:
        data.append(dict(type="scatter", x=after[:, 0].astype(np.float32),
                         y=after[:, 1].astype(np.float32), mode="text",
                         text=[plain(label) for label in labels], textposition="top center",
                         showlegend=False, hoverinfo="skip"))
    radius = 1.15 * max(float(np.abs(before).max(initial=0.0)),
                        float(np.abs(after).max(initial=0.0)), 1e-9)
    fig = go.Figure(dict(data=data, layout=dict(
        xaxis=_square_axis(radius, title=dict(text=plain(x_title))),
        yaxis=_square_axis(radius, title=dict(text=plain(y_title)), scaleanchor="x"),
        legend=LEGEND_ON_TOP)))
    return _finish(fig, title, height=580)


def clock_ladder(trails: np.ndarray, panel_titles: list[str], *, title: str, hand_name: str,
                 trail_name: str, start_name: str) -> go.Figure:
    """One token's vector turning in several pairs' planes, side by side (fast to slow).

    trails (N, K, 2): pair n's point at positions 0 .. K-1. Each dial shows the point at every
    position as a dot, the hand at position 0 (dotted) and at K-1 (the chosen position). Only
    directions matter here, so every dial is drawn at the same size (each pair's points divided
    by their common length) on one pair of equal axes, DIAL_SPACING apart.
    """
    n, k = trails.shape[:2]
    lengths = np.hypot(trails[:, :1, 0], trails[:, :1, 1])[..., None]     # (N, 1, 1)
    centres = np.zeros((n, 1, 2))
    centres[:, 0, 0] = DIAL_SPACING * np.arange(n)
    placed = (trails / np.where(lengths > 0, lengths, 1.0) + centres).astype(np.float32)
    data = [
        dict(type="scatter", x=placed[..., 0].ravel(), y=placed[..., 1].ravel(), mode="markers",
             name=plain(trail_name), marker=dict(size=6, color=TRAIL_COLOR),
             customdata=np.tile(np.arange(k), n), hovertemplate="%{customdata}<extra></extra>"),
        _arrows(placed[:, 0], ["0"] * n, tails=centres[:, 0], name=start_name, color=PLAIN_COLOR,
                dash="dot"),
        _arrows(placed[:, -1], [str(k - 1)] * n, tails=centres[:, 0], name=hand_name,
                color=ROTATED_COLOR),
    ]
    dials = [dict(type="circle", xref="x", yref="y", x0=cx - 1, x1=cx + 1, y0=-1, y1=1,
                  line=dict(color="lightgray", width=1)) for cx in centres[:, 0, 0]]
    names = [dict(text=plain(t), x=cx, y=1.1, xref="x", yref="y", yanchor="bottom",
                  showarrow=False, font=dict(size=13))
             for t, cx in zip(panel_titles, centres[:, 0, 0], strict=True)]
    hidden = dict(visible=False)
    fig = go.Figure(dict(data=data, layout=dict(
        xaxis=dict(hidden, range=[-1.15, centres[-1, 0, 0] + 1.15]),
        yaxis=dict(hidden, range=[-1.15, 1.4], scaleanchor="x"),
        shapes=dials, annotations=names, legend=LEGEND_ON_TOP)))
    return _finish(fig, title, height=380)


def line_chart(x: np.ndarray, curves: dict[str, np.ndarray], *, title: str, x_title: str,
               y_title: str, log_y: bool = False, marked_x: float | None = None,
               marked_y: dict[str, float] | None = None, height: int = 420) -> go.Figure:
    """One line per named curve over x; an optional dotted vertical line at marked_x and
    labelled dashed horizontal lines at the marked_y values."""
    x = np.asarray(x, dtype=np.float32)
    data = [dict(type="scatter", x=x, y=np.asarray(y, dtype=np.float32), mode="lines",
                 name=plain(name), line=dict(width=2.5)) for name, y in curves.items()]
    shapes, notes = [], []
    if marked_x is not None:
        shapes.append(dict(type="line", xref="x", yref="paper", x0=marked_x, x1=marked_x, y0=0,
                           y1=1, line=dict(color="gray", dash="dot")))
    for i, (label, value) in enumerate((marked_y or {}).items()):
        shapes.append(dict(type="line", xref="paper", yref="y", x0=0, x1=1, y0=value, y1=value,
                           line=dict(color="black", dash="dash", width=1)))
        notes.append(dict(text=plain(label), xref="paper", yref="y", x=(0.01, 0.99)[i % 2],
                          xanchor=("left", "right")[i % 2], y=np.log10(value) if log_y else value,
                          yanchor="bottom", showarrow=False))
    fig = go.Figure(dict(data=data, layout=dict(
        xaxis=dict(title=dict(text=plain(x_title))),
        yaxis=dict(title=dict(text=plain(y_title)), type="log" if log_y else "linear"),
        shapes=shapes, annotations=notes, legend=LEGEND_ON_TOP)))
    return _finish(fig, title, height=height)
