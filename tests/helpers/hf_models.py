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
