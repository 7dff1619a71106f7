"""DeepSeek-V4's RoPE per layer (posviz/layered.py) against Hugging Face's DeepseekV4 (its
config's layer types, its rotary buffers, its apply_rotary_pos_emb) and the published values
of DeepSeek-V4-Flash (assets/models/schemes.toml)."""

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from transformers import DeepseekV4Config
from transformers.models.deepseek_v4.modeling_deepseek_v4 import (
    DeepseekV4Attention,
    DeepseekV4RotaryEmbedding,
)
from transformers.models.deepseek_v4.modeling_deepseek_v4 import (
    apply_rotary_pos_emb as v4_rotate,
)

from posviz import layered
from posviz.modern import value

RNG = np.random.default_rng(5)
M = "deepseek_v4_flash"
TYPES = {"sliding": "sliding_attention", "csa": "compressed_sparse_attention",
         "hca": "heavily_compressed_attention"}


def published() -> dict:
    return {k: value(M, k) for k in (
        "num_hidden_layers", "head_dim", "qk_rope_head_dim", "rope_theta", "compress_rope_theta",
        "rope_scaling_factor", "rope_scaling_original_max_position_embeddings",
        "compress_ratios", "sliding_window")}


def v4_config(layers: int | None = None) -> DeepseekV4Config:
    """Hugging Face's configuration with DeepSeek-V4-Flash's published RoPE numbers (and, for a
    layer to be built, small widths elsewhere)."""
    c = published()
    ratios = c["compress_ratios"] + [0]  # the config's 44th entry: the MTP layer
    return DeepseekV4Config(
        num_hidden_layers=layers or c["num_hidden_layers"], compress_ratios=ratios,
        head_dim=c["head_dim"], qk_rope_head_dim=c["qk_rope_head_dim"],
        rope_theta=c["rope_theta"], compress_rope_theta=c["compress_rope_theta"],
        sliding_window=c["sliding_window"], hidden_size=64, num_attention_heads=2,
        q_lora_rank=16, o_lora_rank=16, o_groups=2, index_n_heads=2, index_head_dim=16,
        n_routed_experts=4, num_experts_per_tok=2, moe_intermediate_size=16, vocab_size=64,
        rope_parameters={"rope_type": "yarn", "factor": c["rope_scaling_factor"],
                         "original_max_position_embeddings":
                         c["rope_scaling_original_max_position_embeddings"]})


def test_the_published_layers_are_two_sliding_21_compressed_sparse_and_20_heavily_compressed():
    c = published()
    kinds = layered.layer_kinds(c["compress_ratios"], c["num_hidden_layers"])
    assert (kinds.count("sliding"), kinds.count("csa"), kinds.count("hca")) == (2, 21, 20)
    assert kinds[:4] == ["sliding", "sliding", "csa", "hca"] and kinds[-1] == "csa"
    assert [TYPES[k] for k in kinds] == v4_config().layer_types


def test_each_kind_of_layer_takes_the_rope_transformers_gives_it():
    config = v4_config(4)
    for n, kind in enumerate(layered.layer_kinds(value(M, "compress_ratios"), 4)):
        assert DeepseekV4Attention(config, n).rope_layer_type == layered.layer_rope(kind)


def test_both_ropes_are_transformers_own_buffers():
    c = published()
    rotary = DeepseekV4RotaryEmbedding(v4_config())
    for rope in layered.ROPES:
        ours = layered.rope_speeds(rope, c["qk_rope_head_dim"], c["rope_theta"],
                                   c["compress_rope_theta"], c["rope_scaling_factor"],
                                   c["rope_scaling_original_max_position_embeddings"])
        theirs = getattr(rotary, f"{rope}_inv_freq").double().numpy()
        np.testing.assert_allclose(ours, theirs, rtol=1e-5)
        assert getattr(rotary, f"{rope}_attention_scaling") == 1.0  # no YaRN mscale on cos


def test_the_tail_rotation_is_transformers_apply_rotary_pos_emb():
    c = published()
    rotary = DeepseekV4RotaryEmbedding(v4_config())
    positions = np.array([0, 1, 7, 127])
    x = RNG.normal(size=(len(positions), c["head_dim"]))
    for rope in layered.ROPES:
        cos, sin = rotary(torch.zeros(1, dtype=torch.float64), torch.tensor(positions)[None],
                          layer_type=rope)
        theirs = v4_rotate(torch.tensor(x)[None, None], cos.double(), sin.double())[0, 0]
        speeds = getattr(rotary, f"{rope}_inv_freq").double().numpy()
        np.testing.assert_allclose(layered.tail_rope(x, positions, speeds), theirs.numpy(),
                                   atol=1e-5)


