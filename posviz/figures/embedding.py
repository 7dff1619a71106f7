"""Figures of the embedding lesson: E, P and E + P side by side, one row per token."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from posviz.figures.common import base_layout, plain, thinned


def aligned_heatmaps(panels: list[np.ndarray], panel_titles: list[str], row_labels: list[str],
                     *, title: str, x_title: str, y_title: str, zmid: float | None = 0.0,
                     colorscale: str = "RdBu_r", marked_rows: list[int] = ()) -> go.Figure:
    """Heatmaps of equally tall matrices side by side, sharing rows and one colour scale.

    Row t of every panel is the token at position t (row 0 on top); marked rows (repeated
    tokens) get a ◆ before their label. Values go out as float32.
    """
    labels = [plain(("◆ " if t in marked_rows else "") + label)
              for t, label in enumerate(row_labels)]
    fig = make_subplots(rows=1, cols=len(panels), shared_yaxes=True, horizontal_spacing=0.03,
                        subplot_titles=[plain(p) for p in panel_titles])
    lo = min((float(p.min()) for p in panels if p.size), default=0.0)
    hi = max((float(p.max()) for p in panels if p.size), default=0.0)
    bound = max(abs(lo), abs(hi)) if zmid is not None else None
    for col, z in enumerate(panels, start=1):
        fig.add_trace(go.Heatmap(
            z=np.asarray(z, dtype=np.float32), y=labels, coloraxis="coloraxis",
            hovertemplate=(f"{plain(y_title)}: %{{y}}<br>{plain(x_title)}: %{{x}}"
                           "<br>%{z:.4f}<extra></extra>"),
        ), row=1, col=col)
        fig.update_xaxes(title=plain(x_title), row=1, col=col, showgrid=False, zeroline=False)
    fig.update_yaxes(type="category", tickvals=thinned(labels), autorange="reversed",
                     showgrid=False, zeroline=False)
    fig.update_yaxes(title=plain(y_title), row=1, col=1)
    fig.update_layout(coloraxis=dict(colorscale=colorscale, cmin=-bound if bound else lo,
                                     cmax=bound if bound else hi))
    base_layout(fig, title, height=max(280, 110 + 26 * len(labels)))
    fig.update_layout(margin=dict(t=80))
    return fig
