"""Today's models: RoPE as a complex rotation, partial RoPE, MLA's decoupled key, iRoPE, Llama
3.1's frequency scaling, M-RoPE and Gemma 3's two bases, each computed with the published
values of assets/models/schemes.toml (posviz.modern), which the page's last table sources; the
research frontier; and what shipped since 2026 (Gemma 4's proportional RoPE, DeepSeek-V4's RoPE
per layer, Qwen3-VL's interleaved M-RoPE, FoPE and HoPE) with the port-bug clinic."""

import numpy as np

import ui
from posviz import bands, frontier, layered, modern, multimodal, ports, proportional, rope
from posviz.attention import one_head
from posviz.embedding import token_embeddings
from posviz.figures.common import token_heatmap
from posviz.figures.modern import cache_bars, layer_stacks, share_bars
from posviz.figures.rope import line_chart
from posviz.figures.schemes import drift_chart
from posviz.permutation import readable, reads_the_same, reversal
from ui.cached import lesson
from ui.cached import schemes as clinic
from ui.markup import literal

D_MODEL = 64          # the sentence's queries: one head of this size, as on the RoPE page
CHUNK_DEMO = 2        # the chunk iRoPE's map uses for Llama 4's 8,192 (the lesson's too)
GRID = (1, 2, 3)      # the image M-RoPE's table inserts: 1 frame of 2 x 3 patches
FORMULA = (r"z_i' = z_i\, e^{\,\mathrm{i}\, m \theta_i} \qquad "
           r"x' = x \cos(m\theta) + \mathrm{rotate\_half}(x) \sin(m\theta) \qquad "
           r"\mathrm{rotate\_half}(x_1, x_2) = (-x_2,\ x_1)")
DYNAMIC_FORMULA = (r"b' = b \left(\frac{s\, n}{L} - (s - 1)\right)^{d/(d-2)}"
                   r"\qquad (n > L)")
FRONTIER_DIM = 64  # a head's width for the frontier's drawings
FAR = 4_096  # the xPos chart's longest offset
COPE_MARKS = tuple("。！？，、；：.!?,;:")  # what this page's CoPE gates open on: clause ends
STACKS = (("llama4_scout", "Llama 4 Scout"), ("smollm3_3b", "SmolLM3 3B"),
          ("qwen3_next_80b_a3b", "Qwen3-Next 80B-A3B"),
          ("kimi_linear_48b_a3b", "Kimi Linear 48B-A3B"))
FRONTIER_MODELS = (("smollm3_3b", "SmolLM3 3B"), ("kimi_linear_48b_a3b", "Kimi Linear 48B-A3B"),
                   ("phi3_mini_128k", "Phi-3 mini 128K"))  # sourced in the section's expander
SLIGHT = 0.01  # a change of scores under this share of the largest is "next to nothing"
COPE_STEEP = 8.0  # gate logits +-8: sigmoid 0.9997 on a mark, 0.0003 elsewhere
# the table's rows: model, its scheme, and the keys of its published values
MODELS = (
    ("llama3_1_8b", "Llama 3.1 8B", "rope"), ("llama4_scout", "Llama 4 Scout", "irope"),
    ("deepseek_v3", "DeepSeek-V3", "mla"), ("kimi_k2_instruct", "Kimi K2", "mla"),
    ("qwen2_vl_7b", "Qwen2-VL 7B", "mrope"), ("qwen3_8b", "Qwen3 8B", "rope"),
    ("gemma3_27b", "Gemma 3 27B", "local_global"),
    ("mistral_7b_v0_1", "Mistral 7B v0.1", "rope_window"),
    ("qwen3_next_80b_a3b", "Qwen3-Next 80B-A3B", "partial"), ("phi_2", "Phi-2", "partial"),
    ("gpt_neox_20b", "GPT-NeoX 20B", "partial"), ("pythia_6_9b", "Pythia 6.9B", "partial"))


def number(v: object) -> str:
    return f"{v:,}" if isinstance(v, int) else f"{v:,.0f}" if isinstance(v, float) else str(v)


def complex_form(d: ui.Doc, s: ui.Settings) -> None:
    d.subheader(s.t("today.complex_head"))
    d.markdown(s.t("today.complex_body"))
    d.formula(FORMULA)
    q = one_head(s.tokens, D_MODEL)[1]  # (T, D)
    positions = np.arange(len(s.tokens))
    gap = max(np.abs(modern.complex_rope(q, positions) - rope.apply_rope(q, positions)).max(),
              np.abs(modern.rope_by_rotate_half(q, positions)
                     - rope.apply_rope(q, positions, pairing="half")).max())
    order = modern.halves_order(q.shape[-1])
    apart = np.abs(modern.complex_rope(q, positions) - modern.rope_by_rotate_half(q, positions))
    reordered = np.abs(modern.complex_rope(q, positions)[:, order]
                       - modern.rope_by_rotate_half(q[:, order], positions))
    left, right = d.columns(2)
    left.metric(s.t("today.complex_check"), readable(float(gap)),
                help=s.t("today.complex_check_help"), border=True)
    right.metric(s.t("today.pairing_check"), readable(float(apart.max())),
                 help=s.t("today.pairing_check_help"), border=True)
    d.caption(s.t("today.pairing_reordered", gap=readable(float(reordered.max()))))


