"""Statements the lessons' texts make, checked against the code that computes the numbers."""

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from posviz.alibi import alibi_slopes, mean_attention_distance
from posviz.attention import alibi_attention
from posviz.embedding import token_embeddings
from posviz.permutation import permutation_check, reversal
from posviz.relative import relative_position_bucket
from posviz.rope import apply_rope
from posviz.sinusoidal import sinusoidal, wavelength
from ui.i18n import prose, text


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_concatenated_heatmap_has_its_own_caption_naming_column_half_d(lang):
    """[sin | cos]: the fastest wave starts again at column d/2, so the interleaved caption
    ("left fast, right slow") is not shown for it."""
    at = AppTest.from_file("../../pages/2_sinusoidal.py", default_timeout=60)
    at.query_params["lang"] = lang
    at.run()
    captions = [c.value for c in at.caption]
    assert text("sinusoidal.heatmap_caption", lang) in captions
    at.number_input(key="sinusoidal_d").set_value(32)
    at.radio(key="sinusoidal_layout").set_value("concatenated").run()
    assert not at.exception
    captions = [c.value for c in at.caption]
    assert text("sinusoidal.heatmap_caption_concatenated", lang, half=16) in captions
    assert text("sinusoidal.heatmap_caption", lang) not in captions
    pe = sinusoidal(40, 32, layout="concatenated")
    np.testing.assert_allclose(pe[:, 16], np.cos(np.arange(40)), atol=1e-12)


@pytest.mark.parametrize("base", [1.5, 2.0, 10.0, 10_000.0])
def test_any_base_above_one_gives_every_position_its_own_row(base):
    """The base help: rows are distinct for any base > 1; the base sets the slowest wave,
    2 pi base^((d-2)/d) positions long."""
    pe = sinusoidal(2_000, 16, base)
    gaps = np.linalg.norm(pe[:, None] - pe[None], axis=-1) + np.eye(len(pe))  # (T, T)
    assert gaps.min() > 1e-3
    assert wavelength(16, base)[-1] == pytest.approx(2 * np.pi * base ** (14 / 16))


def test_t5_exact_buckets_are_half_of_one_sides_buckets():
    """alibi_t5.md: with 32 buckets, e = 16 distances get a bucket each in the decoder and
    e = 8 in the encoder (n in the formula is one side's buckets)."""
    r = -np.arange(40)  # keys before the query
    causal, both = (relative_position_bucket(r, bidirectional, 32, 128)
                    for bidirectional in (False, True))
    assert causal[:16].tolist() == list(range(16)) and causal[16] == causal[17] == 16
    assert both[:8].tolist() == list(range(8)) and both[8] == both[9] == 8
    assert relative_position_bucket(np.array([1]), True, 32, 128)[0] == 16 + 1
    for lang in ("en", "zh"):
        said = prose("alibi_t5", lang)
        assert "= 16" in said and "= 8" in said


def test_an_alibi_penalty_never_pushes_a_head_further_back():
    """The lesson's ALiBi answer: a penalty growing with distance can only pull attention closer
    (d/dm of the mean distance is minus its variance), and with one token nothing changes."""
    rng = np.random.default_rng(0)
    scores = rng.standard_normal((6, 9, 9))                                  # (H, T, T)
    i, j = np.indices((9, 9))
    last = None
    for slope in (0.0, 1 / 256, 1 / 16, 1 / 2, 2.0):
        biased = np.where(j <= i, scores - slope * (i - j), -np.inf)
        w = np.exp(biased - biased.max(-1, keepdims=True))
        w /= w.sum(-1, keepdims=True)
        mean = mean_attention_distance(w)
        assert last is None or (mean <= last + 1e-12).all()
        last = mean
    with_bias, without = alibi_attention(list("刚想到了"), 8, ("paper", "none"))
    assert (mean_attention_distance(with_bias) < mean_attention_distance(without)).all()
    assert alibi_slopes(8)[0] == 0.5 and alibi_slopes(8)[-1] == 1 / 256
    one = alibi_attention(["刚"], 8, ("paper", "none"))
    assert not mean_attention_distance(one[0]).any() and not mean_attention_distance(one[1]).any()


def test_under_a_causal_mask_reordering_changes_the_no_position_map_from_layer_1_on():
    """The attention grid caption: a token that moves sees another set of tokens, so even
    layer 1's no-position weights change, though the last token's output does not."""
    x = token_embeddings(list("刚想到了"), 64)
    check = permutation_check(x, reversal(4, keep_last=True), 1, 4, "none", causal=True)
    assert np.abs(check.weight_difference(0)).max() > 0.1
    assert check.last_gaps[0] < 1e-12


def test_rotate_half_is_a_quarter_turn_and_rope_is_not():
    """rope.md: rotate_half maps each pair (a, b) to (-b, a), multiplication by i; RoPE is
    q cos(m theta) + rotate_half(q) sin(m theta), a turn by m theta_i, not by 90 degrees."""
    q = np.random.default_rng(1).standard_normal((3, 8))
    half = q.shape[-1] // 2

    def rotate_half(x):
        return np.concatenate([-x[..., half:], x[..., :half]], axis=-1)

    z = q[:, :half] + 1j * q[:, half:]
    turned = rotate_half(q)
    np.testing.assert_allclose(turned[:, :half] + 1j * turned[:, half:], 1j * z, atol=1e-12)
    positions = np.array([0, 1, 7])
    angle = np.tile(positions[:, None] * 10_000.0 ** (-np.arange(0, 8, 2) / 8), 2)  # (T, d)
    np.testing.assert_allclose(apply_rope(q, positions, pairing="half"),
                               q * np.cos(angle) + turned * np.sin(angle), atol=1e-12)
    assert not np.allclose(apply_rope(q, positions, pairing="half")[1:], turned[1:])
