"""The torch model: its position parts agree with posviz's numpy functions, its attention with a
slow loop, and checkpoints round-trip through torch.load(weights_only=True)."""

import math

import numpy as np
import pytest
import torch

from posviz.alibi import alibi_bias, alibi_slopes
from posviz.corpus import vocabulary
from posviz.model import (
    MODEL_SCHEMES,
    LanguageModel,
    ModelConfig,
    SelfAttention,
    alibi_table,
    attention_maps,
    learned_table,
    load_checkpoint,
    next_token_probabilities,
    position_losses,
    rotate,
    save_checkpoint,
    sinusoidal_table,
    top_predictions,
)
from posviz.rope import apply_rope
from posviz.sinusoidal import sinusoidal

VOCAB = 40


def model(scheme: str, seed: int = 0, **sizes) -> LanguageModel:
    torch.manual_seed(seed)
    return LanguageModel(ModelConfig(VOCAB, scheme, **({"d_model": 16, "n_heads": 2,
                                                         "d_ff": 32, "max_len": 12} | sizes)))


@pytest.mark.parametrize("seq_len, d_model, base", [(1, 2, 10_000.0), (12, 16, 10_000.0),
                                                     (130, 64, 10_000.0), (40, 8, 100.0)])
def test_sinusoidal_table_is_posviz_sinusoidal(seq_len, d_model, base):
    np.testing.assert_allclose(sinusoidal_table(seq_len, d_model, base).numpy(),
                               sinusoidal(seq_len, d_model, base), atol=1e-6)


@pytest.mark.parametrize("seq_len, dim, base", [(1, 2, 10_000.0), (9, 16, 10_000.0),
                                                (128, 16, 10_000.0), (33, 32, 500.0)])
def test_rotate_matches_apply_rope_with_interleaved_pairs(seq_len, dim, base):
    x = np.random.default_rng(seq_len + dim).standard_normal((3, seq_len, dim))
    turned = rotate(torch.from_numpy(x).float(), base).double().numpy()
    np.testing.assert_allclose(turned, apply_rope(x, np.arange(seq_len), base), atol=1e-4)


@pytest.mark.parametrize("n_heads, seq_len", [(1, 1), (4, 32), (3, 10), (8, 128)])
def test_alibi_table_is_posviz_alibi_bias(n_heads, seq_len):
    np.testing.assert_allclose(alibi_table(n_heads, seq_len).numpy(),
                               alibi_bias(n_heads, seq_len), atol=1e-6)


