"""Today's schemes (posviz/modern.py) against slow references, their properties, and the
published values they are drawn with (assets/models/schemes.toml)."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from posviz import modern, rope
from posviz.embedding import token_embeddings
from posviz.permutation import permutation_check, reversal
from posviz.rope import apply_rope, rope_frequencies

RNG = np.random.default_rng(7)


def test_every_published_value_names_its_key_and_source():
    for model, entries in modern.published().items():
        if model == "bibliography":
            continue
        for name, entry in entries.items():
            assert {"value", "key", "source", "quote"} <= set(entry), (model, name)
            assert entry["source"].strip() and entry["quote"].strip(), (model, name)


@given(st.integers(1, 8), st.integers(0, 5000), st.sampled_from([10_000.0, 500_000.0]))
@settings(max_examples=40, deadline=None)
def test_rope_is_one_complex_multiplication_per_pair(pairs, position, base):
    x = RNG.normal(size=(3, 2 * pairs))
    positions = np.array([0, position, position + 7])
    np.testing.assert_allclose(modern.complex_rope(x, positions, base),
                               apply_rope(x, positions, base, "interleaved"), atol=1e-9)


@given(st.integers(1, 8), st.integers(0, 5000))
@settings(max_examples=40, deadline=None)
def test_rotate_half_is_multiplication_by_i_and_gives_rope_in_halves(pairs, position):
    x = RNG.normal(size=(2, 2 * pairs))
    half = pairs
    as_half = x[:, :half] + 1j * x[:, half:]               # pairs (i, i + d/2) as complex
    turned = modern.rotate_half(x)
    np.testing.assert_allclose(turned[:, :half] + 1j * turned[:, half:], 1j * as_half)
    positions = np.array([position, position + 3])
    np.testing.assert_allclose(modern.rope_by_rotate_half(x, positions),
                               apply_rope(x, positions, pairing="half"), atol=1e-9)


def partial_reference(x, positions, fraction, base=10_000.0):
    """Channel by channel: the first r channels paired (i, i + r/2) and turned, the rest kept."""
    r = int(x.shape[-1] * fraction)
    out = x.copy()
    for t, m in enumerate(positions):
        for i in range(r // 2):
            angle = m * base ** (-2 * i / r)
            a, b = x[t, i], x[t, i + r // 2]
            out[t, i] = a * math.cos(angle) - b * math.sin(angle)
            out[t, i + r // 2] = a * math.sin(angle) + b * math.cos(angle)
    return out


@pytest.mark.parametrize(("model", "key", "head_dim"), [
    ("gpt_neox_20b", "rotary_pct", 96), ("pythia_6_9b", "rotary_pct", 128),
    ("phi_2", "partial_rotary_factor", 80), ("qwen3_next_80b_a3b", "partial_rotary_factor", 256)])
def test_partial_rope_turns_only_its_share_of_channels(model, key, head_dim):
    fraction = modern.value(model, key)
    x, positions = RNG.normal(size=(4, head_dim)), np.array([0, 3, 50, 1000])
    out = modern.partial_rope(x, positions, fraction)
    np.testing.assert_allclose(out, partial_reference(x, positions, fraction), atol=1e-9)
    r = modern.rotated_dims(head_dim, fraction)
    assert r == int(head_dim * fraction)
    np.testing.assert_array_equal(out[:, r:], x[:, r:])  # these channels carry no position
    np.testing.assert_allclose(np.linalg.norm(out, axis=1), np.linalg.norm(x, axis=1))
    # the rotated share's score depends on the offset only
    q, k = RNG.normal(size=head_dim), RNG.normal(size=head_dim)
    scores = [modern.partial_rope(np.stack([q, k]), np.array([m, m + 5]), fraction)
              for m in (0, 40, 900)]
    dots = [s[0] @ s[1] for s in scores]
    np.testing.assert_allclose(dots, dots[0])


def test_the_published_rotated_shares_give_the_published_dims():
    assert modern.rotated_dims(96, modern.value("gpt_neox_20b", "rotary_pct")) == 24
    assert modern.rotated_dims(80, modern.value("phi_2", "partial_rotary_factor")) == 32
    assert modern.rotated_dims(256, modern.value("qwen3_next_80b_a3b",
                                                 "partial_rotary_factor")) == 64


def test_mla_keeps_576_values_per_token_and_layer_against_40960():
    v3 = {key: modern.value("deepseek_v3", key) for key in (
        "kv_lora_rank", "qk_rope_head_dim", "qk_nope_head_dim", "v_head_dim",
        "num_attention_heads")}
    assert modern.mla_cache(v3["kv_lora_rank"], v3["qk_rope_head_dim"]) == 576
    full = modern.mha_cache(v3["num_attention_heads"],
                            v3["qk_nope_head_dim"] + v3["qk_rope_head_dim"], v3["v_head_dim"])
    assert full == 40_960 == modern.value("deepseek_v3", "kv_cache_full_mha_per_token_per_layer")
    assert modern.value("deepseek_v3", "kv_cache_mla_per_token_per_layer") == 576


def test_the_latent_key_can_be_absorbed_into_the_query_but_a_rotated_one_cannot():
    """Without RoPE, q^T (W_UK c) = (W_UK^T q)^T c for every key: one matrix serves all
    positions. With RoPE between them, q^T R_(n-m) W_UK c needs a different matrix for every
    offset, so the rotated part is kept apart (MLA's decoupled key)."""
    d, r, t = 8, 4, 6
    q, w_uk, latents = RNG.normal(size=d), RNG.normal(size=(d, r)), RNG.normal(size=(t, r))
    np.testing.assert_allclose(modern.absorbed_scores(q, w_uk, latents),
                               (latents @ w_uk.T) @ q)
    keys = latents @ w_uk.T                                              # (T, d)
    turned = apply_rope(keys, np.arange(t)) @ apply_rope(q[None], np.array([t - 1]))[0]
    plain = modern.absorbed_scores(q, w_uk, latents)
    assert not np.allclose(turned, plain)  # the position-free absorption is wrong under RoPE


def rotation(offset: float, dim: int, base: float = 10_000.0) -> np.ndarray:
    """R(offset) as a (d, d) matrix, block by block: pair (2i, 2i + 1) turned by offset * theta_i,
    theta_i = base^(-2i/d)."""
    out = np.zeros((dim, dim))
    for i in range(dim // 2):
        angle = offset * base ** (-2 * i / dim)
        c, s = np.cos(angle), np.sin(angle)
        out[2 * i:2 * i + 2, 2 * i:2 * i + 2] = [[c, -s], [s, c]]
    return out


def test_the_query_each_key_would_need_absorbed_is_r_of_the_offset_times_w_uk():
    """(R_m q)^T (R_n W_UK c) = q^T R(n - m) W_UK c: the absorbed query for key n is
    (R(n - m) W_UK)^T q, by matrices built pair by pair; equal for every key only without an
    offset, so under RoPE no single matrix absorbs them."""
    d, r, t, m = 8, 4, 6, 5
    q, w_uk, latents = RNG.normal(size=d), RNG.normal(size=(d, r)), RNG.normal(size=(t, r))
    needed = modern.absorbed_queries(q, w_uk, m, np.arange(t))
    for n in range(t):
        np.testing.assert_allclose(needed[n], (rotation(n - m, d) @ w_uk).T @ q, atol=1e-12)
        score = (rotation(m, d) @ q) @ (rotation(n, d) @ w_uk @ latents[n])  # RoPE's own score
        assert np.isclose(needed[n] @ latents[n], score)
    np.testing.assert_allclose(needed[m], w_uk.T @ q)  # offset 0: the plain absorbed query
    assert np.abs(needed - needed[m]).max() > 0.1


def test_the_pairings_agree_once_the_channels_are_reordered():
    x, positions = RNG.normal(size=(5, 16)), np.arange(5)
    order = modern.halves_order(16)
    assert sorted(order) == list(range(16)) and order[:3].tolist() == [0, 2, 4]
    np.testing.assert_allclose(modern.rope_by_rotate_half(x[:, order], positions),
                               modern.complex_rope(x, positions)[:, order], atol=1e-12)
    assert not np.allclose(modern.rope_by_rotate_half(x, positions),
                           modern.complex_rope(x, positions))


def test_irope_layers_every_fourth_without_position():
    layers = modern.irope_layers(modern.value("llama4_scout", "num_hidden_layers"),
                                 modern.value("llama4_scout", "no_rope_layer_interval"))
    assert len(layers) == 48 and layers.count(False) == 12
    assert [n + 1 for n, rope in enumerate(layers) if not rope][:3] == [4, 8, 12]


@pytest.mark.parametrize(("seq_len", "chunk"), [(10, 4), (8, 8), (5, 1), (7, 3)])
def test_chunked_mask_sees_the_past_of_its_own_chunk_only(seq_len, chunk):
    mask = modern.chunked_mask(seq_len, chunk)
    for i in range(seq_len):
        for j in range(seq_len):
            assert mask[i, j] == (j <= i and i // chunk == j // chunk)
    assert mask.sum(axis=1).max() <= chunk


def test_attention_temperature_grows_past_each_floor_scale():
    p = np.array([0, 8190, 8191, 16383, 10**6])
    got = modern.attention_temperature(p)
    expected = [1 + 0.1 * math.log(math.floor((x + 1) / 8192) + 1) for x in p]
    np.testing.assert_allclose(got, expected)
    assert got[0] == got[1] == 1 and got[2] == pytest.approx(1 + 0.1 * math.log(2))


def test_query_scale_is_transformers_get_llama_4_attn_scale_one_position_later():
    """Mistral Small 4's and Ministral 3's query scale against their modeling code and a slow
    loop, at the published values: 1 before position original, 1 + beta ln 2 from it on; Llama
    4's temperature with the same numbers steps one position earlier (it reads p + 1)."""
    torch = pytest.importorskip("torch")
    from transformers.models.ministral3.modeling_ministral3 import get_llama_4_attn_scale as m3
    from transformers.models.mistral4.modeling_mistral4 import get_llama_4_attn_scale as m4

    for model, code in (("mistral_small4", m4), ("ministral3_8b", m3)):
        beta = modern.value(model, "llama_4_scaling_beta")
        original = modern.value(model, "rope_scaling_original_max_position_embeddings")
        context = modern.value(model, "max_position_embeddings")
        p = np.unique(np.concatenate([modern.scale_positions(original, context),
                                      RNG.integers(0, context, 50)]))
        got = modern.query_scale(p, beta, original)
        loop = [1 + beta * math.log(1 + x // original) for x in p.tolist()]
        np.testing.assert_allclose(got, loop, rtol=1e-15)
        theirs = code(torch.tensor([p.tolist()]), beta, original)[0, 0, :, 0]
        np.testing.assert_allclose(got, theirs.double().numpy(), rtol=1e-6)
        step = modern.query_scale(np.array([original - 1, original]), beta, original)
        assert step[0] == 1 and step[1] == pytest.approx(1 + beta * math.log(2))
        llama4 = modern.attention_temperature(np.array([original - 1]), original, beta)
        assert llama4[0] == pytest.approx(1 + beta * math.log(2))


def test_scale_positions_frame_each_step_up_to_the_context():
    assert modern.scale_positions(8192, 1_048_576).tolist() == [
        0, 8191, 8192, 32768, 131072, 524288, 1_048_575]
    assert modern.scale_positions(3, 4).tolist() == [0, 2, 3]
    with pytest.raises(ValueError, match="original"):
        modern.scale_positions(8, 8)


def llama3_reference(dim, base, factor, low, high, original):
    """Hugging Face's loop, pair by pair."""
    out = []
    for i in range(dim // 2):
        theta = base ** (-2 * i / dim)
        wavelength = 2 * math.pi / theta
        if wavelength < original / high:
            out.append(theta)
        elif wavelength > original / low:
            out.append(theta / factor)
        else:
            smooth = (original / wavelength - low) / (high - low)
            out.append((1 - smooth) * theta / factor + smooth * theta)
    return np.array(out)


def llama31() -> dict:
    return dict(dim=modern.value("llama3_1_8b", "head_dim"),
                base=modern.value("llama3_1_8b", "rope_theta"),
                factor=modern.value("llama3_1_8b", "rope_scaling_factor"),
                low_freq_factor=modern.value("llama3_1_8b", "rope_scaling_low_freq_factor"),
                high_freq_factor=modern.value("llama3_1_8b", "rope_scaling_high_freq_factor"),
                original=modern.value("llama3_1_8b",
                                      "rope_scaling_original_max_position_embeddings"))


def test_llama3_scaling_keeps_fast_pairs_slows_slow_ones_and_blends_between():
    c = llama31()
    got = rope.llama3_frequencies(**c)
    np.testing.assert_allclose(got, llama3_reference(c["dim"], c["base"], c["factor"],
                                                     c["low_freq_factor"],
                                                     c["high_freq_factor"], c["original"]))
    theta = rope_frequencies(c["dim"], c["base"])
    kept, slowed = np.isclose(got, theta), np.isclose(got, theta / c["factor"])
    assert (kept.sum(), (~kept & ~slowed).sum(), slowed.sum()) == (29, 6, 29)
    assert np.all(got <= theta) and np.all(got >= theta / c["factor"])
    assert np.all(np.diff(got) < 0)  # still slower pair by pair
    np.testing.assert_allclose(rope.llama3_frequencies(**(c | {"factor": 1.0})), theta)


def mrope_reference(text_before, grid, text_after):
    ids, position = [], 0
    for _ in range(text_before):
        ids.append((position,) * 3)
        position += 1
    for t in range(grid[0]):
        for h in range(grid[1]):
            for w in range(grid[2]):
                ids.append((position + t, position + h, position + w))
    position = max(max(i) for i in ids) + 1 if ids else 0
    for _ in range(text_after):
        ids.append((position,) * 3)
        position += 1
    return np.array(ids).T


@pytest.mark.parametrize(("before", "grid", "after"), [(2, (1, 3, 4), 2), (0, (2, 2, 2), 1),
                                                       (3, (1, 1, 1), 0), (1, (1, 4, 2), 3)])
def test_mrope_positions_follow_get_rope_index(before, grid, after):
    np.testing.assert_array_equal(modern.mrope_positions(before, grid, after),
                                  mrope_reference(before, grid, after))


def test_mrope_turns_text_exactly_as_rope_does():
    sections = tuple(modern.value("qwen2_vl_7b", "mrope_section"))
    assert sum(sections) == 64 and list(np.bincount(modern.mrope_axes(sections))) == [16, 24, 24]
    ids = modern.mrope_positions(5, (1, 2, 3), 4)
    angles = modern.mrope_angles(ids, sections)
    text = np.r_[0:5, 11:15]
    theta = rope_frequencies(128)
    np.testing.assert_allclose(angles[text], ids[0, text][:, None] * theta)
    patch = 5 + 1 * 3 + 2  # the patch at height 1, width 2
    assert angles[patch, 20] == pytest.approx(ids[1, patch] * theta[20])   # a height pair
    assert angles[patch, 50] == pytest.approx(ids[2, patch] * theta[50])   # a width pair


def test_a_layer_without_position_sees_order_through_the_rope_layer_below_it():
    x = token_embeddings(list("刚想到了"), 64)
    order = reversal(4)
    assert modern.layered_gap(x, order, ("none", "none"), 4) < 1e-12
    assert modern.layered_gap(x, order, ("rope", "none"), 4) > 0.1
    for scheme in ("none", "rope"):  # the same layers as the attention stack's
        check = permutation_check(x, order, 2, 4, scheme, causal=False)
        assert modern.layered_gap(x, order, (scheme, scheme), 4) == pytest.approx(
            check.layer_gaps[-1], abs=1e-12)


@pytest.mark.parametrize("n_tokens", [1, 4, 64, 1000])
def test_a_causal_layer_without_position_reads_every_position_back(n_tokens):
    positions, outputs, read = modern.positions_without_encoding(n_tokens)
    t = np.arange(1, n_tokens + 1)  # positions after the start token at 0
    np.testing.assert_array_equal(positions, t)
    np.testing.assert_allclose(outputs, 1 / (t + 1))
    np.testing.assert_array_equal(np.rint(read), t)


def test_phi3s_longrope_factors_agree_with_what_names_the_model():
    """The factors come from a copy that does not name Phi-3 mini 128K (its config.json is not
    among the stored sources); the values a note quotes from that config.json agree with them,
    and so does the attention factor of the model's GGUF (danbev/learning-ai @ 17eb413)."""
    from posviz.frontier import longrope_attention_factor

    long, short = (modern.value("phi3_mini_128k", k) for k in ("long_factor", "short_factor"))
    assert len(long) == len(short) == 48  # one per pair of a 96-wide head
    assert long[:16] == [1.0700000524520874, 1.1200000047683716, 1.149999976158142,
                         1.4199999570846558, 1.5699999332427979, 1.7999999523162842,
                         2.129999876022339, 2.129999876022339, 3.009999990463257,
                         5.910000324249268, 6.950000286102295, 9.070000648498535,
                         9.930000305175781, 10.710000038146973, 11.130000114440918,
                         14.609999656677246]
    assert long[-7:] == [64.12435150146484, 64.15435028076172, 64.19435119628906,
                         64.24435424804688, 64.57435607910156, 64.69000244140625,
                         64.76000213623047]
    assert short[:5] == [1.1, 1.1, 1.1, 1.3000000000000003, 1.3500000000000003]
    assert short[-3:] == [2.799999999999998, 2.8999999999999977, 3.049999999999997]
    factor = modern.value("phi3_mini_128k", "max_position_embeddings") / modern.value(
        "phi3_mini_128k", "original_max_position_embeddings")
    assert longrope_attention_factor(factor, 4096) == pytest.approx(1.190238118171692,
                                                                    abs=1e-7)  # GGUF, float32
    for key in ("long_factor", "short_factor"):
        source = modern.published()["phi3_mini_128k"][key]["source"]
        assert "does not name the model" in source and "not among the stored sources" in source


def turned_by_loop(x: np.ndarray, pairs: list[tuple[int, int]], base: float = 10_000.0):
    """x (T, d) with pair number i of pairs turned by t * base^(-2i/d) at row t, channel by
    channel."""
    out = x.copy()
    for t in range(len(x)):
        for i, (a, b) in enumerate(pairs):
            angle = t * base ** (-2 * i / x.shape[1])
            out[t, a] = x[t, a] * math.cos(angle) - x[t, b] * math.sin(angle)
            out[t, b] = x[t, a] * math.sin(angle) + x[t, b] * math.cos(angle)
    return out


@given(st.integers(1, 6), st.integers(1, 8))
@settings(max_examples=25, deadline=None)
def test_pairing_gaps_compare_ropes_two_pairings_as_loops_do(pairs, n_tokens):
    """The complex form and rotate_half's are RoPE in its two pairings (0 up to rounding); the
    pairings differ by what loops over (2i, 2i + 1) and over (i, i + d/2) give, and agree
    once the channels are put evens first."""
    d = 2 * pairs
    x = RNG.normal(size=(n_tokens, d))
    interleaved = turned_by_loop(x, [(2 * i, 2 * i + 1) for i in range(pairs)])
    halves = turned_by_loop(x, [(i, i + pairs) for i in range(pairs)])
    gaps = modern.pairing_gaps(x)
    assert gaps.forms < 1e-12 and gaps.reordered < 1e-12
    assert gaps.pairings == pytest.approx(np.abs(interleaved - halves).max(), abs=1e-12)
    if n_tokens > 1 and pairs > 1:
        assert gaps.pairings > 1e-6  # the second token turns other channels together


def test_kv_cache_gives_the_cache_sizes_computed_from_the_papers_values():
    """DeepSeek-V3 and Kimi K2 keep 512 + 64 = 576 values per token and layer; full attention
    would keep heads x (128 + 64 + 128): 40,960 for V3's 128 heads, 20,480 for K2's 64."""
    for model, full in (("deepseek_v3", 40_960), ("kimi_k2_instruct", 20_480)):
        assert modern.kv_cache(model) == (576, full) == (
            modern.value(model, "kv_cache_mla_per_token_per_layer"),
            modern.value(model, "kv_cache_full_mha_per_token_per_layer"))


def test_absorption_gaps_are_the_rotation_matrices_spread():
    """On the seeded vectors, the absorbed scores are the plain ones; the query each key
    needs, (R(n - m) W_UK)^T q built pair by pair, differs from key to key by the spread."""
    plain, spread = modern.absorption_gaps(5)
    rng = np.random.default_rng(0)
    q, w_uk, latents = rng.normal(size=16), rng.normal(size=(16, 8)), rng.normal(size=(6, 8))
    needed = [(rotation(n - 5, 16) @ w_uk).T @ q for n in range(6)]
    assert plain < 1e-12 and np.abs(latents @ (w_uk.T @ q) - latents @ w_uk.T @ q).max() < 1e-12
    assert spread == pytest.approx(max(np.abs(a - b).max() for a in needed for b in needed),
                                   abs=1e-12)
    assert spread > 0.1


def test_stretch_reads_each_models_context_extension():
    """Llama 3.1 8B: 8,192 to 131,072 (16 times) by factor 8, its slowest pairs covering
    65,536 positions, half the context; Phi-3 mini 128K publishes no factor: 131,072 / 4,096."""
    llama = modern.stretch("llama3_1_8b")
    assert llama == (8_192, 131_072, 8.0)
    assert (llama.ratio, llama.covered, llama.beyond) == (16, 65_536, 2)
    assert modern.stretch("phi3_mini_128k") == (4_096, 131_072, 32.0)


@pytest.mark.parametrize(("model", "row"), [
    ("llama3_1_8b", (500_000, None, 128, 131_072, "llama3", 8)),
    ("deepseek_v3", (10_000, None, 64, 163_840, "yarn", 40)),
    ("qwen2_vl_7b", (1_000_000, None, 128, 32_768, "mrope", None)),
    ("gemma3_27b", (1_000_000, 10_000, 128, 131_072, "linear", 8)),
    ("mistral_7b_v0_1", (10_000, None, 128, 32_768, None, None)),
    ("phi_2", (10_000, None, 32, 2_048, None, None)),
    ("gpt_neox_20b", (10_000, None, 24, 2_048, None, None))])
def test_table_row_reads_each_models_published_position_code(model, row):
    assert modern.table_row(model) == row
    assert (modern.table_row(model).extension in modern.NOT_EXTENSIONS) == (model == "qwen2_vl_7b")


@pytest.mark.parametrize(("model", "turned", "width"), [
    ("gpt_neox_20b", 24, 96), ("pythia_6_9b", 32, 128), ("phi_2", 32, 80),
    ("qwen3_next_80b_a3b", 64, 256)])
def test_turned_share_is_the_published_share_of_the_head(model, turned, width):
    assert modern.turned_share(model) == (turned, width)
    assert turned == modern.value(model, "rotated_dims_computed")


def test_gemma_3_has_five_local_layers_to_each_global_one():
    """sliding_window_pattern 6: a layer is global when its number (from 1) is a multiple of 6
    (Hugging Face's Gemma 3), local otherwise."""
    pattern = modern.value("gemma3_27b", "sliding_window_pattern")
    block = ["global" if (i + 1) % pattern == 0 else "local" for i in range(pattern)]
    assert modern.local_global("gemma3_27b") == (block.count("local"),
                                                 block.count("global")) == (5, 1)
