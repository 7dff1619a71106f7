"""FoPE and HoPE (posviz/bands.py) against slow loops written from the canonical FoPE code's
rules (TsinghuaC3I/Fourier-Position-Embedding, olmo/model.py), torch's Xavier initializer and
the published values of its 60M configuration (assets/models/schemes.toml)."""

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from posviz import bands
from posviz.modern import value
from posviz.rope import apply_rope, rope_frequencies

RNG = np.random.default_rng(13)
F = "fope_olmo_60m"


def setting() -> tuple[int, int, float]:
    return value(F, "head_dim_computed"), value(F, "max_sequence_length"), value(F, "rope_theta")


def slow_floor(dim: int, base: float, length: int) -> list[float]:
    """The canonical rule, one frequency at a time: under 2 pi / L, set to 0."""
    return [0.0 if base ** (-i / dim) < 2 * np.pi / length else base ** (-i / dim)
            for i in range(0, dim, 2)]


def test_the_60m_configuration_keeps_16_of_32_pairs_and_makes_16_series():
    dim, length, base = setting()
    assert (dim, length, base) == (64, 512, 10_000)
    np.testing.assert_allclose(bands.floor_frequencies(dim, base, length),
                               slow_floor(dim, base, length))
    assert bands.fope_sizes(dim, base, length) == (16, 16)  # kept; min(kept, d // 4)
    kept = bands.kept_wavelengths(dim, base, length)
    assert np.isfinite(kept[:16]).all() and np.isinf(kept[16:]).all()
    assert kept[15] < length < 2 * np.pi / rope_frequencies(dim, base)[16]


@given(st.sampled_from([16, 64, 128]), st.sampled_from([1e4, 5e5]), st.sampled_from([64, 512,
                                                                                    4096]))
@settings(max_examples=20, deadline=None)
def test_the_floor_is_the_canonical_rule_on_a_grid(dim, base, length):
    np.testing.assert_allclose(bands.floor_frequencies(dim, base, length),
                               slow_floor(dim, base, length))


@pytest.mark.parametrize(("dim", "base", "length"), [(64, 10_000, 512), (128, 10_000, 2048),
                                                    (64, 500_000, 4096)])
