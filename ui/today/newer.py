"""The Today page's part on what shipped since 2026, on the sentence where it can be: Gemma 4's
proportional RoPE (posviz.proportional), DeepSeek-V4's RoPE per layer (posviz.layered),
Qwen3-VL's interleaved M-RoPE (posviz.multimodal), FoPE and HoPE (posviz.bands), then the
port-bug clinic (ui.today.clinic)."""

from __future__ import annotations

from posviz import bands, layered, modern, multimodal, ports, proportional
from ui.cached import schemes as cached
from ui.doc import Doc
from ui.shared import Settings
from ui.summary import number
from ui.today import clinic, contents
from ui.today.tables import back_table, report_link, sources

MODELS = (("gemma4_31b", "Gemma 4 31B"), ("deepseek_v4_flash", "DeepSeek-V4-Flash"),
          ("qwen3_vl_8b", "Qwen3-VL 8B"), ("qwen3_5_0_8b", "Qwen3.5 0.8B"),
          ("fope_olmo_60m", "FoPE (OLMo 60M)"))
"""The models of this part, sourced in its expander."""


def gemma4(d: Doc, s: Settings) -> None:
    g = {key: modern.value("gemma4_31b", key) for key in (
        "global_head_dim", "head_dim", "full_partial_rotary_factor", "full_rope_theta",
        "sliding_rope_theta", "sliding_window", "num_hidden_layers")}
    n = {key: modern.value("gpt_neox_20b", key) for key in (
        "head_dim_computed", "rotary_pct", "rotary_emb_base")}
    wide, share, base = (g[k] for k in ("global_head_dim", "full_partial_rotary_factor",
                                        "full_rope_theta"))
    lanes = proportional.lane_layout(wide, share)
    neox = proportional.lane_layout(n["head_dim_computed"], n["rotary_pct"], "neox")
    contents.heading(d, s, "schemes.gemma_head")
    d.markdown(s.t("schemes.gemma_body", wide=wide, share=number(share), pairs=lanes.pairs,
                   lanes=lanes.turned, half=lanes.partner, base=number(base),
                   slowest=number(proportional.slowest_wavelength(wide, share, base)),
                   neox_slowest=number(proportional.slowest_wavelength(wide, share, base,
                                                                       "neox")),
                   narrow=g["head_dim"], local=number(g["sliding_rope_theta"]),
                   window=number(g["sliding_window"]), layers=g["num_hidden_layers"],
                   neox_dim=n["head_dim_computed"], neox_share=number(n["rotary_pct"]),
                   neox_turned=neox.turned, neox_half=neox.partner))
    d.formula(proportional.FORMULA)
    d.chart(cached.lanes_figure(s.lang), "today_lanes")
    d.caption(s.t("schemes.lanes_caption", last=lanes.last_pair, half=lanes.partner,
                  end=lanes.last_partner))
    if len(s.tokens) > 1:
        d.markdown(s.t("schemes.gemma_sentence", wide=wide, lanes=lanes.turned))
        turned, neox_turned = cached.gemma4_scores(tuple(s.tokens))
        back_table(d, s, {s.t("schemes.col.proportional"): turned,
                          s.t("schemes.col.neox"): neox_turned})


