"""Sinusoidal positional encoding (Vaswani et al. 2017, "Attention Is All You Need", sec. 3.5).

Shapes: T = number of positions, D = d_model, K = number of offsets.
"""

from __future__ import annotations

import numpy as np

LAYOUTS = ("interleaved", "concatenated")

FORMULA = (
    r"PE_{(pos,\,2i)} = \sin\!\left(\frac{pos}{b^{2i/d}}\right),\qquad"
    r"PE_{(pos,\,2i+1)} = \cos\!\left(\frac{pos}{b^{2i/d}}\right),\qquad"
    r"i = 0,\dots,\tfrac{d}{2}-1"
)
"""LaTeX of `sinusoidal` (layout="interleaved"); b is the base (10000 in the paper)."""


def check_sizes(d_model: int, base: float) -> None:
    """Raise ValueError unless d_model is a positive even number and base > 1."""
    if d_model < 2 or d_model % 2:
        raise ValueError(f"d_model must be a positive even number, got {d_model}")
    if not base > 1:
        raise ValueError(f"base must be greater than 1, got {base}")


def frequencies(d_model: int, base: float = 10_000.0) -> np.ndarray:
    """Angular frequency of each (sin, cos) pair: w_i = base^(-2i/d_model), i = 0..D/2-1.

    Returns (D/2,), from 1 (fastest, one radian per position) down to nearly 1/base.
    """
    check_sizes(d_model, base)
    return base ** (-np.arange(0, d_model, 2) / d_model)  # (D/2,)


def sinusoidal(seq_len: int, d_model: int, base: float = 10_000.0,
               layout: str = "interleaved") -> np.ndarray:
    """Sinusoidal positional encoding.

        PE[t, 2i] = sin(t * w_i),  PE[t, 2i+1] = cos(t * w_i),  w_i = base^(-2i/d_model)

    layout="interleaved" is the paper's channel order (sin, cos, sin, cos, ...);
    layout="concatenated" puts every sine first, then every cosine ([sin | cos]), with the
    same frequencies. Returns (T, D), float64: row t is added to the token embedding at
    position t.
    """
    if seq_len < 0:
        raise ValueError(f"seq_len must not be negative, got {seq_len}")
    if layout not in LAYOUTS:
        raise ValueError(f"layout must be one of {LAYOUTS}, got {layout!r}")
    angles = np.arange(seq_len)[:, None] * frequencies(d_model, base)  # (T, D/2)
    if layout == "concatenated":
        return np.concatenate([np.sin(angles), np.cos(angles)], axis=1)  # (T, D)
    pe = np.empty((seq_len, d_model))                                   # (T, D)
    pe[:, 0::2], pe[:, 1::2] = np.sin(angles), np.cos(angles)
    return pe


def offset_matrix(offset: float, d_model: int, base: float = 10_000.0) -> np.ndarray:
    """The linear map M_k with PE(pos + k) = M_k PE(pos) for every pos (interleaved layout).

    Block diagonal: block i is the 2x2 rotation [[cos kw_i, sin kw_i], [-sin kw_i, cos kw_i]]
    acting on (sin, cos) of pair i. It depends on k only, never on pos. Returns (D, D).
    """
    angle = offset * frequencies(d_model, base)  # (D/2,)
    c, s = np.cos(angle), np.sin(angle)
    m = np.zeros((d_model, d_model))
    m[0::2, 0::2] = np.diag(c)
    m[0::2, 1::2] = np.diag(s)
    m[1::2, 0::2] = np.diag(-s)
    m[1::2, 1::2] = np.diag(c)
    return m


def dot_by_offset(offsets: np.ndarray, d_model: int, base: float = 10_000.0) -> np.ndarray:
    """PE(p) . PE(p + k) = sum_i cos(k * w_i) for each offset k: the same for every p.

    Symmetric in k, so the dot product alone cannot tell "before" from "after". Returns (K,).
    """
    return np.cos(np.asarray(offsets, dtype=float)[:, None] * frequencies(d_model, base)).sum(1)


def similarity(pe: np.ndarray) -> np.ndarray:
    """Dot products of every pair of position vectors: S[p, q] = PE(p) . PE(q). Returns (T, T)."""
    return pe @ pe.T
