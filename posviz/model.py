"""A tiny transformer (torch, CPU) whose position scheme is a setting: none, sinusoidal,
learned absolute, RoPE or ALiBi.

The position parts are posviz's own: the sinusoidal table is `posviz.sinusoidal.sinusoidal`,
the ALiBi bias is `posviz.alibi.alibi_bias`, and RoPE turns the interleaved pairs (2i, 2i+1)
by `posviz.rope.rope_frequencies`, as `posviz.rope.apply_rope` does. The lessons and the
trained models therefore teach the same math.

Shapes: B = batch, T = positions, D = d_model, H = heads, d = D / H, L = layers, V = vocabulary.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from posviz.alibi import alibi_bias
from posviz.corpus import Vocabulary
from posviz.rope import rope_frequencies
from posviz.schemes import offered, position_scheme
from posviz.sinusoidal import sinusoidal

MODEL_SCHEMES = offered("models")
"""The trained language models' position schemes (`LanguageModel`, posviz.train; their entries
in posviz.schemes, fixed by the trained files in assets/models/): where
position enters, nowhere, added to the input (a formula or a trained table), rotating q and k,
or biasing the scores."""


@dataclass(frozen=True)
class ModelConfig:
    """Sizes of a model. max_len is the training length and the learned table's row count.
    A RoPE model stretched at inference (posviz.extension) turns its pairs at `frequencies`
    instead of base^(-2i/d), and multiplies its scores by `score_scale` (YaRN's temperature)."""

    vocab_size: int
    scheme: str = "rope"
    d_model: int = 64
    n_heads: int = 4
    n_layers: int = 2
    d_ff: int = 256
    max_len: int = 32
    causal: bool = True
    base: float = 10_000.0
    frequencies: tuple[float, ...] | None = None
    score_scale: float = 1.0

    def __post_init__(self) -> None:
        position_scheme(self.scheme, "models")  # a ValueError names the models' schemes
        if self.d_model % self.n_heads or (self.d_model // self.n_heads) % 2:
            raise ValueError(f"d_model ({self.d_model}) must be n_heads ({self.n_heads}) "
                             "times an even head size")


def sinusoidal_table(seq_len: int, d_model: int, base: float = 10_000.0) -> torch.Tensor:
    """`posviz.sinusoidal.sinusoidal` as a float32 tensor. (T, D)"""
    return torch.from_numpy(sinusoidal(seq_len, d_model, base)).float()


def rotate(x: torch.Tensor, base: float = 10_000.0,
           frequencies: tuple[float, ...] | None = None) -> torch.Tensor:
    """RoPE on x (..., T, d): pair (2i, 2i+1) of row t turned counter-clockwise by t * theta_i,
    theta_i = base^(-2i/d) (RoFormer sec. 3.4; `posviz.rope.apply_rope`, interleaved pairing),
    or the given frequencies (d/2 of them). Differentiable; same shape."""
    theta = torch.tensor(frequencies if frequencies is not None
                         else rope_frequencies(x.shape[-1], base), dtype=torch.float32)  # (d/2,)
    angle = torch.arange(x.shape[-2], dtype=torch.float32)[:, None] * theta  # (T, d/2)
    cos, sin = angle.cos(), angle.sin()
    a, b = x[..., 0::2], x[..., 1::2]                                         # (..., T, d/2)
    return torch.stack([a * cos - b * sin, a * sin + b * cos], dim=-1).flatten(-2)


def alibi_table(n_heads: int, seq_len: int) -> torch.Tensor:
    """`posviz.alibi.alibi_bias` (-m_h |i - j|) as a float32 tensor. Under the causal mask it is
    the paper's -m_h (i - j). (H, T, T)"""
    return torch.from_numpy(alibi_bias(n_heads, seq_len)).float()


class SelfAttention(nn.Module):
    """softmax(q k^T / sqrt(d) + B + M) v per head, position entering by the config's scheme."""

    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.config = config
        self.qkv = nn.Linear(config.d_model, 3 * config.d_model)
        self.out = nn.Linear(config.d_model, config.d_model)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """x (B, T, D) -> output (B, T, D) and weights (B, H, T, T), rows summing to 1."""
        c = self.config
        batch, seq_len, _ = x.shape
        q, k, v = (t.view(batch, seq_len, c.n_heads, -1).transpose(1, 2)  # (B, H, T, d)
                   for t in self.qkv(x).chunk(3, dim=-1))
        kind = position_scheme(c.scheme, "models").kind
        if kind == "rotate":
            q, k = rotate(q, c.base, c.frequencies), rotate(k, c.base, c.frequencies)
        scores = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])          # (B, H, T, T)
        if c.score_scale != 1.0:
            scores = scores * c.score_scale
        if kind == "bias":
            scores = scores + alibi_table(c.n_heads, seq_len)
        if c.causal:
            hidden = torch.ones(seq_len, seq_len, dtype=torch.bool).triu(1)
            scores = scores.masked_fill(hidden, float("-inf"))
        weights = scores.softmax(dim=-1)                                   # (B, H, T, T)
        y = (weights @ v).transpose(1, 2).reshape(batch, seq_len, -1)      # (B, T, D)
        return self.out(y), weights


class Block(nn.Module):
    """Pre-norm transformer block: x + attention(norm x), then x + MLP(norm x)."""

    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.norm1, self.norm2 = nn.LayerNorm(config.d_model), nn.LayerNorm(config.d_model)
        self.attention = SelfAttention(config)
        self.mlp = nn.Sequential(nn.Linear(config.d_model, config.d_ff), nn.GELU(),
                                 nn.Linear(config.d_ff, config.d_model))

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        y, weights = self.attention(self.norm1(x))
        x = x + y
        return x + self.mlp(self.norm2(x)), weights


