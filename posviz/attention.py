"""Scaled dot-product self-attention with seeded weights (Vaswani et al. 2017, sec. 3.2).

Shapes: T = number of tokens, D = d_model, H = number of heads, d = D / H (head dimension).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

FORMULA = (
    r"\mathrm{Attention}(Q, K, V) = \mathrm{softmax}\!\left(\frac{QK^\top}{\sqrt{d}}"
    r" + B + M\right) V,\qquad M_{ij} = \begin{cases} 0 & j \le i \\ -\infty & j > i"
    r"\end{cases}"
)
"""LaTeX of `attention_weights` with bias B and causal mask M."""


@dataclass(frozen=True)
class Layer:
    """One attention layer's projections, each (D, D); head h uses columns h*d .. (h+1)*d."""

    wq: np.ndarray
    wk: np.ndarray
    wv: np.ndarray
    wo: np.ndarray


def init_layers(n_layers: int, d_model: int, seed: int = 0) -> list[Layer]:
    """Seeded random layers with N(0, 1/D) entries, the same for every position scheme."""
    if n_layers < 1:
        raise ValueError(f"n_layers must be at least 1, got {n_layers}")
    if d_model < 1:
        raise ValueError(f"d_model must be at least 1, got {d_model}")
    rng = np.random.default_rng(seed)
    return [Layer(*(rng.standard_normal((4, d_model, d_model)) / np.sqrt(d_model)))
            for _ in range(n_layers)]


def split_heads(x: np.ndarray, n_heads: int) -> np.ndarray:
    """(T, D) -> (H, T, d): head h gets channels h*d .. (h+1)*d."""
    seq_len, d_model = x.shape
    if n_heads < 1 or d_model % n_heads:
        raise ValueError(f"d_model ({d_model}) must be a multiple of n_heads ({n_heads})")
    return x.reshape(seq_len, n_heads, d_model // n_heads).transpose(1, 0, 2)  # (H, T, d)


def merge_heads(x: np.ndarray) -> np.ndarray:
    """(H, T, d) -> (T, D), the inverse of split_heads."""
    n_heads, seq_len, d_head = x.shape
    return x.transpose(1, 0, 2).reshape(seq_len, n_heads * d_head)  # (T, D)


def softmax(scores: np.ndarray) -> np.ndarray:
    """Softmax over the last axis; -inf scores get weight exactly 0. Rows sum to 1."""
    shifted = scores - scores.max(axis=-1, keepdims=True)
    e = np.exp(shifted)
    return e / e.sum(axis=-1, keepdims=True)


def attention_weights(q: np.ndarray, k: np.ndarray, bias: np.ndarray | None = None,
                      causal: bool = False) -> np.ndarray:
    """softmax(q k^T / sqrt(d) + bias + mask) for q, k of shape (..., T, d).

    bias broadcasts against (..., T, T); with causal=True, key j > query i gets -inf (weight 0).
    Returns (..., T, T): every row sums to 1, every weight lies in [0, 1].
    """
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])  # (..., T, T)
    if bias is not None:
        scores = scores + bias
    if causal:
        seq_len = scores.shape[-1]
        upper = np.triu(np.ones((seq_len, seq_len), dtype=bool), k=1)
        scores = np.where(upper, -np.inf, scores)
    return softmax(scores)


def queries_keys(x: np.ndarray, layer: Layer, n_heads: int) -> tuple[np.ndarray, np.ndarray]:
    """Per-head queries and keys of x (T, D) under one layer: two arrays of shape (H, T, d)."""
    return split_heads(x @ layer.wq, n_heads), split_heads(x @ layer.wk, n_heads)
