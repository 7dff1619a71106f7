"""Embedding + position: what a token means, where it stands, and their sum."""

import numpy as np
import streamlit as st

import ui
from posviz.embedding import cosine_similarity, repeat_distances, token_embeddings
from posviz.figures.common import token_heatmap
from posviz.figures.embedding import aligned_heatmaps
from posviz.sinusoidal import FORMULA, sinusoidal
from posviz.tokens import repeated, token_labels

s = ui.page("embedding")
ui.need_tokens(s)
st.markdown(s.prose("embedding"))

d_model = st.slider(s.t("embedding.d_model"), 4, 128, 16, step=2, key="embedding_d",
                    help=s.t("embedding.d_model_help"), bind="query-params",
                    persist_state="session")
E = token_embeddings(s.tokens, d_model)
P = sinusoidal(len(s.tokens), d_model) if s.position else np.zeros_like(E)
labels = token_labels(s.tokens)
repeats = repeated(s.tokens)
marked = sorted(t for ts in repeats.values() for t in ts)

ui.formula(r"x_t = E[\text{token}_t] + PE_t,\qquad " + FORMULA)
ui.chart(aligned_heatmaps(
    [E, P, E + P], [s.t("embedding.panel_e"), s.t("embedding.panel_p"), s.t("embedding.panel_x")],
    labels, title=s.t("embedding.fig_sum"), x_title=s.t("common.dimension_axis"),
    y_title=s.t("common.token_axis"), marked_rows=marked), "sum")
st.caption(s.t("embedding.sum_caption"))
if not s.position:
    st.warning(s.t("embedding.bag"))

if repeats:
    st.subheader(s.t("embedding.repeats_head"))
    st.dataframe(repeat_distances(s.tokens, E, E + P), hide_index=True, width="stretch",
                 column_config={key: s.t(f"embedding.col.{key}") for key in (
                     "token", "first", "second", "embedding_distance", "input_distance")})
    st.caption(s.t("embedding.repeats_caption"))
else:
    st.info(s.t("embedding.try_repeats"))

st.subheader(s.t("embedding.similarity_head"))
st.caption(s.t("embedding.similarity_caption"))
for col, (matrix, key) in zip(st.columns(3), [(E, "panel_e"), (P, "panel_p"), (E + P, "panel_x")],
                              strict=True):
    ui.chart(token_heatmap(
        cosine_similarity(matrix), labels, labels, title=s.t(f"embedding.{key}"),
        x_title=s.t("common.token_axis"), y_title=s.t("common.token_axis"),
        value_name=s.t("embedding.cosine"), zmin=-1.0, zmax=1.0), f"similarity_{key}", where=col)
