"""Figures of the sinusoidal lesson: the position x dimension heatmap, waves, offsets."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from posviz.figures.common import COLORWAY, LINE_GREY, axis, figure, layout, plain
from posviz.sinusoidal import channel_role, wavelength


def pe_heatmap(pe: np.ndarray, positions: np.ndarray, channels: np.ndarray, *, title: str,
               x_title: str, y_title: str, sentence_len: int = 0,
               sentence_label: str = "") -> go.Figure:
    """Heatmap of pe (len(positions), len(channels)): rows are the given positions, columns
    the given channels, both on numeric axes (a thinned grid keeps true numbers in hover and
    round ticks). The rows of the typed sentence, positions 0 .. sentence_len-1, are framed,
    labelled inside the frame's top right corner (over the slowest channels, nearly the same
    in every row), not over the rows below it."""
    heatmap = dict(
        type="heatmap", z=np.asarray(pe, dtype=np.float32), y=positions, x=channels,
        colorscale="RdBu_r", zmin=-1.0, zmax=1.0,
        hovertemplate=(f"{plain(y_title)}: %{{y}}<br>{plain(x_title)}: %{{x}}<br>%{{z:.4f}}"
                       "<extra></extra>"))
    frame = [dict(type="rect", xref="paper", x0=0, x1=1, y0=-0.5, y1=sentence_len - 0.5,
                  line=dict(color=LINE_GREY, width=3))] if sentence_len else []
    note = [dict(text=plain(sentence_label), xref="paper", x=0.995, y=-0.5, yanchor="top",
                 xanchor="right", showarrow=False, bgcolor="rgba(255, 255, 255, 0.85)",
                 font=dict(color="black"))] if sentence_len else []
    return figure([heatmap], layout(
        title, 560, shapes=frame, annotations=note,
        xaxis=axis(x_title),
        yaxis=axis(y_title, autorange="reversed")))


def waves(pe: np.ndarray, channels: list[int], *, base: float, layout_name: str, title: str,
          x_title: str, y_title: str, name_format: str) -> go.Figure:
    """One line per chosen channel of pe (T, D) over positions 0 .. T-1.

    name_format is filled with channel, pair, fn ("sin"/"cos") and period (in positions).
    """
    d_model = pe.shape[1]
    periods = wavelength(d_model, base)
    lines = []
    for c in channels:
        pair, fn = channel_role(c, d_model, layout_name)
        name = name_format.format(channel=c, pair=pair, fn=fn, period=periods[pair])
        lines.append(dict(type="scatter", mode="lines", x=np.arange(len(pe)),
                          y=pe[:, c].astype(np.float32), name=plain(name)))
    return figure(lines, layout(
        title, 420, xaxis=axis(x_title),
        yaxis=axis(y_title, range=[-1.1, 1.1])))


def offset_curve(offsets: np.ndarray, formula: np.ndarray, measured: dict[str, np.ndarray], *,
                 title: str, x_title: str, y_title: str, formula_name: str) -> go.Figure:
    """The dot product against offset k: the closed form as a line, values read off the
    table from several starting positions as markers (they fall on the line)."""
    curve = dict(type="scatter", mode="lines", x=offsets, y=formula, name=plain(formula_name),
                 line=dict(width=3))
    markers = [dict(type="scatter", mode="markers", x=offsets, y=values, name=plain(name),
                    marker=dict(size=7)) for name, values in measured.items()]
    zero = dict(type="line", x0=0, x1=0, yref="paper", y0=0, y1=1,
                line=dict(color=LINE_GREY, dash="dot"))
    return figure([curve, *markers], layout(
        title, 420, shapes=[zero], xaxis=axis(x_title, tickformat="d"),
        yaxis=axis(y_title)))


def vector_pair(first: np.ndarray, second: np.ndarray, *, names: tuple[str, str], title: str,
                x_title: str, y_title: str) -> go.Figure:
    """Two vectors over their channels: bars for the first, markers for the second."""
    channels = np.arange(len(first))
    return figure([
        dict(type="bar", x=channels, y=first.astype(np.float32), name=plain(names[0]),
             opacity=0.6),
        dict(type="scatter", mode="markers", x=channels, y=second.astype(np.float32),
             name=plain(names[1]), marker=dict(size=9, symbol="x", color=COLORWAY[5])),
    ], layout(title, 380, xaxis=axis(x_title, tickformat="d"),
              yaxis=axis(y_title, range=[-1.1, 1.1])))
