"""Figures of the trained-models lesson: top-5 predictions, loss against position for every
scheme, and the live order experiment's curves. Attention maps and position tables use
`posviz.figures.attention.map_grid` and `posviz.figures.common.token_heatmap`.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from posviz.figures.common import LINE_GREY, axis, figure, layout, plain

SCHEME_COLORS = {"none": "#7f7f7f", "sinusoidal": "#1f77b4", "learned": "#c75d00",
                 "rope": "#2ca02c", "alibi": "#9467bd"}
SCHEME_LINES = {"learned": dict(dash="solid", width=6), "none": dict(dash="solid", width=3),
                "sinusoidal": dict(dash="dash", width=2.5), "rope": dict(dash="dot", width=2.5),
                "alibi": dict(dash="dashdot", width=2)}
"""Each scheme's line in the loss-against-position chart, in the order they are drawn: the five
models' losses nearly coincide up to the training length, so each line is either narrower than
every line under it (its edges show) or broken (the lines under it show in its gaps)."""
PREDICTION_COLORS = "Blues"
RANK_WIDTH = 90  # pixels of a cell of the top-k chart: a word and its probability


def top_predictions(probabilities: np.ndarray, predicted: list[list[str]], row_labels: list[str],
                    *, title: str, x_title: str, y_title: str, value_name: str) -> go.Figure:
    """Each row is a position t of the sentence; its k cells are the k most likely next tokens
    (most likely first), written in the cell and coloured by probability (0 to 1).
    probabilities is (T, k); predicted holds the k tokens of each row."""
    probabilities = np.asarray(probabilities, dtype=np.float32)
    rows = [plain(label) for label in row_labels]
    ranks = [str(r + 1) for r in range(probabilities.shape[1])]
    text = [[f"{plain(token)}<br>{p:.2f}" for token, p in zip(tokens, ps, strict=True)]
            for tokens, ps in zip(predicted, probabilities, strict=True)]
    # each cell holds a token and its probability: narrower, they would run into each other
    least = RANK_WIDTH * len(ranks) + 220
    return figure([dict(
        type="heatmap", z=probabilities, x=ranks, y=rows, text=text, texttemplate="%{text}",
        textfont=dict(size=13), colorscale=PREDICTION_COLORS, zmin=0.0, zmax=1.0,
        colorbar=dict(title=dict(text=plain(value_name))),
        hovertemplate=(f"{plain(y_title)}: %{{y}}<br>{plain(x_title)}: %{{x}}<br>%{{text}}"
                       "<extra></extra>"))], layout(
        title, max(260, 110 + 44 * len(rows)), min_width=least,
        xaxis=axis(x_title, type="category"),
        yaxis=axis(y_title, type="category", tickvals=rows, range=[len(rows) - 0.5, -0.5])))


def extrapolation(losses: dict[str, list[float | None]], names: dict[str, str],
                  train_len: int, *, title: str, x_title: str, y_title: str,
                  trained_name: str) -> go.Figure:
    """Loss against position, one line per scheme; a missing value (None: no position row)
    is a gap in its line. The training length is a dashed line with its name.

    Lines are drawn in SCHEME_LINES' order, widest first, so none hides another where they
    coincide; the legend keeps the order of losses."""
    drawn = sorted(losses, key=list(SCHEME_LINES).index)
    traces = [dict(type="scatter", mode="lines", x=np.arange(len(losses[scheme])),
                   y=np.array([np.nan if v is None else v for v in losses[scheme]],
                              dtype=np.float32),
                   name=plain(names[scheme]), legendrank=list(losses).index(scheme) + 1,
                   line=dict(color=SCHEME_COLORS[scheme], **SCHEME_LINES[scheme]),
                   hovertemplate=f"{plain(names[scheme])}<br>%{{x}}: %{{y:.3f}}<extra></extra>")
              for scheme in drawn]
    edge = train_len - 0.5
    return figure(traces, layout(
        title, 460,
        xaxis=axis(x_title), yaxis=axis(y_title, rangemode="tozero"),
        shapes=[dict(type="line", x0=edge, x1=edge, y0=0, y1=1, yref="paper",
                     line=dict(dash="dash", color=LINE_GREY, width=1.5))],
        annotations=[dict(text=plain(trained_name), x=edge, y=1, yref="paper", xanchor="left",
                          yanchor="top", showarrow=False, xshift=4)]))


def training_curves(histories: dict[str, dict[str, list[float]]], names: dict[str, str],
                    *, title: str, step_title: str, loss_title: str, accuracy_title: str,
                    chance_name: str) -> go.Figure:
    """Loss (left) and held-out accuracy (right) against step for each classifier; histories
    map a scheme to {"step", "loss", "accuracy"}. The accuracy panel marks chance (0.5)."""
    traces = []
    for scheme, h in histories.items():
        style = dict(mode="lines+markers", marker=dict(size=4), legendgroup=scheme,
                     line=dict(color=SCHEME_COLORS[scheme], width=2), x=h["step"])
        traces.append(dict(type="scatter", y=h["loss"], name=plain(names[scheme]), **style))
        traces.append(dict(type="scatter", y=h["accuracy"], name=plain(names[scheme]),
                           showlegend=False, xaxis="x2", yaxis="y2", **style))
    return figure(traces, layout(
        title, 400,
        xaxis=axis(step_title, domain=[0, 0.45]), yaxis=axis(loss_title, rangemode="tozero"),
        xaxis2=axis(step_title, domain=[0.55, 1], anchor="y2"),
        yaxis2=axis(accuracy_title, anchor="x2", range=[0.3, 1.02]),
        shapes=[dict(type="line", xref="x2 domain", x0=0, x1=1, yref="y2", y0=0.5, y1=0.5,
                     line=dict(dash="dot", color=LINE_GREY, width=1))],
        annotations=[dict(text=plain(chance_name), xref="x2 domain", x=1, yref="y2", y=0.5,
                          xanchor="right", yanchor="bottom", showarrow=False)]))
