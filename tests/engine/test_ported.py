"""posviz.ported on real transformers models built here (tiny, random, saved and read back): each
port's run is transformers' own model with the port's rotation substituted for the model's,
written as a slow loop over positions and pairs of lanes from the configuration's numbers; the
model's own run is transformers' own; a bug is offered only where the model is built so; a
port's run leaves the model, and other models of the same code, as they were."""

from __future__ import annotations

import math
import threading

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from transformers import (  # noqa: E402
    AutoModelForCausalLM,
    CohereConfig,
    Gemma4TextConfig,
    GPTNeoXConfig,
    LlamaConfig,
    PreTrainedTokenizerFast,
)
from transformers.models.gemma4 import modeling_gemma4  # noqa: E402
from transformers.models.gpt_neox import modeling_gpt_neox  # noqa: E402
from transformers.models.llama import modeling_llama  # noqa: E402

from posviz import ported, pretrained, proportional  # noqa: E402
from posviz.pretrained import probing  # noqa: E402
from posviz.rope import apply_rope  # noqa: E402
from tests.helpers.hf_models import saved, tokenizer  # noqa: E402

SENTENCE = "the quick brown fox 刚想到了"


def configs(vocab: int) -> dict:
    ids = {"vocab_size": vocab, "bos_token_id": 0, "eos_token_id": 0}
    return {
        "llama": LlamaConfig(hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                             num_attention_heads=4, num_key_value_heads=2, **ids),
        "neox": GPTNeoXConfig(hidden_size=64, intermediate_size=64, num_hidden_layers=2,
                              num_attention_heads=4, rotary_pct=0.5, **ids),
        "gemma4": Gemma4TextConfig(hidden_size=32, intermediate_size=64, num_hidden_layers=6,
                                   num_attention_heads=4, num_key_value_heads=2, head_dim=16,
                                   global_head_dim=32, pad_token_id=0, **ids),
        "cohere": CohereConfig(hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                               num_attention_heads=4, num_key_value_heads=2, pad_token_id=0,
                               **ids),
    }


@pytest.fixture(scope="module")
def folders(tmp_path_factory) -> dict:
    vocab = len(tokenizer())
    return {name: saved(config, tmp_path_factory.mktemp(name))
            for name, config in configs(vocab).items()}


@pytest.fixture(scope="module")
def models(folders) -> dict:
    """Each model loaded once by posviz."""
    return {name: pretrained.load(pretrained.card(folder)) for name, folder in folders.items()}


@pytest.fixture(scope="module")
def theirs(folders) -> dict:
    """Each RoPE model loaded once by transformers alone, with its tokenizer."""
    return {name: (AutoModelForCausalLM.from_pretrained(folders[name],
                                                        attn_implementation="eager"),
                   PreTrainedTokenizerFast.from_pretrained(folders[name]))
            for name in ("llama", "neox", "gemma4")}


def turned(x, pairs, time_axis: int):
    """x (float) with, at each position t along time_axis, each pair of lanes (a, b, speed)
    turned by the angle t * speed, b ahead of a: a loop over positions and pairs, in float64;
    the lanes of no pair as they were."""
    y = x.double().movedim(time_axis, 0)
    out = y.clone()
    for t in range(y.shape[0]):
        for a, b, speed in pairs:
            c, s = math.cos(t * speed), math.sin(t * speed)
            out[t, ..., a] = y[t, ..., a] * c - y[t, ..., b] * s
            out[t, ..., b] = y[t, ..., b] * c + y[t, ..., a] * s
    return out.movedim(0, time_axis).to(x.dtype)


def split(width: int, base: float, turning: int | None = None, denominator: int | None = None):
    """Pairs (i, i + width/2) at base^(-2i/denominator), for the first `turning` pairs."""
    half, denominator = width // 2, denominator or width
    return [(i, half + i, base ** (-2 * i / denominator)) for i in range(turning or half)]


