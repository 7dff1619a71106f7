"""The context-extension experiment on the committed RoPE model: each method's stretch is
wired as posviz.rope computes it (checked against attention by hand), changes nothing at factor
1, DroPE's model has no position signal, the model as trained measures what report.json says,
and a run is seeded."""

import json

import numpy as np
import pytest
import torch

from posviz import extension
from posviz.extension import METHODS
from posviz.model import attention_maps, load_checkpoint, window_losses, without_position
from posviz.rope import apply_rope, context_frequencies, yarn_temperature
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
    """"yarn" with the ramp of YaRN's code (and transformers'), "yarn_paper" with the paper's."""
    model, _, _, held_out = trained
    c = model.config
    stretched = extension.stretched(model, method, 4.0)
    ramp, named = ("paper", "yarn") if method == "yarn_paper" else ("code", method)
    frequencies = context_frequencies(named, c.d_model // c.n_heads, 4.0, c.max_len, c.base,
                                      ramp=ramp)
    scale = 1 / yarn_temperature(4.0) if named == "yarn" else 1.0
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



def test_yarn_runs_the_ramp_transformers_ships_and_keeps_the_fastest_pair():
    """On the RoPE model (d 16, L 32, s 4) the code's ramp runs from pair 0 to pair 2, so pair 0
    keeps its speed and pair 1 is half blended; the paper's ramp slows pair 0 too."""
    transformers = pytest.importorskip("transformers")
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    model, _ = load_checkpoint(MODELS / "rope.pt")
    c = model.config
    dim = c.d_model // c.n_heads
    config = transformers.LlamaConfig(
        hidden_size=c.d_model, num_attention_heads=c.n_heads, max_position_embeddings=4 * c.max_len,
        rope_parameters={"rope_type": "yarn", "rope_theta": c.base, "factor": 4.0,
                         "original_max_position_embeddings": c.max_len})
    inv_freq, attention_factor = ROPE_INIT_FUNCTIONS["yarn"](config, "cpu")
    yarn, paper = (np.array(extension.stretched(model, m, 4.0).config.frequencies)
                   for m in ("yarn", "yarn_paper"))
    np.testing.assert_allclose(yarn, inv_freq.double().numpy(), rtol=1e-6)
    assert extension.stretched(model, "yarn", 4.0).config.score_scale == pytest.approx(
        attention_factor ** 2, rel=1e-12)  # transformers scales cos and sin: the score twice
    theta = 10_000.0 ** (-np.arange(0, dim, 2) / dim)
    assert yarn[0] == pytest.approx(theta[0]) and yarn[1] == pytest.approx(theta[1] * 5 / 8)
    np.testing.assert_allclose(yarn[2:], theta[2:] / 4)
    assert paper[0] < theta[0] / 2


def test_the_stretched_readings_are_the_figures_in_docs(trained):
    """docs/models.md's table quotes each stretched reading of the seeded run, inside the
    trained length and past it, as `python -m tests.benchmarks.extension_benchmark` prints it;
    YaRN with the ramp transformers runs reads best past the trained length."""
    import re

    from tests.conftest import ROOT

    model, _, _, held_out = trained
    rows = {"original": "as trained", "pi": "PI", "ntk": "NTK-aware",
            "yarn": "YaRN (transformers' ramp)", "yarn_paper": "YaRN (paper's ramp)",
            "llama3": "Llama 3.1"}
    doc = (ROOT / "docs" / "models.md").read_text("utf-8")
    past = {}
    for method, row in rows.items():
        losses = window_losses(extension.stretched(model, method, 4.0), held_out)  # (N, T)
        inside, past[method] = losses[:, :32].mean(), losses[:, 32:].mean()
        line = re.search(rf"^\| {re.escape(row)} \| ([0-9.]+).*\| ([0-9.]+) \|$", doc, re.M)
        assert line, row
        assert line.groups() == (f"{inside:.3f}", f"{past[method]:.3f}"), row
    assert min(past, key=past.get) == "yarn"
