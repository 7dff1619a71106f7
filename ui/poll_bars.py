"""How a room answered a question: one bar per option."""

from __future__ import annotations

import plotly.graph_objects as go

from posviz.figures.common import COLORWAY, layout

RIGHT, OTHER = COLORWAY[2], COLORWAY[0]  # green for the revealed answer, blue for the rest


def poll_bars(counts: list[int], letters: list[str], title: str, x_title: str,
              correct: int | None = None) -> go.Figure:
    """Votes per option as horizontal bars, option A on top, each labelled with its count and
    share of the votes; once an answer is revealed (`correct`), its bar is green, the others
    pale. Returns a figure whose height grows with the number of options."""
    total = sum(counts)
    shares = [f"{n}  ({n / total:.0%})" if total else "0" for n in counts]
    colours = [RIGHT if i == correct else OTHER for i in range(len(counts))]
    opacity = [1.0 if correct is None or i == correct else 0.45 for i in range(len(counts))]
    bars = go.Bar(x=counts, y=letters, orientation="h", text=shares, textposition="outside",
                  cliponaxis=False, marker=dict(color=colours, opacity=opacity),
                  hovertemplate="%{y}: %{x}<extra></extra>")
    return go.Figure(bars, layout(
        title, height=90 + 48 * len(counts), showlegend=False,
        xaxis=dict(title=dict(text=x_title), rangemode="tozero", dtick=max(1, -(-total // 8)),
                   range=[0, max(1, max(counts, default=0)) * 1.25]),
        yaxis=dict(autorange="reversed", type="category"), bargap=0.3))
