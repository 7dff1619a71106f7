"""posviz.pretrained on real transformers models, built here: tiny random models of six
families (Llama: RoPE; GPT-NeoX: RoPE on a quarter of each head; GPT-2: a learned table; BLOOM,
Falcon with alibi, MPT: ALiBi) with a byte-level BPE tokenizer trained here on English and
Chinese, saved to a folder and read back by the loading code. Their attention is compared with
transformers' own (`output_attentions`, eager), with position on and off, and the ALiBi models'
first layer with a slow computation by hand."""

from __future__ import annotations

import json
from importlib import import_module

import numpy as np
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from transformers import (  # noqa: E402
    AutoModelForCausalLM,
    BloomConfig,
    FalconConfig,
    GPT2Config,
    GPTNeoXConfig,
    LlamaConfig,
    MptConfig,
    PreTrainedTokenizerFast,
)

from posviz import pretrained  # noqa: E402
from posviz.alibi import alibi_slopes  # noqa: E402
from posviz.pretrained import checking  # noqa: E402
from tests.helpers.hf_models import saved, tokenizer  # noqa: E402

SENTENCES = ["刚想到了", "了到想刚", "the quick brown fox jumps over the lazy dog", "a",
             "位置 encoding 🙂 <b>x</b>"]


def configs(vocab: int) -> dict:
    ids = {"vocab_size": vocab, "bos_token_id": 0, "eos_token_id": 0}
    return {
        "llama": LlamaConfig(hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                             num_attention_heads=4, num_key_value_heads=2,
                             max_position_embeddings=128, **ids),
        "neox": GPTNeoXConfig(hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                              num_attention_heads=4, max_position_embeddings=128,
                              rotary_pct=0.25, **ids),
        "gpt2": GPT2Config(n_embd=32, n_layer=2, n_head=4, n_positions=64, **ids),
        "bloom": BloomConfig(hidden_size=32, n_layer=2, n_head=4, **ids),
        "falcon": FalconConfig(hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                               alibi=True, multi_query=False, **ids),
        "mpt": MptConfig(d_model=32, n_heads=4, n_layers=2, expansion_ratio=2, max_seq_len=128,
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


def own(name: str) -> pretrained.Loaded:
    [found] = [f for f in pretrained.own() if f.name == name]
    return pretrained.load(pretrained.card(found))


def reference(folder, text: str, change=None, position_ids_zero: bool = False) -> np.ndarray:
    """transformers' own attention for the sentence, the model loaded afresh (change: what to
    do to it first)."""
    model = AutoModelForCausalLM.from_pretrained(folder, attn_implementation="eager",
                                                 local_files_only=True)
    tok = PreTrainedTokenizerFast.from_pretrained(folder)
    ids = torch.tensor([tok(text)["input_ids"]])
    if change:
        change(model)
    extra = {"position_ids": torch.zeros_like(ids)} if position_ids_zero else {}
    with torch.no_grad():
        out = model(input_ids=ids, output_attentions=True, **extra)
    return np.stack([a[0].double().numpy() for a in out.attentions])


@pytest.mark.parametrize("name", ["llama", "neox", "gpt2", "bloom", "falcon", "mpt"])
def test_attention_is_transformers_own_with_position_on(folders, models, name):
    for text in SENTENCES:
        pieces, weights = pretrained.attention(models[name], text)
        want = reference(folders[name], text)
        assert weights.shape == want.shape == (2, 4, len(pieces), len(pieces))
        np.testing.assert_allclose(weights, want, atol=1e-6)
        np.testing.assert_allclose(weights.sum(-1), 1.0, atol=1e-6)
        assert np.allclose(np.triu(weights, 1), 0)  # causal: no key after its query


def zero_table(model) -> None:
    with torch.no_grad():
        model.transformer.wpe.weight.zero_()


@pytest.mark.parametrize("name, change, zero_ids", [
    ("llama", None, True), ("neox", None, True), ("gpt2", zero_table, False)])
def test_position_off_is_transformers_with_ids_zero_or_the_table_zeroed(folders, models, name,
                                                                         change, zero_ids):
    for text in SENTENCES:
        _, off = pretrained.attention(models[name], text, position=False)
        np.testing.assert_allclose(off, reference(folders[name], text, change, zero_ids),
                                   atol=1e-6)
        _, on = pretrained.attention(models[name], text)  # the model is put back after
        np.testing.assert_allclose(on, reference(folders[name], text), atol=1e-6)
        if len(on[0, 0]) > 2:
            assert not np.allclose(on, off), "position changed nothing"


def first_layer_qk(folder, text: str) -> tuple[np.ndarray, np.ndarray, float, float]:
    """An ALiBi model's first-layer queries and keys by hand, (T, heads, d) each, its score
    scale, and what its bias is divided by (Falcon: the square root of a head's width)."""
    model = AutoModelForCausalLM.from_pretrained(folder, local_files_only=True)
    ids = torch.tensor(PreTrainedTokenizerFast.from_pretrained(folder)(text)["input_ids"])
    base, kind = model.base_model, model.config.model_type
    heads = model.config.num_attention_heads
    with torch.no_grad():
        if kind == "bloom":  # per head: query, key, value
            block = base.h[0]
            h = block.input_layernorm(base.word_embeddings_layernorm(base.word_embeddings(ids)))
            qkv = block.self_attention.query_key_value(h).view(len(ids), heads, 3, -1)
            q, k = qkv[:, :, 0], qkv[:, :, 1]
        elif kind == "falcon":  # per head: query, key, value (multi_query off)
            block = base.h[0]
            qkv = block.self_attention.query_key_value(
                block.input_layernorm(base.word_embeddings(ids))).view(len(ids), heads, 3, -1)
            q, k = qkv[:, :, 0], qkv[:, :, 1]
        else:  # mpt: every query, then every key, then every value
            block = base.blocks[0]
            q, k, _ = block.attn.Wqkv(block.norm_1(base.wte(ids))).chunk(3, dim=-1)
            q, k = q.view(len(ids), heads, -1), k.view(len(ids), heads, -1)
    d = q.shape[-1]
    return q.double().numpy(), k.double().numpy(), 1 / np.sqrt(d), (
        np.sqrt(d) if kind == "falcon" else 1.0)


def alibi_first_layer(folder, text: str, position: bool) -> np.ndarray:
    """The first attention layer of BLOOM, Falcon (alibi) or MPT by hand:
    softmax(scale q.k - slope * (i - j) / divisor) over the keys j up to the query i, with the
    paper's slopes for 4 heads (or none), (heads, T, T)."""
    q, k, scale, divisor = first_layer_qk(folder, text)
    n, heads = q.shape[:2]
    slopes = alibi_slopes(heads) if position else np.zeros(heads)
    out = np.zeros((heads, n, n))
    for head in range(heads):
        for i in range(n):
            scores = [scale * q[i, head] @ k[j, head] - slopes[head] * (i - j) / divisor
                      for j in range(i + 1)]
            e = np.exp(np.array(scores) - max(scores))
            out[head, i, :i + 1] = e / e.sum()
    return out


@pytest.mark.parametrize("name", ["bloom", "falcon", "mpt"])
@pytest.mark.parametrize("position", [True, False])
def test_alibi_first_layer_by_hand_with_its_slopes_or_none(folders, models, name, position):
    for text in SENTENCES:
        _, weights = pretrained.attention(models[name], text, position=position)
        np.testing.assert_allclose(weights[0], alibi_first_layer(folders[name], text,
                                                                 position), atol=1e-5)


def test_each_scheme_named_with_its_numbers(models):
    schemes = {name: loaded.scheme for name, loaded in models.items()}
    assert schemes["llama"].kind == "rope" and schemes["llama"].numbers["base"] == 10_000
    assert schemes["llama"].numbers["fraction"] == 1.0
    assert schemes["neox"].kind == "rope" and schemes["neox"].numbers["fraction"] == 0.25
    assert schemes["gpt2"].kind == "learned"
    assert schemes["gpt2"].numbers == {"size": 64, "width": 32}
    assert schemes["bloom"].kind == "alibi"
    assert schemes["bloom"].numbers["slopes"] == [0.25, 0.0625, 0.015625, 0.00390625]
    assert schemes["mpt"].numbers == schemes["bloom"].numbers  # 4 heads: the paper's slopes
    np.testing.assert_allclose(schemes["falcon"].numbers["slopes"],  # its bias / sqrt(8)
                               np.array([0.25, 0.0625, 0.015625, 0.00390625]) / np.sqrt(8))
    assert {s.off for s in schemes.values()} == {
        "position ids all 0", "position table rows zeroed", "every slope 0"}


def test_the_sentence_as_the_model_reads_it(models):
    text = "刚想到了"
    pieces = pretrained.pieces(models["llama"], text)
    assert [p.position for p in pieces] == list(range(len(pieces)))
    tokens_of = {}  # a character's index: the tokens that spell a part of it
    for p in pieces:
        assert p.text and text[p.start:p.end] == p.text and not p.special
        for k in range(p.start, p.end):
            tokens_of.setdefault(k, []).append(p.position)
    assert sorted(tokens_of) == list(range(len(text)))  # every character read, in order
    for p in pieces:  # split exactly where a character is spread over several tokens
        assert p.split == any(len(tokens_of[k]) > 1 for k in range(p.start, p.end))
    assert any(p.split for p in pieces)  # byte-level pieces: 刚 is two tokens here
    assert pretrained.pieces(models["llama"], "") == []
    _, none = pretrained.attention(models["llama"], "")
    assert none.shape == (2, 4, 0, 0)


def test_next_tokens_are_the_models_softmax(models):
    top = pretrained.next_tokens(models["gpt2"], "the quick brown fox", k=5)
    pieces = pretrained.pieces(models["gpt2"], "the quick brown fox")
    assert len(top) == len(pieces) and all(len(row) == 5 for row in top)
    for row in top:
        probs = [g.p for g in row]
        assert probs == sorted(probs, reverse=True) and 0 < sum(probs) <= 1 + 1e-9
    off = pretrained.next_tokens(models["gpt2"], "the quick brown fox", position=False)
    assert off != top


def write(folder, config: dict, files: dict[str, bytes] | None = None):
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(config))
    for name, data in (files or {}).items():
        (folder / name).write_bytes(data)
    return folder


def test_refusals_each_name_their_reason(tmp_path, folders, monkeypatch):
    def reason(path) -> str:
        with pytest.raises(pretrained.Refused) as refused:
            pretrained.load(pretrained.card(pretrained.at_path(str(path))))
        return refused.value.reason

    assert reason(tmp_path / "nowhere") == "unknown"
    (tmp_path / "a-file.txt").write_text("not a folder")
    assert reason(tmp_path / "a-file.txt") == "not_a_model"
    (tmp_path / "empty").mkdir()
    assert reason(tmp_path / "empty") == "not_a_model"
    assert reason(write(tmp_path / "pickle", {"model_type": "gpt2"},
                        {"pytorch_model.bin": b"not read"})) == "pickle_only"
    assert reason(write(tmp_path / "own", {"model_type": "mine", "auto_map": {
        "AutoModelForCausalLM": "modeling_mine.Mine"}})) == "own_code"
    assert reason(write(tmp_path / "vision", {"model_type": "vit",
                                              "architectures": ["ViTModel"]})) == "not_causal"
    monkeypatch.setattr(checking, "available_memory", lambda: 1000)
    assert reason(folders["llama"].parent / "copy-that-is-not-there") == "unknown"
    fresh = tmp_path / "large"
    fresh.mkdir()
    for file in folders["llama"].iterdir():
        (fresh / file.name).write_bytes(file.read_bytes())
    assert reason(fresh) == "too_large"
    about = pretrained.card(fresh)  # noqa: F841
    model = AutoModelForCausalLM.from_pretrained(fresh, local_files_only=True)
    assert about.parameters == sum(p.numel() for p in model.state_dict().values())


@pytest.mark.parametrize("scheme", ["rope", "learned", "alibi", "sinusoidal", "none"])
def test_posvizs_own_models_read_the_same_way(scheme):
    """posviz's own checkpoints through the same reading: their attention is attention_maps';
    with position off, the first layer's last query weighs the earlier tokens the same in any
    order (what position alone told apart is gone), and on, order shows, but for NoPE."""
    from posviz.model import attention_maps, load_checkpoint
    from posviz.train import MODELS

    name = f"posviz/{scheme}"
    assert name in [found.name for found in pretrained.own()]
    words = ["the", "dog", "chases", "the", "cat", "刚", "想", "到", "了"]
    on = pretrained.read(own(name), " ".join(words))
    model, vocab = load_checkpoint(MODELS / f"{scheme}.pt")
    np.testing.assert_allclose(on.weights, attention_maps(model, vocab.encode(words)))
    assert [p.text for p in on.pieces] == words and on.total == len(words)
    assert own(name).scheme.kind == scheme
    order = [4, 2, 0, 6, 1, 7, 5, 3, 8]  # the last token stays last
    moved = [words[i] for i in order]
    for position in (False, True):
        a = pretrained.read(own(name), " ".join(words), position).weights[0, :, -1]
        b = pretrained.read(own(name), " ".join(moved), position).weights[0, :, -1]
        same = np.allclose(a[:, order], b, atol=1e-6)
        assert same == (not position or scheme == "none"), (scheme, position)


def slow_twin(folder, text: str, order: list[int], change=None, zero_ids=False):
    """The reordered sentence's attention by transformers itself, put back by token with a loop,
    and each layer's relative output change per token, |y_i - y'_i| / |y_i|."""
    model = AutoModelForCausalLM.from_pretrained(folder, attn_implementation="eager",
                                                 local_files_only=True)
    if change:
        change(model)
    ids = PreTrainedTokenizerFast.from_pretrained(folder)(text)["input_ids"]
    runs = []
    for sequence in (ids, [ids[k] for k in order]):
        tensor = torch.tensor([sequence])
        extra = {"position_ids": torch.zeros_like(tensor)} if zero_ids else {}
        with torch.no_grad():
            out = model(input_ids=tensor, output_attentions=True, output_hidden_states=True,
                        **extra)
        runs.append(out)
    n, where = len(ids), {token: k for k, token in enumerate(order)}  # token i is at where[i]
    layers = len(runs[1].attentions)
    aligned = np.zeros((layers, runs[1].attentions[0].shape[1], n, n))
    change_of = np.zeros((layers, n))
    for layer in range(layers):
        for i in range(n):
            for j in range(n):
                aligned[layer, :, i, j] = runs[1].attentions[layer][0, :, where[i], where[j]]
            y = runs[0].hidden_states[layer + 1][0, i].double().numpy()
            y2 = runs[1].hidden_states[layer + 1][0, where[i]].double().numpy()
            change_of[layer, i] = np.linalg.norm(y - y2) / np.linalg.norm(y)
    return aligned, change_of


@pytest.mark.parametrize("name, change, zero_ids", [
    ("llama", None, True), ("neox", None, True), ("gpt2", zero_table, False)])
def test_another_order_is_put_back_by_token_as_a_loop_does(folders, models, name, change,
                                                          zero_ids):
    text = "the quick brown fox 刚想到了"
    n = len(pretrained.pieces(models[name], text))
    order = list(np.random.default_rng(1).permutation(n))
    for position in (True, False):
        reading, twin = pretrained.twin(models[name], text, order, position)
        aligned, change_of = slow_twin(folders[name], text, order,
                                       None if position else change,
                                       zero_ids and not position)
        np.testing.assert_allclose(twin.weights, aligned, atol=1e-6)
        np.testing.assert_allclose(twin.gaps, change_of.max(axis=1), rtol=1e-4, atol=1e-6)
        np.testing.assert_allclose(twin.last_gaps, change_of[:, -1], rtol=1e-4, atol=1e-6)
        assert (twin.weights[:, :, ~twin.mask] == 0).all()  # the new order's own mask
        np.testing.assert_allclose(twin.weights.sum(-1), 1.0, atol=1e-6)


@pytest.mark.parametrize("name", ["llama", "neox", "gpt2", "bloom", "falcon", "mpt"])
def test_position_off_the_last_token_kept_in_place_reads_a_bag_in_layer_one(models, name):
    """Permutation equivariance with the position switched off: the last token, kept in
    place, sees the same tokens in any order before it, so its first layer's weights (by
    token) and output do not change; in the next layer the others' outputs have changed, and
    so does it. With position on, the first layer already tells the orders apart."""
    text = "the quick brown fox jumps"
    n = len(pretrained.pieces(models[name], text))
    rng = np.random.default_rng(0)
    for _ in range(3):
        order = [*rng.permutation(n - 1), n - 1]
        reading, off = pretrained.twin(models[name], text, order, position=False)
        assert off.last_gaps[0] < 1e-5
        np.testing.assert_allclose(off.weights[0, :, -1], reading.weights[0, :, -1],
                                   atol=1e-6)
        assert off.last_gaps[1] > 1e-3 and off.gaps[0] > 1e-3  # the mask leaks the order
        _, on = pretrained.twin(models[name], text, order)
        assert on.last_gaps[0] > 1e-3


def test_an_order_that_is_not_one_is_refused(models):
    n = len(pretrained.pieces(models["llama"], "the quick brown fox"))
    with pytest.raises(ValueError, match="position 0 is listed twice"):
        pretrained.twin(models["llama"], "the quick brown fox", [0, *range(n - 1)])


def test_a_gemma_3_reads_rope_per_layer_type_and_position_off_is_ids_zero(tmp_path):
    """transformers 5 keeps a Gemma 3's RoPE per layer type ({"sliding_attention": ...,
    "full_attention": ...}): both kinds are named with the layers that use them, and position
    off is transformers' own run with every position id 0, layer by layer."""
    from transformers import Gemma3TextConfig

    config = Gemma3TextConfig(vocab_size=len(tokenizer()), hidden_size=32, intermediate_size=64,
                              num_hidden_layers=6, num_attention_heads=4, num_key_value_heads=2,
                              head_dim=8, bos_token_id=0, eos_token_id=0, pad_token_id=0)
    folder = saved(config, tmp_path / "gemma3")
    loaded = pretrained.load(pretrained.card(folder))
    scheme = loaded.scheme
    assert scheme.kind == "rope" and not scheme.unturned
    kinds = {r.layer_type: (r.layers, r.base, r.fraction) for r in scheme.rotary}
    assert kinds == {"sliding_attention": ((0, 1, 2, 3, 4), 10_000.0, 1.0),
                     "full_attention": ((5,), 1_000_000.0, 1.0)}
    for text in SENTENCES[:3]:
        on, off = (pretrained.read(loaded, text, position) for position in (True, False))
        np.testing.assert_allclose(on.weights, reference(folder, text), atol=1e-6)
        np.testing.assert_allclose(off.weights, reference(folder, text, None, True), atol=1e-6)
        if len(on.pieces) > 2:
            assert np.abs(on.weights - off.weights).max() > 1e-3


def test_layers_without_rope_are_named_as_the_configuration_says(tmp_path):
    """Llama 4's iRoPE: every fourth layer turns nothing (no_rope_layers 0); posviz finds it
    by running each layer, and says so."""
    from transformers import Llama4TextConfig

    config = Llama4TextConfig(vocab_size=len(tokenizer()), hidden_size=32, intermediate_size=64,
                              intermediate_size_mlp=64, num_hidden_layers=4,
                              num_attention_heads=4, num_key_value_heads=2, head_dim=8,
                              num_local_experts=2, bos_token_id=0, eos_token_id=0,
                              pad_token_id=0)
    loaded = pretrained.load(pretrained.card(saved(config, tmp_path / "llama4")))
    assert config.no_rope_layers == [1, 1, 1, 0]
    assert loaded.scheme.unturned == (3,)
    assert [r.layers for r in loaded.scheme.rotary] == [(0, 1, 2)]


def test_a_byte_level_piece_of_a_character_is_its_bytes(models):
    """A next token that is part of a character's bytes decodes to U+FFFD: its bytes are what
    its byte-level spelling stands for, and it is not shown as text."""
    tok = models["llama"].tokenizer
    pieces = [i for i in range(len(tok)) if "\ufffd" in tok.decode([i])]
    assert pieces
    for i in pieces:
        guess = pretrained.guess(tok, i, 0.5)
        assert not guess.whole and guess.raw
        spelled = tok.convert_ids_to_tokens(i)
        assert tok.convert_tokens_to_string([spelled]).encode("utf-8", "replace")
        assert bytes(guess.raw).decode("utf-8", "replace") == guess.text or "\ufffd" in (
            bytes(guess.raw).decode("utf-8", "replace"))
    whole = pretrained.guess(tok, tok.convert_tokens_to_ids("the"), 0.5)
    assert whole.whole and whole.raw == b"the"
    assert not pretrained.Guess("\x0f", b"\x0f", 0.1).whole  # a control character: bytes


def hostile(folder, good, tmp_path) -> dict[str, object]:
    """Model folders a file of which is hostile, each beside a copy of a good model."""
    import shutil

    def copy(name):
        made = tmp_path / name
        shutil.copytree(good, made)
        return made

    made = {}
    for name, data in (("empty", b""), ("garbage", b"\x00garbage" * 100),
                       ("negative", _safetensors({"w": {"dtype": "F32", "shape": [-1, 4],
                                                        "data_offsets": [0, 16]}}, 16)),
                       ("overflow", _safetensors({"w": {"dtype": "F32",
                                                        "shape": [2**40, 2**40],
                                                        "data_offsets": [0, 16]}}, 16))):
        made[name] = copy(name)
        (made[name] / "model.safetensors").write_bytes(data)
    made["link_system"] = copy("link_system")
    (made["link_system"] / "model.safetensors").unlink()
    (made["link_system"] / "model.safetensors").symlink_to("/etc/passwd")
    made["link_out"] = copy("link_out")
    outside = tmp_path / "elsewhere.safetensors"
    outside.write_bytes((good / "model.safetensors").read_bytes())
    (made["link_out"] / "model.safetensors").unlink()
    (made["link_out"] / "model.safetensors").symlink_to(outside)
    made["tokenizer_out"] = copy("tokenizer_out")
    (made["tokenizer_out"] / "tokenizer.json").unlink()
    (made["tokenizer_out"] / "tokenizer.json").symlink_to("/etc/passwd")
    made["index_out"] = copy("index_out")
    (made["index_out"] / "model.safetensors.index.json").write_text(json.dumps(
        {"weight_map": {"w": "../../../../etc/passwd"}}))
    made["tokenizer_code"] = copy("tokenizer_code")
    config = json.loads((good / "tokenizer_config.json").read_text())
    (made["tokenizer_code"] / "tokenizer_config.json").write_text(json.dumps(
        config | {"auto_map": {"AutoTokenizer": ["tokenization_mine.Mine", None]}}))
    made["llama_code"] = copy("llama_code")
    config = json.loads((good / "config.json").read_text())
    (made["llama_code"] / "config.json").write_text(json.dumps(
        config | {"auto_map": {"AutoModelForCausalLM": "modeling_mine.Mine"}}))
    (made["llama_code"] / "modeling_mine.py").write_text(
        f"open({str(tmp_path / 'ran')!r}, 'w').write('ran')\n")
    return made


def _safetensors(header: dict, size: int) -> bytes:
    raw = json.dumps(header).encode()
    return len(raw).to_bytes(8, "little") + raw + b"\0" * size


def test_hostile_model_files_are_refused_in_words(folders, tmp_path):
    """Each hostile file is refused with its reason, never a traceback, and no model code
    runs: weights that cannot be read, a link or an index that leads out of the folder, a
    tokenizer or a Llama that asks for its own code, a path too long for the system."""
    import shutil

    made = hostile(tmp_path, folders["llama"], tmp_path)
    want = {"empty": "broken", "garbage": "broken", "negative": "broken",
            "overflow": "broken", "link_system": "outside", "link_out": "outside",
            "index_out": "outside", "tokenizer_code": "own_code", "llama_code": "own_code",
            "tokenizer_out": "outside"}
    for name, reason in want.items():
        with pytest.raises(pretrained.Refused) as refused:
            pretrained.load(pretrained.card(pretrained.at_path(str(made[name]))))
        assert refused.value.reason == reason, name
    assert not (tmp_path / "ran").exists()
    beside = tmp_path / "beside"  # a damaged file that is not the model's weights: never read
    shutil.copytree(folders["llama"], beside)
    for name, data in (("empty", b""), ("garbage", b"\x00garbage" * 100)):
        (beside / f"{name}.safetensors").write_bytes(data)
    assert pretrained.load(pretrained.card(beside)).scheme.kind == "rope"
    for typed in ("/" + "a" * 5_000, "a" * 300, "~nosuchlogin/x", "~root/.ssh", "\0",
                  "/etc/shadow", "/etc"):
        with pytest.raises(pretrained.Refused) as refused:
            pretrained.load(pretrained.card(pretrained.at_path(typed)))
        assert refused.value.reason in ("unknown", "not_a_model"), typed


def test_a_cached_models_links_to_its_blobs_are_inside(folders, tmp_path):
    """A Hugging Face cache's snapshot links each file to a blob of the cached repository:
    inside its home, so it is read."""
    from tests.helpers.hf_models import into_cache

    snapshot = into_cache(folders["gpt2"], tmp_path / "hub", "posviz-test/gpt2")
    assert pretrained.card(snapshot).parameters > 0


def test_the_byte_level_alphabet_is_gpt2s():
    from transformers.convert_slow_tokenizer import bytes_to_unicode

    assert pretrained.byte_level_alphabet() == {c: b for b, c in bytes_to_unicode().items()}


def test_a_gemma_3n_is_read_at_its_last_token_with_its_streams_leading(tmp_path):
    """Gemma 3n's layers give (streams, 1, T, D) (AltUp's four streams lead the batch): the
    bag test reads the last token, not the whole sentence, so position off (every id 0) is
    read, and it is transformers' own run with ids 0; each layer's output is every stream of
    a token, as transformers gives it."""
    from transformers import Gemma3nTextConfig

    config = Gemma3nTextConfig(vocab_size=len(tokenizer()), vocab_size_per_layer_input=64,
                               hidden_size=32, hidden_size_per_layer_input=8,
                               intermediate_size=64, num_hidden_layers=5,
                               num_attention_heads=4, num_key_value_heads=2, head_dim=8,
                               num_kv_shared_layers=0, bos_token_id=0, eos_token_id=0,
                               pad_token_id=0)
    folder = saved(config, tmp_path / "gemma3n")
    loaded = pretrained.load(pretrained.card(folder))
    assert loaded.scheme.kind == "rope"
    model = AutoModelForCausalLM.from_pretrained(folder, attn_implementation="eager",
                                                 local_files_only=True)
    tok = PreTrainedTokenizerFast.from_pretrained(folder)
    for text in SENTENCES[:3]:
        ids = torch.tensor([tok(text)["input_ids"]])
        for position in (True, False):
            extra = {} if position else {"position_ids": torch.zeros_like(ids)}
            with torch.no_grad():
                out = model(input_ids=ids, output_attentions=True, output_hidden_states=True,
                            **extra)
            reading = pretrained.read(loaded, text, position)
            want = np.stack([a[0].double().numpy() for a in out.attentions])
            np.testing.assert_allclose(reading.weights, want, atol=1e-6)
            for layer, state in enumerate(out.hidden_states[1:]):  # (4, 1, T, D)
                assert state.shape[:2] == (4, 1)
                for t in range(ids.shape[1]):  # token t: its four streams, one after another
                    np.testing.assert_allclose(reading.states[layer][t],
                                               state[:, 0, t].double().flatten().numpy(),
                                               atol=1e-5)


@pytest.mark.parametrize("kind", ["gptj", "codegen"])
def test_gptj_and_codegen_are_read_with_their_neighbouring_pairs_switched_off(tmp_path, kind):
    """GPT-J and CodeGen keep no inv_freq but a [sin | cos] table by position, and turn lanes
    2i and 2i + 1 together (rotate_every_two) on the first rotary_dim lanes of each head: read
    as RoPE at base^(-2i/rotary_dim), base 10000 (the paper's formula, written here), on half
    of each head, in neighbouring pairs; position off is transformers' own run with every
    position id 0, and with the rotation taken out of the modeling code (the same numbers)."""
    from transformers import CodeGenConfig, GPTJConfig

    cls = {"gptj": GPTJConfig, "codegen": CodeGenConfig}[kind]
    config = cls(vocab_size=len(tokenizer()), n_embd=32, n_layer=2, n_head=2, rotary_dim=8,
                 n_positions=128, bos_token_id=0, eos_token_id=0)
    folder = saved(config, tmp_path / kind)
    loaded = pretrained.load(pretrained.card(folder))
    [rotary] = loaded.scheme.rotary
    assert loaded.scheme.kind == "rope" and rotary.pairing == "neighbours"
    assert rotary.base == 10_000.0 and rotary.fraction == 0.5 and rotary.layers == (0, 1)
    np.testing.assert_allclose(rotary.frequencies, [10_000 ** (-2 * i / 8) for i in range(4)],
                               rtol=1e-6)
    code = import_module(f"transformers.models.{kind}.modeling_{kind}")
    for text in SENTENCES[:3]:
        on, off = (pretrained.read(loaded, text, position) for position in (True, False))
        np.testing.assert_allclose(on.weights, reference(folder, text), atol=1e-6)
        np.testing.assert_allclose(off.weights, reference(folder, text, None, True), atol=1e-6)
        with pytest.MonkeyPatch.context() as patch:  # no rotation at all
            patch.setattr(code, "apply_rotary_pos_emb", lambda tensor, sin, cos: tensor)
            np.testing.assert_allclose(off.weights, reference(folder, text), atol=1e-6)
        if len(on.pieces) > 2:
            assert np.abs(on.weights - off.weights).max() > 1e-3


def test_ctrl_is_read_with_its_sinusoidal_buffer_switched_off(tmp_path):
    """CTRL adds a sinusoidal table to its embeddings, kept as a buffer (pos_encoding) that it
    indexes by position id: [sin(p w_k) | cos(p w_k)], w_k = 10000^(-2k/d), written here. It
    is read as a sinusoidal table of its n_positions rows, and position off is transformers'
    own run with that buffer zeroed; a buffer of random numbers is no sinusoid."""
    from transformers import CTRLConfig

    from posviz.pretrained import position

    config = CTRLConfig(vocab_size=len(tokenizer()), n_embd=32, dff=64, n_layer=2, n_head=2,
                        n_positions=64)
    folder = saved(config, tmp_path / "ctrl")
    loaded = pretrained.load(pretrained.card(folder))
    assert loaded.scheme.kind == "sinusoidal"
    assert loaded.scheme.numbers == {"size": 64, "width": 32}
    [table] = loaded.tables
    p, k = np.arange(64)[:, None], np.arange(16)[None, :]
    angle = p * 10_000.0 ** (-2 * k / 32)
    np.testing.assert_allclose(table.table.double().numpy(),
                               np.concatenate([np.sin(angle), np.cos(angle)], axis=1),
                               atol=1e-5)
    assert not position._sinusoid(torch.rand(64, 32) * 2 - 1)
    ctrl = import_module("transformers.models.ctrl.modeling_ctrl")
    assert position._sinusoid(ctrl.positional_encoding(50_000, 1280, torch.float))  # far rows

    def zeroed(model):
        model.transformer.pos_encoding.zero_()

    for text in SENTENCES[:3]:
        on, off = (pretrained.read(loaded, text, p) for p in (True, False))
        np.testing.assert_allclose(on.weights, reference(folder, text), atol=1e-6)
        np.testing.assert_allclose(off.weights, reference(folder, text, zeroed), atol=1e-6)
        if len(on.pieces) > 2:
            assert np.abs(on.weights - off.weights).max() > 1e-3
    np.testing.assert_allclose(table.table.double().numpy()[1, :16], np.sin(angle[1]),
                               atol=1e-5)  # the run put the model's own table back


def test_a_refusal_says_the_reason_it_found(tmp_path):
    """DeepSeek-V4's attention reads keys besides the sentence's (its sink and compressed
    blocks): refused for that, in words that say so, never with the words for a first layer
    that still tells order apart (a test never run on it)."""
    from tests.helpers.hf_models import tiny_config
    from ui.i18n import text

    folder = saved(tiny_config("deepseek_v4", len(tokenizer())), tmp_path / "v4")
    with pytest.raises(pretrained.Refused) as refused:
        pretrained.load(pretrained.card(folder))
    assert (refused.value.reason, refused.value.detail) == ("keys", "deepseek_v4")
    for lang, still in (("en", "still tells the order"), ("zh", "仍能分辨词元的顺序")):
        for reason in ("keys", "heads", "ids"):
            said = text(f"real.refused.{reason}", lang, name="m", detail="d")
            assert still not in said and "d" in said
        assert still in text("real.refused.unread", lang, name="m", detail="d")


def test_falcon_h1_has_its_rope_switched_off_and_its_mamba_branch_named(tmp_path):
    """Falcon-H1 runs a Mamba branch beside the attention of every layer: its RoPE is switched
    off (position off is transformers' own run with every id 0) and the branch is named, so
    that no one reads a bag where the recurrence still reads order."""
    from tests.helpers.hf_models import tiny_config
    from ui.i18n import text

    folder = saved(tiny_config("falcon_h1", len(tokenizer())), tmp_path / "falcon_h1")
    loaded = pretrained.load(pretrained.card(folder))
    assert loaded.scheme.kind == "rope" and loaded.scheme.beside == (0, 1)
    for sentence in SENTENCES[:3]:
        off = pretrained.read(loaded, sentence, False)
        np.testing.assert_allclose(off.weights, reference(folder, sentence, None, True),
                                   atol=1e-6)
    said = text("real.scheme.beside", "en", said="", n=2, layers=2)
    assert "Mamba branch" in said and "order of its own" in said


def test_a_stretched_rope_is_said_made_for_its_length_and_pretrained_on_the_named_one(tmp_path):
    """A Llama 3.1-shaped configuration (meta-llama/Llama-3.1-8B's config.json:
    max_position_embeddings 131072; rope_scaling llama3, factor 8, low_freq_factor 1,
    high_freq_factor 4, original_max_position_embeddings 8192; rope_theta 500000) is made for
    131,072 tokens and names 8,192 as its pre-training length; a plain Llama names none. The
    page says so, and never that the model was trained on 131,072."""
    from ui.i18n import text

    llama31 = {"rope_type": "llama3", "rope_theta": 500_000.0, "factor": 8.0,
               "low_freq_factor": 1.0, "high_freq_factor": 4.0,
               "original_max_position_embeddings": 8192}
    config = LlamaConfig(vocab_size=len(tokenizer()), hidden_size=32, intermediate_size=64,
                         num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                         max_position_embeddings=131_072, rope_parameters=llama31,
                         bos_token_id=0, eos_token_id=0)
    numbers = pretrained.load(pretrained.card(saved(config, tmp_path / "l31"))).scheme.numbers
    assert (numbers["length"], numbers["pretrained"]) == (131_072, 8192)
    assert "trained" not in numbers and numbers["type"] == "llama3"
    plain = LlamaConfig(vocab_size=len(tokenizer()), hidden_size=32, intermediate_size=64,
                        num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                        max_position_embeddings=4096, bos_token_id=0, eos_token_id=0)
    numbers = pretrained.load(pretrained.card(saved(plain, tmp_path / "l"))).scheme.numbers
    assert numbers["length"] == 4096 and "pretrained" not in numbers
    for lang in ("en", "zh"):
        said = text("real.scheme.stretched", lang, length="131,072", pretrained="8,192")
        assert "131,072" in said and "8,192" in said
        assert text("real.scheme.trained", lang, trained="131,072") not in said
