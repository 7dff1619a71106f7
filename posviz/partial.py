"""Partial RoPE (GPT-NeoX's `rotary_pct`, Hugging Face's `partial_rotary_factor`: Pythia, Phi-2,
Qwen3-Next): RoPE turns the first channels of each head, the rest carry content only.

Shapes: T = tokens, d = channels of a head, r = channels turned (`rotated_dims`).
"""

from __future__ import annotations

import numpy as np

from posviz.rope import apply_rope

FORMULA = (
    r"q' = \big[\,R_m\, q_{0:r} \;\|\; q_{r:d}\,\big],\qquad r = \lfloor f\, d \rfloor,"
    r"\qquad \theta_i = b^{-2i/r}"
)
"""LaTeX of `partial_rope`: the first r channels turned at position m (their own pairs and
frequencies, as RoPE on a head of width r), the others passed through; f is the fraction."""


def rotated_dims(head_dim: int, fraction: float) -> int:
    """How many channels of a head RoPE turns: int(head_dim * fraction), as Hugging Face
    computes it (`partial_rotary_factor`, GPT-NeoX's `rotary_pct`)."""
    if not 0 < fraction <= 1:
        raise ValueError(f"the rotated fraction must lie in (0, 1], got {fraction}")
    dims = int(head_dim * fraction)
    if dims < 2 or dims % 2:
        raise ValueError(f"{fraction} of {head_dim} channels is {dims}: not an even count >= 2")
    return dims


def partial_rope(x: np.ndarray, positions: np.ndarray, fraction: float,
                 base: float = 10_000.0, pairing: str = "half") -> np.ndarray:
    """The first rotated_dims channels of each row of x (..., T, d) turned as RoPE turns a head
    of that width (pairs (i, i + r/2) within them by default, GPT-NeoX's and Hugging Face's
    layout; frequencies base^(-2i/r)), the rest passed through untouched, carrying no
    position. fraction 1 is apply_rope itself. Returns the same shape, float64."""
    x = np.asarray(x, dtype=float)
    r = rotated_dims(x.shape[-1], fraction)
    return np.concatenate([apply_rope(x[..., :r], positions, base, pairing), x[..., r:]],
                          axis=-1)