@given(st.integers(1, 16), st.integers(0, 8), st.integers(0, 10_000))
@settings(max_examples=30, deadline=None)
def test_the_tail_rotation_is_a_slow_loop_over_the_last_lanes(pairs, lead, position):
    speeds = RNG.uniform(0, 1, pairs)
    x = RNG.normal(size=(2, lead + 2 * pairs))
    positions = np.array([position, position + 1])
    out = layered.tail_rope(x, positions, speeds)
    for t, m in enumerate(positions):
        assert np.array_equal(out[t, :lead], x[t, :lead])
        for i, theta in enumerate(speeds):
            a, b = x[t, lead + 2 * i], x[t, lead + 2 * i + 1]
            assert out[t, lead + 2 * i] == pytest.approx(a * np.cos(m * theta)
                                                         - b * np.sin(m * theta), abs=1e-9)
            assert out[t, lead + 2 * i + 1] == pytest.approx(a * np.sin(m * theta)
                                                             + b * np.cos(m * theta), abs=1e-9)


def test_yarn_left_on_in_a_window_only_layer_turns_at_most_2_12_degrees_over_its_window():
    """1Cat-vLLM pull request 251: at most 2.12 degrees across the 128-token window, on pairs
    21 to 31."""
    c = published()
    dim, original = c["qk_rope_head_dim"], c["rope_scaling_original_max_position_embeddings"]
    main = layered.rope_speeds("main", dim, c["rope_theta"], c["compress_rope_theta"],
                               c["rope_scaling_factor"], original)
    port = layered.yarn_speeds(dim, c["rope_theta"], c["rope_scaling_factor"], original)
    gap = layered.angle_gap(main, port, c["sliding_window"])
    assert f"{gap.max():.2f}" == "2.12"
    assert np.nonzero(gap > 1e-9)[0].tolist() == list(range(21, 32))


def test_kind_counts_count_each_kind_of_layer():
    c = published()
    kinds = layered.layer_kinds(c["compress_ratios"], c["num_hidden_layers"])
    assert layered.kind_counts(c["compress_ratios"], c["num_hidden_layers"]) == {
        kind: sum(k == kind for k in kinds) for kind in ("sliding", "csa", "hca")} == {
        "sliding": 2, "csa": 21, "hca": 20}


def test_yarn_drift_is_the_largest_angle_and_the_pairs_a_loop_finds_moved():
    """Pair by pair, window x |theta_main - theta_yarn| in degrees, theta_yarn the reference
    code's YaRN over the layer's base (tests/engine/test_rope.py's slow_yarn_code): 2.12
    degrees, pairs 21 to 31, as 1Cat-vLLM pull request 251 reported; no window, no drift."""
    from tests.engine.test_rope import slow_yarn_code

    c = published()
    dim, base, factor, window = (c[k] for k in ("qk_rope_head_dim", "rope_theta",
                                                "rope_scaling_factor", "sliding_window"))
    original = c["rope_scaling_original_max_position_embeddings"]
    yarn = slow_yarn_code(dim, original, base, factor)
    gaps = [math.degrees(window * abs(base ** (-2 * i / dim) - yarn[i]))
            for i in range(dim // 2)]
    moved = [i for i, g in enumerate(gaps) if g > 1e-9]
    largest, first, last = layered.yarn_drift(dim, base, c["compress_rope_theta"], factor,
                                              original, window)
    assert largest == pytest.approx(max(gaps), rel=1e-9) and (first, last) == (moved[0],
                                                                               moved[-1])
    assert (f"{largest:.2f}", first, last) == ("2.12", 21, 31)
    assert layered.yarn_drift(dim, base, c["compress_rope_theta"], factor, original,
                              0) == (0.0, None, None)


def test_a_ratio_the_model_does_not_have_is_refused():
    with pytest.raises(ValueError, match="compress ratios"):
        layered.layer_kinds([0, 8], 2)
    with pytest.raises(ValueError, match="for 3 layers"):
        layered.layer_kinds([0, 4], 3)
