"""The research frontier's schemes against slow loops written from their reference code's
procedure: xPos as torchscale applies it (centred positions, the scale on the query and its
inverse on the key), CoPE as facebookresearch/RAM computes its positions and interpolates."""

import math

import numpy as np
import pytest

from posviz import frontier

RNG = np.random.default_rng(3)


def xpos_by_loop(x: np.ndarray, downscale: bool, scale_base: float = 512) -> np.ndarray:
    """torchscale's procedure pair by pair: the scale's exponent counts from the middle of the
    sequence (-(T // 2) rounded down), the angle from 0; the key divided by the scale."""
    n, dim = x.shape
    low = (-n) // 2  # floor(-n / 2): 5 positions count from -3
    out = np.zeros_like(x, dtype=float)
    for t in range(n):
        for i in range(dim // 2):
            zeta = (2 * i + 0.4 * dim) / (1.4 * dim)
            s = zeta ** ((low + t) / scale_base)
            s = 1 / s if downscale else s
            angle = t * 10_000 ** (-2 * i / dim)
            a, b = x[t, 2 * i], x[t, 2 * i + 1]
            out[t, 2 * i] = s * (a * math.cos(angle) - b * math.sin(angle))
            out[t, 2 * i + 1] = s * (b * math.cos(angle) + a * math.sin(angle))
    return out


@pytest.mark.parametrize("n", [5, 8])
def test_xpos_scores_are_torchscales(n):
    q, k = RNG.normal(size=(n, 16)), RNG.normal(size=(n, 16))
    positions = np.arange(n)
    mine = frontier.xpos(q, positions) @ frontier.xpos(k, positions, downscale=True).T
    theirs = xpos_by_loop(q, False) @ xpos_by_loop(k, True).T  # centring cancels in a score
    np.testing.assert_allclose(mine, theirs, rtol=1e-12)
    for i in range(n):  # and each score is offset_scores' at its offset
        for j in range(i + 1):
            want = frontier.offset_scores(q[i], k[j], np.array([i - j]), decay=True)[0]
            assert np.isclose(mine[i, j], want)


def test_xpos_decays_each_pair_by_its_own_factor_and_is_rope_at_no_offset():
    zeta = frontier.xpos_decay(64)
    assert zeta[0] == pytest.approx(0.4 / 1.4) and (np.diff(zeta) > 0).all() and zeta[-1] < 1
    offsets = np.arange(0, 4097, 64)
    for pair in (0, 15, 31):  # a query and a key in one pair only: RoPE's score, decayed
        q, k = np.zeros(64), np.zeros(64)
        q[2 * pair:2 * pair + 2], k[2 * pair:2 * pair + 2] = RNG.normal(size=2), RNG.normal(size=2)
        rope, xpos = (frontier.offset_scores(q, k, offsets, decay) for decay in (False, True))
        np.testing.assert_allclose(xpos, rope * zeta[pair] ** (offsets / 512), atol=1e-12)
        assert rope[0] == xpos[0] == pytest.approx(q @ k)  # no offset: the dot product


def test_cope_positions_count_the_gated_keys_from_each_to_the_query():
    logits = RNG.normal(size=(6, 6)) * 3
    p = frontier.cope_positions(logits)
    sig = 1 / (1 + np.exp(-logits))
    for i in range(6):
        for j in range(6):
            want = sum(sig[i, k] for k in range(j, i + 1)) if j <= i else 0.0
            assert p[i, j] == pytest.approx(want)
    assert (np.diff(p, axis=1)[np.tril(np.ones((6, 5), dtype=bool))] <= 0).all()  # farther back


def test_cope_interpolates_between_the_integer_positions():
    q, emb = RNG.normal(size=(4, 8)), RNG.normal(size=(5, 8))
    positions = np.array([[0.0, 0, 0, 0], [1.5, 0.25, 0, 0], [2, 9.0, 0.5, 0], [3.75, 3, 1, 0.1]])
    got = frontier.cope_position_logits(q, emb, positions)
    for i in range(4):
        for j in range(4):
            p = min(positions[i, j], 4)
            low, high = math.floor(p), math.ceil(p)
            want = (p - low) * q[i] @ emb[high] + (1 - (p - low)) * q[i] @ emb[low]
            assert got[i, j] == pytest.approx(want)


def test_longrope_divides_each_pair_by_its_published_factor():
    """Hugging Face's formula, 1 / (f_i base^(2i/d)), on Phi-3 mini 128K's own lists; its
    attention factor as the model's GGUF records it (float32)."""
    from posviz.modern import value

    dim, base = value("phi3_mini_128k", "head_dim_computed"), value("phi3_mini_128k", "rope_theta")
    for kind in ("long_factor", "short_factor"):
        factors = np.array(value("phi3_mini_128k", kind))
        assert factors.shape == (48,) and (np.diff(factors) >= 0).all()  # slower pairs more
        hf = 1.0 / (factors * base ** (np.arange(0, dim, 2) / dim))
        np.testing.assert_allclose(frontier.longrope_frequencies(dim, base, factors), hf,
                                   rtol=1e-12)
    assert frontier.longrope_attention_factor(131072 / 4096, 4096) == pytest.approx(
        1.190238118171692, abs=1e-7)
    with pytest.raises(ValueError, match="one factor per pair"):
        frontier.longrope_frequencies(dim, base, [1.0] * 47)


def test_each_stack_leaves_position_out_where_its_configuration_says():
    def at(model, kind):
        return [i + 1 for i, k in enumerate(frontier.layer_kinds(model)) if k == kind]

    assert at("llama4_scout", "nope") == list(range(4, 49, 4))
    assert at("smollm3_3b", "nope") == list(range(4, 37, 4)) and len(at("smollm3_3b", "rope")) == 27
    assert at("qwen3_next_80b_a3b", "rope") == list(range(4, 49, 4))
    assert len(at("qwen3_next_80b_a3b", "linear")) == 36
    assert at("kimi_linear_48b_a3b", "nope") == [4, 8, 12, 16, 20, 24, 27]
    assert len(at("kimi_linear_48b_a3b", "linear")) == 20
