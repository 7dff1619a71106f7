"""Figures of the sinusoidal lesson: the position x dimension heatmap, waves, offsets."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from posviz.figures.common import base_layout, plain
from posviz.sinusoidal import channel_role, wavelength


def pe_heatmap(pe: np.ndarray, positions: np.ndarray, channels: np.ndarray, *, title: str,
               x_title: str, y_title: str, sentence_len: int = 0,
               sentence_label: str = "") -> go.Figure:
    """Heatmap of pe (len(positions), len(channels)): rows are the given positions, columns
    the given channels (a categorical axis, so thinned channels keep their true numbers in
    hover). The rows of the typed sentence, positions 0 .. sentence_len-1, are framed."""
    fig = go.Figure(go.Heatmap(
        z=np.asarray(pe, dtype=np.float32), y=positions, x=[str(c) for c in channels],
        colorscale="RdBu_r", zmin=-1.0, zmax=1.0,
        hovertemplate=(f"{plain(y_title)}: %{{y}}<br>{plain(x_title)}: %{{x}}<br>%{{z:.4f}}"
                       "<extra></extra>"),
    ))
    if sentence_len:
        fig.add_hrect(y0=-0.5, y1=sentence_len - 0.5, line=dict(color="black", width=2),
                      annotation_text=plain(sentence_label), annotation_position="top left",
                      annotation=dict(bgcolor="white", font=dict(color="black")))
    fig.update_xaxes(title=plain(x_title), type="category", nticks=16)
    fig.update_yaxes(title=plain(y_title), autorange="reversed")
    return base_layout(fig, title, height=560)


def waves(pe: np.ndarray, channels: list[int], *, base: float, layout: str, title: str,
          x_title: str, y_title: str, name_format: str) -> go.Figure:
    """One line per chosen channel of pe (T, D) over positions 0 .. T-1.

    name_format is filled with channel, pair, fn ("sin"/"cos") and period (in positions).
    """
    d_model = pe.shape[1]
    periods = wavelength(d_model, base)
    fig = go.Figure()
    for c in channels:
        pair, fn = channel_role(c, d_model, layout)
        fig.add_trace(go.Scatter(
            x=np.arange(len(pe)), y=pe[:, c].astype(np.float32), mode="lines",
            name=plain(name_format.format(channel=c, pair=pair, fn=fn, period=periods[pair]))))
    fig.update_xaxes(title=plain(x_title))
    fig.update_yaxes(title=plain(y_title), range=[-1.1, 1.1])
    fig.update_layout(legend=dict(orientation="h", yanchor="bottom", y=1.02, x=0))
    return base_layout(fig, title, height=420)


def offset_curve(offsets: np.ndarray, formula: np.ndarray, measured: dict[str, np.ndarray], *,
                 title: str, x_title: str, y_title: str, formula_name: str) -> go.Figure:
    """The dot product against offset k: the closed form as a line, values read off the
    table from several starting positions as markers (they fall on the line)."""
    fig = go.Figure(go.Scatter(x=offsets, y=formula, mode="lines", name=plain(formula_name),
                               line=dict(width=3)))
    for name, values in measured.items():
        fig.add_trace(go.Scatter(x=offsets, y=values, mode="markers", name=plain(name),
                                 marker=dict(size=7, opacity=0.8)))
    fig.add_vline(x=0, line=dict(color="gray", dash="dot"))
    fig.update_xaxes(title=plain(x_title))
    fig.update_yaxes(title=plain(y_title))
    fig.update_layout(legend=dict(orientation="h", yanchor="bottom", y=1.02, x=0))
    return base_layout(fig, title, height=420)


def vector_pair(first: np.ndarray, second: np.ndarray, *, names: tuple[str, str], title: str,
                x_title: str, y_title: str) -> go.Figure:
    """Two vectors over their channels: bars for the first, markers for the second."""
    channels = np.arange(len(first))
    fig = go.Figure([
        go.Bar(x=channels, y=first.astype(np.float32), name=plain(names[0]), opacity=0.6),
        go.Scatter(x=channels, y=second.astype(np.float32), mode="markers", name=plain(names[1]),
                   marker=dict(size=9, symbol="x", color="black")),
    ])
    fig.update_xaxes(title=plain(x_title))
    fig.update_yaxes(title=plain(y_title), range=[-1.1, 1.1])
    fig.update_layout(legend=dict(orientation="h", yanchor="bottom", y=1.02, x=0))
    return base_layout(fig, title, height=360)
