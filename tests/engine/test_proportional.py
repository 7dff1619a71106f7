"""Gemma 4's proportional RoPE and GPT-NeoX's partial RoPE (posviz/proportional.py) against slow
loops, Hugging Face's RoPE init functions and Gemma 4's own rotation, with Gemma 4 31B's
published values (assets/models/schemes.toml)."""

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from transformers import Gemma4TextConfig, GPTNeoXConfig
from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS
from transformers.models.gemma4.modeling_gemma4 import Gemma4TextRotaryEmbedding
from transformers.models.gemma4.modeling_gemma4 import apply_rotary_pos_emb as gemma4_rotate
from transformers.models.gpt_neox.modeling_gpt_neox import GPTNeoXRotaryEmbedding

from posviz import proportional
from posviz.modern import value

RNG = np.random.default_rng(3)
G = "gemma4_31b"


def gemma4(head_dim: int = 256, global_head_dim: int = 512, fraction: float = 0.25,
           base: float = 1e6) -> Gemma4TextConfig:
    """A tiny Gemma 4 text configuration (six layers: five sliding, one global) with these
    RoPE numbers."""
    return Gemma4TextConfig(
        num_hidden_layers=6, hidden_size=64, num_attention_heads=2, num_key_value_heads=1,
        head_dim=head_dim, global_head_dim=global_head_dim, vocab_size=32,
        rope_parameters={
            "sliding_attention": {"rope_type": "default", "rope_theta": 10_000.0},
            "full_attention": {"rope_type": "proportional", "partial_rotary_factor": fraction,
                               "rope_theta": base}})


