"""Figures of the ALiBi lesson: slopes per head, bias grids, extrapolation, T5 buckets."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.colors import qualitative
from plotly.subplots import make_subplots

from posviz.figures.common import MASKED_COLOR, base_layout, masked_layer, plain, thinned

GRID_COLUMNS = 4
GRID_TICKS = 8
BASE_COLOR, EXTRA_COLOR = "#1f77b4", "#ff7f0e"
BIAS_SCALE = "Blues_r"  # 0 (no penalty) white, strong penalties dark blue
HEAD_COLORS = qualitative.Plotly  # the n-th head drawn as a line keeps its colour in every chart
T5_COLORS = ("black", "#888")
TITLED_MARGIN = 90  # room for a figure title above subplot titles


def slopes_bar(slopes: np.ndarray, n_base: int, *, title: str, x_title: str, y_title: str,
               base_name: str, extra_name: str) -> go.Figure:
    """One bar per head in head order, log scale: heads 1 .. n_base (the power-of-two list) in
    one colour, the heads filled in from the doubled list in another."""
    heads = np.arange(1, len(slopes) + 1)
    fig = go.Figure()
    for name, part, color in ((base_name, slice(0, n_base), BASE_COLOR),
                              (extra_name, slice(n_base, None), EXTRA_COLOR)):
        if len(heads[part]):
            fig.add_trace(go.Bar(
                x=heads[part], y=slopes[part].astype(np.float32), name=plain(name),
                marker_color=color, texttemplate="%{y:.3g}" if len(slopes) <= 16 else None,
                textposition="outside",
                hovertemplate=f"{plain(x_title)} %{{x}}<br>m = %{{y:.6g}}<extra></extra>"))
    fig.update_xaxes(title=plain(x_title), dtick=1 if len(heads) <= 32 else 4)
    fig.update_yaxes(title=plain(y_title), type="log", exponentformat="power")
    fig.update_layout(legend=dict(orientation="h", yanchor="bottom", y=1.02, x=0), bargap=0.15)
    return base_layout(fig, title, height=380)


def bias_grid(biases: np.ndarray, slopes: np.ndarray, heads: list[int], labels: list[str], *,
              title: str, panel_format: str, x_title: str, y_title: str,
              value_name: str) -> go.Figure:
    """Small multiples: the (T, T) bias of each listed head (numbered from 1) of biases (H, T, T),
    row 0 on top, one shared colour scale, each panel titled panel_format.format(h=, m=slope).
    NaN cells (hidden by the causal mask) are grey, apart from a zero bias (white)."""
    panel_titles = [panel_format.format(h=h, m=slopes[h - 1]) for h in heads]
    rows = -(-len(heads) // GRID_COLUMNS)
    cols = min(GRID_COLUMNS, len(heads))
    fig = make_subplots(rows=rows, cols=cols, subplot_titles=[plain(t) for t in panel_titles],
                        horizontal_spacing=0.06, vertical_spacing=0.2 / rows)
    names = [plain(label) for label in labels]
    ticks = thinned(names, GRID_TICKS)
    for n, h in enumerate(heads):
        row, col = n // cols + 1, n % cols + 1
        fig.add_trace(masked_layer(biases[h - 1], names, names), row=row, col=col)
        fig.add_trace(go.Heatmap(
            z=biases[h - 1].astype(np.float32), x=names, y=names, coloraxis="coloraxis",
            hoverongaps=False,
            hovertemplate=(f"{plain(y_title)} %{{y}}<br>{plain(x_title)} %{{x}}<br>"
                           f"{plain(value_name)} %{{z:.3f}}<extra></extra>")), row=row, col=col)
        bottom, left = n + cols >= len(heads), col == 1
        # ranges end at the outer cells, so the grey background shows in hidden cells only
        fig.update_xaxes(type="category", tickvals=ticks, showticklabels=bottom,
                         title=plain(x_title) if bottom else None, showgrid=False,
                         zeroline=False, range=[-0.5, len(names) - 0.5], row=row, col=col)
        fig.update_yaxes(type="category", tickvals=ticks, showticklabels=left,
                         title=plain(y_title) if left else None,
                         range=[len(names) - 0.5, -0.5], showgrid=False, zeroline=False,
                         row=row, col=col)
    # zero (no penalty) stays white even when every bias is zero (position off)
    lowest = min(float(np.nanmin(biases[np.asarray(heads) - 1])), -1.0)
    fig.update_layout(coloraxis=dict(colorscale=BIAS_SCALE, cmin=lowest, cmax=0.0,
                                     colorbar=dict(title=plain(value_name))))
    base_layout(fig, title, height=TITLED_MARGIN + 60 + 260 * rows)
    return fig.update_layout(margin_t=TITLED_MARGIN)


def distance_bars(with_bias: np.ndarray, without: np.ndarray, *, title: str, x_title: str,
                  y_title: str, names: tuple[str, str]) -> go.Figure:
    """Mean attention distance per head (numbered from 1): without any position, then with
    the ALiBi bias."""
    heads = np.arange(1, len(with_bias) + 1)
    fig = go.Figure([
        go.Bar(x=heads, y=without.astype(np.float32), name=plain(names[0]), marker_color="#999"),
        go.Bar(x=heads, y=with_bias.astype(np.float32), name=plain(names[1]),
               marker_color=BASE_COLOR),
    ])
    fig.update_xaxes(title=plain(x_title), dtick=1 if len(heads) <= 16 else None)
    fig.update_yaxes(title=plain(y_title), rangemode="tozero")
    fig.update_layout(barmode="group", legend=dict(orientation="h", yanchor="bottom", y=1.02,
                                                   xanchor="right", x=1))
    return base_layout(fig, title, height=340)


def extrapolation(distances: np.ndarray, lines: np.ndarray, heads: list[int], trained_len: int,
                  table: np.ndarray, *, title: str, titles: tuple[str, str],
                  line_name: str, trained_label: str, missing_label: str, x_titles: tuple[str, str],
                  y_titles: tuple[str, str]) -> go.Figure:
    """Left: each listed head's bias against distance, lines (H, K), past the trained length.
    Right: a learned position table (T, D) looked up for positions 0 .. T-1; the positions
    with no row (NaN, at and past trained_len) show grey."""
    fig = make_subplots(rows=1, cols=2, subplot_titles=[plain(t) for t in titles],
                        horizontal_spacing=0.1)
    for n, h in enumerate(heads):
        fig.add_trace(go.Scatter(x=distances, y=lines[h - 1].astype(np.float32), mode="lines",
                                 name=plain(line_name.format(h=h)),
                                 line_color=HEAD_COLORS[n % len(HEAD_COLORS)]), row=1, col=1)
    fig.add_trace(go.Heatmap(
        z=table.T.astype(np.float32), colorscale="RdBu_r", zmid=0.0, showscale=False,
        hoverongaps=False,
        hovertemplate=(f"{plain(x_titles[1])} %{{x}}<br>{plain(y_titles[1])} %{{y}}<br>"
                       "%{z:.3f}<extra></extra>")), row=1, col=2)
    fig.add_vrect(x0=0, x1=trained_len - 1, fillcolor="green", opacity=0.08, line_width=0,
                  annotation_text=plain(trained_label), annotation_position="bottom left",
                  row=1, col=1)
    fig.add_vline(x=trained_len - 0.5, line=dict(color="black", dash="dash"), row=1, col=2)
    fig.add_annotation(text=plain(missing_label), x=trained_len, y=0.5, xanchor="left",
                       xref="x2", yref="y2 domain", showarrow=False, bgcolor="white")
    fig.update_xaxes(title=plain(x_titles[0]), row=1, col=1)
    fig.update_xaxes(title=plain(x_titles[1]), range=[-0.5, len(table) - 0.5], row=1, col=2)
    fig.update_yaxes(title=plain(y_titles[0]), row=1, col=1)
    fig.update_yaxes(title=plain(y_titles[1]), row=1, col=2)
    fig.add_shape(type="rect", xref="x2 domain", yref="y2 domain", x0=0, x1=1, y0=0, y1=1,
                  fillcolor=MASKED_COLOR, line_width=0, layer="below")  # rows with no value
    fig.update_xaxes(showgrid=False, zeroline=False, row=1, col=2)
    fig.update_yaxes(showgrid=False, zeroline=False, row=1, col=2)
    fig.update_layout(legend=dict(orientation="h", yanchor="top", y=-0.18, x=0))
    base_layout(fig, title, height=500)
    return fig.update_layout(margin_t=TITLED_MARGIN)


def buckets_beside_alibi(distances: np.ndarray, bidirectional: np.ndarray, causal: np.ndarray,
                         lines: np.ndarray, heads: list[int], max_distance: int, *, title: str,
                         titles: tuple[str, str], names: tuple[str, str], line_name: str,
                         x_title: str, y_titles: tuple[str, str], hidden_label: str,
                         max_label: str) -> go.Figure:
    """Left: T5's bucket index against distance r = key - query, bidirectional and causal
    (staircases). Right: ALiBi's bias against the same r for the listed heads (straight lines);
    r > 0 (key after the query) is shaded, since a causal mask hides it."""
    fig = make_subplots(rows=1, cols=2, subplot_titles=[plain(t) for t in titles],
                        horizontal_spacing=0.1)
    for name, buckets, color in zip(names, (bidirectional, causal), T5_COLORS, strict=True):
        fig.add_trace(go.Scatter(x=distances, y=buckets, mode="lines", line_shape="hv",
                                 name=plain(name), line_color=color), row=1, col=1)
    for x in (-max_distance, max_distance):
        fig.add_vline(x=x, line=dict(color="gray", dash="dot"), row=1, col=1)
    fig.add_annotation(text=plain(max_label), x=max_distance, y=1, xref="x", yref="y domain",
                       xanchor="left", yanchor="top", showarrow=False)
    for n, h in enumerate(heads):
        fig.add_trace(go.Scatter(x=distances, y=lines[h - 1].astype(np.float32), mode="lines",
                                 name=plain(line_name.format(h=h)),
                                 line_color=HEAD_COLORS[n % len(HEAD_COLORS)]), row=1, col=2)
    fig.add_vrect(x0=0, x1=float(distances[-1]), fillcolor="gray", opacity=0.2, line_width=0,
                  annotation_text=plain(hidden_label), annotation_position="bottom right",
                  row=1, col=2)
    fig.update_xaxes(title=plain(x_title))
    fig.update_yaxes(title=plain(y_titles[0]), row=1, col=1)
    fig.update_yaxes(title=plain(y_titles[1]), row=1, col=2)
    fig.update_layout(legend=dict(orientation="h", yanchor="top", y=-0.18, x=0))
    base_layout(fig, title, height=500)
    return fig.update_layout(margin_t=TITLED_MARGIN)