def slow_attention(layer: SelfAttention, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The layer's weights (H, T, T) and output (T, D), one query and key at a time."""
    c = layer.config
    w_qkv, b_qkv = (p.detach().double().numpy() for p in (layer.qkv.weight, layer.qkv.bias))
    w_out, b_out = (p.detach().double().numpy() for p in (layer.out.weight, layer.out.bias))
    seq_len, d = len(x), c.d_model // c.n_heads
    q, k, v = np.split(x @ w_qkv.T + b_qkv, 3, axis=-1)
    slopes = alibi_slopes(c.n_heads)
    weights = np.zeros((c.n_heads, seq_len, seq_len))
    heads = np.zeros((seq_len, c.d_model))
    for h in range(c.n_heads):
        cols = slice(h * d, (h + 1) * d)
        for i in range(seq_len):
            scores = np.full(seq_len, -np.inf)
            for j in range(seq_len if not c.causal else i + 1):
                qi, kj = q[i, cols], k[j, cols]
                if c.scheme == "rope":
                    qi = apply_rope(qi[None], np.array([i]), c.base)[0]
                    kj = apply_rope(kj[None], np.array([j]), c.base)[0]
                scores[j] = qi @ kj / math.sqrt(d)
                if c.scheme == "alibi":
                    scores[j] -= slopes[h] * abs(i - j)
            e = np.exp(scores - scores.max())
            weights[h, i] = e / e.sum()
            heads[i, cols] = weights[h, i] @ v[:, cols]
    return weights, heads @ w_out.T + b_out


@pytest.mark.parametrize("causal", [True, False])
@pytest.mark.parametrize("scheme", MODEL_SCHEMES)
def test_attention_agrees_with_a_slow_loop(scheme, causal):
    torch.manual_seed(1)
    layer = SelfAttention(ModelConfig(VOCAB, scheme, d_model=16, n_heads=4, causal=causal))
    x = np.random.default_rng(2).standard_normal((7, 16))
    out, weights = layer(torch.from_numpy(x).float()[None])
    slow_weights, slow_out = slow_attention(layer, x)
    np.testing.assert_allclose(weights[0].detach().numpy(), slow_weights, atol=1e-5)
    np.testing.assert_allclose(out[0].detach().numpy(), slow_out, atol=1e-5)


@pytest.mark.parametrize("scheme", MODEL_SCHEMES)
def test_causal_weights_are_zero_above_the_diagonal_and_rows_sum_to_one(scheme):
    maps = attention_maps(model(scheme), np.arange(10) % VOCAB)
    assert maps.shape == (2, 2, 10, 10)
    assert (np.triu(maps, k=1) == 0).all()
    np.testing.assert_allclose(maps.sum(-1), 1.0, atol=1e-6)


@pytest.mark.parametrize("scheme", MODEL_SCHEMES)
def test_a_later_token_never_changes_an_earlier_prediction(scheme):
    m = model(scheme)
    ids = np.array([3, 5, 7, 9, 11])
    changed = ids.copy()
    changed[-1] = 20
    np.testing.assert_allclose(next_token_probabilities(m, ids)[:-1],
                               next_token_probabilities(m, changed)[:-1], atol=1e-6)


def test_without_position_two_causal_layers_still_see_order():
    """MATH.md: permuting earlier tokens changes later outputs of a causal stack."""
    m = model("none")
    before = next_token_probabilities(m, np.array([3, 5, 7, 9]))[-1]
    after = next_token_probabilities(m, np.array([5, 3, 7, 9]))[-1]
    assert np.abs(before - after).max() > 1e-5


def test_the_learned_table_has_no_row_past_its_length():
    m = model("learned")
    next_token_probabilities(m, np.arange(12))
    with pytest.raises(ValueError, match="12 rows"):
        next_token_probabilities(m, np.arange(13))
    assert learned_table(m).shape == (12, 16)
    with pytest.raises(ValueError, match="only a learned model"):
        learned_table(model("rope"))


def test_formula_schemes_run_past_the_training_length():
    for scheme in ("none", "sinusoidal", "rope", "alibi"):
        assert next_token_probabilities(model(scheme), np.arange(40) % VOCAB).shape == (40, VOCAB)


def test_config_refuses_unknown_schemes_and_odd_heads():
    with pytest.raises(ValueError, match="scheme"):
        ModelConfig(VOCAB, "t5")
    with pytest.raises(ValueError, match="even head size"):
        ModelConfig(VOCAB, "rope", d_model=12, n_heads=4)


def test_top_predictions_are_the_most_likely_in_order():
    p = np.array([[0.1, 0.5, 0.3, 0.1], [0.7, 0.1, 0.1, 0.1]])
    ids, ps = top_predictions(p, 2)
    np.testing.assert_array_equal(ids, [[1, 2], [0, 1]])
    np.testing.assert_allclose(ps, [[0.5, 0.3], [0.7, 0.1]])


def test_position_losses_are_the_cross_entropy_at_each_position():
    m = model("alibi")
    w = np.random.default_rng(0).integers(VOCAB, size=(3, 9))
    losses = position_losses(m, w)
    probabilities = np.stack([next_token_probabilities(m, row[:-1]) for row in w])  # (N, T, V)
    picked = np.take_along_axis(probabilities, w[:, 1:, None], axis=-1)[..., 0]
    np.testing.assert_allclose(losses, -np.log(picked).mean(0), rtol=1e-5)


@pytest.mark.parametrize("scheme", MODEL_SCHEMES)
def test_checkpoints_round_trip_with_weights_only(scheme, tmp_path):
    m, vocab = model(scheme), vocabulary()
    size = save_checkpoint(m, vocab, tmp_path / "m.pt")
    assert size == (tmp_path / "m.pt").stat().st_size
    torch.load(tmp_path / "m.pt", weights_only=True)
    loaded, loaded_vocab = load_checkpoint(tmp_path / "m.pt")
    assert loaded.config == m.config and loaded_vocab == vocab
    ids = np.arange(8)
    np.testing.assert_array_equal(next_token_probabilities(loaded, ids),
                                  next_token_probabilities(m, ids))
