"""Rotary position embedding (Su et al. 2021, "RoFormer", sec. 3.2-3.4).

Shapes: T = number of positions, d = head dimension (even), P = d/2 channel pairs.
"""

from __future__ import annotations

import numpy as np

PAIRINGS = ("interleaved", "half")

FORMULA = (
    r"\begin{pmatrix} q'_{2i} \\ q'_{2i+1} \end{pmatrix} ="
    r"\begin{pmatrix} \cos m\theta_i & -\sin m\theta_i \\ \sin m\theta_i & \cos m\theta_i"
    r"\end{pmatrix}\begin{pmatrix} q_{2i} \\ q_{2i+1} \end{pmatrix},\qquad"
    r"\theta_i = b^{-2i/d}"
)
"""LaTeX of `apply_rope` (pairing="interleaved"); m is the position, b the base."""


def rope_frequencies(dim: int, base: float = 10_000.0) -> np.ndarray:
    """Rotation speed of each channel pair: theta_i = base^(-2i/dim), i = 0..P-1. Returns (P,)."""
    if dim < 2 or dim % 2:
        raise ValueError(f"dim must be a positive even number, got {dim}")
    if not base > 1:
        raise ValueError(f"base must be greater than 1, got {base}")
    return base ** (-np.arange(0, dim, 2) / dim)


def pair_index(dim: int, pairing: str = "interleaved") -> tuple[np.ndarray, np.ndarray]:
    """The channels (a_i, b_i) that form pair i: (2i, 2i+1) interleaved, (i, i + P) half."""
    if pairing not in PAIRINGS:
        raise ValueError(f"pairing must be one of {PAIRINGS}, got {pairing!r}")
    half = np.arange(dim // 2)
    return (2 * half, 2 * half + 1) if pairing == "interleaved" else (half, half + dim // 2)


def apply_rope(x: np.ndarray, positions: np.ndarray, base: float = 10_000.0,
               pairing: str = "interleaved", frequencies: np.ndarray | None = None) -> np.ndarray:
    """Rotate each channel pair of x[..., t, :] counter-clockwise by positions[t] * theta_i.

        x'_a = x_a cos(m theta_i) - x_b sin(m theta_i)
        x'_b = x_a sin(m theta_i) + x_b cos(m theta_i)

    pairing="interleaved" pairs channels (2i, 2i+1) as in the RoFormer paper and Meta's llama;
    pairing="half" pairs (i, i + d/2) as GPT-NeoX and Hugging Face's `rotate_half`. Norms are
    preserved, and <R_m q, R_n k> = <q, R_(n-m) k>. `frequencies` overrides theta (context
    extension schemes). x is (..., T, d); returns the same shape, float64.
    """
    x = np.asarray(x, dtype=float)
    theta = rope_frequencies(x.shape[-1], base) if frequencies is None else frequencies
    angle = np.asarray(positions, dtype=float)[:, None] * theta  # (T, P)
    cos, sin = np.cos(angle), np.sin(angle)
    a, b = pair_index(x.shape[-1], pairing)
    out = np.empty_like(x)
    out[..., a] = x[..., a] * cos - x[..., b] * sin
    out[..., b] = x[..., a] * sin + x[..., b] * cos
    return out
