"""Charts drawn by posviz's own plotly.js bundle instead of st.plotly_chart.

st.plotly_chart loads a 4.7 MB script before its first chart; a page that draws one chart then
takes twice as long to show as a page without. posviz serves a 1.2 MB plotly.js build with only
the traces it draws (static/plotly-posviz.min.js, recipe in assets/plotly/) through a small
component (ui/chart.js) that loads it once per browser tab and updates charts in place.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

import plotly.graph_objects as go
import streamlit as st

_COMPONENT = st.components.v2.component(
    "posviz_chart", js=(Path(__file__).parent / "chart.js").read_text("utf-8"),
    isolate_styles=False)


def chart(figure: go.Figure | str, name: str, where=None) -> None:
    """Draw a figure (or its JSON) full width, in where (a column, ...) or the current container.

    name keys the chart on its page and names its PNG download (`posviz-<name>.png`).
    """
    spec = figure if isinstance(figure, str) else figure.to_json()
    with where if where is not None else contextlib.nullcontext():
        _COMPONENT(data={"figure": spec, "name": name}, key=f"chart_{name}", width="stretch")
