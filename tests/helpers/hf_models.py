"""Hugging Face models made here, never downloaded: a byte-level BPE tokenizer trained on a few
English and Chinese sentences, and a causal language model of any configuration with random
weights, saved to a folder as a model on disk is (safetensors weights, tokenizer.json)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import torch
from tokenizers import ByteLevelBPETokenizer
from tokenizers.processors import TemplateProcessing
from transformers import AutoModelForCausalLM, PretrainedConfig, PreTrainedTokenizerFast

CORPUS = ["the quick brown fox jumps over the lazy dog", "刚想到了", "了到想刚",
          "我们今天学习位置编码", "position encoding in transformers"] * 40


def tokenizer(vocab: int = 320, start: bool = False) -> PreTrainedTokenizerFast:
    """A byte-level BPE tokenizer trained here; with start, one that puts its start-of-text
    token before every sentence (as Llama's does)."""
    bpe = ByteLevelBPETokenizer()
    bpe.train_from_iterator(CORPUS, vocab_size=vocab, min_frequency=1,
                            special_tokens=["<|endoftext|>"])
    if start:
        bpe.post_processor = TemplateProcessing(single="<|endoftext|> $A",
                                                special_tokens=[("<|endoftext|>", 0)])
    return PreTrainedTokenizerFast(tokenizer_object=bpe, eos_token="<|endoftext|>",
                                   bos_token="<|endoftext|>")


def saved(config: PretrainedConfig, folder: Path, scale: float | None = 0.3,
          vocab: int = 320, start: bool = False) -> Path:
    """A model of config with random weights (seeded; normal with sd scale, if given, so that
    a tiny model's attention is not flat) and the tokenizer (of vocab tokens at most; with
    start, adding a start-of-text token), saved in folder."""
    torch.manual_seed(0)
    model = AutoModelForCausalLM.from_config(config, attn_implementation="eager")
    if scale is not None:
        with torch.no_grad():
            for p in model.parameters():
                p.normal_(0, scale)
    model.save_pretrained(folder)
    tokenizer(vocab, start).save_pretrained(folder)
    return folder


def into_cache(folder: Path, cache: Path, repo_id: str) -> Path:
    """A model folder put into a Hugging Face cache as huggingface_hub lays out a download
    (blobs by hash, a snapshot of links to them, refs/main naming it); returns the snapshot."""
    repo = cache / ("models--" + repo_id.replace("/", "--"))
    revision = hashlib.sha1(repo_id.encode()).hexdigest()
    snapshot = repo / "snapshots" / revision
    (repo / "blobs").mkdir(parents=True)
    snapshot.mkdir(parents=True)
    for file in sorted(folder.iterdir()):
        data = file.read_bytes()
        blob = hashlib.sha256(data).hexdigest()
        (repo / "blobs" / blob).write_bytes(data)
        (snapshot / file.name).symlink_to(Path("../../blobs") / blob)
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text(revision)
    return snapshot


SIZES = {"hidden_size": 64, "intermediate_size": 64, "num_attention_heads": 4,
         "num_key_value_heads": 2, "head_dim": 16, "moe_intermediate_size": 32,
         "shared_expert_intermediate_size": 32, "num_experts": 4, "num_local_experts": 4,
         "n_routed_experts": 4, "num_experts_per_tok": 2, "n_shared_experts": 1, "n_group": 1,
         "topk_group": 1, "q_lora_rank": 32, "kv_lora_rank": 16, "qk_rope_head_dim": 8,
         "qk_nope_head_dim": 8, "v_head_dim": 16, "max_position_embeddings": 128,
         "encoder_layers": 2, "decoder_layers": 2, "encoder_attention_heads": 4,
         "decoder_attention_heads": 4, "encoder_ffn_dim": 64, "decoder_ffn_dim": 64,
         "rotary_dim": 8, "vocab_size_per_layer_input": 320, "hidden_size_per_layer_input": 8,
         "first_k_dense_replace": 1, "n_positions": 128, "num_decoder_layers": 2,
         "num_encoder_layers": 2, "num_heads": 8, "d_head": 16, "linear_head_dim": 16,
         "linear_num_heads": 4, "linear_num_key_heads": 2, "linear_num_value_heads": 4,
         "linear_key_head_dim": 16, "linear_value_head_dim": 16, "num_experts_per_token": 2,
         "mamba_d_ssm": 64, "mamba_n_heads": 8, "mamba_d_state": 16, "mamba_chunk_size": 16}
"""A tiny model's sizes, for every configuration that has the setting (by its own name or the
name transformers maps to it)."""
MAX_LAYERS = 8  # layers of a tiny model at most: enough to hold one of each layer type


def tiny_config(model_type: str, vocab: int) -> PretrainedConfig:
    """transformers' default configuration of model_type made tiny: every size it has set
    small, as many layers as it takes to hold each of its layer types once (two at least, at
    most MAX_LAYERS), its vocabulary vocab tokens, its special tokens among them."""
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING

    return _tiny(CONFIG_MAPPING[model_type], vocab)


def _tiny(cls, vocab: int):
    default = cls()
    known = set(default.to_dict()) | set(getattr(cls, "attribute_map", {}))
    given = {k: v for k, v in SIZES.items() if k in known} | {"vocab_size": vocab}
    if "kv_lora_rank" in known:  # attention over a latent: its rotary width is its own
        given["head_dim"] = SIZES["qk_rope_head_dim"]
        given["num_key_value_heads"] = SIZES["num_attention_heads"]
    for name in ("pad_token_id", "bos_token_id", "eos_token_id", "decoder_start_token_id"):
        value = getattr(default, name, None)
        if isinstance(value, int) and value >= vocab or isinstance(value, list):
            given[name] = 1
    if getattr(default, "num_experts_per_tok", 2) == 1:  # a model that routes to one expert
        given["num_experts_per_tok"] = 1
    if isinstance(getattr(default, "attention_types", None), list):  # GPT-Neo: global, local
        given["attention_types"] = [[["global", "local"], 1]]
    types = getattr(default, "layer_types", None)
    layers = 2
    if isinstance(types, list) and types:
        every, seen = set(types), set()
        for layers, kind in enumerate(types, start=1):  # noqa: B007 (the count is kept)
            seen.add(kind)
            if seen == every:
                break
        layers = min(max(layers, 2), MAX_LAYERS)
        if "layer_types" in default.to_dict():
            given["layer_types"] = types[:layers]
    if "no_rope_layers" in known:  # a layer without RoPE every fourth
        layers = max(layers, 4)
        if "layer_types" in given:
            given["layer_types"] = types[:layers]
    if "num_hidden_layers" in known:
        given["num_hidden_layers"] = layers
    if (getattr(default, "num_kv_shared_layers", 0) or 0) >= layers:  # Gemma 3n: 15 of 35
        given["num_kv_shared_layers"] = 0  # no layer left to share its cache: sharing off
    for name in getattr(cls, "sub_configs", None) or {}:
        made = getattr(default, name, None)
        if made is not None and hasattr(made, "to_dict"):
            given[name] = _tiny(type(made), vocab).to_dict()
    return cls(**given)