def deepseek(d: Doc, s: Settings) -> None:
    c = {key: modern.value("deepseek_v4_flash", key) for key in (
        "num_hidden_layers", "qk_rope_head_dim", "head_dim", "rope_theta", "compress_rope_theta",
        "rope_scaling_factor", "rope_scaling_original_max_position_embeddings",
        "sliding_window", "compress_ratios", "mtp_compress_ratio")}
    kinds = layered.kind_counts(c["compress_ratios"], c["num_hidden_layers"])
    listed = c["compress_ratios"] + [c["mtp_compress_ratio"]]  # the MTP layer's entry too
    original = c["rope_scaling_original_max_position_embeddings"]
    degrees, first, last = layered.yarn_drift(c["qk_rope_head_dim"], c["rope_theta"],
                                              c["compress_rope_theta"],
                                              c["rope_scaling_factor"], original,
                                              c["sliding_window"])
    contents.heading(d, s, "schemes.v4_head")
    d.markdown(s.t("schemes.v4_body", layers=c["num_hidden_layers"], sliding=kinds["sliding"],
                   csa=kinds["csa"], hca=kinds["hca"], rope=c["qk_rope_head_dim"],
                   width=c["head_dim"], main=number(c["rope_theta"]),
                   compress=number(c["compress_rope_theta"]), factor=c["rope_scaling_factor"],
                   original=number(original), window=c["sliding_window"]))
    d.markdown(s.t("schemes.v4_checkpoint", layers=c["num_hidden_layers"],
                   sliding=kinds["sliding"], mtp=c["mtp_compress_ratio"],
                   with_mtp=layered.kind_counts(listed, len(listed))["sliding"]))
    stack, waves = cached.v4_figures(s.lang)
    d.chart(stack, "today_v4_stack")
    d.chart(waves, "today_v4_waves")
    d.caption(s.t("schemes.v4_caption", window=c["sliding_window"], degrees=f"{degrees:.2f}",
                  first=first, last=last))


def qwen(d: Doc, s: Settings) -> None:
    old, new = (modern.value(m, "mrope_section") for m in ("qwen2_vl_7b", "qwen3_vl_8b"))
    contents.heading(d, s, "schemes.qwen_head")
    frames, rows, cols = cached.VIDEO
    d.markdown(s.t("schemes.qwen_body", old=list(old), new=list(new),
                   pairs=multimodal.pair_count(new),
                   base=number(modern.value("qwen3_vl_8b", "rope_theta")),
                   differ=multimodal.moved_pairs(new)))
    d.chart(cached.qwen_axes_figure(s.lang), "today_qwen_axes")
    d.markdown(s.t("schemes.qwen_video", frames=frames, rows=rows, cols=cols,
                   stamps=", ".join(cached.STAMPS)))
    for where, stamped in zip(d.columns(2), (False, True), strict=True):
        where.caption(s.t("schemes.qwen3_table" if stamped else "schemes.qwen2_table"))
        where.text_table(cached.video_table(tuple(s.tokens), stamped, s.lang))
    d.markdown(s.t("schemes.qwen_caption",
                   link=report_link(ports.reports("qwen3vl_rope_index")[0]["url"])))


def fope(d: Doc, s: Settings) -> None:
    dim, length, base, _ = cached.fope_setting()
    pairs = bands.fope_pairs(dim, base, length)
    contents.heading(d, s, "schemes.bands_head")
    d.markdown(s.t("schemes.bands_body", dim=dim, pairs=pairs.pairs, length=length,
                   base=number(base), kept=pairs.kept, cut=pairs.cut, series=pairs.series,
                   padded=pairs.padded,
                   gain=modern.value("fope_olmo_60m", "fourier_init_norm_gain")))
    d.formula(bands.FORMULA)
    waves, basis = cached.bands_figures(s.lang)
    d.chart(waves, "today_bands")
    d.caption(s.t("schemes.bands_caption", kept=pairs.kept, last=pairs.last_kept,
                  length=length))
    d.text_table(cached.cut_table(s.lang))
    d.chart(basis, "today_fope_basis")
    if len(s.tokens) > 1:
        d.markdown(s.t("schemes.bands_sentence", dim=dim, length=length))
        turned = cached.band_scores(tuple(s.tokens))
        back_table(d, s, {s.t(f"schemes.band_{name}"): scores
                          for name, scores in zip(("rope", "hope", "fope"), turned, strict=True)})


def section(d: Doc, s: Settings) -> None:
    """What shipped since 2026, on the sentence where it can be: Gemma 4's proportional RoPE,
    DeepSeek-V4's RoPE per layer, Qwen3-VL's interleaved M-RoPE, FoPE and HoPE, and the bugs
    ports of them shipped."""
    contents.heading(d, s, "schemes.head")
    d.markdown(s.t("schemes.intro"))
    gemma4(d, s)
    deepseek(d, s)
    qwen(d, s)
    fope(d, s)
    clinic.section(d, s)
    sources(d, s, "schemes.sources_head", MODELS)
