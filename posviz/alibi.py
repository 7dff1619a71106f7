"""ALiBi, attention with linear biases (Press et al. 2022, "Train Short, Test Long", sec. 3).

Shapes: H = number of heads, T = number of positions (queries i, keys j).
"""

from __future__ import annotations

import numpy as np

FORMULA = (
    r"\mathrm{softmax}\!\left(\frac{q_i\,[k_0, \dots, k_i]^\top}{\sqrt{d}}"
    r" + m_h \cdot [-i, \dots, -2, -1, 0]\right),\qquad m_h = 2^{-8h/n},\; h = 1, \dots, n"
)
"""LaTeX of the ALiBi weights of query i on keys 0 .. i in head h of n (n a power of two).
Positions are numbered from 0 as everywhere in posviz; the paper numbers them from 1 and so
writes -(i-1) for the first key."""

KEY_FORMULA = r"B^{\mathrm{ref}}_{h,ij} = +m_h\, j = -m_h\,(i-j) + m_h\, i"
"""LaTeX of `alibi_key_bias`: the reference form differs from the paper's by m_h i per row."""


def _power_of_two_exponents(n: int) -> list[float]:
    """log2 m_h = -8h/n for h = 1..n."""
    return [-8.0 * h / n for h in range(1, n + 1)]


def base_head_count(n_heads: int) -> int:
    """The closest power of two p <= n_heads: heads 1 .. p take the p-head slopes, the rest
    every other slope of the 2p-head list (the reference recipe)."""
    if n_heads < 1:
        raise ValueError(f"n_heads must be at least 1, got {n_heads}")
    return 1 << (n_heads.bit_length() - 1)


def slope_exponents(n_heads: int) -> np.ndarray:
    """log2 of each head's slope, exactly: m_h = 2^e_h. Multiples of 1/8 for up to 64 heads,
    so every slope has an exact name such as 2^-5 = 0.03125. Returns (H,)."""
    p = base_head_count(n_heads)
    extra = _power_of_two_exponents(2 * p)[0::2][: n_heads - p]
    return np.array(_power_of_two_exponents(p) + extra)


def alibi_slopes(n_heads: int) -> np.ndarray:
    """Per-head slopes m_h: geometric 2^(-8h/n) when n is a power of two (8 heads: 1/2 .. 1/256).

    Otherwise the reference recipe: the slopes for the closest lower power of two p, then every
    other slope of the 2p-head list until there are n_heads (so the list is not sorted).
    Returns (H,).
    """
    return 2.0 ** slope_exponents(n_heads)


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


def alibi_key_bias(n_heads: int, seq_len: int) -> np.ndarray:
    """The reference code's form (ofirpress/attention_with_linear_biases, fairseq):
    bias[h, i, j] = +m_h * j, the same row for every query i.

    It differs from the paper's -m_h (i - j) by m_h * i, a constant along each row, so under a
    causal mask the softmax is the same although the raw matrices are not. Returns (H, T, T).
    """
    keys = np.broadcast_to(np.arange(seq_len, dtype=float), (seq_len, seq_len))  # (T, T)
    return alibi_slopes(n_heads)[:, None, None] * keys


def hide_masked(matrix: np.ndarray) -> np.ndarray:
    """matrix (..., T, T) with the cells the causal mask hides (key j > query i) set to NaN,
    so a chart draws them apart from a real zero. Returns a float copy, same shape."""
    seq_len = matrix.shape[-1]
    return np.where(causal_mask(seq_len), matrix, np.nan)


def causal_alibi_bias(n_heads: int, seq_len: int, position: bool = True) -> np.ndarray:
    """What each head adds to the scores of a causal model: -m_h (i - j) where key j <= i,
    NaN where the causal mask hides the key. position=False: no bias, zero wherever visible.
    Returns (H, T, T)."""
    bias = alibi_bias(n_heads, seq_len) if position else np.zeros((n_heads, seq_len, seq_len))
    return hide_masked(bias)


def mean_attention_distance(weights: np.ndarray) -> np.ndarray:
    """How far back each head looks on average: mean over queries i of sum_j w_ij |i - j|.

    weights (H, T, T) with rows summing to 1. Returns (H,).
    """
    seq_len = weights.shape[-1]
    distance = np.abs(np.arange(seq_len)[:, None] - np.arange(seq_len)[None, :])  # (T, T)
    return (weights * distance).sum(-1).mean(-1)


def alibi_by_distance(n_heads: int, distances: np.ndarray, position: bool = True) -> np.ndarray:
    """Each head's bias as a function of distance: -m_h |d|, the same straight line at any
    length (nothing is learned per position). position=False: all zero. Returns (H, K)."""
    slopes = alibi_slopes(n_heads) if position else np.zeros(n_heads)
    return -slopes[:, None] * np.abs(np.asarray(distances, dtype=float))[None, :]


def learned_positions(seq_len: int, max_len: int, d_model: int, seed: int = 0) -> np.ndarray:
    """A learned absolute position table (GPT-2, BERT) looked up for positions 0 .. seq_len-1.

    The table has max_len rows (seeded N(0, 1) values stand in for trained ones); a position
    >= max_len has no row, shown as NaN. Returns (T, D).
    """
    if max_len < 1 or d_model < 1:
        raise ValueError(f"max_len and d_model must be at least 1, got {max_len}, {d_model}")
    table = np.random.default_rng(seed).standard_normal((max_len, d_model))  # (max_len, D)
    out = np.full((seq_len, d_model), np.nan)                                # (T, D)
    rows = min(seq_len, max_len)
    out[:rows] = table[:rows]
    return out


def heads_shown(n_heads: int, max_shown: int = 16) -> list[int]:
    """Which heads (numbered from 1) a grid of at most max_shown panels draws: all of them, or
    evenly spread ones from the first to the last."""
    if n_heads <= max_shown:
        return list(range(1, n_heads + 1))
    return sorted({int(round(h)) for h in np.linspace(1, n_heads, max_shown)})