def slow_proportional(x: np.ndarray, positions: np.ndarray, fraction: float,
                      base: float) -> np.ndarray:
    """Lane by lane: pair i < int(f d // 2) is lanes (i, i + d/2), turned by m base^(-2i/d)."""
    out = np.array(x, dtype=float)
    d = x.shape[-1]
    for t, m in enumerate(positions):
        for i in range(int(fraction * d // 2)):
            angle = m * base ** (-2 * i / d)
            a, b = x[t, i], x[t, i + d // 2]
            out[t, i] = a * np.cos(angle) - b * np.sin(angle)
            out[t, i + d // 2] = a * np.sin(angle) + b * np.cos(angle)
    return out


def test_the_published_global_layer_turns_64_pairs_as_transformers_computes_them():
    wide, share, base = (value(G, k) for k in ("global_head_dim", "full_partial_rotary_factor",
                                               "full_rope_theta"))
    config = gemma4(value(G, "head_dim"), wide, share, base)
    theirs, scale = ROPE_INIT_FUNCTIONS["proportional"](config.per_layer_config[
        "full_attention"], None, layer_type="full_attention")
    ours = proportional.proportional_frequencies(wide, share, base)
    np.testing.assert_allclose(ours, theirs.double().numpy(), rtol=1e-6)
    assert scale == 1.0 and len(ours) == wide // 2 == 256
    assert np.count_nonzero(ours) == proportional.turned_pairs(wide, share) == 64


@given(st.sampled_from([64, 128, 256, 512]), st.sampled_from([0.125, 0.25, 0.5, 1.0]),
       st.sampled_from([1e4, 1e6]))
@settings(max_examples=25, deadline=None)
def test_proportional_frequencies_match_transformers_on_a_grid(wide, share, base):
    config = gemma4(64, wide, share, base)
    theirs, _ = ROPE_INIT_FUNCTIONS["proportional"](config.per_layer_config["full_attention"],
                                                    None, layer_type="full_attention")
    np.testing.assert_allclose(proportional.proportional_frequencies(wide, share, base),
                               theirs.double().numpy(), rtol=1e-6)


@given(st.sampled_from([16, 64, 512]), st.sampled_from([0.25, 0.5, 1.0]),
       st.integers(0, 100_000))
@settings(max_examples=25, deadline=None)
def test_proportional_rope_is_the_slow_lane_by_lane_rotation(wide, share, position):
    x = RNG.normal(size=(3, wide))
    positions = np.array([0, position, position + 3])
    np.testing.assert_allclose(proportional.proportional_rope(x, positions, share, 1e6),
                               slow_proportional(x, positions, share, 1e6), atol=1e-9)


def test_proportional_rope_is_gemma4s_own_global_rotation():
    """Gemma 4's rotary module and apply_rotary_pos_emb, at the published numbers."""
    config = gemma4()
    rotary = Gemma4TextRotaryEmbedding(config)
    positions = np.array([0, 1, 5, 300])
    x = RNG.normal(size=(len(positions), 512))
    ids = torch.tensor(positions)[None]
    cos, sin = rotary(torch.zeros(1, dtype=torch.float64), ids, "full_attention")
    theirs = gemma4_rotate(torch.tensor(x)[None, None], cos.double(), sin.double())[0, 0]
    np.testing.assert_allclose(proportional.proportional_rope(x, positions, 0.25, 1e6),
                               theirs.numpy(), atol=1e-4)  # their angles are float32


def test_gpt_neox_divides_by_the_turned_width_as_transformers_does():
    width, share, base = (value("gpt_neox_20b", k) for k in (
        "head_dim_computed", "rotary_pct", "rotary_emb_base"))
    config = GPTNeoXConfig(hidden_size=value("gpt_neox_20b", "hidden_size"),
                           num_attention_heads=value("gpt_neox_20b", "num_attention_heads"),
                           rotary_pct=share, rotary_emb_base=base)
    theirs, _ = GPTNeoXRotaryEmbedding.compute_default_rope_parameters(config)
    ours = proportional.neox_frequencies(width, share, base)
    np.testing.assert_allclose(ours, theirs.double().numpy(), rtol=1e-6)
    assert len(ours) == 12  # 24 of 96 channels


def test_each_layout_turns_its_own_lanes():
    gemma = proportional.lane_wavelengths(512, 0.25, 1e6)
    turned = np.nonzero(np.isfinite(gemma))[0]
    assert turned.tolist() == [*range(64), *range(256, 320)]
    assert gemma[0] == gemma[256] == pytest.approx(2 * np.pi)
    neox = proportional.lane_wavelengths(96, 0.25, 1e4, "neox")
    assert np.nonzero(np.isfinite(neox))[0].tolist() == list(range(24))
    assert neox[11] == neox[23] == pytest.approx(2 * np.pi * 1e4 ** (22 / 24))


@pytest.mark.parametrize(("width", "share", "layout"), [
    (512, 0.25, "proportional"), (256, 0.5, "proportional"), (96, 0.25, "neox"),
    (128, 0.5, "neox")])
def test_lane_layout_names_the_lanes_that_turn(width, share, layout):
    """The lanes lane_wavelengths turns are the first pairs and their partners; the last pair
    and its partner the last of each stretch."""
    lanes = proportional.lane_layout(width, share, layout)
    turned = np.nonzero(np.isfinite(proportional.lane_wavelengths(width, share, 1e4,
                                                                  layout)))[0]
    assert turned.tolist() == [*range(lanes.pairs), *range(lanes.partner,
                                                           lanes.partner + lanes.pairs)]
    assert lanes.turned == len(turned) and lanes.still == (width - len(turned)) // 2
    assert (lanes.last_pair, lanes.last_partner) == (lanes.pairs - 1, turned[-1])


def test_gemma_4s_global_layer_turns_64_pairs_across_its_512_lanes():
    lanes = proportional.lane_layout(512, 0.25)
    assert (lanes.pairs, lanes.turned, lanes.partner, lanes.still) == (64, 128, 256, 192)
    assert (lanes.last_pair, lanes.last_partner) == (63, 319)


@given(st.sampled_from([64, 128, 256, 512]), st.sampled_from([0.25, 0.5, 1.0]),
       st.sampled_from([1e4, 5e5, 1e6]))
@settings(max_examples=30, deadline=None)
def test_the_slowest_turning_pair_takes_what_its_speed_says(width, share, base):
    """2 pi / base^(-2 (p - 1) / d) for proportional's last pair p - 1 over the whole width,
    2 pi / base^(-2 (p - 1) / r) for GPT-NeoX's over the r turned lanes."""
    pairs = int(share * width // 2)
    assert proportional.slowest_wavelength(width, share, base) == pytest.approx(
        2 * np.pi * base ** (2 * (pairs - 1) / width), rel=1e-12)
    assert proportional.slowest_wavelength(width, share, base, "neox") == pytest.approx(
        2 * np.pi * base ** (2 * (pairs - 1) / (2 * pairs)), rel=1e-12)


def test_gemma_4s_slowest_pair_turns_every_188_positions():
    assert round(proportional.slowest_wavelength(512, 0.25, 1e6)) == 188


def test_the_port_turns_the_same_speeds_in_the_wrong_lanes():
    """Megatron-Bridge issue 4195: the 64 speeds are right, the pairing is (i, i + 64)."""
    x = RNG.normal(size=(4, 512))
    positions = np.array([0, 1, 2, 17])
    port = proportional.prefix_paired_rope(x, positions, 0.25, 1e6)
    theta = proportional.proportional_frequencies(512, 0.25, 1e6)[:64]
    for t, m in enumerate(positions):
        for i in range(64):
            a, b = x[t, i], x[t, i + 64]
            angle = m * theta[i]
            assert port[t, i] == pytest.approx(a * np.cos(angle) - b * np.sin(angle))
            assert port[t, i + 64] == pytest.approx(a * np.sin(angle) + b * np.cos(angle))
    np.testing.assert_array_equal(port[:, 128:], x[:, 128:])
    np.testing.assert_allclose(port[0], x[0])  # position 0 turns nothing, either way
    right = proportional.proportional_rope(x, positions, 0.25, 1e6)
    assert np.abs(port[1:] - right[1:]).max() > 0.1
    np.testing.assert_allclose(np.linalg.norm(port, axis=1), np.linalg.norm(x, axis=1))


@given(st.integers(0, 5000), st.integers(0, 5000), st.integers(0, 300))
@settings(max_examples=30, deadline=None)
def test_both_rotations_keep_the_relative_property(m, n, shift):
    q, k = RNG.normal(size=(2, 1, 512))
    def score(turn, a, b):
        return float(turn(q, np.array([a]), 0.25, 1e6)[0] @ turn(k, np.array([b]), 0.25, 1e6)[0])

    for turn in (proportional.proportional_rope, proportional.prefix_paired_rope):
        assert score(turn, m, n) == pytest.approx(score(turn, m + shift, n + shift), rel=1e-8,
                                                  abs=1e-8)


def test_a_fraction_that_turns_nothing_is_refused():
    with pytest.raises(ValueError, match="turns no pair"):
        proportional.turned_pairs(8, 0.1)
    with pytest.raises(ValueError, match="fraction"):
        proportional.turned_pairs(8, 1.5)
