"""ALiBi: one fixed slope per head, a distance penalty on every attention score."""

import ui
from posviz.alibi import FORMULA, KEY_FORMULA, heads_shown, slope_exponents
from posviz.attention import HEAD_DIM
from posviz.figures.alibi import slope_text
from posviz.relative import FORMULA as T5_FORMULA
from posviz.relative import smallest_max_distance
from ui.cached import alibi as cached


def body(d: ui.Doc, s: ui.Settings) -> None:
    d.markdown(s.prose("alibi"))
    d.formula(FORMULA)
    d.caption(s.t("alibi.formula_note"))
    n_heads = d.slider(s.t("alibi.n_heads"), 1, 64, 8, key="alibi_heads",
                       help=s.t("alibi.n_heads_help"))
    if not s.position:
        d.info(s.t("alibi.position_off"))
    exponents = slope_exponents(n_heads)

    d.subheader(s.t("alibi.slopes_head"))
    d.chart(cached.slopes_figure(n_heads, s.lang), "slopes")
    d.caption(s.t("alibi.slopes_caption"))

    ui.need_tokens(d, s)
    seq = tuple(s.tokens)

    d.subheader(s.t("alibi.grid_head"))
    d.chart(cached.grid_figure(seq, n_heads, s.position, s.lang), "grid")
    d.caption(s.t("alibi.grid_caption"))
    if len(shown := heads_shown(n_heads)) < n_heads:
        d.caption(s.t("alibi.grid_subset", k=len(shown), n=n_heads,
                      heads=", ".join(map(str, shown))))

    def effect() -> None:
        d.subheader(s.t("alibi.effect_head"))
        head = d.number_input(s.t("alibi.head_choice", n=n_heads), 1, n_heads, 1,
                              key="alibi_head")
        left, right = d.columns(2)
        left.chart(cached.weights_figure(seq, n_heads, head, "none",
                                         s.t("alibi.fig_without", h=head), s.lang),
                   "weights_none")
        right.chart(cached.weights_figure(
            seq, n_heads, head, "paper" if s.position else "none",
            s.t("alibi.fig_with" if s.position else "alibi.fig_with_off", h=head,
                m=slope_text(exponents[head - 1])), s.lang), "weights_alibi")
        d.caption(s.t("alibi.effect_caption", d=HEAD_DIM, n=n_heads, width=HEAD_DIM * n_heads))
        d.chart(cached.distance_figure(seq, n_heads, s.position, s.lang), "distance")

        d.subheader(s.t("alibi.forms_head"))
        d.markdown(s.prose("alibi_forms"))
        d.formula(KEY_FORMULA)
        if not s.position:
            d.caption(s.t("alibi.forms_off"))
            return
        left, right = d.columns(2)
        left.chart(cached.form_figure(seq, n_heads, head, "paper", s.lang), "form_paper")
        right.chart(cached.form_figure(seq, n_heads, head, "reference", s.lang),
                    "form_reference")
        raw, gap = cached.form_gap(seq, n_heads)
        left.metric(s.t("alibi.raw_gap"), f"{raw:.3g}")
        right.metric(s.t("alibi.weight_gap"), f"{gap:.1e}")

    def longer() -> None:
        d.subheader(s.t("alibi.extra_head"))
        left, right = d.columns(2)
        trained = left.slider(s.t("alibi.trained_len"), 4, 512, 32, key="alibi_trained")
        test = right.slider(s.t("alibi.test_len"), 8, 1024, 128, key="alibi_test")
        left, right = d.columns(2)
        left.chart(cached.extrapolation_figure(n_heads, trained, test, s.position, s.lang),
                   "extrapolation")
        right.chart(cached.table_figure(trained, test, s.lang), "learned_table")
        d.caption(s.t("alibi.extra_caption"))

    def relatives() -> None:
        d.subheader(s.t("alibi.t5_head"))
        d.markdown(s.prose("alibi_t5"))
        d.formula(T5_FORMULA)
        left, right = d.columns(2)
        n_buckets = left.select_slider(s.t("alibi.num_buckets"), [8, 16, 32, 64, 128], 32,
                                       key="alibi_buckets")
        max_distance = right.select_slider(s.t("alibi.max_distance"), [16, 32, 64, 128, 256],
                                           128, key="alibi_max_distance")
        # the causal staircase needs the larger max distance of the two
        if max_distance < (least := smallest_max_distance(n_buckets, bidirectional=False)):
            d.error(s.t("alibi.t5_too_short", n=n_buckets, least=least))
            return
        left, right = d.columns(2)
        left.chart(cached.buckets_figure(n_buckets, max_distance, s.lang), "buckets")
        right.chart(cached.relative_lines_figure(n_heads, s.position, s.lang), "relative_lines")
        if len(lines := heads_shown(n_heads, cached.LINES)) == n_heads:
            drawn = (s.t("alibi.lines_one") if n_heads == 1
                     else s.t("alibi.lines_all", n=n_heads))
        else:
            drawn = s.t("alibi.lines_some", k=len(lines), n=n_heads,
                        heads=", ".join(map(str, lines)))
        d.caption(s.t("alibi.t5_caption", lines=drawn))

    d.fragment(effect)
    d.fragment(longer)
    d.fragment(relatives)


if __name__ == "__main__":
    ui.run("alibi", body)
