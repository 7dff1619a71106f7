"""Pieces every posviz chart shares: escaped labels, thinned ticks, token-labelled heatmaps."""

from __future__ import annotations

import html

import numpy as np
import plotly.graph_objects as go

FONT_SIZE = 14
MAX_TICKS = 32
"""Axes with more labels than this show every n-th one; hover always names the exact cell."""
MASKED_COLOR = "rgba(128, 128, 128, 0.35)"
"""What a cell with no value (NaN, e.g. hidden by a causal mask) shows: the plot background."""


def plain(text: str) -> str:
    """Text shown as typed: plotly would otherwise read <b>, <br>, &amp; ... as markup."""
    return html.escape(text, quote=False)


def thinned(labels: list[str], max_ticks: int = MAX_TICKS) -> tuple[list[int], list[str]]:
    """Tick positions and texts, keeping every n-th label so at most max_ticks remain."""
    step = max(1, -(-len(labels) // max_ticks))
    kept = list(range(0, len(labels), step))
    return kept, [plain(labels[i]) for i in kept]


def base_layout(fig: go.Figure, title: str, height: int | None = None) -> go.Figure:
    """Title, font size and margins shared by every posviz chart."""
    fig.update_layout(title=dict(text=plain(title)), font=dict(size=FONT_SIZE),
                      margin=dict(l=10, r=10, t=50, b=10), height=height)
    return fig


def token_heatmap(z: np.ndarray, row_labels: list[str], col_labels: list[str], *, title: str,
                  x_title: str, y_title: str, value_name: str = "", colorscale: str = "RdBu_r",
                  zmid: float | None = 0.0, zmin: float | None = None, zmax: float | None = None,
                  height: int | None = None) -> go.Figure:
    """Heatmap of a (rows, cols) matrix with one labelled row per token, row 0 on top.

    Axes are numeric (position) with label text, so repeated tokens keep their own rows; NaN
    cells are left empty and show the grey plot background. Values go out as float32.
    """
    z = np.asarray(z, dtype=np.float32)
    rows, cols = z.shape
    hover = np.empty((rows, cols, 2), dtype=object)
    hover[..., 0] = np.array([plain(r) for r in row_labels], dtype=object)[:, None]
    hover[..., 1] = np.array([plain(c) for c in col_labels], dtype=object)[None, :]
    fig = go.Figure(go.Heatmap(
        z=z, x=np.arange(cols), y=np.arange(rows), customdata=hover,
        colorscale=colorscale, zmid=zmid, zmin=zmin, zmax=zmax, hoverongaps=False,
        hovertemplate=(f"{plain(y_title)}: %{{customdata[0]}}<br>{plain(x_title)}: "
                       f"%{{customdata[1]}}<br>{plain(value_name)} %{{z:.4f}}<extra></extra>"),
    ))
    xt, yt = thinned(col_labels), thinned(row_labels)
    fig.update_xaxes(title=plain(x_title), tickvals=xt[0], ticktext=xt[1], showgrid=False,
                     zeroline=False)
    fig.update_yaxes(title=plain(y_title), tickvals=yt[0], ticktext=yt[1], autorange="reversed",
                     showgrid=False, zeroline=False)
    fig.update_layout(plot_bgcolor=MASKED_COLOR)
    return base_layout(fig, title, height)