def neighbours(width: int, base: float, turning: int | None = None):
    """Pairs (2i, 2i + 1) at base^(-2i/width), for the first `turning` pairs."""
    return [(2 * i, 2 * i + 1, base ** (-2 * i / width)) for i in range(turning or width // 2)]


def inside(width: int, base: float, turning: int):
    """Pairs (i, i + turning) at base^(-2i/width): paired inside the turned stretch."""
    return [(i, turning + i, base ** (-2 * i / width)) for i in range(turning)]


def rotations(name: str, config, port: str) -> dict[int, list]:
    """The pairs of lanes and speeds each layer's heads turn by (keyed by the rotary width),
    from the configuration's own numbers: the model's (port "model") or the port's."""
    if name == "llama":
        width, base = config.head_dim, config.rope_parameters["rope_theta"]
        return {width: neighbours(width, base) if port == "halves_as_pairs"
                else split(width, base)}
    if name == "neox":
        width = int(config.hidden_size // config.num_attention_heads
                    * config.rope_parameters["partial_rotary_factor"])
        base = config.rope_parameters["rope_theta"]
        return {width: neighbours(width, base) if port == "halves_as_pairs"
                else split(width, base)}
    sliding, full = (config.rope_parameters[k] for k in ("sliding_attention", "full_attention"))
    narrow, wide = (config.per_layer_config[k].head_dim for k in ("sliding_attention",
                                                                 "full_attention"))
    turning = int(full["partial_rotary_factor"] * wide // 2)
    own = {narrow: split(narrow, sliding["rope_theta"]),
           wide: split(wide, full["rope_theta"], turning)}
    return own | {
        "model": {},
        "halves_as_pairs": {narrow: neighbours(narrow, sliding["rope_theta"]),
                            wide: neighbours(wide, full["rope_theta"], turning)},
        "gemma4_prefix": {wide: inside(wide, full["rope_theta"], turning)},
        "gemma4_whole": {wide: split(wide, full["rope_theta"])},
        "one_base.10000": {wide: split(wide, sliding["rope_theta"], turning)},
        "one_base.1e+06": {narrow: split(narrow, full["rope_theta"])},
    }[port]


def substituted(name: str, config, port: str, monkeypatch) -> None:
    """The model's modeling code turns queries and keys by the slow loop's rotations."""
    by_width = rotations(name, config, port)
    if name == "gemma4":
        monkeypatch.setattr(modeling_gemma4, "apply_rotary_pos_emb",
                            lambda x, cos, sin, unsqueeze_dim=1: turned(
                                x, by_width[x.shape[-1]], unsqueeze_dim - 1))
        return
    [pairs] = by_width.values()
    module = {"llama": modeling_llama, "neox": modeling_gpt_neox}[name]
    monkeypatch.setattr(module, "apply_rotary_pos_emb",
                        lambda q, k, cos, sin, unsqueeze_dim=1: (turned(q, pairs, 2),
                                                                 turned(k, pairs, 2)))


def their_weights(theirs, name: str, text: str) -> np.ndarray:
    model, tok = theirs[name]
    ids = torch.tensor([tok(text)["input_ids"]])
    with torch.no_grad():
        out = model(input_ids=ids, output_attentions=True)
    return np.stack([a[0].double().numpy() for a in out.attentions])


PORTS = [("llama", "halves_as_pairs"), ("neox", "halves_as_pairs"),
         ("gemma4", "halves_as_pairs"), ("gemma4", "gemma4_prefix"), ("gemma4", "gemma4_whole"),
         ("gemma4", "one_base.10000"), ("gemma4", "one_base.1e+06")]


def test_each_bug_is_offered_only_where_the_model_is_built_so(models):
    """Split halves (rotate_half) everywhere Llama-like; Gemma 4's two bugs on its proportional
    global layers; one base per base of a model whose layer kinds differ in base; nothing for
    Cohere (its rotate_half turns neighbouring pairs), or posviz's own model."""
    found = {name: {p.key: p.layers for p in ported.ports(m)} for name, m in models.items()}
    assert found == {
        "llama": {"halves_as_pairs": (0, 1)}, "neox": {"halves_as_pairs": (0, 1)},
        "gemma4": {"halves_as_pairs": (0, 1, 2, 3, 4, 5), "gemma4_prefix": (5,),
                   "gemma4_whole": (5,), "one_base.10000": (5,),
                   "one_base.1e+06": (0, 1, 2, 3, 4)},
        "cohere": {}}
    [own] = [f for f in pretrained.own() if f.name == "posviz/rope"]
    assert ported.ports(pretrained.load(pretrained.card(own))) == ()
    gemma = {p.key: p.numbers for p in ported.ports(models["gemma4"])}
    assert gemma["gemma4_whole"] == {"width": 32, "turned": 4, "half": 16,
                                     "base": 1_000_000.0, "kind": "full_attention"}
    assert gemma["halves_as_pairs"] == {"widths": [16, 32]}


@pytest.mark.parametrize("name", ["llama", "neox", "gemma4"])
def test_the_slow_loop_with_the_models_own_rotation_is_transformers_own(models, theirs, name,
                                                                        monkeypatch):
    """The reference is right: transformers' run with the model's own rotation written as the
    slow loop is transformers' own run, and posviz's reading of the model."""
    own = their_weights(theirs, name, SENTENCE)
    np.testing.assert_allclose(pretrained.read(models[name], SENTENCE).weights, own, atol=1e-6)
    substituted(name, theirs[name][0].config, "model", monkeypatch)
    np.testing.assert_allclose(their_weights(theirs, name, SENTENCE), own, atol=1e-5)


@pytest.mark.parametrize("name, key", PORTS)
def test_a_ports_run_is_transformers_with_the_ports_rotation(models, theirs, name, key,
                                                            monkeypatch):
    """The port's attention, every layer and head, is transformers' own run with the port's
    rotation (the slow loop, from the configuration's numbers) in place of the model's; it
    moves the weights from the model's own, and from the port's first wrong layer on only."""
    loaded = models[name]
    [port] = [p for p in ported.ports(loaded) if p.key == key]
    own = pretrained.read(loaded, SENTENCE).weights
    got = pretrained.read(loaded, SENTENCE, port=port).weights
    substituted(name, theirs[name][0].config, key, monkeypatch)
    np.testing.assert_allclose(got, their_weights(theirs, name, SENTENCE), atol=1e-5)
    moved = np.abs(got - own).max(axis=(1, 2, 3))
    assert moved.max() > 1e-3  # the bug shows on the sentence
    assert np.all(moved[:min(port.layers)] == 0)  # before its first wrong layer, nothing moves


def test_a_ports_run_puts_the_model_and_its_code_back(models):
    """After a port's run the modeling code's rotate_half and the rotary frequencies are the
    model's own again, and a reading is the one before."""
    loaded = models["gemma4"]
    before = pretrained.read(loaded, SENTENCE)
    rotate = modeling_gemma4.rotate_half
    buffers = {n: b.clone() for n, b in loaded.model.named_buffers() if "inv_freq" in n}
    for port in ported.ports(loaded):
        pretrained.read(loaded, SENTENCE, port=port)
    assert modeling_gemma4.rotate_half is rotate
    for n, b in loaded.model.named_buffers():
        if "inv_freq" in n:
            assert torch.equal(b, buffers[n]), n
    np.testing.assert_array_equal(pretrained.read(loaded, SENTENCE).weights,
                                  before.weights)


def test_another_model_of_the_same_code_reads_its_own_while_a_port_runs(folders, models):
    """A second Llama read in another thread while the first runs as its port (held halfway
    through its run) turns as its own code does."""
    other = pretrained.load(pretrained.card(folders["llama"]))
    alone = pretrained.read(other, SENTENCE)
    [port] = ported.ports(models["llama"])
    halfway, done = threading.Event(), threading.Event()

    def hold(*_):
        halfway.set()
        assert done.wait(60)

    layer = models["llama"].model.model.layers[0]
    rotate = modeling_llama.rotate_half
    handle = layer.register_forward_hook(hold)
    try:
        running = threading.Thread(target=pretrained.read,
                                   args=(models["llama"], SENTENCE), kwargs={"port": port})
        running.start()
        assert halfway.wait(60)
        assert modeling_llama.rotate_half is not rotate  # the port's reading is in place
        meanwhile = pretrained.read(other, SENTENCE)
        done.set()
        running.join(60)
    finally:
        done.set()
        handle.remove()
    np.testing.assert_array_equal(meanwhile.weights, alone.weights)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 16), st.integers(0, 5), st.floats(10.0, 1e6))
def test_the_lanes_give_the_clinics_own_port_rotations(pairs, seed, base):
    """P^T R P with the split-halves rotation R is posviz's interleaved RoPE (halves_lanes),
    and with proportional RoPE it is the clinic's prefix-paired port (prefix_lanes,
    posviz.proportional.prefix_paired_rope)."""
    width = 8 * pairs  # a quarter of the pairs turn, one at least
    rng = np.random.default_rng(seed)
    x, positions = rng.standard_normal((5, width)), np.array([0, 1, 3, 40, 999])
    p = ported.halves_lanes(width)
    np.testing.assert_allclose(apply_rope(x[:, p], positions, base, "half")[:, np.argsort(p)],
                               apply_rope(x, positions, base, "interleaved"), atol=1e-9)
    fraction = 0.25
    p = ported.prefix_lanes(width, proportional.turned_pairs(width, fraction))
    np.testing.assert_allclose(
        proportional.proportional_rope(x[:, p], positions, fraction, base)[:, np.argsort(p)],
        proportional.prefix_paired_rope(x, positions, fraction, base), atol=1e-9)


def test_a_run_that_fails_as_the_port_runs_is_refused_in_words_and_put_back(models,
                                                                           monkeypatch):
    """Whatever fails inside a port's run (transformers' own code, changed), or in the run
    that finds the ports, is Refused ("fails") with its first line, and the model and its
    code are their own again."""
    loaded = models["gemma4"]
    before = pretrained.read(loaded, SENTENCE).weights
    rotate = modeling_gemma4.rotate_half
    for port in ported.ports(loaded):
        with pytest.raises(pretrained.Refused) as refused, port.applied():
            raise RuntimeError("a shape the port did not expect\nmore")
        assert (refused.value.reason, refused.value.detail) == (
            "fails", "RuntimeError: a shape the port did not expect")
        assert modeling_gemma4.rotate_half is rotate
    np.testing.assert_array_equal(pretrained.read(loaded, SENTENCE).weights, before)
    monkeypatch.setattr(probing, "probe", lambda *_: 1 / 0)
    with pytest.raises(pretrained.Refused) as refused:
        ported.ports(loaded)
    assert refused.value.detail == "ZeroDivisionError: division by zero"
    assert modeling_gemma4.rotate_half is rotate