class Encoder(nn.Module):
    """Token embedding (+ position, for "sinusoidal" and "learned"), the blocks, a final norm.

    Its outputs feed a head: next-token logits (`LanguageModel`) or a sentence label
    (`posviz.classifier.OrderClassifier`).
    """

    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.config = config
        self.embedding = nn.Embedding(config.vocab_size, config.d_model)
        if position_scheme(config.scheme, "models").learned_table:
            self.positions = nn.Parameter(0.02 * torch.randn(config.max_len, config.d_model))
        self.blocks = nn.ModuleList(Block(config) for _ in range(config.n_layers))
        self.norm = nn.LayerNorm(config.d_model)

    def forward(self, ids: torch.Tensor) -> tuple[torch.Tensor, list[torch.Tensor]]:
        """ids (B, T) -> hidden states (B, T, D) and every layer's weights, L x (B, H, T, T)."""
        c = self.config
        seq_len = ids.shape[-1]
        x = self.embedding(ids)                                            # (B, T, D)
        how = position_scheme(c.scheme, "models")
        if how.learned_table:
            if seq_len > c.max_len:
                raise ValueError(f"the learned position table has {c.max_len} rows, so it "
                                 f"cannot place {seq_len} tokens")
            x = x + self.positions[:seq_len]
        elif how.kind == "input":
            x = x + sinusoidal_table(seq_len, c.d_model, c.base)
        weights = []
        for block in self.blocks:
            x, w = block(x)
            weights.append(w)
        return self.norm(x), weights


class LanguageModel(nn.Module):
    """Decoder-only next-token model: logits[b, t] predict token t + 1 from tokens 0 .. t."""

    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.config = config
        self.encoder = Encoder(config)
        self.head = nn.Linear(config.d_model, config.vocab_size)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        """ids (B, T) -> logits (B, T, V)."""
        return self.head(self.encoder(ids)[0])


def window_losses(model: LanguageModel, windows: np.ndarray) -> np.ndarray:
    """Cross-entropy (nats) of predicting token t + 1 at each position t of each of the
    windows (N, T + 1). Returns (N, T)."""
    ids = torch.from_numpy(np.asarray(windows, dtype=np.int64))
    with torch.no_grad():
        logits = model(ids[:, :-1])                                        # (N, T, V)
        loss = F.cross_entropy(logits.transpose(1, 2), ids[:, 1:], reduction="none")
    return loss.double().numpy()


def without_position(model: LanguageModel) -> LanguageModel:
    """The same weights with no position signal (scheme "none"), in eval mode: a learned table
    is left out; RoPE, ALiBi and the sinusoidal table have no weights of their own."""
    out = LanguageModel(replace(model.config, scheme="none"))
    out.load_state_dict({k: v for k, v in model.state_dict().items()
                         if k != "encoder.positions"})
    return out.eval()


def position_losses(model: LanguageModel, windows: np.ndarray) -> np.ndarray:
    """`window_losses` averaged over the windows: the loss at each position. Returns (T,)."""
    return window_losses(model, windows).mean(axis=0)


def next_token_probabilities(model: LanguageModel, ids: np.ndarray) -> np.ndarray:
    """p(next token | tokens 0 .. t) at every position of one sentence ids (T,). (T, V)"""
    with torch.no_grad():
        logits = model(torch.from_numpy(np.ascontiguousarray(ids, dtype=np.int64))[None])[0]
    return logits.softmax(dim=-1).double().numpy()


def top_predictions(probabilities: np.ndarray, k: int = 5) -> tuple[np.ndarray, np.ndarray]:
    """The k most likely ids at each row of probabilities (T, V), most likely first, and their
    probabilities. Returns two (T, k) arrays."""
    ids = np.argsort(-probabilities, axis=-1, kind="stable")[:, :k]
    return ids, np.take_along_axis(probabilities, ids, axis=-1)


def attention_maps(model: LanguageModel | nn.Module, ids: np.ndarray) -> np.ndarray:
    """Every layer's and head's attention weights on one sentence ids (T,). (L, H, T, T)"""
    encoder = model.encoder
    with torch.no_grad():
        _, weights = encoder(torch.from_numpy(np.ascontiguousarray(ids, dtype=np.int64))[None])
    return torch.stack([w[0] for w in weights]).double().numpy()


def learned_table(model: LanguageModel) -> np.ndarray:
    """The trained absolute position table of a "learned" model. (max_len, D)"""
    if not position_scheme(model.config.scheme, "models").learned_table:
        raise ValueError(f"only a learned model has a position table, not {model.config.scheme}")
    return model.encoder.positions.detach().double().numpy()


def save_checkpoint(model: LanguageModel, vocab: Vocabulary, path: Path) -> int:
    """Write the float32 weights, the vocabulary and the config to path; returns its bytes.
    Everything in it is a tensor, str, number or bool, so `torch.load(weights_only=True)`
    reads it."""
    torch.save({"config": asdict(model.config), "vocabulary": list(vocab.tokens),
                "state_dict": model.state_dict()}, path)
    return Path(path).stat().st_size


def load_checkpoint(path: Path) -> tuple[LanguageModel, Vocabulary]:
    """A model written by `save_checkpoint`, in eval mode, with its vocabulary."""
    saved = torch.load(path, map_location="cpu", weights_only=True)
    model = LanguageModel(ModelConfig(**saved["config"]))
    model.load_state_dict(saved["state_dict"])
    return model.eval(), Vocabulary(tuple(saved["vocabulary"]))