def partial(d: ui.Doc, s: ui.Settings) -> None:
    d.subheader(s.t("today.partial_head"))
    layers = modern.value("qwen3_next_80b_a3b", "num_hidden_layers")
    full = layers // modern.value("qwen3_next_80b_a3b", "full_attention_interval")
    d.markdown(s.t("today.partial_body", full=full, linear=layers - full,
                   conv=modern.value("qwen3_next_80b_a3b", "linear_conv_kernel_dim")))
    rows = [("gpt_neox_20b", "GPT-NeoX 20B", "rotary_pct", "head_dim_computed"),
            ("pythia_6_9b", "Pythia 6.9B", "rotary_pct", "head_dim_computed"),
            ("phi_2", "Phi-2", "partial_rotary_factor", "head_dim_computed"),
            ("qwen3_next_80b_a3b", "Qwen3-Next", "partial_rotary_factor", "head_dim")]
    dims = [modern.value(model, dim) for model, _, _, dim in rows]
    turned = [modern.rotated_dims(dim, modern.value(model, share))
              for (model, _, share, _), dim in zip(rows, dims, strict=True)]
    full = modern.value("llama3_1_8b", "head_dim")
    d.chart(share_bars([name for _, name, _, _ in rows] + [s.t("today.full_rope")],
                       [*turned, full], [*dims, full], title=s.t("today.partial_fig"),
                       x_title=s.t("today.channels_axis"), turned_name=s.t("today.turned"),
                       kept_name=s.t("today.kept")), "today_partial")


def mla(d: ui.Doc, s: ui.Settings) -> None:
    d.subheader(s.t("today.mla_head"))
    v3 = {key: modern.value("deepseek_v3", key) for key in (
        "kv_lora_rank", "qk_rope_head_dim", "qk_nope_head_dim", "v_head_dim",
        "num_attention_heads")}
    latent, rotated = v3["kv_lora_rank"], v3["qk_rope_head_dim"]
    key_dim = v3["qk_nope_head_dim"] + rotated
    full = modern.mha_cache(v3["num_attention_heads"], key_dim, v3["v_head_dim"])
    d.markdown(s.t("today.mla_body", latent=latent, nope=v3["qk_nope_head_dim"], rope=rotated,
                   value=v3["v_head_dim"], heads=v3["num_attention_heads"],
                   mla=modern.mla_cache(latent, rotated), mha=number(full)))
    k2 = modern.value("kimi_k2_instruct", "num_attention_heads")
    k2_full = modern.mha_cache(k2, key_dim, modern.value("kimi_k2_instruct", "v_head_dim"))
    d.chart(cache_bars(
        [("DeepSeek-V3", s.t("today.mla_full")), ("Kimi K2", s.t("today.mla_full")),
         ("DeepSeek-V3, Kimi K2", s.t("today.mla_latent"))],
        [full, k2_full, modern.mla_cache(latent, rotated)], title=s.t("today.mla_fig"),
        x_title=s.t("today.mla_axis")), "today_mla")
    rng = np.random.default_rng(0)
    q, w_uk, latents = rng.normal(size=16), rng.normal(size=(16, 8)), rng.normal(size=(6, 8))
    absorbed = modern.absorbed_scores(q, w_uk, latents)
    needed = modern.absorbed_queries(q, w_uk, 5, np.arange(6))  # (keys, r): one per key
    d.caption(s.t("today.mla_check", last=5,
                  plain=readable(float(np.abs(absorbed - latents @ w_uk.T @ q).max())),
                  spread=readable(float(np.abs(needed - needed[:, None]).max()))))


