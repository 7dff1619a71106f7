"""The Today page's first part: RoPE as a complex rotation, partial RoPE, MLA's decoupled key,
iRoPE (and the query scale Mistral Small 4 keeps in every layer), Llama 3.1's frequency
scaling, M-RoPE and Gemma 3's two bases, each computed with the published values of
assets/models/schemes.toml (posviz.modern), which the table sources; and what a decoder
without position still knows."""

from __future__ import annotations

from posviz import frontier, modern, multimodal, rope
from posviz.permutation import readable
from ui.cached import lesson
from ui.cached import today as cached
from ui.doc import Doc
from ui.shared import Settings
from ui.summary import number
from ui.today import contents
from ui.today.tables import sources

CHUNK_DEMO = 2  # the chunk iRoPE's map uses for Llama 4's 8,192 (the lesson's too)
ABSORBED_AT = 5  # the query's position in the MLA check (its keys at 0 .. 5)
MODELS = (
    ("llama3_1_8b", "Llama 3.1 8B", "rope"), ("llama4_scout", "Llama 4 Scout", "irope"),
    ("deepseek_v3", "DeepSeek-V3", "mla"), ("kimi_k2_instruct", "Kimi K2", "mla"),
    ("qwen2_vl_7b", "Qwen2-VL 7B", "mrope"), ("qwen3_8b", "Qwen3 8B", "rope"),
    ("gemma3_27b", "Gemma 3 27B", "local_global"),
    ("mistral_7b_v0_1", "Mistral 7B v0.1", "rope_window"),
    ("qwen3_next_80b_a3b", "Qwen3-Next 80B-A3B", "partial"), ("phi_2", "Phi-2", "partial"),
    ("gpt_neox_20b", "GPT-NeoX 20B", "partial"), ("pythia_6_9b", "Pythia 6.9B", "partial"))
"""The table's rows: a model, its name, and its scheme."""


def complex_form(d: Doc, s: Settings) -> None:
    contents.heading(d, s, "today.complex_head")
    d.markdown(s.t("today.complex_body"))
    d.formula(modern.COMPLEX_FORMULA)
    gaps = cached.pairing_gaps(tuple(s.tokens))
    left, right = d.columns(2)
    left.metric(s.t("today.complex_check"), readable(gaps.forms),
                help=s.t("today.complex_check_help"), border=True)
    right.metric(s.t("today.pairing_check"), readable(gaps.pairings),
                 help=s.t("today.pairing_check_help"), border=True)
    d.caption(s.t("today.pairing_reordered", gap=readable(gaps.reordered)))


def partial(d: Doc, s: Settings) -> None:
    contents.heading(d, s, "today.partial_head")
    m = "qwen3_next_80b_a3b"
    layers = frontier.layer_counts(m)
    d.markdown(s.t("today.partial_body", full=layers["rope"], linear=layers["linear"],
                   conv=modern.value(m, "linear_conv_kernel_dim")))
    d.chart(cached.partial_figure(s.lang), "today_partial")


def mla(d: Doc, s: Settings) -> None:
    contents.heading(d, s, "today.mla_head")
    v3 = {key: modern.value("deepseek_v3", key) for key in (
        "kv_lora_rank", "qk_rope_head_dim", "qk_nope_head_dim", "v_head_dim",
        "num_attention_heads")}
    latent, full = modern.kv_cache("deepseek_v3")
    d.markdown(s.t("today.mla_body", latent=v3["kv_lora_rank"], nope=v3["qk_nope_head_dim"],
                   rope=v3["qk_rope_head_dim"], value=v3["v_head_dim"],
                   heads=v3["num_attention_heads"], mla=latent, mha=number(full)))
    d.chart(cached.mla_figure(s.lang), "today_mla")
    plain, spread = modern.absorption_gaps(ABSORBED_AT)
    d.caption(s.t("today.mla_check", last=ABSORBED_AT, plain=readable(plain),
                  spread=readable(spread)))


