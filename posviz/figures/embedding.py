"""Figures of the embedding lesson: E, P and E + P side by side, one row per token."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from posviz.figures.common import axis, figure, layout, plain

PANEL_FILES = dict(panel_e="E", panel_p="P", panel_x="E+P")  # their exported files
GAP = 0.03  # between panels, as a fraction of the width
PANEL_WIDTH = 180  # the narrowest a panel is drawn, in pixels
ROW, LABELLED_ROWS = 26, 12
"""Pixels per token row; up to LABELLED_ROWS rows each row is labelled (plotly would label one
in every 40 pixels, leaving the ◆ of a copied token's row unseen)."""
FITTED_ROW, FITTED_ROOM = 22, 180
"""A chart fitted into a projector's window (enlarged: its row labels 18 px) keeps each of
those rows FITTED_ROW pixels tall, its margins taking FITTED_ROOM more."""


def aligned_heatmaps(panels: list[np.ndarray], panel_titles: list[str], row_labels: list[str],
                     *, title: str, x_title: str, y_title: str, colorscale: str = "RdBu_r",
                     marked_rows: list[int] = (), files: list[str] = ()) -> go.Figure:
    """Heatmaps of equally tall matrices side by side, sharing rows and one colour scale
    centred on 0.

    Row t of every panel is the token at position t (row 0 on top); marked rows (repeated
    tokens) get a ◆ before their label. files name the panels' exported matrices (E, P, ...).
    Values go out as float32.
    """
    labels = [plain(("◆ " if t in marked_rows else "") + label)
              for t, label in enumerate(row_labels)]
    bound = max((float(np.abs(p).max()) for p in panels if p.size), default=1.0) or 1.0
    width = (1 - GAP * (len(panels) - 1)) / len(panels)
    traces, axes, titles = [], {}, []
    for n, (z, panel_title) in enumerate(zip(panels, panel_titles, strict=True)):
        name = "x" if n == 0 else f"x{n + 1}"
        left = n * (width + GAP)
        traces.append(dict(
            type="heatmap", z=np.asarray(z, dtype=np.float32), y=labels, xaxis=name, yaxis="y",
            coloraxis="coloraxis", **({"name": files[n]} if files else {}),
            hovertemplate=(f"{plain(y_title)}: %{{y}}<br>{plain(x_title)}: %{{x}}"
                           "<br>%{z:.4f}<extra></extra>")))
        axes[name.replace("x", "xaxis")] = axis(x_title, domain=[left, left + width], anchor="y")
        titles.append(dict(text=plain(panel_title), x=left + width / 2, y=1.0, xref="paper",
                           yref="paper", xanchor="center", yanchor="bottom", showarrow=False))
    every = len(labels) <= LABELLED_ROWS
    rows = axis(y_title, type="category", autorange="reversed") | ({"dtick": 1} if every else {})
    shape = layout(
        title, max(280, 110 + ROW * len(labels)), min_width=PANEL_WIDTH * len(panels) + 100,
        annotations=titles,
        margin=dict(l=10, r=10, t=80, b=10),
        coloraxis=dict(colorscale=colorscale, cmin=-bound, cmax=bound),
        yaxis=rows, **axes)
    if every:
        shape["meta"]["least"] = FITTED_ROOM + FITTED_ROW * len(labels)
    return figure(traces, shape)
