"""Figures of the attention lesson: attention maps per head, per scheme, and for two word orders.

Rows are queries, columns keys, both labelled by position and token; cells a query may not see
(causal mask) are grey, apart from a real weight of 0.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from posviz.figures.common import base_layout, plain, thinned, token_heatmap

WEIGHT_COLORS = "Blues"
DIFFERENCE_COLORS = "RdBu_r"
DIFFERENCE_FLOOR = 1e-6
"""The difference scale never shrinks below this, so float rounding (~1e-16) is drawn white."""
MAX_KEY_TICKS = 16
"""Key labels stand upright under panels a third of the page wide: fewer fit than query rows."""


def _finish(fig: go.Figure, title: str, n_rows: int, seq_len: int) -> go.Figure:
    """Shared layout, with room for the title above the panel titles and rows tall enough
    that thinned query labels do not collide (but short enough to fit a screen)."""
    panel = int(np.clip(140 + 7 * seq_len, 280, 560))
    return base_layout(fig, title, height=110 + n_rows * panel).update_layout(margin_t=80)


def _add_map(fig: go.Figure, z: np.ndarray, mask: np.ndarray, labels: list[str], row: int,
             col: int, coloraxis: str, x_title: str, y_title: str, value_name: str) -> None:
    """One token-labelled heatmap (from token_heatmap) placed in a subplot, on a shared scale.

    Cells outside mask are NaN in the map, which token_heatmap paints grey.
    """
    *hidden, trace = token_heatmap(np.where(mask, z, np.nan), labels, labels, title="",
                                   x_title=x_title, y_title=y_title, value_name=value_name).data
    for layer in hidden:
        fig.add_trace(layer, row=row, col=col)
    fig.add_trace(trace.update(coloraxis=coloraxis), row=row, col=col)


def _label_axes(fig: go.Figure, labels: list[str], x_title: str, y_title: str,
                bottom_row: int) -> None:
    """Thinned token ticks, row 0 on top; row labels and axis titles on the outer panels only."""
    escaped = [plain(label) for label in labels]
    edge = len(labels) - 0.5  # ranges end at the outer cells: grey is left for masked cells only
    fig.update_xaxes(type="category", tickvals=thinned(escaped, MAX_KEY_TICKS),
                     range=[-0.5, edge], showgrid=False, zeroline=False, tickangle=-90,
                     tickfont=dict(size=11))
    fig.update_yaxes(type="category", tickvals=thinned(escaped), range=[edge, -0.5],
                     showgrid=False, zeroline=False, tickfont=dict(size=11))
    fig.update_xaxes(title=plain(x_title), row=bottom_row)
    fig.update_yaxes(showticklabels=False)  # every panel has the same rows: label them once
    fig.update_yaxes(title=plain(y_title), showticklabels=True, col=1)


def map_grid(maps: np.ndarray, masks: np.ndarray, labels: list[str], panel_titles: list[str],
             *, title: str, x_title: str, y_title: str, value_name: str,
             n_cols: int = 3) -> go.Figure:
    """Attention maps (P, T, T) in a grid, sharing one colour scale from 0 to the largest weight.

    masks broadcasts to (P, T, T): True where the query may see the key; other cells are NaN and
    show grey. Panels fill rows left to right; values go out as float32.
    """
    maps = np.asarray(maps, dtype=float)
    masks = np.broadcast_to(masks, maps.shape)                          # (P, T, T)
    n_cols = min(n_cols, len(maps))
    n_rows = -(-len(maps) // n_cols)
    fig = make_subplots(rows=n_rows, cols=n_cols, horizontal_spacing=0.06,
                        vertical_spacing=0.3 / n_rows,
                        subplot_titles=[plain(t) for t in panel_titles])
    for p, (z, mask) in enumerate(zip(maps, masks, strict=True)):
        _add_map(fig, z, mask, labels, p // n_cols + 1, p % n_cols + 1, "coloraxis", x_title,
                 y_title, value_name)
    _label_axes(fig, labels, x_title, y_title, n_rows)
    fig.update_layout(coloraxis=dict(colorscale=WEIGHT_COLORS, cmin=0.0,
                                     cmax=float(maps[masks].max(initial=0.0)) or 1.0,
                                     colorbar=dict(title=plain(value_name))))
    return _finish(fig, title, n_rows, len(labels))


def twin_maps(original: np.ndarray, aligned: np.ndarray, original_mask: np.ndarray,
              aligned_mask: np.ndarray, difference: np.ndarray, labels: list[str],
              panel_titles: list[str], *, title: str, x_title: str, y_title: str,
              value_name: str, difference_name: str) -> go.Figure:
    """Two attention maps (T, T) of the same tokens and their difference (T, T), side by side.

    The maps share a 0..max scale, the difference a scale symmetric about 0 (at least
    +-DIFFERENCE_FLOOR, so rounding noise is not blown up into colour). Cells hidden in
    both maps are grey in the difference; a cell seen in one order only keeps its weight there.
    """
    seen = original_mask | aligned_mask  # (T, T)
    fig = make_subplots(rows=1, cols=3, horizontal_spacing=0.1,
                        subplot_titles=[plain(t) for t in panel_titles])
    _add_map(fig, original, original_mask, labels, 1, 1, "coloraxis", x_title, y_title,
             value_name)
    _add_map(fig, aligned, aligned_mask, labels, 1, 2, "coloraxis", x_title, y_title, value_name)
    _add_map(fig, difference, seen, labels, 1, 3, "coloraxis2", x_title, y_title,
             difference_name)
    _label_axes(fig, labels, x_title, y_title, 1)
    top = max(original[original_mask].max(initial=0.0), aligned[aligned_mask].max(initial=0.0))
    bound = max(float(np.abs(difference[seen]).max(initial=0.0)), DIFFERENCE_FLOOR)
    fig.update_layout(
        coloraxis=dict(colorscale=WEIGHT_COLORS, cmin=0.0, cmax=float(top) or 1.0,
                       colorbar=dict(title=plain(value_name), x=0.64, len=0.9)),
        coloraxis2=dict(colorscale=DIFFERENCE_COLORS, cmin=-bound, cmax=bound,
                        colorbar=dict(title=plain(difference_name), x=1.0, len=0.9)))
    return _finish(fig, title, 1, len(labels))
