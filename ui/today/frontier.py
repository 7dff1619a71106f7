"""The Today page's research frontier, on the sentence where it can be: the layers four stacks
leave without a position code and how one layer of each kind reads the sentence against its
reversal, xPos's decay, CoPE's contextual positions, Phi-3's LongRoPE, DroPE
(posviz.frontier)."""

from __future__ import annotations

from posviz import frontier, modern, rope
from posviz.permutation import readable, reads_the_same, reversal
from ui.cached import today as cached
from ui.doc import Doc
from ui.shared import Settings
from ui.summary import number
from ui.today import contents
from ui.today.tables import back_table, sources

MODELS = (("smollm3_3b", "SmolLM3 3B"), ("kimi_linear_48b_a3b", "Kimi Linear 48B-A3B"),
          ("phi3_mini_128k", "Phi-3 mini 128K"))
"""The models the frontier quotes besides those of the page's table, sourced in its expander."""
STACK_KEYS = ("scout", "smol", "qwen", "kimi")  # cached.STACKS' names in the stacks' text


def stacks(d: Doc, s: Settings) -> None:
    counts = {key: frontier.layer_counts(model)
              for key, (model, _) in zip(STACK_KEYS, cached.STACKS, strict=True)}
    d.markdown(s.t("today.stacks_body",
                   conv=modern.value("qwen3_next_80b_a3b", "linear_conv_kernel_dim"),
                   **{f"{key}_{kind}": n for key, layers in counts.items()
                      for kind, n in layers.items()}))
    d.chart(cached.stacks_figure(s.lang), "today_stacks")
    if reads_the_same(s.tokens, reversal(len(s.tokens))):
        d.caption(s.t("today.stacks_same"))
        return
    gaps = cached.reversal_gaps(tuple(s.tokens))
    d.markdown(s.t("today.stacks_sentence"))
    d.text_table({s.t("today.stacks_col.layer"): [s.t(f"today.layer.{k}") for k in gaps],
                  s.t("today.stacks_col.order"): [s.t(f"today.order.{k}") for k in gaps],
                  s.t("today.stacks_col.gap"): list(gaps.values())})
    d.caption(s.t("today.stacks_caption", nope=readable(gaps["nope"]),
                  linear=readable(gaps["linear"]), unmasked=readable(gaps["unmasked"])))


def xpos(d: Doc, s: Settings) -> None:
    d.markdown(s.t("today.xpos_body", gamma=frontier.XPOS_GAMMA, base=frontier.XPOS_SCALE_BASE))
    tokens = tuple(s.tokens)
    d.chart(cached.xpos_figure(tokens, s.lang), "today_xpos")
    read = cached.xpos_reading(tokens)
    said = [s.t("today.xpos_caption", far=number(cached.FAR), fast=readable(float(read.kept[0])),
                slow=readable(float(read.kept[-1])), last=read.slowest_pair,
                half=number(read.far_from), rope_far=readable(read.rope_far),
                xpos_far=readable(read.xpos_far))]
    if read.negative_above is not None:  # where RoPE's score is negative, pulled up toward 0
        said.append(s.t("today.xpos_above", above=f"{read.above:.0%}",
                        negative=f"{read.negative_above:.0%}"))
    if read.sentence_offset:
        said.append(s.t("today.xpos_own", n=read.sentence_offset, own=readable(read.own)))
    d.caption(("" if s.lang == "zh" else " ").join(said))


def cope(d: Doc, s: Settings) -> None:
    d.markdown(s.t("today.cope_body", marks=" ".join(frontier.CLAUSE_MARKS)))
    back_table(d, s, {s.t("today.cope_col.cope"): [
        f"{p:.2f}" for p in frontier.clause_positions(s.tokens)]})
    marks = frontier.clause_marks(s.tokens)
    d.caption(s.t("today.cope_caption", n=marks) if marks else
              s.t("today.cope_one" if len(s.tokens) == 1 else "today.cope_none"))


def longrope(d: Doc, s: Settings) -> None:
    m = "phi3_mini_128k"
    dim, base, long = (modern.value(m, key) for key in ("head_dim_computed", "rope_theta",
                                                        "long_factor"))
    stretched = modern.stretch(m)
    factor, original = stretched.factor, stretched.original
    low, high = frontier.factor_range(modern.value(m, "short_factor"))
    d.markdown(s.t("today.longrope_body", pairs=len(long), original=number(original),
                   context=number(stretched.context), factor=number(factor),
                   fast=f"{long[0]:.2f}", slow=f"{long[-1]:.2f}", short_low=f"{low:.2f}",
                   short_high=f"{high:.2f}",
                   attention=f"{frontier.longrope_attention_factor(factor, original):.3f}"))
    d.chart(cached.longrope_figure(s.lang), "today_longrope")
    pair, ratio = rope.yarn_ramp_gap(dim, factor, original, base)
    d.caption(s.t("today.yarn_ramps", pair=pair, ratio=f"{ratio:.2f}"))
    scores = cached.longrope_scores(tuple(s.tokens))
    d.markdown(s.t("today.longrope_sentence", dim=dim, original=number(original)))
    back_table(d, s, {s.t("today.xpos_rope"): scores.rope.tolist(),
                      s.t("today.longrope_short"): scores.short.tolist(),
                      s.t("today.longrope_long"): scores.long.tolist()})
    d.caption(s.t("today.longrope_sentence_slight" if scores.slight else
                  "today.longrope_sentence_caption", scale=f"{scores.gain:.3f}",
                  moved=readable(scores.moved), largest=readable(scores.largest)))


def section(d: Doc, s: Settings) -> None:
    """Schemes from the research frontier, on the sentence where they can be."""
    contents.heading(d, s, "today.frontier_head")
    d.markdown(s.t("today.frontier_intro"))
    stacks(d, s)
    xpos(d, s)
    cope(d, s)
    longrope(d, s)
    d.markdown(s.t("today.drope_body"))
    sources(d, s, "today.frontier_sources", MODELS)
