"""Attention: maps per head and per scheme, the position switch, and the twin-order check."""

import ui
from posviz.attention import ATTENTION_SCHEMES, FORMULA, HEAD_DIM, LAYER_FORMULA
from posviz.permutation import is_reversal, readable, reads_the_same, repeat_gap, reversal
from posviz.schemes import position_scheme
from ui import orders
from ui.cached import attention as cached

HEADS = (1, 2, 4, 8)
BAG_NOISE = 1e-9  # a difference below this is float rounding: nothing moved
PER_ROW = 3  # the schemes' numbers a row holds: each label and chip whole at a desk's width
NONE = next(name for name in ATTENTION_SCHEMES if position_scheme(name).kind == "none")
POSITIONED = [name for name in ATTENTION_SCHEMES if name != NONE]  # the choices, position on


def mask_off(s: ui.Settings, scheme: str, gap: float | None) -> str | None:
    """The line under a causal number: the same comparison with the mask off, where only
    position tells orders apart (ALiBi turns symmetric there, and says so)."""
    if gap is None:
        return None
    return s.t("attention.mask_off_gap_symmetric" if position_scheme(scheme).unmasked
               else "attention.mask_off_gap", gap=readable(gap))


def collapse(d: ui.Doc, s: ui.Settings, n_layers: int, n_heads: int) -> None:
    """With position off, first of all: the sentence read in reverse is the same bag of tokens,
    unmasked (the outputs only reorder: drawn, one map and no difference), and what the causal
    mask still leaks, side by side."""
    tokens = tuple(s.tokens)
    backwards = tuple(reversal(len(tokens)).tolist())
    if reads_the_same(s.tokens, backwards):  # one token, 我我我: the twin view says so
        return
    off, on = (cached.check(tokens, backwards, n_layers, n_heads, NONE, masked).gap
               for masked in (False, True))
    d.success(s.t("attention.collapse", off=readable(off), on=readable(on)))
    d.chart(cached.twin_figure(tokens, backwards, n_layers, n_heads, NONE, False, s.lang,
                               "attention.bag_title"), "bag")
    d.caption(s.t("attention.bag_caption"))


def body(d: ui.Doc, s: ui.Settings) -> None:
    ui.need_tokens(d, s)
    d.markdown(s.prose("attention"))
    d.formula(FORMULA)
    d.formula(LAYER_FORMULA)
    d.caption(s.t("attention.stack_caption"))

    scheme_col, causal_col, heads_col, layers_col = d.columns([3, 2, 2, 2])
    causal = causal_col.toggle(s.t("attention.causal"), True, key="attention_causal",
                               help=s.t("attention.causal_help"))
    picked = scheme_col.coded_radio(
        s.t("attention.scheme"), POSITIONED, key="attention_scheme",
        format_func=lambda name: cached.scheme_name(name, causal, s.lang), horizontal=True,
        disabled=not s.position, help=s.t("attention.scheme_help"))
    n_heads = heads_col.select_slider(s.t("attention.heads"), HEADS, 4, key="attention_heads",
                                      help=s.t("attention.heads_help", d=HEAD_DIM))
    n_layers = layers_col.slider(s.t("attention.layers"), 1, 4, 2, key="attention_layers",
                                 help=s.t("attention.layers_help"))
    scheme = picked if s.position else NONE
    how = position_scheme(scheme)
    if not s.position:
        d.info(s.t("attention.position_off"))
        collapse(d, s, n_layers, n_heads)
    elif how.unmasked and not causal:
        d.caption(s.t("attention.alibi_symmetric_note"))
    if how.formula:
        d.formula(how.formula)
    tokens = tuple(s.tokens)

    d.subheader(s.t("attention.maps_head"))
    d.chart(cached.head_figure(tokens, n_layers, n_heads, scheme, causal, s.lang), "head")
    d.caption(s.t("attention.maps_caption"))

    d.subheader(s.t("attention.twin_head"))
    d.markdown(s.prose("attention_cases"))
    order = orders.picked(d, s, list(tokens), "attention")
    if order is not None:
        with ui.guard(d, s):
            c = cached.check(tokens, order, n_layers, n_heads, scheme, causal)
            gaps = cached.scheme_gaps(tokens, order, n_layers, n_heads, causal)
            # with the mask on, each number beside its mask-off twin: the mask alone tells
            # orders apart, so "no position" is no zero to measure position against
            offs = (cached.scheme_gaps(tokens, order, n_layers, n_heads, False) if causal
                    else [None] * len(ATTENTION_SCHEMES))
            d.metric(s.t("attention.headline_masked" if causal else "attention.headline"),
                     readable(c.gap), mask_off(s, scheme, offs[ATTENTION_SCHEMES.index(scheme)]),
                     help=s.t("attention.headline_help"), border=True)
            if how.unmasked and not causal and is_reversal(order):
                d.info(s.t("attention.case.alibi_symmetric", gap=readable(c.gap)))
            elif how.kind != "none":
                d.info(s.t("attention.case.position", gap=readable(c.gap)))
            elif not causal:
                d.success(s.t("attention.case.bag", gap=readable(c.gap)))
                gap = repeat_gap(s.tokens, c.original.outputs[-1])
                d.success(s.t("attention.case.try_repeats") if gap is None
                          else s.t("attention.case.repeats", gap=readable(gap)))
            elif not c.keeps_last:
                d.warning(s.t("attention.case.causal_moved", gap=readable(c.gap)))
            elif n_layers == 1:
                d.warning(s.t("attention.case.causal_one", last=readable(c.last_gaps[0]),
                              gap=readable(c.gap)))
            else:
                d.warning(s.t("attention.case.causal_many", layers=n_layers,
                              first=readable(c.last_gaps[0]),
                              last=readable(c.last_gaps[-1])))

            each = list(zip(ATTENTION_SCHEMES, gaps, offs, strict=True))
            for start in range(0, len(each), PER_ROW):  # rows of PER_ROW
                for col, (name, gap, gap_off) in zip(d.columns(PER_ROW),
                                                     each[start:start + PER_ROW], strict=False):
                    col.metric(s.t("attention.scheme_gap_masked" if causal
                                   else "attention.scheme_gap",
                                   scheme=cached.scheme_name(name, causal, s.lang)),
                               readable(gap), mask_off(s, name, gap_off))
            d.caption(s.t("attention.scheme_gaps_caption_masked" if causal
                          else "attention.scheme_gaps_caption"))
            at = ATTENTION_SCHEMES.index(NONE)
            if causal and gaps[at] > BAG_NOISE:  # "no position" beside the schemes: the mask
                d.info(s.t("attention.mask_carries_order", none=readable(gaps[at]),
                           off=readable(offs[at])))

            d.chart(cached.twin_figure(tokens, order, n_layers, n_heads, scheme, causal,
                                       s.lang), "twin")
            d.caption(s.t("attention.twin_caption"))
            d.markdown(f"**{s.t('attention.gaps_head')}**")
            d.table({s.t("attention.col.layer"): range(1, n_layers + 1),
                     s.t("attention.col.all"): list(map(readable, c.layer_gaps)),
                     s.t("attention.col.last"): list(map(readable, c.last_gaps))})
            d.caption(s.t("attention.gaps_caption"))

    d.subheader(s.t("attention.grid_head"))
    d.chart(cached.scheme_figure(tokens, n_layers, n_heads, causal, s.lang), "scheme")
    d.caption(s.t("attention.grid_caption"))


if __name__ == "__main__":
    ui.run("attention", body)
