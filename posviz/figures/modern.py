"""Figures of the page on today's models: which channels of a head turn (partial RoPE), and
what a key-value cache holds per token (MLA). The other schemes are drawn with the RoPE and
attention lessons' own figures."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from posviz.figures.common import axis, figure, layout, plain

TURNED, KEPT = "#2563eb", "#868686"


def share_bars(models: list[str], turned: list[int], head_dims: list[int], *, title: str,
               x_title: str, turned_name: str, kept_name: str) -> go.Figure:
    """One bar per model, as long as a head's channels: the channels RoPE turns, then those it
    leaves alone, each part labelled with its count."""
    names = [plain(m) for m in models]
    kept = [d - t for d, t in zip(head_dims, turned, strict=True)]
    return figure([
        dict(type="bar", orientation="h", y=names, x=np.asarray(values, dtype=np.float32),
             name=plain(name), marker_color=color, text=[str(v) for v in values],
             textposition="inside", insidetextanchor="middle")
        for name, values, color in ((turned_name, turned, TURNED), (kept_name, kept, KEPT))],
        layout(title, 120 + 44 * len(models), barmode="stack",
               xaxis=axis(x_title, rangemode="tozero"),
               yaxis=axis("", autorange="reversed", automargin=True)))


def cache_bars(labels: list[tuple[str, str]], values: list[int], *, title: str,
               x_title: str) -> go.Figure:
    """Values kept per token and layer, one bar per way of keeping them (its label: a model, and
    what it keeps, on two lines), each bar labelled with its count, on a linear axis (576
    beside 40,960 looks as small as it is)."""
    names = [f"{plain(model)}<br>{plain(kept)}" for model, kept in labels]
    return figure([dict(
        type="bar", orientation="h", y=names, name=plain(x_title),  # its data table's rows
        x=np.asarray(values, dtype=np.float32), marker_color=TURNED,
        text=[f"{v:,}" for v in values], textposition="outside", cliponaxis=False)],
        layout(title, 120 + 50 * len(labels), margin=dict(l=10, r=70, t=50, b=10),
               xaxis=axis(x_title, rangemode="tozero"),
               yaxis=axis("", autorange="reversed", automargin=True)))


STACK_COLORS = {"rope": TURNED, "nope": "#d97706", "linear": KEPT}
"""A layer's kind: attention with RoPE, attention without position, linear attention."""


def layer_stacks(stacks: dict[str, list[str]], kinds: dict[str, str], *, title: str,
                 x_title: str) -> go.Figure:
    """One row per model, one cell per layer from the first (left), coloured by what carries
    position in it: stacks maps a model to its layers' kinds (keys of STACK_COLORS), kinds a
    kind to its name in the legend."""
    names = [plain(m) for m in stacks]
    traces = []
    for kind, label in kinds.items():
        cells = [(name, layer) for name, layers in zip(names, stacks.values(), strict=True)
                 for layer, k in enumerate(layers) if k == kind]
        traces.append(dict(
            type="bar", orientation="h", name=plain(label), marker_color=STACK_COLORS[kind],
            y=[name for name, _ in cells], base=np.array([layer for _, layer in cells],
                                                         dtype=np.float32),
            x=np.ones(len(cells), dtype=np.float32), marker_line=dict(color="white", width=1),
            customdata=[layer + 1 for _, layer in cells],  # layers counted from 1
            hovertemplate=(f"%{{y}}<br>{plain(x_title)} %{{customdata}}: {plain(label)}"
                           "<extra></extra>")))
    deepest = max(len(layers) for layers in stacks.values())
    return figure(traces, layout(
        title, 140 + 46 * len(stacks), barmode="overlay",
        xaxis=axis(x_title, range=[0, deepest]),
        yaxis=axis("", autorange="reversed", automargin=True)))
