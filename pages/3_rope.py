"""RoPE: channel pairs of q and k turned by position; relative scores, decay, long contexts."""

import numpy as np

import ui
from posviz import rope
from posviz.attention import one_head
from posviz.tokens import token_labels
from ui.cached import rope as cached

D_MODEL = 64        # one head of this size: 32 channel pairs
MAX_PLACE = 128     # furthest position the clock-hand token can be moved to
MAX_SHIFT = 512     # largest shift of the whole sentence
MAX_DISTANCE = 512  # x range of the decay bound
BASES = [100, 1_000, 10_000, 100_000, 500_000, 1_000_000]



def body(d: ui.Doc, s: ui.Settings) -> None:
    ui.need_tokens(d, s)
    d.markdown(s.prose("rope"))

    # Option texts are the same in both languages: a bound widget puts them in the URL.
    pairing = d.radio(s.t("rope.pairing"), rope.PAIRINGS, key="rope_pairing",
                      format_func=lambda p: s.t(f"rope.pairings.{p}"),
                      captions=[s.t(f"rope.pairing_users.{p}") for p in rope.PAIRINGS],
                      help=s.t("rope.pairing_help"))
    d.caption(s.t("rope.pairing_caption"))
    d.formula(rope.FORMULA if pairing == "interleaved" else rope.FORMULA_HALF)

    x, q, k, layer = one_head(s.tokens, D_MODEL)                        # (T, D) each
    positions = np.arange(len(s.tokens)) if s.position else np.zeros(len(s.tokens))
    labels = token_labels(s.tokens)
    pairs_of_tokens = len(s.tokens) > 1  # a query and a key at two different positions
    theta = rope.rope_frequencies(D_MODEL)
    wavelength = rope.wavelengths(theta)
    d.caption(s.t("rope.model_note", d=D_MODEL))
    if not s.position:
        d.warning(s.t("rope.no_position"))
        d.caption(s.t("rope.hidden_off"))

    d.subheader(s.t("rope.plane_head"))
    left, right = d.columns([3, 1])
    pair = left.slider(s.t("rope.pair"), 0, D_MODEL // 2 - 1, 0, key="rope_pair",
                       help=s.t("rope.pair_help"))
    kind = right.radio(s.t("rope.vectors"), ("q", "k"), key="rope_vectors", horizontal=True,
                       captions=[s.t(f"rope.vector_kinds.{v}") for v in ("q", "k")])
    vectors = q if kind == "q" else k
    a, b = (channels[pair] for channels in rope.pair_index(D_MODEL, pairing))
    d.chart(cached.plane_view(
        rope.pair_coordinates(vectors, pair, pairing),
        rope.pair_coordinates(rope.apply_rope(vectors, positions, pairing=pairing), pair, pairing),
        labels, title=s.t("rope.plane_title", pair=pair, a=a, b=b, theta=theta[pair],
                          wavelength=wavelength[pair]),
        before_name=s.t("rope.before"), after_name=s.t("rope.after"), arc_name=s.t("rope.arc"),
        x_title=s.t("rope.channel", c=a), y_title=s.t("rope.channel", c=b)), "plane")
    d.caption(s.t("rope.plane_caption"))

    def clock_hands() -> None:
        d.subheader(s.t("rope.ladder_head"))
        left, right = d.columns(2)
        token = left.select_slider(s.t("rope.ladder_token"), range(len(s.tokens)), 0,
                                   key="rope_token") if pairs_of_tokens else 0
        at = right.slider(s.t("rope.ladder_at"), 0, MAX_PLACE, 12, key="rope_at",
                          help=s.t("rope.ladder_at_help"))
        hands = rope.ladder_pairs(D_MODEL)
        d.chart(cached.clock_ladder(
            rope.pair_trajectory(vectors[token], np.arange(at + 1), hands, pairing=pairing),
            [s.t("rope.hand_panel", pair=p, wavelength=wavelength[p]) for p in hands],
            title=s.t("rope.ladder_title", token=labels[token], at=at, n=len(hands)),
            hand_name=s.t("rope.hand"), trail_name=s.t("rope.trail"), start_name=s.t("rope.start")),
            "ladder")
        d.caption(s.t("rope.ladder_caption"))

    if s.position:
        d.fragment(clock_hands)

    d.subheader(s.t("rope.scores_head"))
    d.formula(rope.SCORE_FORMULA)
    if pairs_of_tokens:
        d.chart(cached.token_heatmap(
            rope.rope_scores(q, k, positions, pairing=pairing), labels, labels,
            title=s.t("rope.scores_title" if s.position else "rope.scores_title_off"),
            x_title=s.t("common.key_axis"), y_title=s.t("common.query_axis"),
            value_name=s.t("rope.score"), height=560), "scores")
    else:
        d.info(s.t("rope.need_two"))
    if s.position and pairs_of_tokens:
        d.caption(s.t("rope.scores_caption"))
    norms = d.expander(s.t("rope.norms_head"))
    before, after = rope.rope_norms(vectors, positions, pairing=pairing)
    norms.text_table({s.t("rope.cols.position"): range(len(s.tokens)),
                      s.t("rope.cols.token"): s.tokens,
                      s.t("rope.cols.before"): before.tolist(),
                      s.t("rope.cols.after"): after.tolist()})
    norms.caption(s.t("rope.norms_caption"))

    def shift_both() -> None:
        d.subheader(s.t("rope.shift_head"))
        c1, c2, c3 = d.columns(3)
        m = c1.select_slider(s.t("rope.shift_query"), range(len(s.tokens)), len(s.tokens) - 1,
                             key="rope_query")
        n = c2.select_slider(s.t("rope.shift_key"), range(len(s.tokens)), 0, key="rope_key")
        o = c3.slider(s.t("rope.shift_offset"), 0, MAX_SHIFT, 100, key="rope_offset",
                      help=s.t("rope.shift_offset_help"))
        offsets = np.arange(MAX_SHIFT + 1)
        rotated = rope.shifted_rope_scores(q, k, m, n, offsets, pairing=pairing)
        added = rope.shifted_added_scores(x, layer.wq, layer.wk, m, n, offsets)
        for col, key, scores in zip(d.columns(2), ("metric_rope", "metric_added"),
                                    (rotated, added), strict=True):
            before, after = scores[0], scores[o]
            change = (s.t("rope.unchanged", diff=f"{abs(after - before):.0e}")
                      if rope.same_up_to_rounding(before, after) else
                      s.t("rope.changed", diff=f"{after - before:+.3g}"))
            col.metric(s.t(f"rope.{key}", o=o), f"{after:.4g}", change,
                       help=s.t("rope.metric_help"))
        d.chart(cached.line_chart(
            offsets, {s.t("rope.curve_rope"): rotated, s.t("rope.curve_added"): added},
            title=s.t("rope.shift_title", query=labels[m], key_token=labels[n]),
            x_title=s.t("rope.offset_axis"), y_title=s.t("rope.score"), marked_x=o), "shift")
        d.caption(s.t("rope.shift_caption"))

    if s.position and pairs_of_tokens:
        d.fragment(shift_both)

    d.subheader(s.t("rope.long_head"))
    left, right = d.columns(2)
    dim = left.slider(s.t("rope.dim"), 16, 256, 128, step=16, key="rope_dim",
                      help=s.t("rope.dim_help"))
    base = right.select_slider(s.t("rope.base"), BASES, 10_000, key="rope_base",
                               format_func="{:,}".format, help=s.t("rope.base_help"))
    d.caption(s.t("rope.long_controls"))
    d.formula(rope.DECAY_FORMULA)
    distances = np.arange(MAX_DISTANCE + 1)
    d.chart(cached.line_chart(
        distances, {s.t("rope.decay_name"): rope.decay_bound(distances, dim, base)},
        title=s.t("rope.decay_title", d=dim, base=base), x_title=s.t("rope.distance_axis"),
        y_title=s.t("rope.decay_axis"), height=380), "decay")
    d.caption(s.t("rope.decay_caption"))

    d.subheader(s.t("rope.context_head"))
    d.markdown(s.prose("rope_context"))
    left, mid, right = d.columns(3)
    scale = left.select_slider(s.t("rope.scale"), [1, 2, 4, 8, 16, 32], 4, key="rope_scale",
                               help=s.t("rope.scale_help"))
    trained = mid.select_slider(s.t("rope.trained"), [2_048, 4_096, 8_192], 4_096,
                                key="rope_trained", format_func="{:,}".format,
                                help=s.t("rope.trained_help"))
    right.metric(s.t("rope.yarn_temperature"), f"{rope.yarn_temperature(scale):.4f}",
                 help=s.t("rope.yarn_temperature_help"))
    d.caption(s.t("rope.context_uses", d=dim, base=base))
    d.formula(rope.CONTEXT_FORMULA)
    d.caption(s.t("rope.context_symbols"))
    curves = {s.t(f"rope.methods.{method}"): rope.wavelengths(rope.context_frequencies(
        method, dim, scale, trained, base, ramp="paper")) for method in rope.METHODS}
    curves[s.t("rope.yarn_code")] = rope.wavelengths(
        rope.context_frequencies("yarn", dim, scale, trained, base, ramp="code"))
    d.chart(cached.line_chart(
        np.arange(dim // 2), curves, title=s.t("rope.context_title", d=dim, base=base, scale=scale),
        x_title=s.t("rope.pair_axis"), y_title=s.t("rope.wavelength_axis"), log_y=True,
        marked_y={s.t("rope.trained_line", n=trained): trained,
                  s.t("rope.target_line", n=scale * trained): scale * trained},
        dashed=(s.t("rope.yarn_code"),)), "context")
    d.caption(s.t("rope.ramp_note"))
    if scale > 1:
        gap_pair, gap = rope.yarn_ramp_gap(dim, scale, trained, base)
        d.caption(s.t("rope.ramp_gap", pair=gap_pair, ratio=gap))


if __name__ == "__main__":
    ui.run("rope", body)
