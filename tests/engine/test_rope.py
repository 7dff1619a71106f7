"""RoPE against slow loops that build every 2x2 rotation, hand-computed context extension
values and the papers' own numbers; invariants as hypothesis properties; figures on their data."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from posviz.figures.common import as_array as array
from posviz.figures.rope import clock_ladder, line_chart, plane_view, token_colors
from posviz.rope import (
    METHODS,
    YARN_RAMPS,
    apply_rope,
    context_frequencies,
    decay_bound,
    dynamic_ntk_base,
    dynamic_ntk_meet,
    interpolate_positions,
    ladder_pairs,
    llama3_bands,
    llama3_wavelengths,
    ntk_base,
    pair_coordinates,
    pair_index,
    pair_trajectory,
    rope_frequencies,
    rope_norms,
    rope_scores,
    same_up_to_rounding,
    shifted_added_scores,
    shifted_rope_scores,
    wavelengths,
    yarn_ramp,
    yarn_ramp_bounds,
    yarn_ramp_gap,
    yarn_temperature,
)
from posviz.sinusoidal import sinusoidal
from tests.helpers.figure_data import figure_json

SIZES = [2, 4, 8, 64, 128]
BASES = [100.0, 10_000.0, 500_000.0]
PAIRINGS = ["interleaved", "half"]


def slow_rope(x, positions, base, pairing):
    """Each pair (a, b) of each row times its own explicit 2x2 rotation matrix."""
    seq_len, d = x.shape
    out = np.zeros_like(x)
    for t in range(seq_len):
        for i in range(d // 2):
            a, b = (2 * i, 2 * i + 1) if pairing == "interleaved" else (i, i + d // 2)
            angle = positions[t] * base ** (-2 * i / d)
            rotation = np.array([[math.cos(angle), -math.sin(angle)],
                                 [math.sin(angle), math.cos(angle)]])
            out[t, [a, b]] = rotation @ x[t, [a, b]]
    return out


def interleaved_to_half(d):
    """Channel order that turns an interleaved layout into split halves: evens, then odds."""
    return np.concatenate([np.arange(0, d, 2), np.arange(1, d, 2)])


vectors = st.integers(1, 16).flatmap(lambda p: arrays(
    np.float64, (2, 2 * p), elements=st.floats(-10, 10, allow_nan=False)))
positions = st.integers(0, 5_000)


@pytest.mark.parametrize("pairing", PAIRINGS)
@pytest.mark.parametrize("base", BASES)
@pytest.mark.parametrize("d", SIZES)
def test_apply_rope_matches_explicit_rotation_matrices(d, base, pairing):
    rng = np.random.default_rng(d)
    x = rng.standard_normal((7, d))
    pos = np.array([0, 1, 2, 5, 17, 300, 4095])
    # angles reach 4095 rad, so each carries a rounding error near 4095 * 2^-52 ~ 1e-12
    np.testing.assert_allclose(apply_rope(x, pos, base, pairing),
                               slow_rope(x, pos, base, pairing), rtol=0, atol=1e-10)


def test_rotation_is_counter_clockwise():
    """Pair 0 turns one radian per position: (1, 0) at position pi/2 points straight up."""
    np.testing.assert_allclose(apply_rope(np.array([[1.0, 0.0]]), [math.pi / 2]), [[0.0, 1.0]],
                               atol=1e-15)


def test_apply_rope_works_on_stacked_heads():
    x = np.random.default_rng(1).standard_normal((3, 5, 8))  # (H, T, d)
    pos = np.arange(5)
    np.testing.assert_allclose(apply_rope(x, pos)[1], slow_rope(x[1], pos, 10_000.0,
                                                                "interleaved"), atol=1e-12)


@pytest.mark.parametrize("d", SIZES)
def test_pairings_differ_by_a_fixed_channel_permutation(d):
    x = np.random.default_rng(d).standard_normal((6, d))
    pos = np.arange(6) * 7
    perm = interleaved_to_half(d)
    np.testing.assert_allclose(apply_rope(x[:, perm], pos, pairing="half"),
                               apply_rope(x, pos, pairing="interleaved")[:, perm], atol=1e-12)


def test_pairings_give_different_scores_for_the_same_vectors():
    q, k = np.random.default_rng(0).standard_normal((2, 5, 16))
    pos = np.arange(5)
    assert not np.allclose(rope_scores(q, k, pos, pairing="interleaved"),
                           rope_scores(q, k, pos, pairing="half"))


def test_pair_index_names_the_two_layouts():
    assert [list(c) for c in pair_index(6, "interleaved")] == [[0, 2, 4], [1, 3, 5]]
    assert [list(c) for c in pair_index(6, "half")] == [[0, 1, 2], [3, 4, 5]]


@pytest.mark.parametrize("bad", [0, 3, 7])
def test_odd_or_empty_dimension_is_refused(bad):
    with pytest.raises(ValueError, match="even"):
        apply_rope(np.zeros((1, bad)), [0])


def test_unknown_pairing_and_pair_are_refused():
    with pytest.raises(ValueError, match="pairing"):
        apply_rope(np.zeros((1, 4)), [0], pairing="rotate_every_two")
    with pytest.raises(ValueError, match="pair"):
        pair_coordinates(np.zeros((1, 4)), 2)


@settings(max_examples=60, deadline=None)
@given(vectors, positions)
def test_rotation_preserves_norm(x, m):
    before, after = rope_norms(x, np.array([m, m + 1]))
    np.testing.assert_allclose(after, before, rtol=1e-12, atol=1e-12)


@settings(max_examples=60, deadline=None)
@given(vectors, positions, positions, st.sampled_from(PAIRINGS))
def test_score_sees_only_the_relative_rotation(qk, m, n, pairing):
    """<R_m q, R_n k> = <q, R_(n-m) k>."""
    q, k = qk[:1], qk[1:]
    lhs = apply_rope(q, [m], pairing=pairing) @ apply_rope(k, [n], pairing=pairing).T
    rhs = q @ apply_rope(k, [n - m], pairing=pairing).T
    np.testing.assert_allclose(lhs, rhs, rtol=1e-9, atol=1e-9)


@settings(max_examples=40, deadline=None)
@given(arrays(np.float64, (2, 4, 8), elements=st.floats(-5, 5, allow_nan=False)),
       st.integers(0, 10_000), st.sampled_from(PAIRINGS))
def test_shifting_both_positions_leaves_every_score_unchanged(qk, offset, pairing):
    pos = np.array([0, 1, 3, 9])
    np.testing.assert_allclose(rope_scores(qk[0], qk[1], pos + offset, pairing=pairing),
                               rope_scores(qk[0], qk[1], pos, pairing=pairing), atol=1e-9)


def test_rope_scores_are_rotated_dot_products():
    q, k = np.random.default_rng(3).standard_normal((2, 4, 8))
    pos = np.array([0, 2, 5, 11])
    rq, rk = slow_rope(q, pos, 10_000.0, "interleaved"), slow_rope(k, pos, 10_000.0,
                                                                    "interleaved")
    expected = [[float(rq[m] @ rk[n]) for n in range(4)] for m in range(4)]
    np.testing.assert_allclose(rope_scores(q, k, pos), expected, atol=1e-12)


def test_rope_tells_before_from_after():
    q, k = np.random.default_rng(4).standard_normal((2, 1, 8))
    qq, kk = np.vstack([q, q]), np.vstack([k, k])
    scores = rope_scores(qq, kk, np.array([0, 3]))
    assert not math.isclose(scores[0, 1], scores[1, 0])


def test_without_positions_scores_are_plain_dot_products():
    q, k = np.random.default_rng(5).standard_normal((2, 6, 8))
    np.testing.assert_array_equal(rope_scores(q, k, np.zeros(6)), q @ k.T)


def test_shifted_rope_scores_stay_at_the_unshifted_score():
    q, k = np.random.default_rng(6).standard_normal((2, 5, 64))
    scores = shifted_rope_scores(q, k, 4, 1, np.arange(0, 1001, 50), pairing="half")
    unshifted = rope_scores(q, k, np.arange(5), pairing="half")[4, 1]
    np.testing.assert_allclose(scores, unshifted, rtol=0, atol=1e-11)


def test_shifted_added_scores_match_a_loop_and_change_with_the_shift():
    rng = np.random.default_rng(7)
    x, wq, wk = rng.standard_normal((5, 16)), *rng.standard_normal((2, 16, 16)) / 4
    offsets = np.array([0, 1, 10, 100])
    pe = sinusoidal(200, 16)
    expected = [float(((x[3] + pe[3 + o]) @ wq) @ ((x[0] + pe[0 + o]) @ wk)) for o in offsets]
    scores = shifted_added_scores(x, wq, wk, 3, 0, offsets)
    np.testing.assert_allclose(scores, expected, atol=1e-12)
    assert np.ptp(scores) > 1e-3


def test_shift_refuses_positions_outside_the_sentence_and_negative_offsets():
    q = np.zeros((3, 4))
    with pytest.raises(ValueError, match="positions"):
        shifted_rope_scores(q, q, 3, 0, [0])
    with pytest.raises(ValueError, match="negative"):
        shifted_added_scores(q, np.eye(4), np.eye(4), 0, 1, [-1])


def test_pair_trajectory_is_the_vector_rotated_at_each_position():
    v = np.random.default_rng(8).standard_normal(16)
    pos, pairs = np.arange(10), np.array([0, 3, 7])
    trail = pair_trajectory(v, pos, pairs, pairing="half")
    rotated = slow_rope(np.tile(v, (10, 1)), pos, 10_000.0, "half")
    for n, p in enumerate(pairs):
        np.testing.assert_allclose(trail[n], rotated[:, [p, p + 8]], atol=1e-12)


def test_ladder_pairs_run_from_fastest_to_slowest():
    hands = ladder_pairs(64)
    assert hands[0] == 0 and hands[-1] == 31 and np.all(np.diff(hands) > 0)
    assert list(ladder_pairs(4)) == [0, 1]


def test_frequencies_follow_the_paper():
    np.testing.assert_allclose(rope_frequencies(8), [1, 10_000 ** -0.25, 10_000 ** -0.5,
                                                     10_000 ** -0.75])
    np.testing.assert_allclose(wavelengths(np.array([1.0, 0.5])), [2 * math.pi, 4 * math.pi])


def slow_decay(distance, d, base):
    """(1/(d/2)) sum_{j=1..d/2} |sum_{i=0..j-1} exp(1j * distance * theta_i)|, term by term."""
    total = 0.0
    for j in range(1, d // 2 + 1):
        s = sum(complex(math.cos(distance * base ** (-2 * i / d)),
                        math.sin(distance * base ** (-2 * i / d))) for i in range(j))
        total += abs(s)
    return total / (d // 2)


@pytest.mark.parametrize(("d", "base"), [(8, 10_000.0), (128, 10_000.0), (64, 500_000.0)])
def test_decay_bound_matches_a_loop(d, base):
    distances = np.array([0, 1, 7, 50, 250, 1000])
    np.testing.assert_allclose(decay_bound(distances, d, base),
                               [slow_decay(r, d, base) for r in distances], rtol=1e-12)


def test_decay_bound_starts_at_the_mean_of_one_to_half_d_and_decays():
    """At distance 0 every S_j = j, so the bound is (d/2 + 1)/2 (32.5 for d = 128)."""
    bound = decay_bound(np.arange(0, 1001), 128)
    assert bound[0] == pytest.approx(32.5)
    assert bound[500:].max() < bound[0] / 2  # ripples, but far below the start
    np.testing.assert_allclose(decay_bound(-np.arange(50), 128), bound[:50], rtol=1e-12)


def test_ntk_base_against_a_hand_computation():
    """b' = 10000 * 4^(128/126) = 10000 * e^(1.3862944 * 1.0158730) = 10000 * 4.0889942."""
    assert ntk_base(10_000.0, 4.0, 128) == pytest.approx(40_889.942, rel=1e-7)
    theta = context_frequencies("ntk", 128, 4.0, 4096)
    original = rope_frequencies(128)
    assert theta[0] == original[0] == 1.0
    assert theta[-1] == pytest.approx(original[-1] / 4, rel=1e-12)


