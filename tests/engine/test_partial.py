"""Partial RoPE (posviz/partial.py) and its place in the stand-in stack, against a slow,
obviously correct reference: an explicit rotation matrix on each turned pair, the identity on
every other channel."""

import math

import numpy as np
import pytest

from posviz.attention import attention_layer, attention_stack, init_layers, queries_keys
from posviz.embedding import token_embeddings
from posviz.partial import partial_rope, rotated_dims
from posviz.rope import apply_rope
from posviz.schemes import position_scheme

RNG = np.random.default_rng(61)
PARTIAL = position_scheme("partial_rope")


def turning_matrix(d, m, fraction, pairing, base=10_000.0):
    """The (d, d) matrix partial RoPE multiplies a row at position m by: a 2x2 rotation by
    m * base^(-2i/r) on the channels of pair i of the first r, 1 on the diagonal elsewhere."""
    r = int(d * fraction)
    matrix = np.eye(d)
    for i in range(r // 2):
        a, b = (2 * i, 2 * i + 1) if pairing == "interleaved" else (i, i + r // 2)
        angle = m * base ** (-2 * i / r)
        matrix[a, a], matrix[a, b] = math.cos(angle), -math.sin(angle)
        matrix[b, a], matrix[b, b] = math.sin(angle), math.cos(angle)
    return matrix


@pytest.mark.parametrize("pairing", ["half", "interleaved"])
@pytest.mark.parametrize(("d", "fraction"), [(16, 0.25), (16, 0.5), (16, 1.0), (32, 0.25),
                                             (80, 0.4), (8, 0.25)])
def test_partial_rope_is_a_rotation_on_its_pairs_and_the_identity_elsewhere(d, fraction, pairing):
    x, positions = RNG.normal(size=(5, d)), np.array([0, 1, 7, 300, 4096])
    out = partial_rope(x, positions, fraction, pairing=pairing)
    want = np.stack([turning_matrix(d, m, fraction, pairing) @ row
                     for m, row in zip(positions, x, strict=True)])
    np.testing.assert_allclose(out, want, rtol=0, atol=1e-12)
    r = rotated_dims(d, fraction)
    np.testing.assert_array_equal(out[:, r:], x[:, r:])  # the rest carries content only
    np.testing.assert_array_equal(out[0], x[0])          # position 0 turns nothing


def test_a_whole_head_is_rope_itself_bit_for_bit():
    x, positions = RNG.normal(size=(3, 6, 16)), np.arange(6)
    for pairing in ("interleaved", "half"):
        np.testing.assert_array_equal(partial_rope(x, positions, 1.0, 500.0, pairing),
                                      apply_rope(x, positions, 500.0, pairing))


def test_the_stack_turns_qwen3_next_s_quarter_of_each_head():
    """The entry holds Qwen3-Next's published fraction and its layout (split halves); the
    stand-in stack's 16-channel heads turn their first 4 channels."""
    assert PARTIAL.kind == "rotate"
    assert PARTIAL.params["fraction"] == 0.25 and PARTIAL.params["pairing"] == "half"
    assert rotated_dims(16, PARTIAL.params["fraction"]) == 4


def test_the_turned_part_of_a_score_depends_on_the_offset_only():
    q, k = RNG.normal(size=16), RNG.normal(size=16)
    r = rotated_dims(16, PARTIAL.params["fraction"])
    for offset in (1, 5, 40):
        dots = []
        for m in (0, 9, 1000):
            turned = partial_rope(np.stack([q, k]), np.array([m, m + offset]), 0.25)
            dots.append(turned[0, :r] @ turned[1, :r])
            assert turned[0, r:] @ turned[1, r:] == pytest.approx(q[r:] @ k[r:], abs=1e-12)
        np.testing.assert_allclose(dots, dots[0], rtol=0, atol=1e-12)


def test_a_layer_with_partial_rope_scores_by_the_explicit_matrix():
    """Layer 1's weights of head h: softmax of (M_i q_i) . (M_j k_j) / 4 under the mask, M the
    turning matrix of each position, from the layer's own queries and keys."""
    tokens = ["刚", "想", "到", "了", "刚"]
    x = token_embeddings(tokens, 32)
    layer = init_layers(1, 32)[0]
    weights, _ = attention_layer(x, layer, 2, "partial_rope", causal=True)
    q, k = queries_keys(x, layer, 2)
    for h in range(2):
        turned_q = [turning_matrix(16, i, 0.25, "half") @ q[h, i] for i in range(5)]
        turned_k = [turning_matrix(16, j, 0.25, "half") @ k[h, j] for j in range(5)]
        for i in range(5):
            scores = [turned_q[i] @ turned_k[j] / 4 for j in range(i + 1)]
            top = max(scores)
            total = math.fsum(math.exp(s - top) for s in scores)
            want = [math.exp(s - top) / total for s in scores] + [0.0] * (4 - i)
            np.testing.assert_allclose(weights[h, i], want, rtol=0, atol=1e-12)


def test_one_token_or_position_off_is_no_position():
    """One token stands at position 0, which turns nothing: partial RoPE, RoPE and no position
    give the same run; with position off the page runs "none" itself."""
    x = token_embeddings(["想"], 64)
    runs = [attention_stack(x, 2, 4, name) for name in ("none", "rope", "partial_rope")]
    for run in runs[1:]:
        np.testing.assert_array_equal(run.outputs[-1], runs[0].outputs[-1])


def test_partial_rope_tells_a_sentence_from_its_reversal_and_no_position_does_not():
    """Without a mask, no position cannot tell a sentence from its reversal (rounding only);
    partial RoPE can."""
    tokens = list("刚想到了")
    x = token_embeddings(tokens, 32)
    back = x[::-1]
    gaps = {}
    for name in ("none", "partial_rope"):
        ahead, behind = (attention_stack(rows, 1, 2, name, causal=False).outputs[-1]
                         for rows in (x, back))
        gaps[name] = np.abs(ahead - behind[::-1]).max()
    assert gaps["none"] < 1e-12 < 1e-3 < gaps["partial_rope"]
