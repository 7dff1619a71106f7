"""ALiBi, attention with linear biases (Press et al. 2022, "Train Short, Test Long", sec. 3).

Shapes: H = number of heads, T = number of positions (queries i, keys j).
"""

from __future__ import annotations

import math

import numpy as np

FORMULA = (
    r"\mathrm{softmax}\!\left(\frac{q_i K^\top}{\sqrt{d}} + m_h \cdot [-(i-1), \dots, -2, -1, 0]"
    r"\right),\qquad m_h = 2^{-8h/n}"
)
"""LaTeX of the ALiBi score for query i in head h of n (n a power of two)."""


def _power_of_two_slopes(n: int) -> list[float]:
    """m_h = 2^(-8h/n) for h = 1..n."""
    return [2.0 ** (-8.0 * h / n) for h in range(1, n + 1)]


def alibi_slopes(n_heads: int) -> np.ndarray:
    """Per-head slopes m_h: geometric 2^(-8h/n) when n is a power of two (8 heads: 1/2 .. 1/256).

    Otherwise the reference recipe: the slopes for the closest lower power of two p, then every
    other slope of the 2p-head list until there are n_heads (so the list is not sorted).
    Returns (H,).
    """
    if n_heads < 1:
        raise ValueError(f"n_heads must be at least 1, got {n_heads}")
    p = 2 ** int(math.log2(n_heads))
    extra = _power_of_two_slopes(2 * p)[0::2][: n_heads - p]
    return np.array(_power_of_two_slopes(p) + extra)


def causal_mask(seq_len: int) -> np.ndarray:
    """True where query i may attend to key j (j <= i). Returns (T, T) bool."""
    return np.tril(np.ones((seq_len, seq_len), dtype=bool))


def alibi_bias(n_heads: int, seq_len: int) -> np.ndarray:
    """bias[h, i, j] = -m_h * |i - j|: zero on the diagonal, more negative with distance.

    Where the causal mask lets query i see key j (j <= i) this equals the paper's -m_h (i - j).
    Returns (H, T, T).
    """
    distance = np.abs(np.arange(seq_len)[:, None] - np.arange(seq_len)[None, :])  # (T, T)
    return -alibi_slopes(n_heads)[:, None, None] * distance
