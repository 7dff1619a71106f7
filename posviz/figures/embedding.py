"""Figures of the embedding lesson: E, P and E + P side by side, one row per token."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from posviz.figures.attention import left_margin
from posviz.figures.common import FONT_SIZE, axis, figure, layout, plain

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
    centred on 0; in a column narrower than they need (a phone's), one under the other
    (meta.narrow, which the chart element draws there).

    Row t of every panel is the token at position t (row 0 on top); marked rows (repeated
    tokens) get a ◆ before their label. files name the panels' exported matrices (E, P, ...).
    Values go out as float32.
    """
    labels = [plain(("◆ " if t in marked_rows else "") + label)
              for t, label in enumerate(row_labels)]
    bound = max((float(np.abs(p).max()) for p in panels if p.size), default=1.0) or 1.0
    traces = [dict(type="heatmap", z=np.asarray(z, dtype=np.float32), y=labels,
                   xaxis=_axes(n)[0], yaxis=_axes(n)[1], coloraxis="coloraxis",
                   **({"name": files[n]} if files else {}),
                   hovertemplate=(f"{plain(y_title)}: %{{y}}<br>{plain(x_title)}: %{{x}}"
                                  "<br>%{z:.4f}<extra></extra>"))
              for n, z in enumerate(panels)]
    shape = aligned_layout(len(labels), panel_titles, title=title, x_title=x_title,
                           y_title=y_title, colorscale=colorscale, bound=bound)
    left = left_margin(labels, FONT_SIZE)  # the token labels' room (their axes: no automargin)
    for each in (shape, shape["meta"].get("narrow", {})):
        if "margin" in each:
            each["margin"]["l"] = left
    return figure(traces, shape)


def aligned_layout(n_rows: int, panel_titles: list[str], *, title: str, x_title: str,
                   y_title: str, colorscale: str = "RdBu_r", bound: float = 1.0) -> dict:
    """aligned_heatmaps' layout for n_rows token rows: it depends on the sentence through its
    length alone (a viewer is sent it for every length: ui.live.sizes), but for the room left
    of the rows, which aligned_heatmaps gives from the labels (the viewer from the typed ones)."""
    width = (1 - GAP * (len(panel_titles) - 1)) / len(panel_titles)
    axes, titles = {}, []
    for n, panel_title in enumerate(panel_titles):
        x, y = _axes(n)
        left = n * (width + GAP)
        axes[_layout_key(x)] = axis(x_title, domain=[left, left + width], anchor=y)
        axes[_layout_key(y)] = _rows(y_title if n == 0 else "", n_rows, anchor=x, shown=n == 0)
        titles.append(dict(text=plain(panel_title), x=left + width / 2, y=1.0, xref="paper",
                           yref="paper", xanchor="center", yanchor="bottom", showarrow=False))
    shape = layout(
        title, max(280, 110 + ROW * n_rows), min_width=PANEL_WIDTH * len(panel_titles) + 100,
        annotations=titles,
        margin=dict(l=10, r=10, t=80, b=10),
        coloraxis=dict(colorscale=colorscale, cmin=-bound, cmax=bound),
        **axes)
    if n_rows <= LABELLED_ROWS:
        shape["meta"]["least"] = FITTED_ROOM + FITTED_ROW * n_rows
    if len(panel_titles) > 1:
        shape["meta"]["narrow"] = _stacked(panel_titles, n_rows, title, x_title, y_title)
    return shape


STACKED_WIDTH = 300  # pixels: the narrowest column the stacked panels are drawn in
STACKED_PANEL, STACKED_GAP = (90, 320), 52
"""A stacked panel's least and most pixels of height (ROW per token between), and the pixels
between two panels: the upper one's channel numbers and the lower one's title."""
STACKED_TOP, STACKED_BOTTOM = 80, 60  # the title and the first panel's; the last channels'


def _axes(n: int) -> tuple[str, str]:
    """The n-th panel's axes as a trace names them: ("x", "y"), ("x2", "y2"), ..."""
    return ("x", "y") if n == 0 else (f"x{n + 1}", f"y{n + 1}")


def _layout_key(name: str) -> str:
    """A trace's axis name as the layout keys it: "x2" -> "xaxis2"."""
    return f"{name[0]}axis{name[1:]}"


def _rows(y_title: str, n_rows: int, *, anchor: str, shown: bool) -> dict:
    """The token axis of a panel: position 0 on top, every row labelled up to LABELLED_ROWS;
    a panel's rows are the first panel's (matched), labelled where `shown`."""
    rows = axis(y_title, type="category", autorange="reversed", anchor=anchor,
                showticklabels=shown, automargin=False) | (
        {"dtick": 1} if n_rows <= LABELLED_ROWS else {})
    return rows if anchor == "x" else rows | {"matches": "y"}


def _stacked(panel_titles: list[str], n_rows: int, title: str, x_title: str,
             y_title: str) -> dict:
    """The same panels one under the other, each full width with its token labels, its title
    above it and its channel numbers under it (the channel axis titled under the last)."""
    panel = int(np.clip(ROW * n_rows, *STACKED_PANEL))
    plot = len(panel_titles) * panel + (len(panel_titles) - 1) * STACKED_GAP  # pixels
    axes, titles = {}, []
    for n, panel_title in enumerate(panel_titles):
        x, y = _axes(n)
        top = 1 - n * (panel + STACKED_GAP) / plot
        last = n == len(panel_titles) - 1
        axes[_layout_key(x)] = axis(x_title if last else "", domain=[0.0, 1.0], anchor=y)
        axes[_layout_key(y)] = _rows(y_title if n == 0 else "", n_rows, anchor=x, shown=True) | {
            "domain": [max(top - panel / plot, 0.0), top]}
        titles.append(dict(text=plain(panel_title), x=0.5, y=top, xref="paper", yref="paper",
                           xanchor="center", yanchor="bottom", showarrow=False))
    return layout(title, STACKED_TOP + plot + STACKED_BOTTOM, min_width=STACKED_WIDTH,
                  annotations=titles, margin=dict(l=10, r=10, t=STACKED_TOP, b=STACKED_BOTTOM),
                  **axes)