def irope(d: ui.Doc, s: ui.Settings) -> None:
    d.subheader(s.t("today.irope_head"))
    layers = modern.irope_layers(modern.value("llama4_scout", "num_hidden_layers"),
                                 modern.value("llama4_scout", "no_rope_layer_interval"))
    floor = modern.value("llama4_scout", "floor_scale")
    scale = modern.value("llama4_scout", "attn_scale")
    chunk = modern.value("llama4_scout", "attention_chunk_size")
    d.markdown(s.t("today.irope_body", chunk=number(chunk), nope=layers.count(False),
                   layers=len(layers), scale=scale, floor=number(floor), demo=CHUNK_DEMO))
    d.chart(lesson.irope_figure(tuple(s.tokens), CHUNK_DEMO, s.lang), "today_irope")
    positions = np.arange(0, 8 * floor * 16 + 1, floor // 8)
    d.chart(line_chart(positions, {s.t("today.temperature_axis"): modern.attention_temperature(
        positions, floor, scale)}, title=s.t("today.temperature_fig"),
        x_title=s.t("today.position_axis"), y_title=s.t("today.temperature_axis")),
        "today_temperature")


def llama(d: ui.Doc, s: ui.Settings) -> None:
    d.subheader(s.t("today.llama_head"))
    c = {key: modern.value("llama3_1_8b", key) for key in (
        "head_dim", "rope_theta", "rope_scaling_factor", "rope_scaling_low_freq_factor",
        "rope_scaling_high_freq_factor", "rope_scaling_original_max_position_embeddings",
        "max_position_embeddings")}
    dim, base, factor = c["head_dim"], c["rope_theta"], c["rope_scaling_factor"]
    original = c["rope_scaling_original_max_position_embeddings"]
    scaled = rope.llama3_frequencies(dim, base, factor, c["rope_scaling_low_freq_factor"],
                                       c["rope_scaling_high_freq_factor"], original)
    theta = rope.rope_frequencies(dim, base)
    kept, slowed = np.isclose(scaled, theta), np.isclose(scaled, theta / factor)
    context = c["max_position_embeddings"]
    d.markdown(s.t("today.llama_body", original=number(original), context=number(context),
                   ratio=f"{context / original:g}", stretched=number(int(factor * original)),
                   over=f"{context / (factor * original):g}", factor=f"{factor:g}",
                   high=f"{c['rope_scaling_high_freq_factor']:g}",
                   short=number(int(original / c["rope_scaling_high_freq_factor"])),
                   pairs=dim // 2, dim=dim, base=number(base), kept=int(kept.sum()),
                   blended=int((~kept & ~slowed).sum()), slowed=int(slowed.sum())))
    curves = {s.t(f"today.method_{m}"): rope.wavelengths(rope.context_frequencies(
        m, dim, factor, original, base)) for m in rope.METHODS}  # llama3: the published run
    curves[s.t("today.method_yarn_paper")] = rope.wavelengths(rope.context_frequencies(
        "yarn", dim, factor, original, base, ramp="paper"))
    d.chart(line_chart(np.arange(dim // 2), curves, title=s.t(
        "today.llama_fig", factor=f"{factor:g}", dim=dim, base=number(base)),
        x_title=s.t("today.pair_axis"), y_title=s.t("today.wavelength_axis"), log_y=True,
        marked_y={s.t("today.trained_mark", n=number(original)): original,
                  s.t("today.target_mark", n=number(c["max_position_embeddings"])):
                  c["max_position_embeddings"]},
        dashed=(s.t("today.method_original"), s.t("today.method_yarn_paper"))),
        "today_llama")
    pair, ratio = rope.yarn_ramp_gap(dim, factor, original, base)
    d.caption(s.t("today.yarn_ramps", pair=pair, ratio=f"{ratio:.2f}"))
    d.markdown(s.t("today.dynamic"))
    d.formula(DYNAMIC_FORMULA)
    meet = (2 - 1 / factor) * original  # where dynamic NTK's bracket reaches s
    d.caption(s.t("today.dynamic_not_ntk", dim=dim, base=number(base), original=number(original),
                  factor=f"{factor:g}", full=number(int(factor * original)),
                  dynamic=number(rope.dynamic_ntk_base(base, factor, dim, int(factor * original),
                                                       original)),
                  ntk=number(rope.ntk_base(base, factor, dim)), meet=number(meet)))


def mrope(d: ui.Doc, s: ui.Settings) -> None:
    d.subheader(s.t("today.mrope_head"))
    sections = tuple(modern.value("qwen2_vl_7b", "mrope_section"))
    _, rows, cols = GRID
    d.markdown(s.t("today.mrope_body", pairs=sum(sections), sections=list(sections),
                   t=sections[0], h=sections[1], w=sections[2], rows=rows, cols=cols))
    ids = modern.mrope_positions(1, GRID, len(s.tokens) - 1)
    what = [s.tokens[0], *(s.t("today.patch", r=r, c=c) for r in range(rows)
                           for c in range(cols)), *s.tokens[1:]]
    d.text_table({s.t("today.mrope_col.what"): what,
                  **{s.t(f"today.mrope_col.{a}"): ids[n].tolist()
                     for n, a in enumerate(modern.AXES)}})
    patches = ids[:, 1:1 + rows * cols]
    for where, (axis, n) in zip(d.columns(2), (("h", 1), ("w", 2)), strict=True):
        grid = patches[n].reshape(rows, cols).astype(float)
        where.chart(token_heatmap(
            grid, [str(r) for r in range(rows)], [str(c) for c in range(cols)],
            title=s.t("today.grid_fig", axis=s.t(f"today.mrope_col.{axis}")),
            x_title=s.t("today.grid_col_axis"), y_title=s.t("today.grid_row_axis"),
            colorscale="Viridis", zmid=None), f"today_grid_{axis}")


def gemma(d: ui.Doc, s: ui.Settings) -> None:
    d.subheader(s.t("today.gemma_head"))
    g = {key: modern.value("gemma3_27b", key) for key in (
        "sliding_window", "sliding_window_pattern", "rope_local_base_freq", "rope_theta_global",
        "rope_scaling_factor", "max_position_embeddings", "head_dim")}
    pattern = g["sliding_window_pattern"]
    d.markdown(s.t("today.gemma_body", window=number(g["sliding_window"]),
                   pattern=f"{pattern - 1}:1", local=number(g["rope_local_base_freq"]),
                   far=number(g["rope_theta_global"]), factor=f"{g['rope_scaling_factor']:g}",
                   context=number(g["max_position_embeddings"])))
    dim = g["head_dim"]
    local = rope.rope_frequencies(dim, g["rope_local_base_freq"])
    globe = rope.rope_frequencies(dim, g["rope_theta_global"]) / g["rope_scaling_factor"]
    d.chart(line_chart(np.arange(dim // 2), {
        s.t("today.gemma_local", base=number(g["rope_local_base_freq"])): rope.wavelengths(local),
        s.t("today.gemma_global", base=number(g["rope_theta_global"]),
            factor=f"{g['rope_scaling_factor']:g}"): rope.wavelengths(globe)},
        title=s.t("today.gemma_fig", dim=dim), x_title=s.t("today.pair_axis"),
        y_title=s.t("today.wavelength_axis"), log_y=True,
        marked_y={s.t("today.window_mark", n=number(g["sliding_window"])): g["sliding_window"],
                  s.t("today.context_mark", n=number(g["max_position_embeddings"])):
                  g["max_position_embeddings"]}), "today_gemma")


NOT_EXTENSIONS = ("mrope",)  # rope_scaling types that name no context extension


def extension(entries: dict, s: ui.Settings) -> str:
    """A model's rope_scaling in a few words: its type and factor, or none."""
    kind = next((entries[k]["value"] for k in ("rope_scaling_rope_type", "rope_scaling_type")
                 if k in entries), None)
    if kind is None:
        return s.t("today.none")
    if kind in NOT_EXTENSIONS:
        return s.t(f"today.not_extension.{kind}")
    factor = entries.get("rope_scaling_factor", {}).get("value")
    return f"{kind} ×{factor:g}" if isinstance(factor, int | float) else str(kind)


def table(d: ui.Doc, s: ui.Settings) -> None:
    d.subheader(s.t("today.table_head"))
    published = modern.schemes()
    rows: dict[str, list[str]] = {s.t(f"today.col.{c}"): [] for c in (
        "model", "scheme", "base", "turned", "context", "extension")}
    for model, name, scheme in MODELS:
        entries = published[model]
        dims = next((entries[k]["value"] for k in ("head_dim", "head_dim_computed")
                     if k in entries), None)
        share = next((entries[k]["value"] for k in ("rotary_pct", "partial_rotary_factor")
                      if k in entries), None)
        turned = (modern.rotated_dims(dims, share) if share else
                  entries["qk_rope_head_dim"]["value"] if "qk_rope_head_dim" in entries
                  else dims)
        base = next((entries[k]["value"] for k in ("rope_theta", "rotary_emb_base",
                                                   "rope_theta_global") if k in entries), "")
        if scheme == "local_global":
            base = f"{number(entries['rope_local_base_freq']['value'])} / {number(base)}"
        for column, cell in zip(rows, (
                name, s.t(f"today.schemes.{scheme}"), number(base), number(turned or ""),
                number(entries["max_position_embeddings"]["value"]),
                extension(entries, s)), strict=True):
            rows[column].append(cell)
    d.table(rows)
    d.caption(s.t("today.table_caption"))
    sources = d.expander(s.t("today.sources_head"))
    for model, name, _ in MODELS:
        sources.markdown(f"**{name}**")
        sources_table(sources, s, published[model])


def sources_table(d: ui.Doc, s: ui.Settings, entries: dict) -> None:
    """A model's published values: each key, its value and where it was read."""
    values = entries.values()
    d.text_table({s.t("today.src.key"): [e["key"] for e in values],
                  s.t("today.src.value"): [str(e["value"]) for e in values],
                  s.t("today.src.source"): [e["source"] for e in values]})


def counted(d: ui.Doc, s: ui.Settings) -> None:
    """Kazemnejad et al.'s construction on the sentence: positions read back from one causal
    layer without position."""
    d.markdown(s.t("today.count_demo"))
    outputs, read = modern.positions_without_encoding(len(s.tokens))
    d.text_table({s.t("today.count_col.token"): s.tokens,
                  s.t("today.count_col.position"): list(range(1, len(s.tokens) + 1)),
                  s.t("today.count_col.output"): [float(o) for o in outputs],
                  s.t("today.count_col.read"): [float(r) for r in read]})  # as tables round


def xpos_part(d: ui.Doc, s: ui.Settings) -> None:
    d.markdown(s.t("today.xpos_body", gamma=frontier.XPOS_GAMMA, base=frontier.XPOS_SCALE_BASE))
    _, q, k, _ = one_head(s.tokens, FRONTIER_DIM)
    offsets = np.arange(0, FAR + 1, 2)
    curves = {s.t(f"today.xpos_{kind}"): frontier.offset_scores(q[-1], k[0], offsets, decay)
              for kind, decay in (("rope", False), ("decayed", True))}
    d.chart(line_chart(offsets, curves, title=s.t(
        "today.xpos_fig", last=s.tokens[-1], first=s.tokens[0], d=FRONTIER_DIM),
        x_title=s.t("today.offset_axis"), y_title=s.t("today.score_axis"),
        marked_y={s.t("today.xpos_zero"): 0.0}), "today_xpos")
    zeta = frontier.xpos_decay(FRONTIER_DIM)
    kept = zeta ** (FAR / frontier.XPOS_SCALE_BASE)
    own = zeta[0] ** ((len(s.tokens) - 1) / frontier.XPOS_SCALE_BASE)  # the sentence's offsets
    rotary, decayed = curves.values()  # RoPE's scores, xPos's
    rope_far, xpos_far = (np.abs(c[offsets >= FAR // 2]).mean() for c in (rotary, decayed))
    said = [s.t("today.xpos_caption", far=number(FAR), fast=readable(float(kept[0])),
                slow=readable(float(kept[-1])), last=len(zeta) - 1, half=number(FAR // 2),
                rope_far=readable(float(rope_far)), xpos_far=readable(float(xpos_far)))]
    if (negative := rotary < 0).any():  # where RoPE's score is negative, pulled up toward 0
        said.append(s.t("today.xpos_above", above=f"{(decayed > rotary).mean():.0%}",
                        negative=f"{(decayed[negative] > rotary[negative]).mean():.0%}"))
    if len(s.tokens) > 1:
        said.append(s.t("today.xpos_own", n=len(s.tokens) - 1, own=readable(float(own))))
    d.caption(("" if s.lang == "zh" else " ").join(said))


def cope_part(d: ui.Doc, s: ui.Settings) -> None:
    d.markdown(s.t("today.cope_body", marks=" ".join(COPE_MARKS)))
    tokens = s.tokens
    marked = np.array([t in COPE_MARKS for t in tokens])
    gates = np.where(marked, COPE_STEEP, -COPE_STEEP)[None, :].repeat(len(tokens), axis=0)
    positions = frontier.cope_positions(gates)[-1]  # the last token's view back
    d.text_table({s.t("today.cope_col.token"): tokens,
                  s.t("today.cope_col.back"): [len(tokens) - 1 - j for j in range(len(tokens))],
                  s.t("today.cope_col.cope"): [f"{p:.2f}" for p in positions]})
    d.caption(s.t("today.cope_caption", n=int(marked.sum())) if marked.any() else
              s.t("today.cope_one" if len(tokens) == 1 else "today.cope_none"))


def stacks_part(d: ui.Doc, s: ui.Settings) -> None:
    kinds = {model: frontier.layer_kinds(model) for model, _ in STACKS}
    d.markdown(s.t("today.stacks_body", conv=modern.value(
        "qwen3_next_80b_a3b", "linear_conv_kernel_dim"), **{
        f"{key}_{kind}": kinds[model].count(kind)
        for (model, _), key in zip(STACKS, ("scout", "smol", "qwen", "kimi"), strict=True)
        for kind in ("rope", "nope", "linear")}))
    d.chart(layer_stacks({name: kinds[model] for model, name in STACKS},
                         {kind: s.t(f"today.kind.{kind}") for kind in ("rope", "nope", "linear")},
                         title=s.t("today.stacks_fig"), x_title=s.t("today.layer_axis")),
            "today_stacks")
    backwards = reversal(len(s.tokens))
    if reads_the_same(s.tokens, backwards):
        d.caption(s.t("today.stacks_same"))
        return
    gaps = frontier.reversal_gaps(token_embeddings(s.tokens, FRONTIER_DIM))
    d.markdown(s.t("today.stacks_sentence"))
    d.text_table({s.t("today.stacks_col.layer"): [s.t(f"today.layer.{k}") for k in gaps],
                  s.t("today.stacks_col.order"): [s.t(f"today.order.{k}") for k in gaps],
                  s.t("today.stacks_col.gap"): list(gaps.values())})
    d.caption(s.t("today.stacks_caption", nope=readable(gaps["nope"]),
                  linear=readable(gaps["linear"]), unmasked=readable(gaps["unmasked"])))


def longrope_part(d: ui.Doc, s: ui.Settings) -> None:
    c = {key: modern.value("phi3_mini_128k", key) for key in (
        "head_dim_computed", "rope_theta", "original_max_position_embeddings",
        "max_position_embeddings", "long_factor", "short_factor")}
    dim, base, original = c["head_dim_computed"], c["rope_theta"], c[
        "original_max_position_embeddings"]
    factor = c["max_position_embeddings"] / original
    d.markdown(s.t("today.longrope_body", pairs=dim // 2, original=number(original),
                   context=number(c["max_position_embeddings"]), factor=f"{factor:g}",
                   fast=f"{c['long_factor'][0]:.2f}", slow=f"{c['long_factor'][-1]:.2f}",
                   short_low=f"{min(c['short_factor']):.2f}",
                   short_high=f"{max(c['short_factor']):.2f}",
                   attention=f"{frontier.longrope_attention_factor(factor, original):.3f}"))
    curves = {s.t(f"today.method_{m}"): rope.wavelengths(rope.context_frequencies(
        m, dim, factor, original, base)) for m in rope.METHODS}
    curves[s.t("today.method_yarn_paper")] = rope.wavelengths(rope.context_frequencies(
        "yarn", dim, factor, original, base, ramp="paper"))
    for kind in ("long", "short"):
        curves[s.t(f"today.longrope_{kind}")] = rope.wavelengths(
            frontier.longrope_frequencies(dim, base, c[f"{kind}_factor"]))
    d.chart(line_chart(np.arange(dim // 2), curves, title=s.t(
        "today.longrope_fig", factor=f"{factor:g}", dim=dim), x_title=s.t("today.pair_axis"),
        y_title=s.t("today.wavelength_axis"), log_y=True,
        marked_y={s.t("today.trained_mark", n=number(original)): original,
                  s.t("today.target_mark", n=number(c["max_position_embeddings"])):
                  c["max_position_embeddings"]},
        dashed=(s.t("today.method_original"), s.t("today.method_yarn_paper"))),
        "today_longrope")
    pair, ratio = rope.yarn_ramp_gap(dim, factor, original, base)
    d.caption(s.t("today.yarn_ramps", pair=pair, ratio=f"{ratio:.2f}"))
    longrope_sentence(d, s, c, factor)


def longrope_sentence(d: ui.Doc, s: ui.Settings, c: dict, factor: float) -> None:
    """The sentence's last query against each key, as RoPE and as Phi-3's LongRoPE turn them."""
    dim, base, original = (c[key] for key in (
        "head_dim_computed", "rope_theta", "original_max_position_embeddings"))
    _, q, k, _ = one_head(s.tokens, dim)
    positions = np.arange(len(s.tokens))
    scale = frontier.longrope_attention_factor(factor, original)
    turns = {"xpos_rope": lambda x: rope.apply_rope(x, positions, base, "half")} | {
        f"longrope_{kind}": lambda x, f=c[f"{kind}_factor"]: frontier.longrope(
            x, positions, base, f, scale) for kind in ("short", "long")}
    scores = {key: turn(q)[-1] @ turn(k).T / np.sqrt(dim) for key, turn in turns.items()}
    d.markdown(s.t("today.longrope_sentence", dim=dim, original=number(original)))
    d.text_table({s.t("today.cope_col.token"): s.tokens,
                  s.t("today.cope_col.back"): [len(s.tokens) - 1 - j for j in positions],
                  **{s.t(f"today.{key}"): [float(v) for v in row] for key, row in scores.items()}})
    moved = np.abs(scores["longrope_short"] - scores["xpos_rope"] * scale ** 2).max()
    largest = np.abs(scores["xpos_rope"]).max()
    slight = moved <= SLIGHT * largest  # one token: no offset to turn; a few: next to nothing
    d.caption(s.t("today.longrope_sentence_slight" if slight else
                  "today.longrope_sentence_caption", scale=f"{scale ** 2:.3f}",
                  moved=readable(float(moved)), largest=readable(float(largest))))


def frontier_section(d: ui.Doc, s: ui.Settings) -> None:
    """Schemes from the research frontier, on the sentence where they can be."""
    d.subheader(s.t("today.frontier_head"))
    d.markdown(s.t("today.frontier_intro"))
    stacks_part(d, s)
    xpos_part(d, s)
    cope_part(d, s)
    longrope_part(d, s)
    d.markdown(s.t("today.drope_body"))
    sources = d.expander(s.t("today.frontier_sources"))
    for model, name in FRONTIER_MODELS:
        sources.markdown(f"**{name}**")
        sources_table(sources, s, modern.schemes()[model])


# ---- since 2026: four schemes, and the bugs their ports shipped ------------------------------

NEWER_MODELS = (("gemma4_31b", "Gemma 4 31B"), ("deepseek_v4_flash", "DeepSeek-V4-Flash"),
                ("qwen3_vl_8b", "Qwen3-VL 8B"), ("qwen3_5_0_8b", "Qwen3.5 0.8B"),
                ("fope_olmo_60m", "FoPE (OLMo 60M)"))  # sourced in the section's expander
VIDEO = (2, 2, 3)  # the video the M-RoPE tables insert after the first token: frames, rows, cols
STAMPS = ("<0.5 seconds>", "<1.5 seconds>")  # its frames' timestamps, one token each here


def last_scores(tokens: list[str], width: int, turns: dict[str, object]) -> dict[str, list]:
    """Each named rotation's scores of the sentence's last query, as a table's columns."""
    return {name: ports.last_scores(tokens, width, turn).tolist() for name, turn in turns.items()}


def back_table(d: ui.Doc, s: ui.Settings, columns: dict[str, list]) -> None:
    """A table of the sentence's tokens, how far back each is from the last, and columns."""
    d.text_table({s.t("today.cope_col.token"): s.tokens,
                  s.t("today.cope_col.back"): [len(s.tokens) - 1 - j
                                               for j in range(len(s.tokens))], **columns})


def gemma4_part(d: ui.Doc, s: ui.Settings) -> None:
    g = {key: modern.value("gemma4_31b", key) for key in (
        "global_head_dim", "head_dim", "full_partial_rotary_factor", "full_rope_theta",
        "sliding_rope_theta", "sliding_window", "num_hidden_layers")}
    n = {key: modern.value("gpt_neox_20b", key) for key in (
        "head_dim_computed", "rotary_pct", "rotary_emb_base")}
    wide, share, base = (g[k] for k in ("global_head_dim", "full_partial_rotary_factor",
                                        "full_rope_theta"))
    pairs = proportional.turned_pairs(wide, share)
    slowest = 2 * np.pi / proportional.proportional_frequencies(wide, share, base)[pairs - 1]
    neox_slowest = 2 * np.pi / proportional.neox_frequencies(wide, share, base)[-1]
    neox_pairs = proportional.turned_pairs(n["head_dim_computed"], n["rotary_pct"])
    d.subheader(s.t("schemes.gemma_head"))
    d.markdown(s.t("schemes.gemma_body", wide=wide, share=f"{share:g}", pairs=pairs,
                   lanes=2 * pairs, half=wide // 2, base=number(base),
                   slowest=number(round(slowest)), neox_slowest=number(round(neox_slowest)),
                   narrow=g["head_dim"], local=number(g["sliding_rope_theta"]),
                   window=number(g["sliding_window"]), layers=g["num_hidden_layers"],
                   neox_dim=n["head_dim_computed"], neox_share=f"{n['rotary_pct']:g}",
                   neox_turned=2 * neox_pairs, neox_half=neox_pairs))
    d.formula(proportional.FORMULA)
    d.chart(clinic.lanes_figure(s.lang), "today_lanes")
    d.caption(s.t("schemes.lanes_caption", last=pairs - 1, half=wide // 2,
                  end=wide // 2 + pairs - 1))
    if len(s.tokens) > 1:
        d.markdown(s.t("schemes.gemma_sentence", wide=wide, lanes=2 * pairs))
        back_table(d, s, last_scores(s.tokens, wide, {
            s.t("schemes.col.proportional"):
            lambda x, p: proportional.proportional_rope(x, p, share, base),
            s.t("schemes.col.neox"): lambda x, p: np.concatenate(
                [rope.apply_rope(x[:, :2 * pairs], p, base, "half"), x[:, 2 * pairs:]],
                axis=1)}))


def deepseek_part(d: ui.Doc, s: ui.Settings) -> None:
    c = {key: modern.value("deepseek_v4_flash", key) for key in (
        "num_hidden_layers", "qk_rope_head_dim", "head_dim", "rope_theta", "compress_rope_theta",
        "rope_scaling_factor", "rope_scaling_original_max_position_embeddings",
        "sliding_window", "compress_ratios")}
    kinds = layered.layer_kinds(c["compress_ratios"], c["num_hidden_layers"])
    dim, original = c["qk_rope_head_dim"], c["rope_scaling_original_max_position_embeddings"]
    gap = layered.angle_gap(layered.rope_speeds("main", dim, c["rope_theta"],
                                                c["compress_rope_theta"],
                                                c["rope_scaling_factor"], original),
                            layered.yarn_speeds(dim, c["rope_theta"], c["rope_scaling_factor"],
                                                original), c["sliding_window"])
    moved = np.nonzero(gap > 1e-9)[0]
    d.subheader(s.t("schemes.v4_head"))
    d.markdown(s.t("schemes.v4_body", layers=len(kinds), sliding=kinds.count("sliding"),
                   csa=kinds.count("csa"), hca=kinds.count("hca"), rope=dim, width=c["head_dim"],
                   main=number(c["rope_theta"]), compress=number(c["compress_rope_theta"]),
                   factor=c["rope_scaling_factor"], original=number(original),
                   window=c["sliding_window"]))
    stack, waves = clinic.v4_figures(s.lang)
    d.chart(stack, "today_v4_stack")
    d.chart(waves, "today_v4_waves")
    d.caption(s.t("schemes.v4_caption", window=c["sliding_window"],
                  degrees=f"{gap.max():.2f}", first=int(moved[0]), last=int(moved[-1])))


def patch_name(s: ui.Settings, n: int, rows: int, cols: int) -> str:
    """Patch n of a video, in reading order, frame by frame: its frame, row and column."""
    frame, at = divmod(n, rows * cols)
    return s.t("schemes.frame_patch", f=frame, r=at // cols, c=at % cols)


def qwen_part(d: ui.Doc, s: ui.Settings) -> None:
    old, new = (tuple(modern.value(m, "mrope_section")) for m in ("qwen2_vl_7b", "qwen3_vl_8b"))
    d.subheader(s.t("schemes.qwen_head"))
    frames, rows, cols = VIDEO
    d.markdown(s.t("schemes.qwen_body", old=list(old), new=list(new), pairs=sum(new),
                   base=number(modern.value("qwen3_vl_8b", "rope_theta")),
                   differ=int((multimodal.axes(new, "interleaved")
                               != multimodal.axes(new, "contiguous")).sum())))
    d.chart(clinic.qwen_axes_figure(s.lang), "today_qwen_axes")
    d.markdown(s.t("schemes.qwen_video", frames=frames, rows=rows, cols=cols,
                   stamps=", ".join(STAMPS)))
    for where, stamped in zip(d.columns(2), (False, True), strict=True):
        ids, kinds = multimodal.video_positions(1, frames, rows, cols, 1, len(s.tokens) - 1,
                                                timestamps=stamped)
        stamps, patches, words = iter(STAMPS), iter(range(frames * rows * cols)), iter(s.tokens)
        what = [next(words) if kind == "text" else next(stamps) if kind == "stamp" else
                patch_name(s, next(patches), rows, cols) for kind in kinds]
        where.caption(s.t("schemes.qwen3_table" if stamped else "schemes.qwen2_table"))
        where.text_table({s.t("today.mrope_col.what"): what,
                          **{s.t(f"today.mrope_col.{a}"): ids[n].tolist()
                             for n, a in enumerate(modern.AXES)}})
    d.markdown(s.t("schemes.qwen_caption",
                  link=report_link(ports.reports("qwen3vl_rope_index")[0]["url"])))


def bands_part(d: ui.Doc, s: ui.Settings) -> None:
    dim, length, base, coefficients = clinic.fope_setting()
    kept, series = bands.fope_sizes(dim, base, length)
    d.subheader(s.t("schemes.bands_head"))
    d.markdown(s.t("schemes.bands_body", dim=dim, pairs=dim // 2, length=length,
                   base=number(base), kept=kept, cut=dim // 2 - kept, series=series,
                   padded=dim // 2 - series,
                   gain=modern.value("fope_olmo_60m", "fourier_init_norm_gain")))
    d.formula(bands.FORMULA)
    waves, basis = clinic.bands_figures(s.lang)
    d.chart(waves, "today_bands")
    d.caption(s.t("schemes.bands_caption", kept=kept, last=kept - 1))
    d.chart(basis, "today_fope_basis")
    if len(s.tokens) > 1:
        d.markdown(s.t("schemes.bands_sentence", dim=dim, length=length))
        back_table(d, s, last_scores(s.tokens, dim, {
            s.t("schemes.band_rope"): lambda x, p: rope.apply_rope(x, p, base, "half"),
            s.t("schemes.band_hope"): lambda x, p: bands.hope(x, p, base, length),
            s.t("schemes.band_fope"): lambda x, p: bands.fope(x, p, base, length,
                                                               coefficients)}))


def report_link(url: str) -> str:
    """A report's link as Markdown, named owner/repo #number."""
    owner, repo, _, number_ = url.removeprefix("https://github.com/").split("/")[:4]
    return f"[{owner}/{repo} #{number_}]({url})"


def bug_numbers(key: str) -> dict[str, object]:
    """The published numbers a bug's description names, from the model's values."""
    b = ports.bug(key)
    if key.startswith("gemma4_"):
        share = modern.value(b.model, "full_partial_rotary_factor")
        lanes = 2 * proportional.turned_pairs(b.width, share)
        return dict(lanes=lanes, inside=lanes // 2, across=b.width // 2, wide=b.width,
                    still=(b.width - lanes) // 2,
                    base=number(modern.value(b.model, "full_rope_theta")))
    if key.startswith("v4_"):
        return dict(main=number(modern.value(b.model, "rope_theta")),
                    compress=number(modern.value(b.model, "compress_rope_theta")),
                    window=modern.value(b.model, "sliding_window"))
    if key == "qwen3vl_contiguous":
        return dict(zip(("rows", "cols"), ports.IMAGE, strict=True))
    return dict(lanes=b.width, base=number(modern.value(b.model, "rope_theta")))


def largest_change(d: ui.Doc, s: ui.Settings, read: ports.Reading) -> None:
    """The cell whose weight the port moved most, and its two weights."""
    i, j = read.largest
    d.metric(s.t("schemes.largest"), readable(read.change), border=True)
    d.caption(s.t("schemes.largest_caption", query=i, cell=j,
                  right=f"{read.weights[0][i, j]:.3f}", wrong=f"{read.weights[1][i, j]:.3f}"))


def clinic_part(d: ui.Doc, s: ui.Settings) -> None:
    d.subheader(s.t("schemes.clinic_head"))
    d.markdown(s.prose("clinic"))
    keys = [b.key for b in ports.bugs()]
    key = d.coded_radio(s.t("schemes.bug_label"), keys, key="bug",
                        format_func=lambda k: s.t(f"schemes.bug.{k}.name"))
    d.markdown(s.t(f"schemes.bug.{key}.what", **bug_numbers(key)))
    tokens = tuple(s.tokens)
    d.chart(clinic.maps_figure(tokens, key, (s.t("schemes.panel_right"),
                                             s.t("schemes.panel_wrong")), False, s.lang),
            "today_clinic_maps")
    largest_change(d, s, clinic.reading(tokens, key))
    deltas, curves, onsets = clinic.drifts()
    window = modern.value("deepseek_v4_flash", "sliding_window")
    d.chart(drift_chart(deltas, {s.t(f"schemes.bug.{k}.short"): curves[k] for k in keys},
                        title=s.t("schemes.drift_fig"), x_title=s.t("today.offset_axis"),
                        y_title=s.t("schemes.drift_axis"), threshold=ports.ONSET,
                        threshold_name=s.t("schemes.onset_mark"),
                        marks={s.t("today.window_mark", n=window): window}),
            "today_clinic_drift")
    said = ("schemes.onset_never" if onsets[key] is None else
            "schemes.onset_at_image" if ports.bug(key).image else "schemes.onset_at")
    d.caption(s.t(said, n=number(onsets[key] or 0), share=f"{ports.ONSET:.0%}"))
    reported = d.container(border=True)
    for report in ports.reports(key):
        reported.markdown(s.t(f"schemes.role.{report['role']}", link=report_link(report["url"]))
                          + (" " + s.t("schemes.figure", figure=report["figure"])
                             if "figure" in report else ""))
        reported.caption(literal(report["quote"]))
    d.markdown(s.t("schemes.clinic_table_head"))
    d.text_table({s.t("schemes.col.bug"): [s.t(f"schemes.bug.{k}.name") for k in keys],
                  s.t("schemes.col.onset"): [s.t("schemes.never") if onsets[k] is None
                                             else number(onsets[k]) for k in keys],
                  s.t("schemes.col.reported"): [
                      s.t(f"schemes.bug.{k}.reported") if any(
                          "figure" in r for r in ports.reports(k)) else s.t("schemes.no_figure")
                      for k in keys]})


def newer_section(d: ui.Doc, s: ui.Settings) -> None:
    """What shipped since 2026, on the sentence where it can be: Gemma 4's proportional RoPE,
    DeepSeek-V4's RoPE per layer, Qwen3-VL's interleaved M-RoPE, FoPE and HoPE, and the bugs
    ports of them shipped."""
    d.header(s.t("schemes.head"))
    d.markdown(s.t("schemes.intro"))
    gemma4_part(d, s)
    deepseek_part(d, s)
    qwen_part(d, s)
    bands_part(d, s)
    clinic_part(d, s)
    sources = d.expander(s.t("schemes.sources_head"))
    for model, name in NEWER_MODELS:
        sources.markdown(f"**{name}**")
        sources_table(sources, s, modern.schemes()[model])


def body(d: ui.Doc, s: ui.Settings) -> None:
    ui.need_tokens(d, s)
    d.markdown(s.t("today.intro"))
    complex_form(d, s)
    partial(d, s)
    mla(d, s)
    irope(d, s)
    llama(d, s)
    mrope(d, s)
    gemma(d, s)
    table(d, s)
    d.subheader(s.t("today.lineage_head"))
    d.markdown(s.t("today.lineage"))
    counted(d, s)
    frontier_section(d, s)
    newer_section(d, s)


if __name__ == "__main__":
    ui.run("today", body)