def test_fope_pairs_count_what_the_floor_keeps_cuts_and_turns_by_a_series(dim, base, length):
    kept = sum(theta > 0 for theta in slow_floor(dim, base, length))
    pairs = bands.fope_pairs(dim, base, length)
    assert pairs == (dim // 2, kept, dim // 2 - kept, min(kept, dim // 4),
                     dim // 2 - min(kept, dim // 4))
    assert pairs.last_kept == kept - 1


def test_the_spread_is_torchs_xavier_normal_on_a_basis_per_head():
    """separate bases per head: torch reads (heads, F, O) as outputs, inputs, kernel."""
    dim, length, base = setting()
    kept, pairs = bands.fope_sizes(dim, base, length)
    heads, gain = value(F, "n_heads"), value(F, "fourier_init_norm_gain")
    fan_in, fan_out = torch.nn.init._calculate_fan_in_and_fan_out(
        torch.empty(heads, kept, pairs))
    assert bands.xavier_std(heads, kept, pairs, gain) == pytest.approx(
        gain * np.sqrt(2 / (fan_in + fan_out)))
    cos_a, sin_b = bands.fope_coefficients(dim, base, length, gain, heads)
    spread = np.concatenate([(cos_a - np.eye(kept)).ravel(), (sin_b - np.eye(kept)).ravel()])
    assert spread.std() == pytest.approx(bands.xavier_std(heads, kept, pairs, gain), rel=0.15)


def slow_fope(x: np.ndarray, positions: np.ndarray, dim: int, base: float, length: int,
              coefficients) -> np.ndarray:
    """Pair by pair, as FourierEmbedding.apply_rotary_pos_emb: x cos + rotate_half(x) sin with
    cos_j = sum_f A_fj cos(m w_f), sin_j = sum_f B_fj sin(m w_f), padded with 1."""
    kept = [w for w in slow_floor(dim, base, length) if w > 0]
    cos_a, sin_b = coefficients
    out = np.empty_like(x)
    half = dim // 2
    for t, m in enumerate(positions):
        for j in range(half):
            if j < cos_a.shape[1]:
                c = sum(cos_a[f, j] * np.cos(m * w) for f, w in enumerate(kept))
                s = sum(sin_b[f, j] * np.sin(m * w) for f, w in enumerate(kept))
            else:
                c = s = 1.0
            a, b = x[t, j], x[t, j + half]
            out[t, j], out[t, j + half] = a * c - b * s, b * c + a * s
    return out


def test_fope_is_the_slow_pair_by_pair_series():
    dim, length, base = setting()
    coefficients = bands.fope_coefficients(dim, base, length)
    positions = np.array([0, 1, 9, 511, 2000])
    x = RNG.normal(size=(len(positions), dim))
    np.testing.assert_allclose(bands.fope(x, positions, base, length, coefficients),
                               slow_fope(x, positions, dim, base, length, coefficients),
                               atol=1e-9)


def test_without_its_spread_fope_is_rope_on_its_series_pairs_and_a_fixed_turn_on_the_rest():
    dim, length, base = setting()
    eye = bands.fope_coefficients(dim, base, length, gain=0.0)
    positions = np.array([0, 3, 700])
    x = RNG.normal(size=(3, dim))
    out = bands.fope(x, positions, base, length, eye)
    turned = apply_rope(x, positions, base, "half")
    series = [*range(16), *range(32, 48)]
    np.testing.assert_allclose(out[:, series], turned[:, series], atol=1e-9)
    padded_a, padded_b = np.arange(16, 32), np.arange(48, 64)
    np.testing.assert_allclose(out[:, padded_a], x[:, padded_a] - x[:, padded_b])
    np.testing.assert_allclose(out[:, padded_b], x[:, padded_b] + x[:, padded_a])
    np.testing.assert_allclose(bands.dominant_wavelengths(dim, base, length, eye)[:16],
                               bands.kept_wavelengths(dim, base, length)[:16])


@given(st.integers(0, 100_000), st.integers(0, 100_000))
@settings(max_examples=30, deadline=None)
def test_the_pairs_hope_cuts_score_the_same_at_any_distance(m, n):
    dim, length, base = setting()
    q, k = RNG.normal(size=(2, 1, dim))
    cut = np.r_[16:32, 48:64]  # the slow pairs' lanes
    qc, kc = np.zeros_like(q), np.zeros_like(k)
    qc[:, cut], kc[:, cut] = q[:, cut], k[:, cut]
    score = float(bands.hope(qc, np.array([m]), base, length)[0]
                  @ bands.hope(kc, np.array([n]), base, length)[0])
    assert score == pytest.approx(float(qc[0] @ kc[0]), abs=1e-9)


def test_a_head_that_turns_nothing_in_its_length_is_refused():
    with pytest.raises(ValueError, match="no pair"):
        bands.fope_coefficients(8, 1e4, 1)


def slow_pair_turn(turned: np.ndarray, pair: int, half: int) -> tuple[float, float]:
    """A turned unit vector's pair (split halves), read back as an angle and a length."""
    a, b = turned[pair], turned[pair + half]
    return float(np.degrees(np.arctan2(b, a))), float(np.hypot(a, b))


def test_hope_and_fope_keep_the_same_pairs_but_do_different_things_with_the_rest():
    """Both cut at 2 pi / L (ports of HoPE); HoPE leaves a cut pair unturned, FoPE pads it
    with cos = sin = 1: 45 degrees and sqrt 2, at every position."""
    dim, length, base = setting()
    positions = np.arange(0, 2 * length, 37)
    coefficients = bands.fope_coefficients(dim, base, length)
    hope_turn = bands.fixed_turns(*bands.hope_tables(positions, dim, base, length))
    fope_turn = bands.fixed_turns(*bands.fope_tables(positions, dim, base, length, coefficients))
    for pair in range(dim // 2):
        x = np.zeros((len(positions), dim))
        x[:, pair] = 1.0
        hoped = [slow_pair_turn(row, pair, dim // 2)
                 for row in bands.hope(x, positions, base, length)]
        foped = [slow_pair_turn(row, pair, dim // 2)
                 for row in bands.fope(x, positions, base, length, coefficients)]
        if pair < 16:  # kept by both: the turn changes with the position
            assert len({round(a, 9) for a, _ in hoped}) > 1
            assert len({round(a, 9) for a, _ in foped}) > 1
            assert np.isnan([hope_turn[0][pair], fope_turn[0][pair]]).all()
            continue
        assert all(np.allclose(t, (0.0, 1.0)) for t in hoped)
        assert all(np.allclose(t, (45.0, np.sqrt(2))) for t in foped)
        np.testing.assert_allclose([hope_turn[0][pair], hope_turn[1][pair]], (0.0, 1.0))
        np.testing.assert_allclose([fope_turn[0][pair], fope_turn[1][pair]],
                                   (45.0, np.sqrt(2)))


def test_hopes_tables_turn_as_its_function_does():
    dim, length, base = setting()
    positions = np.arange(40) * 13
    x = RNG.normal(size=(len(positions), dim))
    cos, sin = bands.hope_tables(positions, dim, base, length)
    half = dim // 2
    a, b = x[:, :half], x[:, half:]
    np.testing.assert_allclose(bands.hope(x, positions, base, length),
                               np.concatenate([a * cos - b * sin, b * cos + a * sin], axis=-1),
                               atol=1e-12)
