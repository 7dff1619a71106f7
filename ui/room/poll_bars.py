"""The figures of a room's answers: a question's votes per option (split by how sure the
students were), the concept check's right share per question before and after, and the class's
predicted picture over the model's attention."""

from __future__ import annotations

import plotly.graph_objects as go

from posviz.figures.common import COLORWAY, layout
from rooms.records import Gain, Tally

RIGHT, OTHER = COLORWAY[2], COLORWAY[0]  # green for the revealed answer, blue for the rest


def poll_bars(counts: list[int] | tuple[int, ...], letters: list[str], title: str,
              x_title: str, correct: int | None = None) -> go.Figure:
    """Votes per option as horizontal bars, option A on top, each labelled with its count and
    share of the votes; once an answer is revealed (`correct`), its bar is green, the others
    pale. Returns a figure whose height grows with the number of options."""
    total = sum(counts)
    shares = [f"{n}  ({n / total:.0%})" if total else "0" for n in counts]
    colours = [RIGHT if i == correct else OTHER for i in range(len(counts))]
    opacity = [1.0 if correct is None or i == correct else 0.45 for i in range(len(counts))]
    bars = go.Bar(x=list(counts), y=letters, orientation="h", text=shares,
                  textposition="outside", cliponaxis=False,
                  marker=dict(color=colours, opacity=opacity),
                  hovertemplate="%{y}: %{x}<extra></extra>")
    return go.Figure(bars, _layout(title, x_title, counts))


def sure_bars(tally: Tally, letters: list[str], title: str, x_title: str,
              names: tuple[str, str, str]) -> go.Figure:
    """A round's votes per option split into sure, guessing and not said (names, in that
    order), stacked: a lecturer sees whether a right majority is a confident one. Each bar
    ends with its count and share."""
    total = tally.total
    unsaid = [n - a - b for n, a, b in zip(tally.counts, tally.sure, tally.guessing,
                                            strict=True)]
    parts = [(tally.sure, names[0], OTHER, 1.0), (tally.guessing, names[1], OTHER, 0.5),
             (unsaid, names[2], "rgba(128, 128, 128, 0.55)", 1.0)]
    traces = [go.Bar(x=list(values), y=letters, orientation="h", name=name,
                     marker=dict(color=colour, opacity=opacity,
                                 pattern=dict(shape="/" if opacity < 1 else "")),
                     hovertemplate=f"%{{y}}, {name}: %{{x}}<extra></extra>")
              for values, name, colour, opacity in parts]
    traces.append(go.Scatter(  # the total at each bar's end
        x=list(tally.counts), y=letters, mode="text", textposition="middle right",
        text=[f" {n}  ({n / total:.0%})" if total else " 0" for n in tally.counts],
        showlegend=False, hoverinfo="skip", cliponaxis=False))
    figure = go.Figure(traces, _layout(title, x_title, tally.counts))
    figure.update_layout(barmode="stack", showlegend=True, legend_traceorder="normal",
                         height=130 + 48 * len(letters))
    return figure


def gains_bars(gains: list[Gain], ideas: list[str], title: str, names: tuple[str, str],
               axis: str) -> go.Figure:
    """The concept check's right share per question before and after (names), side by side,
    each bar labelled with its share; ideas name the questions, first on top."""
    labels = [f"{g.number}. {idea}" for g, idea in zip(gains, ideas, strict=True)]
    traces = [go.Bar(x=[getattr(g, when) or 0 for g in gains], y=labels, orientation="h",
                     name=name, marker=dict(color=colour, opacity=opacity),
                     text=["–" if getattr(g, when) is None else f"{getattr(g, when):.0f}%"
                           for g in gains], textposition="outside", cliponaxis=False,
                     hovertemplate=f"%{{y}}, {name}: %{{x:.0f}}%<extra></extra>")
              for when, name, colour, opacity in (("pre", names[0], COLORWAY[1], 1.0),
                                                  ("post", names[1], RIGHT, 1.0))]
    return go.Figure(traces, layout(
        title, height=130 + 70 * len(gains), showlegend=True, legend_traceorder="normal",
        barmode="group", bargap=0.25, min_width=480,
        xaxis=dict(title=dict(text=axis), range=[0, 115], tickvals=[0, 25, 50, 75, 100]),
        yaxis=dict(autorange="reversed", type="category", automargin=True)))


def picture_rows(labels: list[str], shares: list[float], weights: list[float], truth: int,
                 title: str, names: tuple[str, str], key_axis: str) -> go.Figure:
    """The class's predicted picture over the model's: one row of the share of predictions
    per key, one of the model's attention weights, on one colour scale (0 to 1), each cell
    with its value, the model's key framed."""
    figure = go.Figure(go.Heatmap(
        z=[shares, weights], x=labels, y=list(names), zmin=0.0, zmax=1.0, colorscale="Blues",
        text=[[f"{v:.0%}" for v in shares], [f"{v:.0%}" for v in weights]],
        texttemplate="%{text}", hovertemplate="%{y}, %{x}: %{text}<extra></extra>",
        colorbar=dict(thickness=14, tickformat=".0%")))
    figure.add_shape(type="rect", x0=truth - 0.5, x1=truth + 0.5, y0=-0.5, y1=1.5,
                     line=dict(color=RIGHT, width=4))
    figure.update_layout(layout(
        title, height=260, xaxis=dict(title=dict(text=key_axis), type="category"),
        yaxis=dict(autorange="reversed", type="category", automargin=True)))
    return figure


def _layout(title: str, x_title: str, counts) -> dict:
    total = sum(counts)
    return layout(
        title, height=90 + 48 * len(counts), showlegend=False,
        xaxis=dict(title=dict(text=x_title), rangemode="tozero", dtick=max(1, -(-total // 8)),
                   range=[0, max(1, max(counts, default=0)) * 1.25]),
        yaxis=dict(autorange="reversed", type="category"), bargap=0.3)