def irope(d: Doc, s: Settings) -> None:
    contents.heading(d, s, "today.irope_head")
    c = {key: modern.value("llama4_scout", key) for key in (
        "attention_chunk_size", "num_hidden_layers", "attn_scale", "floor_scale")}
    d.markdown(s.t("today.irope_body", chunk=number(c["attention_chunk_size"]),
                   nope=frontier.layer_counts("llama4_scout")["nope"],
                   layers=c["num_hidden_layers"], scale=c["attn_scale"],
                   floor=number(c["floor_scale"]), demo=CHUNK_DEMO))
    d.chart(lesson.irope_figure(tuple(s.tokens), CHUNK_DEMO, s.lang), "today_irope")
    d.chart(cached.temperature_figure(s.lang), "today_temperature")
    scale(d, s, c["floor_scale"], c["attn_scale"])


def scale(d: Doc, s: Settings, floor: int, attn_scale: float) -> None:
    """Mistral Small 4's query scale in every layer (and Ministral 3's period), read beside
    Llama 4's temperature (its floor_scale and attn_scale) around each step."""
    m = "mistral_small4"
    beta, original, context = (modern.value(m, key) for key in (
        "llama_4_scaling_beta", "rope_scaling_original_max_position_embeddings",
        "max_position_embeddings"))
    positions = modern.scale_positions(original, context)
    llama4 = modern.attention_temperature(positions, floor, attn_scale)
    mistral = modern.query_scale(positions, beta, original)
    before = int(positions[1])  # original - 1: where the two differ
    d.markdown(s.t("today.scale_body", beta=beta, original=number(original),
                   context=number(context), factor=number(modern.value(m, "rope_scaling_factor")),
                   before=number(before), step=f"{llama4[1]:.3f}", last=f"{mistral[-1]:.3f}",
                   mini=number(modern.value(
                       "ministral3_8b", "rope_scaling_original_max_position_embeddings"))))
    d.text_table({s.t("today.scale_col.position"): [number(p) for p in positions],
                  s.t("today.scale_col.llama4", scale=attn_scale, floor=number(floor)):
                      [f"{v:.3f}" for v in llama4],
                  s.t("today.scale_col.mistral", beta=beta, original=number(original)):
                      [f"{v:.3f}" for v in mistral]})
    sources(d, s, "today.scale_sources", (("mistral_small4", "Mistral Small 4 119B"),
                                          ("ministral3_8b", "Ministral 3 8B")))


def llama(d: Doc, s: Settings) -> None:
    contents.heading(d, s, "today.llama_head")
    m = "llama3_1_8b"
    dim, base, low, high = (modern.value(m, key) for key in (
        "head_dim", "rope_theta", "rope_scaling_low_freq_factor",
        "rope_scaling_high_freq_factor"))
    stretched = modern.stretch(m)
    factor, original = stretched.factor, stretched.original
    bands = rope.llama3_bands(dim, base, factor, low, high, original)
    short, _ = rope.llama3_wavelengths(original, low, high)
    d.markdown(s.t("today.llama_body", original=number(original),
                   context=number(stretched.context), ratio=number(stretched.ratio),
                   stretched=number(stretched.covered), over=number(stretched.beyond),
                   factor=number(factor), high=number(high), short=number(short),
                   pairs=bands.pairs, dim=dim, base=number(base), kept=bands.kept,
                   blended=bands.blended, slowed=bands.slowed))
    d.chart(cached.llama_figure(s.lang), "today_llama")
    pair, ratio = rope.yarn_ramp_gap(dim, factor, original, base)
    d.caption(s.t("today.yarn_ramps", pair=pair, ratio=f"{ratio:.2f}"))
    d.markdown(s.t("today.dynamic"))
    d.formula(rope.DYNAMIC_FORMULA)
    d.caption(s.t("today.dynamic_not_ntk", dim=dim, base=number(base), original=number(original),
                  factor=number(factor), full=number(stretched.covered),
                  dynamic=number(rope.dynamic_ntk_base(base, factor, dim, stretched.covered,
                                                       original)),
                  ntk=number(rope.ntk_base(base, factor, dim)),
                  meet=number(rope.dynamic_ntk_meet(factor, original))))