def slow_ntk(d, base, scale):
    """theta_i of the NTK-aware base b' = b s^(d/(d-2)), pair by pair."""
    new_base = base * scale ** (d / (d - 2))
    return [new_base ** (-2 * i / d) for i in range(d // 2)]


def slow_yarn_paper(d, length, base, scale, alpha=1.0, beta=32.0):
    """The paper's ramp pair by pair: r_i = L theta_i / (2 pi) turns, gamma_i clipped linear in
    r_i, theta'_i = (1 - gamma_i) theta_i / s + gamma_i theta_i."""
    out = []
    for i in range(d // 2):
        theta = base ** (-2 * i / d)
        turns = length * theta / (2 * math.pi)
        gamma = min(1.0, max(0.0, (turns - alpha) / (beta - alpha)))
        out.append((1 - gamma) * theta / scale + gamma * theta)
    return out


def slow_yarn_code(d, length, base, scale, beta_fast=32.0, beta_slow=1.0):
    """A line-by-line port of the YaRN reference code (_yarn_find_correction_dim,
    _yarn_find_correction_range, _yarn_linear_ramp_mask and the blend in its yarn())."""
    def correction_dim(rotations):
        return (d * math.log(length / (rotations * 2 * math.pi))) / (2 * math.log(base))

    low = max(math.floor(correction_dim(beta_fast)), 0)
    high = min(math.ceil(correction_dim(beta_slow)), d - 1)
    if low == high:
        high += 0.001
    out = []
    for i in range(d // 2):
        ramp = min(1.0, max(0.0, (i - low) / (high - low)))
        extrapolation = 1 - ramp  # the code's inv_freq_mask (extrapolation_factor 1)
        pos_freq = base ** (2 * i / d)
        out.append(1 / (scale * pos_freq) * (1 - extrapolation) + 1 / pos_freq * extrapolation)
    return out


@pytest.mark.parametrize("base", [10_000.0, 500_000.0])
@pytest.mark.parametrize("d", [16, 64, 128])
def test_ntk_keeps_the_first_pair_and_slows_the_last_by_s_at_any_base(d, base):
    theta = context_frequencies("ntk", d, 8.0, 4096, base)
    np.testing.assert_allclose(theta, slow_ntk(d, base, 8.0), rtol=1e-12)
    assert theta[0] == 1.0
    assert theta[-1] == pytest.approx(base ** (-(d - 2) / d) / 8, rel=1e-12)


@pytest.mark.parametrize(("d", "length", "base", "scale"), [
    (128, 4096, 10_000.0, 4.0), (128, 8192, 500_000.0, 16.0), (64, 2048, 500_000.0, 2.0),
    (16, 2048, 100.0, 32.0)])
def test_yarn_paper_ramp_matches_a_loop_at_any_base(d, length, base, scale):
    np.testing.assert_allclose(context_frequencies("yarn", d, scale, length, base, ramp="paper"),
                               slow_yarn_paper(d, length, base, scale), rtol=1e-12)


@pytest.mark.parametrize(("d", "length", "base", "scale"), [
    (128, 4096, 10_000.0, 4.0), (128, 8192, 500_000.0, 16.0), (64, 2048, 500_000.0, 2.0),
    (16, 2048, 100.0, 32.0), (256, 2048, 1_000_000.0, 8.0)])
def test_yarn_code_ramp_matches_a_port_of_the_reference_code(d, length, base, scale):
    np.testing.assert_allclose(
        context_frequencies("yarn", d, scale, length, base, ramp="code"),
        slow_yarn_code(d, length, base, scale), rtol=1e-12)


@pytest.mark.parametrize(("d", "length", "base", "scale"), [
    (16, 32, 10_000.0, 4.0), (128, 8192, 500_000.0, 8.0), (96, 4096, 10_000.0, 32.0),
    (64, 2048, 500_000.0, 2.0), (128, 4096, 10_000.0, 16.0)])
def test_yarn_by_default_is_what_transformers_computes(d, length, base, scale):
    """YaRN unqualified is the code's ramp, as transformers' ROPE_INIT_FUNCTIONS["yarn"] runs it
    (float32 there), and its attention factor squared is 1 / yarn_temperature; the paper's
    ramp is another curve."""
    transformers = pytest.importorskip("transformers")
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    config = transformers.LlamaConfig(
        hidden_size=2 * d, num_attention_heads=2, head_dim=d,
        max_position_embeddings=int(scale * length),
        rope_parameters={"rope_type": "yarn", "rope_theta": base, "factor": scale,
                         "original_max_position_embeddings": length})
    inv_freq, attention_factor = ROPE_INIT_FUNCTIONS["yarn"](config, "cpu")
    theirs = inv_freq.double().numpy()
    np.testing.assert_allclose(context_frequencies("yarn", d, scale, length, base), theirs,
                               rtol=1e-6)
    assert attention_factor ** 2 == pytest.approx(1 / yarn_temperature(scale), rel=1e-12)
    paper = context_frequencies("yarn", d, scale, length, base, ramp="paper")
    assert np.abs(paper / theirs - 1).max() > 0.2


@pytest.mark.parametrize(("d", "length", "base", "scale", "n"), [
    (16, 32, 10_000.0, 4.0, 128), (16, 32, 10_000.0, 4.0, 56), (16, 32, 10_000.0, 4.0, 20),
    (128, 8192, 500_000.0, 8.0, 65_536), (64, 2048, 10_000.0, 2.0, 3000)])
def test_dynamic_ntk_is_transformers_dynamic_rope(d, length, base, scale, n):
    """transformers' ROPE_INIT_FUNCTIONS["dynamic"] at the current length n (shorter than L:
    L, the base unchanged)."""
    transformers = pytest.importorskip("transformers")
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    config = transformers.LlamaConfig(
        hidden_size=2 * d, num_attention_heads=2, head_dim=d, max_position_embeddings=length,
        rope_parameters={"rope_type": "dynamic", "rope_theta": base, "factor": scale})
    inv_freq, _ = ROPE_INIT_FUNCTIONS["dynamic"](config, "cpu", seq_len=n)
    np.testing.assert_allclose(
        rope_frequencies(d, dynamic_ntk_base(base, scale, d, n, length)),
        inv_freq.double().numpy(), rtol=1e-6)


def test_dynamic_ntk_at_s_times_the_length_is_not_ntk_aware_scaling_at_s():
    """On the trained RoPE model's numbers (d 16, b 10,000, L 32, s 4): at n = 128 the bracket
    is 4 * 4 - 3 = 13, base 10,000 * 13^(8/7) = 187,533, against NTK-aware's 10,000 * 4^(8/7)
    = 48,761, which dynamic NTK reaches at n = (2 - 1/4) * 32 = 56; up to L, the base."""
    assert dynamic_ntk_base(10_000.0, 4.0, 16, 128, 32) == pytest.approx(
        10_000 * 13 ** (8 / 7), rel=1e-12) == pytest.approx(187_533.18, abs=0.01)
    assert ntk_base(10_000.0, 4.0, 16) == pytest.approx(48_760.55, abs=0.01)
    assert dynamic_ntk_base(10_000.0, 4.0, 16, 56, 32) == pytest.approx(
        ntk_base(10_000.0, 4.0, 16), rel=1e-12)
    assert dynamic_ntk_base(10_000.0, 4.0, 16, 20, 32) == 10_000.0
    with pytest.raises(ValueError, match="scale"):
        dynamic_ntk_base(10_000.0, 0.5, 16, 128, 32)


@given(st.sampled_from([16, 64, 128]), st.sampled_from(BASES), st.floats(1.5, 32.0),
       st.integers(16, 100_000))
@settings(max_examples=40, deadline=None)
def test_dynamic_ntk_meets_ntk_aware_scaling_at_two_minus_one_over_s_times_l(d, base, scale,
                                                                            length):
    """At n = (2 - 1/s) L the bracket s n / L - (s - 1) is s: dynamic NTK's base is NTK-aware
    scaling's, short of s L (Llama 3.1: (2 - 1/8) 8,192 = 15,360)."""
    meet = dynamic_ntk_meet(scale, length)
    assert length <= meet < scale * length
    assert dynamic_ntk_base(base, scale, d, meet, length) == pytest.approx(
        ntk_base(base, scale, d), rel=1e-9)
    assert dynamic_ntk_meet(8.0, 8192) == 15_360


def llama3_bands_by_wavelength(d, base, factor, low, high, original):
    """Each pair classed by its wavelength 2 pi / theta_i against original / high (shorter:
    kept) and original / low (longer: slowed), as Meta's apply_scaling reads them."""
    counts = {"kept": 0, "blended": 0, "slowed": 0}
    for i in range(d // 2):
        wavelength = 2 * math.pi * base ** (2 * i / d)
        counts["kept" if wavelength < original / high else
               "slowed" if wavelength > original / low else "blended"] += 1
    return counts["kept"], counts["blended"], counts["slowed"]


@pytest.mark.parametrize(("d", "base", "factor", "low", "high", "original"), [
    (128, 500_000.0, 8.0, 1.0, 4.0, 8192), (64, 10_000.0, 4.0, 1.0, 4.0, 2048),
    (128, 10_000.0, 16.0, 2.0, 8.0, 4096), (96, 1_000_000.0, 32.0, 1.0, 32.0, 4096)])
def test_llama3_bands_count_the_pairs_kept_blended_and_slowed(d, base, factor, low, high,
                                                              original):
    """As a loop over the pairs' wavelengths counts them; Llama 3.1 8B (the first): 29, 6, 29,
    its published count (assets/models/schemes.toml, bands_computed)."""
    bands = llama3_bands(d, base, factor, low, high, original)
    assert tuple(bands) == llama3_bands_by_wavelength(d, base, factor, low, high, original)
    assert bands.pairs == d // 2
    assert llama3_wavelengths(original, low, high) == (original / high, original / low)
    assert tuple(llama3_bands(128, 500_000.0, 8.0, 1.0, 4.0, 8192)) == (29, 6, 29)


def test_yarn_code_ramp_bounds_against_a_hand_computation():
    """d = 128, L = 4096, b = 10000: the pair making 32 turns is
    128 ln(4096 / 64pi) / (2 ln 10000) = 20.94, the pair making one turn 45.03: 20 and 46."""
    assert yarn_ramp_bounds(128, 4096) == (20, 46)
    gamma = yarn_ramp(128, 4096, ramp="code")
    assert gamma[20] == 1.0 and gamma[46] == 0.0
    assert gamma[33] == pytest.approx(0.5)


def test_the_two_yarn_ramps_agree_at_the_ends_and_differ_in_the_middle():
    paper, code = (yarn_ramp(128, 4096, ramp=ramp) for ramp in YARN_RAMPS)
    np.testing.assert_array_equal(paper[:20], code[:20])
    np.testing.assert_array_equal(paper[47:], code[47:])
    assert np.abs(paper - code).max() > 0.3


def test_yarn_ramp_gap_is_the_largest_speed_ratio():
    """The review's numbers: at d = 128, L = 4096 the code's ramp turns a middle pair about
    1.7 times as fast as the paper's at s = 4, about 3 times at s = 16."""
    for scale, expected in [(4.0, 1.733), (16.0, 3.041)]:
        pair, ratio = yarn_ramp_gap(128, scale, 4096)
        ratios = np.array(slow_yarn_code(128, 4096, 10_000.0, scale)) / np.array(
            slow_yarn_paper(128, 4096, 10_000.0, scale))
        assert pair == int(np.abs(np.log(ratios)).argmax())
        assert ratio == pytest.approx(ratios[pair], rel=1e-12)
        assert ratio == pytest.approx(expected, abs=1e-3)
    assert yarn_ramp_gap(128, 1.0, 4096)[1] == pytest.approx(1.0)


def test_position_interpolation_against_a_hand_computation():
    np.testing.assert_allclose(interpolate_positions(np.array([0, 10, 4096, 8191]), 4),
                               [0, 2.5, 1024, 2047.75])
    x = np.random.default_rng(9).standard_normal((3, 16))
    pos = np.array([10, 4096, 8191])
    np.testing.assert_allclose(
        apply_rope(x, pos, frequencies=context_frequencies("pi", 16, 4.0, 4096)),
        apply_rope(x, interpolate_positions(pos, 4.0)), atol=1e-12)


def test_yarn_against_a_hand_computation():
    """d = 4, L = 100: theta = (1, 0.01), turns r = 100 / 2pi = 15.915494 and 0.1591549;
    gamma = ((15.915494 - 1) / 31, 0) = (0.4811450, 0); at s = 4,
    theta' = (0.5188550 / 4 + 0.4811450, 0.01 / 4) = (0.6108588, 0.0025)."""
    np.testing.assert_allclose(yarn_ramp(4, 100, ramp="paper"), [0.4811450, 0.0], atol=1e-7)
    np.testing.assert_allclose(context_frequencies("yarn", 4, 4.0, 100, ramp="paper"),
                               [0.6108588, 0.0025], atol=1e-7)


def test_yarn_keeps_fast_pairs_and_interpolates_slow_ones():
    theta, yarn = rope_frequencies(128), context_frequencies("yarn", 128, 8.0, 4096)
    gamma = yarn_ramp(128, 4096)
    assert gamma[0] == 1.0 and gamma[-1] == 0.0 and np.all(np.diff(gamma) <= 0)
    assert yarn[0] == theta[0]
    assert yarn[-1] == pytest.approx(theta[-1] / 8)


def test_yarn_temperature_against_a_hand_computation():
    """s = 16: sqrt(1/t) = 0.1 * 2.7725887 + 1 = 1.2772589, t = 1 / 1.6313902 = 0.6129743."""
    assert yarn_temperature(16) == pytest.approx(0.6129743, rel=1e-6)
    assert yarn_temperature(1) == 1.0


@pytest.mark.parametrize("method", METHODS)
def test_every_method_is_the_original_at_scale_one(method):
    np.testing.assert_allclose(context_frequencies(method, 64, 1.0, 2048),
                               rope_frequencies(64), rtol=1e-12)


def test_context_settings_are_checked():
    with pytest.raises(ValueError, match="scale"):
        context_frequencies("pi", 64, 0.5, 2048)
    with pytest.raises(ValueError, match="method"):
        context_frequencies("longrope", 64, 2.0, 2048)
    with pytest.raises(ValueError, match="alpha"):
        yarn_ramp(64, 2048, alpha=32, beta=1)
    with pytest.raises(ValueError, match="ramp"):
        yarn_ramp(64, 2048, ramp="linear")


def test_plane_view_draws_each_token_before_and_after_in_its_own_colour():
    before = np.array([[1.0, 0.0], [0.0, 2.0], [3.0, 1.0]])
    after = apply_rope(before, np.arange(3), frequencies=np.array([0.5]))
    fig = figure_json(plane_view(before, after, ["0 a", "1 <b>", "2 a"], title="t",
                                 before_name="before", after_name="after", arc_name="arc",
                                 x_title="x", y_title="y"))
    *keys, heads_before, heads_after, arcs = fig["data"]
    assert [trace["name"] for trace in keys] == ["before", "after", "arc"]
    shafts = fig["layout"]["shapes"]
    colors = token_colors(3)
    assert len(set(colors)) == 3
    for heads, points, drawn in [(heads_before, before, shafts[:3]), (heads_after, after,
                                                                      shafts[3:])]:
        np.testing.assert_allclose(np.stack([array(heads["x"]), array(heads["y"])], axis=-1),
                                   points, rtol=1e-6)
        assert heads["customdata"] == ["0 a", "1 &lt;b&gt;", "2 a"]
        np.testing.assert_allclose([[s["x1"], s["y1"]] for s in drawn], points, rtol=1e-12)
        assert [s["x0"] for s in drawn] == [0, 0, 0]
        assert [s["line"]["color"] for s in drawn] == colors  # one colour per token
    assert {s["line"]["dash"] for s in shafts[:3]} == {"dash"}
    assert "dash" not in shafts[3]["line"]  # before: dashed and thinner, never faded
    assert all("opacity" not in s and s["line"]["width"] < shafts[3]["line"]["width"]
               for s in shafts[:3])
    # heads point away from the origin: plotly's angle runs clockwise from straight up
    directions = np.degrees(np.arctan2(after[:, 1], after[:, 0]))
    np.testing.assert_allclose(array(heads_after["marker"]["angle"]), 90 - directions, atol=1e-4)
    # each tip after rotation labelled; token 0 does not move: only tokens 1 and 2 get a
    # second label, at their old tip
    notes = fig["layout"]["annotations"]
    assert [n["text"] for n in notes] == ["0 a", "1 &lt;b&gt;", "2 a", "1 &lt;b&gt;", "2 a"]
    tips = np.concatenate([after, before[1:]])
    np.testing.assert_allclose([[n["x"], n["y"]] for n in notes], tips, rtol=1e-12)
    assert [n["arrowcolor"] for n in notes] == colors + colors[1:]  # leaders in its colour
    assert all("color" not in n["font"] for n in notes)  # the page's text colour, either theme
    outward = [n["ax"] * x - n["ay"] * y for n, (x, y) in zip(notes, tips, strict=True)]
    assert min(outward) > 0  # set beyond the tip, away from the origin (ay runs downwards)
    assert fig["layout"]["meta"]["spread"]  # placed clear of each other where drawn
    assert fig["layout"]["yaxis"]["scaleanchor"] == "x"
    # each arc runs on its token's circle from the old tip to the new one, turning by m * 0.5
    xy = np.stack([array(arcs["x"]), array(arcs["y"])], axis=-1).reshape(3, -1, 2)
    np.testing.assert_allclose(np.hypot(xy[..., 0], xy[..., 1]),
                               np.hypot(before[:, :1], before[:, 1:]).repeat(xy.shape[1], 1),
                               rtol=1e-5)
    np.testing.assert_allclose(xy[:, 0], before, atol=1e-5)
    np.testing.assert_allclose(xy[:, -1], after, atol=1e-5)


@pytest.mark.parametrize("n", [9, 40])
def test_plane_view_leaves_labels_to_hover_for_long_sentences(n):
    points = np.random.default_rng(2).standard_normal((n, 2))
    fig = figure_json(plane_view(points, points, [f"{t} w" for t in range(n)], title="t",
                                 before_name="b", after_name="a", arc_name="arc", x_title="x",
                                 y_title="y"))
    assert [trace["mode"] for trace in fig["data"]] == ["lines", "lines", "markers", "markers"]
    assert len(fig["layout"]["shapes"]) == 2 * n
    assert not fig["layout"]["annotations"] and not fig["layout"]["meta"]["spread"]


@pytest.mark.parametrize(("n", "labelled"), [(4, 8), (5, 5), (8, 8)])
def test_plane_view_labels_every_tip_after_rotation_and_before_it_for_four_tokens(n, labelled):
    before = np.random.default_rng(3).standard_normal((n, 2))
    after = before[:, ::-1] * [-1, 1]  # every tip turned a quarter
    fig = figure_json(plane_view(before, after, [f"{t} w" for t in range(n)], title="t",
                                 before_name="b", after_name="a", arc_name="arc", x_title="x",
                                 y_title="y"))
    notes = [note["text"] for note in fig["layout"]["annotations"]]
    assert len(notes) == labelled and notes[:n] == [f"{t} w" for t in range(n)]


@given(arrays(np.float64, st.tuples(st.integers(1, 12), st.just(2)),
              elements=st.floats(-50, 50, allow_nan=False)), st.floats(0.1, 3.0))
def test_plane_view_spans_every_arrow_and_arc_with_room_for_labels_and_no_more(points, turn):
    """The axes hold the origin, every tip and every arc with room round them for labels, and
    no more: a projector's plot, as tall as its window lets it be, spends it on the arrows."""
    after = apply_rope(points, np.arange(len(points)), frequencies=np.array([turn]))
    fig = figure_json(plane_view(points, after, [str(t) for t in range(len(points))],
                                 title="t", before_name="b", after_name="a", arc_name="arc",
                                 x_title="x", y_title="y"))
    reach = max(np.hypot(*points.T).max(), 1e-9)
    drawn = [np.concatenate([points[:, k], after[:, k], [0.0]] + (
        [array(fig["data"][-1]["xy"[k]])] if len(points) <= 8 else [])) for k in (0, 1)]
    for k, key in enumerate(("xaxis", "yaxis")):
        low, high = fig["layout"][key]["range"]
        pad = (0.25 if len(points) <= 8 else 0.08) * reach
        assert low <= drawn[k].min() - pad + 1e-6 * reach
        assert high >= drawn[k].max() + pad - 1e-6 * reach
        assert high - low <= np.ptp(drawn[k]) + 2 * pad + 1e-6 * reach


def test_plane_view_stands_its_legend_beside_the_plot_in_a_short_window():
    fig = figure_json(plane_view(np.eye(2), np.eye(2), ["0 a", "1 b"], title="t",
                                 before_name="b", after_name="a", arc_name="arc", x_title="x",
                                 y_title="y"))
    short = fig["layout"]["meta"]["short"]
    assert short["legend"]["orientation"] == "v" and short["legend"]["xref"] == "paper"
    assert short["xaxis"]["domain"][1] < short["legend"]["x"]  # the plot leaves it room
    assert short["xaxis"]["range"] == fig["layout"]["xaxis"]["range"]
    assert short["title"] == {"x": 0, "xanchor": "left"}  # clear of the tool bar's corner


def test_clock_ladder_hands_point_at_the_first_and_last_position_on_equal_dials():
    trails = pair_trajectory(np.arange(1.0, 9.0), np.arange(6), np.array([0, 2, 3]))
    directions = trails / np.linalg.norm(trails, axis=-1, keepdims=True)
    fig = figure_json(clock_ladder(trails, ["fast: \nf", "mid: \nm", "slow: \ns"], title="t",
                                   hand_name="h", trail_name="trail", start_name="s"))
    keys, dials = fig["data"][:3], fig["data"][3:]
    assert [key["name"] for key in keys] == ["trail", "s", "h"]
    assert all(array(key["y"]).tolist() == [None] for key in keys)  # the legend's, no data
    assert len(dials) == 3 * 3
    for n, (dots, start, hand) in enumerate(zip(*[iter(dials)] * 3, strict=True)):
        axes = {trace["xaxis"] for trace in (dots, start, hand)}
        assert axes == {"x" if n == 0 else f"x{n + 1}"}  # one dial, one pair of axes
        np.testing.assert_allclose(np.stack([array(dots["x"]), array(dots["y"])], axis=-1),
                                   directions[n], atol=1e-6)
        for trace, k in [(start, 0), (hand, -1)]:
            xy = np.stack([array(trace["x"]), array(trace["y"])], axis=-1)
            np.testing.assert_allclose(xy[:2], [[0, 0], directions[n, k]], atol=1e-6)
        assert dots["name"].startswith(["fast: f", "mid: m", "slow: s"][n])
    layout = fig["layout"]
    assert [note["text"] for note in layout["annotations"]] == ["fast: f", "mid: m", "slow: s"]
    assert layout["yaxis2"]["scaleanchor"] == "x2"  # every dial a circle
    narrow = layout["meta"]["narrow"]  # two to a row on a phone, each title on two lines
    assert [note["text"] for note in narrow["annotations"]] == [
        "fast:<br>f", "mid:<br>m", "slow:<br>s"]
    assert narrow["xaxis3"]["domain"] == narrow["xaxis"]["domain"]  # under the first dial
    assert narrow["meta"]["min_width"] < layout["meta"]["min_width"]


def test_line_chart_draws_each_curve_in_order_with_its_marks():
    x = np.arange(4)
    fig = figure_json(line_chart(x, {"b": np.array([1.0, 2, 3, 4]), "a": np.zeros(4)},
                                 title="t", x_title="x", y_title="y", log_y=True, marked_x=2,
                                 marked_y={"L": 100.0, "sL": 400.0}, dashed=("a",)))
    assert [trace["name"] for trace in fig["data"]] == ["b", "a"]
    assert [trace["line"]["dash"] for trace in fig["data"]] == ["solid", "dash"]
    np.testing.assert_array_equal(array(fig["data"][0]["y"]), [1, 2, 3, 4])
    assert fig["layout"]["yaxis"]["type"] == "log"
    assert [shape["x0"] for shape in fig["layout"]["shapes"]] == [2, 0, 0]
    notes = fig["layout"]["annotations"]
    assert [note["y"] for note in notes] == pytest.approx([2.0, math.log10(400)])


def test_line_chart_puts_line_labels_in_the_margin_apart_from_each_other():
    """Labels right of the plot, where no curve runs; the lower one under its line."""
    fig = figure_json(line_chart(np.arange(3), {"c": np.ones(3)}, title="t", x_title="x",
                                 y_title="y", marked_y={"L": 4.0, "sL": 4.0}))
    notes = fig["layout"]["annotations"]
    assert all(note["x"] == 1 and note["xanchor"] == "left" for note in notes)
    assert [note["yanchor"] for note in notes] == ["top", "bottom"]
    assert fig["layout"]["margin"]["r"] > 100


def test_a_shifted_rope_score_is_the_same_up_to_rounding_and_an_added_one_is_not():
    rng = np.random.default_rng(0)
    q, k, x = rng.normal(size=(3, 6, 16))
    wq, wk = rng.normal(size=(2, 16, 16))
    offsets = np.array([0, 300])
    assert same_up_to_rounding(*shifted_rope_scores(q, k, 5, 1, offsets))
    assert not same_up_to_rounding(*shifted_added_scores(x, wq, wk, 5, 1, offsets))
    assert same_up_to_rounding(-12.544609215729, -12.544609215729 - 3.4e-14)
    assert not same_up_to_rounding(1e-20, 2e-9)


@pytest.mark.parametrize("pairing", PAIRINGS)
def test_rope_score_depends_on_the_signed_offset_not_on_its_size(pairing):
    """s(m, n) = <q, R_(n-m) k>: equal offsets n - m give equal scores wherever the pair stands,
    while the offsets +k and -k (key k after or k before the query) give different scores."""
    q, k = np.random.default_rng(8).standard_normal((2, 1, 64))

    def score(m, n):
        return float(apply_rope(q, [m], pairing=pairing)[0]
                     @ apply_rope(k, [n], pairing=pairing)[0])

    for offset in (1, 3, 10, 50):
        assert score(5, 5 + offset) == pytest.approx(score(200, 200 + offset), abs=1e-9)
        assert score(60, 60 - offset) == pytest.approx(score(300, 300 - offset), abs=1e-9)
        assert abs(score(100, 100 + offset) - score(100, 100 - offset)) > 1e-3
