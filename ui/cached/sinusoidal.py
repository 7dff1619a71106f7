"""The sinusoidal page's cached table."""

import numpy as np
import streamlit as st

from posviz.sinusoidal import sinusoidal


@st.cache_data(max_entries=8)
def table(n: int, d: int, b: float, lay: str) -> np.ndarray:
    return sinusoidal(n, d, b, lay)