def mrope(d: Doc, s: Settings) -> None:
    contents.heading(d, s, "today.mrope_head")
    sections = modern.value("qwen2_vl_7b", "mrope_section")
    _, rows, cols = cached.GRID
    d.markdown(s.t("today.mrope_body", pairs=multimodal.pair_count(sections),
                   sections=list(sections), t=sections[0], h=sections[1], w=sections[2],
                   rows=rows, cols=cols))
    d.text_table(cached.mrope_table(tuple(s.tokens), s.lang))
    for where, axis, grid in zip(d.columns(2), ("h", "w"), cached.grid_figures(s.lang),
                                 strict=True):
        where.chart(grid, f"today_grid_{axis}")


def gemma(d: Doc, s: Settings) -> None:
    contents.heading(d, s, "today.gemma_head")
    g = {key: modern.value("gemma3_27b", key) for key in (
        "sliding_window", "rope_local_base_freq", "rope_theta_global", "rope_scaling_factor",
        "max_position_embeddings")}
    local, far = modern.local_global("gemma3_27b")
    d.markdown(s.t("today.gemma_body", window=number(g["sliding_window"]),
                   pattern=f"{local}:{far}", local=number(g["rope_local_base_freq"]),
                   far=number(g["rope_theta_global"]), factor=number(g["rope_scaling_factor"]),
                   context=number(g["max_position_embeddings"])))
    d.chart(cached.gemma_figure(s.lang), "today_gemma")


def extension(row: modern.TableRow, s: Settings) -> str:
    """A model's rope_scaling in a few words: its type and factor, or none."""
    if row.extension is None:
        return s.t("today.none")
    if row.extension in modern.NOT_EXTENSIONS:
        return s.t(f"today.not_extension.{row.extension}")
    return str(row.extension) if row.factor is None else f"{row.extension} ×{number(row.factor)}"


def base(row: modern.TableRow) -> str:
    """A model's RoPE base; its local layers' first where they have their own."""
    shown = "" if row.base is None else number(row.base)
    return shown if row.local_base is None else f"{number(row.local_base)} / {shown}"


def table(d: Doc, s: Settings) -> None:
    contents.heading(d, s, "today.table_head")
    rows = [modern.table_row(model) for model, _, _ in MODELS]
    d.table({s.t("today.col.model"): [name for _, name, _ in MODELS],
             s.t("today.col.scheme"): [s.t(f"today.schemes.{scheme}") for _, _, scheme in MODELS],
             s.t("today.col.base"): [base(row) for row in rows],
             s.t("today.col.turned"): [number(row.turned) for row in rows],
             s.t("today.col.context"): [number(row.context) for row in rows],
             s.t("today.col.extension"): [extension(row, s) for row in rows]})
    d.caption(s.t("today.table_caption"))
    sources(d, s, "today.sources_head", tuple((model, name) for model, name, _ in MODELS))


def lineage(d: Doc, s: Settings) -> None:
    """Relative position before RoPE, and Kazemnejad et al.'s construction on the sentence:
    positions read back from one causal layer without position."""
    contents.heading(d, s, "today.lineage_head")
    d.markdown(s.t("today.lineage"))
    d.markdown(s.t("today.count_demo"))
    counted = modern.positions_without_encoding(len(s.tokens))
    d.text_table({s.t("today.count_col.token"): s.tokens,
                  s.t("today.count_col.position"): counted.positions.tolist(),
                  s.t("today.count_col.output"): counted.outputs.tolist(),
                  s.t("today.count_col.read"): counted.read.tolist()})  # as tables round


def section(d: Doc, s: Settings) -> None:
    """The page's first part, from RoPE as a complex rotation to what a decoder without
    position knows."""
    complex_form(d, s)
    partial(d, s)
    mla(d, s)
    irope(d, s)
    llama(d, s)
    mrope(d, s)
    gemma(d, s)
    table(d, s)
    lineage(d, s)
