"""Sinusoidal encoding: the heatmap, the waves, and what a fixed offset does."""

import numpy as np
import streamlit as st

import ui
from posviz.figures.common import token_heatmap
from posviz.figures.sinusoidal import offset_curve, pe_heatmap, vector_pair, waves
from posviz.sinusoidal import (
    FORMULA,
    LAYOUTS,
    dot_by_offset,
    dots_from_starts,
    offset_check,
    similarity,
    sinusoidal_sampled,
    spread_channels,
)
from ui.cached import sinusoidal as cached

MAX_SIMILARITY = 256  # positions in the similarity matrix
LINEAR_FORMULA = (r"PE_{p+k} = M_k\, PE_p,\qquad M_k = \mathrm{diag}\!\left(\begin{pmatrix}"
                  r"\cos k\omega_i & \sin k\omega_i \\ -\sin k\omega_i & \cos k\omega_i"
                  r"\end{pmatrix}\right)_{i}")


def fresh_waves() -> None:
    """A new d_model starts the wave plot afresh: channels spread from fastest to slowest."""
    st.session_state.sinusoidal_channels = spread_channels(
        st.session_state.sinusoidal_d, st.session_state.get("sinusoidal_layout", LAYOUTS[0]))


def body(d: ui.Doc, s: ui.Settings) -> None:
    d.markdown(s.prose("sinusoidal"))
    d.formula(FORMULA)
    if not s.position:
        d.info(s.t("sinusoidal.position_off"))
    if not s.tokens:
        d.info(s.t("common.empty"))

    c1, c2, c3, c4 = d.columns(4)
    d_model = c1.number_input(s.t("sinusoidal.d_model"), 2, 1024, 128, step=2,
                              key="sinusoidal_d", on_change=fresh_waves)
    n_pos = c2.number_input(s.t("sinusoidal.n_pos"), 1, 4096, 128, key="sinusoidal_n")
    base = c3.number_input(s.t("sinusoidal.base"), 2.0, 1e6, 10_000.0, step=1000.0,
                           key="sinusoidal_base", help=s.t("sinusoidal.base_help"))
    layout = c4.coded_radio(s.t("sinusoidal.layout"), list(LAYOUTS), key="sinusoidal_layout",
                            format_func=lambda name: s.t(f"sinusoidal.layouts.{name}"),
                            help=s.t("sinusoidal.layout_help"))

    with ui.guard(d, s):
        values, rows, channels, stride = sinusoidal_sampled(n_pos, d_model, base, layout)
        d.chart(pe_heatmap(
            values, rows, channels, title=s.t("sinusoidal.fig_heatmap"),
            x_title=s.t("common.dimension_axis"), y_title=s.t("common.position_axis"),
            sentence_len=min(len(s.tokens), n_pos),
            sentence_label=s.t("sinusoidal.the_sentence")), "heatmap")
        if layout == "concatenated":  # [sin | cos]: the fastest wave again at column d/2
            d.caption(s.t("sinusoidal.heatmap_caption_concatenated", half=d_model // 2))
        else:
            d.caption(s.t("sinusoidal.heatmap_caption"))
        if stride > 1:
            d.caption(s.t("sinusoidal.thinned", stride=stride))

        d.subheader(s.t("sinusoidal.waves_head"))
        pe = cached.table(n_pos, d_model, base, layout)
        if d.live and ("sinusoidal_channels" not in st.session_state
                       and "sinusoidal_channels" not in st.query_params):  # a first visit
            fresh_waves()
        chosen = d.multiselect(s.t("sinusoidal.channels"), range(d_model),
                               key="sinusoidal_channels",
                               default=spread_channels(d_model, layout))
        d.chart(waves(
            pe, chosen, base=base, layout_name=layout, title=s.t("sinusoidal.fig_waves"),
            x_title=s.t("common.position_axis"), y_title=s.t("common.value"),
            name_format=s.t("sinusoidal.wave_name")), "waves")
        d.caption(s.t("sinusoidal.waves_caption"))

        d.subheader(s.t("sinusoidal.offset_head"))
        max_k = d.slider(s.t("sinusoidal.max_offset"), 1, 200, 40, key="sinusoidal_max_k")
        offsets = np.arange(-max_k, max_k + 1)
        d.chart(offset_curve(
            offsets, dot_by_offset(offsets, d_model, base),
            {s.t("sinusoidal.from_start", p=p): v
             for p, v in dots_from_starts(pe, offsets).items()},
            title=s.t("sinusoidal.fig_offset"), x_title=s.t("sinusoidal.offset_axis"),
            y_title=s.t("sinusoidal.dot_axis"), formula_name=s.t("sinusoidal.closed_form")),
            "offset")
        d.caption(s.t("sinusoidal.offset_caption"))

        shown = pe[:MAX_SIMILARITY]
        d.chart(token_heatmap(
            similarity(shown), [str(p) for p in range(len(shown))],
            [str(p) for p in range(len(shown))], title=s.t("sinusoidal.fig_similarity"),
            x_title=s.t("common.position_axis"), y_title=s.t("common.position_axis"),
            value_name=s.t("sinusoidal.dot_axis"), colorscale="Viridis", zmid=None),
            "similarity")
        d.caption(s.t("sinusoidal.similarity_caption", n=len(shown)))

    def linear_map() -> None:
        d.subheader(s.t("sinusoidal.linear_head"))
        d.formula(LINEAR_FORMULA)
        left, right = d.columns(2)
        p = left.slider(s.t("sinusoidal.start"), 0, 4096, 5, key="sinusoidal_p")
        k = right.slider(s.t("sinusoidal.offset"), -256, 256, 3, key="sinusoidal_k")
        width = min(d_model, 64)
        target, mapped, residual = offset_check(p, k, width, base)
        d.chart(vector_pair(
            target, mapped,
            names=(s.t("sinusoidal.pe_target", q=p + k), s.t("sinusoidal.mapped", k=k, p=p)),
            title=s.t("sinusoidal.fig_linear", d=width), x_title=s.t("common.dimension_axis"),
            y_title=s.t("common.value")), "linear_map")
        d.metric(s.t("sinusoidal.residual"), f"{residual:.1e}")
        d.caption(s.t("sinusoidal.linear_caption"))

    with ui.guard(d, s):
        d.fragment(linear_map)


if __name__ == "__main__":
    ui.run("sinusoidal", body)
