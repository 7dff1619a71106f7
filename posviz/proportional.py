"""Partial RoPE two ways: GPT-NeoX's, which turns the first channels of a head at speeds set by
their own width, and Gemma 4's proportional RoPE, which turns a fraction of a wide head at speeds
set by the whole head's width and pairs lane i with lane i + d/2 across it.

Shapes: T = positions, d = a head's width, P = d / 2 channel pairs.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from posviz.rope import apply_rope, rope_frequencies

LAYOUTS = ("proportional", "neox")
"""Gemma 4's proportional RoPE (rope_type "proportional") and GPT-NeoX's partial RoPE."""

FORMULA = (r"\theta_i = \begin{cases} b^{-2i/d} & i < \lfloor f d / 2 \rfloor \\ 0 & i \ge"
           r" \lfloor f d / 2 \rfloor \end{cases} \qquad (x_i,\ x_{i+d/2}) \qquad "
           r"\theta^{\mathrm{NeoX}}_i = b^{-2i/r},\ r = \lfloor f d \rfloor \qquad "
           r"(x_i,\ x_{i+r/2})")
"""LaTeX of `proportional_frequencies` and `neox_frequencies`, with the lanes each pairs."""


def turned_pairs(head_dim: int, fraction: float) -> int:
    """How many pairs proportional RoPE turns: int(fraction * head_dim // 2), as Hugging Face's
    `_compute_proportional_rope_parameters` writes it (rope_angles)."""
    if head_dim < 2 or head_dim % 2:
        raise ValueError(f"head_dim must be a positive even number, got {head_dim}")
    if not 0 < fraction <= 1:
        raise ValueError(f"the rotated fraction must lie in (0, 1], got {fraction}")
    pairs = int(fraction * head_dim // 2)
    if pairs < 1:
        raise ValueError(f"{fraction} of {head_dim} channels turns no pair")
    return pairs


class LaneLayout(NamedTuple):
    """Which lanes of a head partial RoPE turns: `pairs` pairs, lane i with lane i + partner
    (the head's half across it, proportional; pairs inside the turned lanes, GPT-NeoX)."""

    width: int
    pairs: int
    partner: int

    @property
    def turned(self) -> int:
        """How many lanes turn: 2 pairs."""
        return 2 * self.pairs

    @property
    def still(self) -> int:
        """How many pairs never turn: (width - turned) / 2."""
        return (self.width - self.turned) // 2

    @property
    def last_pair(self) -> int:
        """The last pair (and lane) that turns: pairs - 1."""
        return self.pairs - 1

    @property
    def last_partner(self) -> int:
        """The lane the last turning pair partners: partner + pairs - 1."""
        return self.partner + self.pairs - 1


def lane_layout(head_dim: int, fraction: float, layout: str = "proportional") -> LaneLayout:
    """The turned pairs of a head of head_dim lanes that turns fraction of them, and where
    each pair's second lane stands: head_dim / 2 on, proportional; pairs on, GPT-NeoX."""
    if layout not in LAYOUTS:
        raise ValueError(f"layout must be one of {LAYOUTS}, got {layout!r}")
    pairs = turned_pairs(head_dim, fraction)
    return LaneLayout(head_dim, pairs, head_dim // 2 if layout == "proportional" else pairs)


def proportional_frequencies(head_dim: int, fraction: float, base: float,
                             factor: float = 1.0) -> np.ndarray:
    """Gemma 4's proportional RoPE: theta_i = base^(-2i/head_dim) for the first
    turned_pairs(head_dim, fraction) pairs, 0 for the rest (they turn by no angle), all divided
    by factor. The denominator stays the whole head's width, so the turned pairs are the
    fastest ones of a full-width RoPE. (P,)"""
    theta = np.zeros(head_dim // 2)
    pairs = turned_pairs(head_dim, fraction)
    theta[:pairs] = rope_frequencies(head_dim, base)[:pairs]
    return theta / factor


def neox_frequencies(head_dim: int, fraction: float, base: float) -> np.ndarray:
    """GPT-NeoX's partial RoPE: r = int(head_dim * fraction) channels turn, at theta_i =
    base^(-2i/r), the speeds of a full RoPE over r channels (its slowest pair as slow as a
    full head's). (r/2,)"""
    rotated = 2 * turned_pairs(head_dim, fraction)
    if rotated != int(head_dim * fraction):
        raise ValueError(f"{fraction} of {head_dim} channels is not an even count")
    return rope_frequencies(rotated, base)


def slowest_wavelength(head_dim: int, fraction: float, base: float,
                       layout: str = "proportional") -> float:
    """How many positions the slowest turning pair takes for one turn: 2 pi / theta of the
    last turned pair, proportional's (a full head's pair turned_pairs - 1) or GPT-NeoX's (the
    slowest of a full RoPE over the turned lanes). Gemma 4 31B's global layer: 188; GPT-NeoX's
    layout with its numbers: about 5.1 million."""
    if layout not in LAYOUTS:
        raise ValueError(f"layout must be one of {LAYOUTS}, got {layout!r}")
    if layout == "neox":
        return float(2 * np.pi / neox_frequencies(head_dim, fraction, base)[-1])
    pairs = turned_pairs(head_dim, fraction)
    return float(2 * np.pi / proportional_frequencies(head_dim, fraction, base)[pairs - 1])


def proportional_rope(x: np.ndarray, positions: np.ndarray, fraction: float,
                      base: float) -> np.ndarray:
    """Proportional RoPE on x (..., T, d): pairs (i, i + d/2) turned by positions[t] *
    proportional_frequencies (Hugging Face's x cos + rotate_half(x) sin with the zero-padded
    frequencies); the lanes of the zero pairs pass through. (..., T, d)"""
    x = np.asarray(x, dtype=float)
    return apply_rope(x, positions, base, "half",
                      frequencies=proportional_frequencies(x.shape[-1], fraction, base))


def prefix_paired_rope(x: np.ndarray, positions: np.ndarray, fraction: float,
                       base: float) -> np.ndarray:
    """The port that shortened the rotary width: proportional RoPE's frequencies, but the
    turned lanes taken as the first r = 2 turned_pairs channels and paired inside them,
    (i, i + r/2), as a GPT-NeoX-style partial RoPE pairs them (Megatron-Bridge issue 4195). The
    other channels pass through. (..., T, d)"""
    x = np.asarray(x, dtype=float)
    pairs = turned_pairs(x.shape[-1], fraction)
    theta = proportional_frequencies(x.shape[-1], fraction, base)[:pairs]
    out = x.copy()
    out[..., :2 * pairs] = apply_rope(x[..., :2 * pairs], positions, base, "half",
                                      frequencies=theta)
    return out


def lane_wavelengths(head_dim: int, fraction: float, base: float,
                     layout: str = "proportional") -> np.ndarray:
    """The wavelength (positions per turn) each lane of a head turns with, inf for a lane that
    never turns: proportional RoPE turns lanes i and i + d/2 of its first pairs, GPT-NeoX the
    first r lanes, lanes i and i + r/2 together. (d,)"""
    if layout not in LAYOUTS:
        raise ValueError(f"layout must be one of {LAYOUTS}, got {layout!r}")
    lanes = np.full(head_dim, np.inf)
    if layout == "proportional":
        theta = proportional_frequencies(head_dim, fraction, base)
        turned = theta > 0
        wave = np.where(turned, 2 * np.pi / np.where(turned, theta, 1.0), np.inf)
        lanes[:] = np.concatenate([wave, wave])
    else:
        wave = 2 * np.pi / neox_frequencies(head_dim, fraction, base)
        lanes[:2 * len(wave)] = np.concatenate([wave, wave])
    return lanes
