"""The RoPE page's figure builders, cached.

Building a plotly figure takes milliseconds; on a rerun, unchanged figures (same small arrays
and texts) come back from the cache instead. Nothing mutates a figure once built.
"""

import streamlit as st

from posviz.figures import common
from posviz.figures import rope as figures

plane_view, clock_ladder, line_chart, token_heatmap = (
    st.cache_resource(max_entries=32, show_spinner=False)(build) for build in (
        figures.plane_view, figures.clock_ladder, figures.line_chart, common.token_heatmap))
