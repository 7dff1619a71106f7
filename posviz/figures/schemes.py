"""Figures of the schemes of 2026 and of the port-bug clinic: which channels of a head turn and
how fast, a stack's layers by the RoPE each uses, the position axis each channel pair of M-RoPE
turns by, and how far a port's bug moves a head's scores with the distance between query and
key. The bands and the two attention maps are drawn with the RoPE and attention lessons' own
figures."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from posviz.figures.common import (
    COLORWAY,
    LINE_GREY,
    MASKED_COLOR,
    axis,
    figure,
    layout,
    masked_layer,
    plain,
)

KIND_COLORS = {"sliding": "#868686", "csa": "#2563eb", "hca": "#d97706"}
"""DeepSeek-V4's layer kinds: sliding window only, compressed sparse, heavily compressed."""
AXIS_COLORS = tuple(COLORWAY[:3])  # time, height, width (Okabe and Ito)


def kind_stack(kinds: list[str], names: dict[str, str], *, model: str, title: str,
               x_title: str) -> go.Figure:
    """One row of cells, one per layer from the first (left), coloured by its kind (keys of
    KIND_COLORS); names: each kind's name in the legend (and the rope it turns with)."""
    traces = []
    for kind, label in names.items():
        layers = [n for n, k in enumerate(kinds) if k == kind]
        traces.append(dict(
            type="bar", orientation="h", name=plain(label), marker_color=KIND_COLORS[kind],
            y=[plain(model)] * len(layers), base=np.array(layers, dtype=np.float32),
            x=np.ones(len(layers), dtype=np.float32), marker_line=dict(color="white", width=1),
            customdata=[n + 1 for n in layers],  # layers counted from 1
            hovertemplate=(f"{plain(x_title)} %{{customdata}}: {plain(label)}<extra></extra>")))
    return figure(traces, layout(title, 190, barmode="overlay",
                                 xaxis=axis(x_title, range=[0, len(kinds)]),
                                 yaxis=axis("", automargin=True)))


def axis_grid(rows: dict[str, np.ndarray], axis_names: tuple[str, str, str], *, title: str,
              x_title: str) -> go.Figure:
    """One row per layout, one cell per channel pair, coloured by the position axis (0 time,
    1 height, 2 width) the pair turns by; a legend names the three colours. A row's name
    breaks where it holds a newline: on a phone, names on one line leave the cells no room."""
    names = [plain(n).replace("\n", "<br>") for n in rows]
    z = np.array([np.asarray(r, dtype=np.float32) for r in rows.values()])   # (R, P)
    scale = [[a / 3, c] for k, c in enumerate(AXIS_COLORS) for a in (k, k + 1)]
    labels = np.array(axis_names, dtype=object)[z.astype(int)]
    cells = dict(type="heatmap", z=z, y=names, x=np.arange(z.shape[1], dtype=np.float32),
                 zmin=0, zmax=3, colorscale=scale, showscale=False, xgap=1, ygap=4,
                 customdata=labels, hovertemplate=(f"%{{y}}<br>{plain(x_title)} %{{x}}: "
                                                   "%{customdata}<extra></extra>"))
    keys = [dict(type="scatter", x=[None], y=[None], mode="markers", name=plain(name),
                 marker=dict(symbol="square", size=14, color=color), hoverinfo="skip")
            for name, color in zip(axis_names, AXIS_COLORS, strict=True)]
    return figure([cells, *keys], layout(
        title, 120 + 60 * len(rows), showlegend=True,
        xaxis=axis(x_title, range=[-0.5, z.shape[1] - 0.5]),
        yaxis=axis("", autorange="reversed", automargin=True, type="category")))


def drift_chart(offsets: np.ndarray, curves: dict[str, np.ndarray], *, title: str,
                x_title: str, y_title: str, threshold: float, threshold_name: str,
                marks: dict[str, float] | None = None, chosen: str | None = None) -> go.Figure:
    """How far each named bug moves the scores (y, a share) against the distance between query
    and key (x, log scale), with a dashed line at the threshold and dotted vertical lines at
    marked distances (a window, a trained length), labelled at the top. The chosen curve is
    drawn thick and over the others, which stay thin and dotted, each in its own colour."""
    x = np.asarray(offsets, dtype=np.float32)
    drawn = sorted(enumerate(curves.items()), key=lambda c: c[1][0] == chosen)  # chosen last
    data = [dict(type="scatter", x=x, y=np.asarray(y, dtype=np.float32), mode="lines",
                 name=plain(name), line=dict(width=4 if name == chosen else 1.5,
                                             color=COLORWAY[n % len(COLORWAY)],
                                             dash="solid" if chosen in (None, name) else "dot"))
            for n, (name, y) in drawn]
    shapes = [dict(type="line", xref="paper", yref="y", x0=0, x1=1, y0=threshold,
                   y1=threshold, line=dict(color=LINE_GREY, dash="dash", width=1))]
    notes = [dict(text=plain(threshold_name), xref="paper", yref="y", x=0, xanchor="left",
                  y=threshold, yanchor="bottom", showarrow=False)]
    for label, at in (marks or {}).items():
        shapes.append(dict(type="line", xref="x", yref="paper", x0=at, x1=at, y0=0, y1=1,
                           line=dict(color=LINE_GREY, dash="dot", width=1)))
        notes.append(dict(text=plain(label), xref="x", yref="paper", x=float(np.log10(at)),
                          y=1, yanchor="bottom", xanchor="center", showarrow=False))
    return figure(data, layout(title, 400, shapes=shapes, annotations=notes,
                               xaxis=axis(x_title, type="log", dtick=1),
                               yaxis=axis(y_title, rangemode="tozero", tickformat=".0%")))


def lane_strips(rows: dict[str, np.ndarray], *, title: str, x_title: str, value_name: str,
                never_name: str) -> go.Figure:
    """One strip per head, one cell per channel from the first (left), coloured by the log10 of
    the wavelength it turns with; a channel that never turns (inf) is grey, and a strip ends
    where its head does. rows: each head's (d,) wavelengths."""
    widest = max(len(w) for w in rows.values())
    waves = np.full((len(rows), widest), np.nan)
    never = np.zeros((len(rows), widest))
    for n, w in enumerate(rows.values()):
        w = np.asarray(w, dtype=float)
        waves[n, :len(w)] = np.where(np.isfinite(w), np.log10(np.where(np.isfinite(w), w, 1)),
                                     np.nan)
        never[n, :len(w)] = np.where(np.isfinite(w), 0.0, np.nan)
    names = [plain(n) for n in rows]
    x = np.arange(widest, dtype=np.float32)
    grey = masked_layer(never, x, names)
    cells = dict(type="heatmap", z=waves.astype(np.float32), x=x, y=names, colorscale="Viridis",
                 hoverongaps=False, ygap=6,
                 colorbar=dict(title=dict(text=plain(value_name), side="right"),
                               tickvals=np.arange(8, dtype=np.float32),
                               ticktext=[f"{10 ** k:,}" for k in range(8)]),
                 hovertemplate=(f"%{{y}}<br>{plain(x_title)} %{{x}}: 10^%{{z:.2f}}"
                                "<extra></extra>"))
    key = dict(type="scatter", x=[None], y=[None], mode="markers", name=plain(never_name),
               marker=dict(symbol="square", size=14, color=MASKED_COLOR), hoverinfo="skip")
    return figure([grey, cells, key], layout(
        title, 150 + 56 * len(rows), showlegend=True,
        xaxis=axis(x_title, range=[-0.5, widest - 0.5]),
        yaxis=axis("", autorange="reversed", automargin=True, type="category")))
