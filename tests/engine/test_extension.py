"""The context-extension experiment on the committed RoPE model: each method's stretch is
wired as posviz.rope computes it (checked against attention by hand), changes nothing at factor
1, DroPE's model has no position signal, the model as trained measures what report.json says,
and a run is seeded."""

import json

import numpy as np
import pytest
import torch

from posviz import extension
from posviz.model import attention_maps, load_checkpoint, window_losses, without_position
from posviz.rope import METHODS, apply_rope, context_frequencies, yarn_temperature
from posviz.train import MODELS, TrainSettings, evaluation_windows


@pytest.fixture(scope="module")
def trained():
    model, vocab = load_checkpoint(MODELS / "rope.pt")
    report = json.loads((MODELS / "report.json").read_text("utf-8"))
    settings = TrainSettings(**report["settings"])
    return model, vocab, report, evaluation_windows(settings, vocab)


def first_layer_by_hand(model, ids: np.ndarray, frequencies: np.ndarray,
                        score_scale: float) -> np.ndarray:
    """The first layer's attention with numpy: q and k turned by apply_rope at the given
    frequencies, scores q.k / sqrt(d) times score_scale, causal softmax. (H, T, T)"""
    c = model.config
    block = model.encoder.blocks[0]
    with torch.no_grad():
        x = block.norm1(model.encoder.embedding(torch.from_numpy(ids)[None]))[0]
        q, k, _ = block.attention.qkv(x).double().numpy().reshape(len(ids), 3, c.n_heads, -1) \
            .transpose(1, 2, 0, 3)                                          # 3 x (H, T, d)
    positions = np.arange(len(ids))
    q = apply_rope(q, positions, frequencies=frequencies)
    k = apply_rope(k, positions, frequencies=frequencies)
    scores = q @ k.transpose(0, 2, 1) / np.sqrt(q.shape[-1]) * score_scale
    scores[:, np.triu(np.ones((len(ids), len(ids)), dtype=bool), 1)] = -np.inf
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


@pytest.mark.parametrize("method", METHODS)
def test_each_stretch_turns_the_pairs_as_posviz_rope_computes(trained, method):
    model, _, _, held_out = trained
    c = model.config
    stretched = extension.stretched(model, method, 4.0)
    frequencies = context_frequencies(method, c.d_model // c.n_heads, 4.0, c.max_len, c.base)
    scale = 1 / yarn_temperature(4.0) if method == "yarn" else 1.0
    ids = held_out[0, :40]
    np.testing.assert_allclose(attention_maps(stretched, ids)[0],
                               first_layer_by_hand(model, ids, frequencies, scale), atol=1e-5)
    at_one = extension.stretched(model, method, 1.0)  # factor 1: the model as trained
    np.testing.assert_allclose(window_losses(at_one, held_out[:8]),
                               window_losses(model, held_out[:8]), atol=1e-5)


def test_the_model_as_trained_measures_what_the_report_says(trained):
    model, _, report, held_out = trained
    np.testing.assert_allclose(window_losses(model, held_out).mean(axis=0),
                               report["models"]["rope"]["position_loss"], atol=1e-4)


def test_without_rope_the_first_layer_reads_what_came_before_as_a_bag(trained):
    model, _, _, held_out = trained
    none = without_position(model)
    ids = held_out[1, :12]
    order = np.concatenate([np.random.default_rng(0).permutation(11), [11]])  # last kept
    for m, same in ((none, True), (model, False)):
        a = attention_maps(m, ids)[0, :, -1]  # the last query's weights over the keys
        b = attention_maps(m, ids[order])[0, :, -1]
        assert np.allclose(b, a[:, order], atol=1e-6) == same


def test_a_run_is_seeded_and_says_where_it_is(monkeypatch):
    runs = [list(extension.run(steps=2)) for _ in range(2)]
    for progress in runs:
        assert [p.done for p in progress] == list(range(1, len(METHODS) + 4))
        assert progress[-1].done == progress[-1].total and progress[-2].result is None
    first, second = (progress[-1].result for progress in runs)
    assert list(first.losses) == [*METHODS, extension.DROPE]
    for method in first.losses:
        assert first.losses[method].shape == (64, 128)
        np.testing.assert_array_equal(first.losses[method], second.losses[method])
    assert first.change("original", slice(0, 32)) == (0.0, 0.0)
    assert first.change("pi", slice(0, 32))[0] > 0  # PI blurs the positions it was trained on

