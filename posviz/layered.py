"""RoPE chosen per layer, as DeepSeek-V4 does: its layers with a compressor (compressed sparse
attention, ratio 4, and heavily compressed attention, ratio 128) turn their queries and keys
with one base and YaRN's stretch, its pure sliding-window layers with another base and no
stretch. Hugging Face's DeepseekV4 keeps the two as rope types "compress" and "main".

Shapes: T = positions, d = a head's width, r = its turned width (the trailing lanes),
P = r / 2 pairs, L = layers.
"""

from __future__ import annotations

import numpy as np

from posviz.rope import context_frequencies, rope_frequencies

KINDS = {0: "sliding", 4: "csa", 128: "hca"}
"""A layer's compress ratio and its kind: sliding window only, compressed sparse attention,
heavily compressed attention (Hugging Face's `_COMPRESS_RATIO_TO_LAYER_TYPE`)."""
ROPES = ("main", "compress")
"""The two rope types: plain RoPE at rope_theta, and YaRN at compress_rope_theta."""


def layer_kinds(compress_ratios: list[int], n_layers: int) -> list[str]:
    """Each decoder layer's kind, from the configuration's compress_ratios (one entry per layer,
    and possibly more for the multi-token-prediction layers, which are left out)."""
    if len(compress_ratios) < n_layers:
        raise ValueError(f"{len(compress_ratios)} compress ratios for {n_layers} layers")
    if unknown := sorted({r for r in compress_ratios[:n_layers]} - set(KINDS)):
        raise ValueError(f"compress ratios must be one of {sorted(KINDS)}, got {unknown}")
    return [KINDS[r] for r in compress_ratios[:n_layers]]


def kind_counts(compress_ratios: list[int], n_layers: int) -> dict[str, int]:
    """How many decoder layers are of each kind (`layer_kinds`), in KINDS' order."""
    kinds = layer_kinds(compress_ratios, n_layers)
    return {kind: kinds.count(kind) for kind in KINDS.values()}


def layer_rope(kind: str) -> str:
    """The rope a layer of this kind turns its queries and keys with: "main" for a sliding-only
    layer, "compress" for a layer with a compressor (Hugging Face's `rope_layer_type`)."""
    if kind not in KINDS.values():
        raise ValueError(f"kind must be one of {tuple(KINDS.values())}, got {kind!r}")
    return "main" if kind == "sliding" else "compress"


def rope_speeds(rope: str, rope_dim: int, rope_theta: float, compress_theta: float,
                factor: float, original: int) -> np.ndarray:
    """Each pair's speed under one rope type: "main", base^(-2i/r) with base rope_theta;
    "compress", YaRN over compress_theta (the reference code's ramp, beta_fast 32, beta_slow
    1, stretched factor times from original positions), as Hugging Face's
    `_compute_yarn_parameters` computes it. (P,)"""
    if rope not in ROPES:
        raise ValueError(f"rope must be one of {ROPES}, got {rope!r}")
    if rope == "main":
        return rope_frequencies(rope_dim, rope_theta)
    return context_frequencies("yarn", rope_dim, factor, original, compress_theta, ramp="code")


def yarn_speeds(rope_dim: int, base: float, factor: float, original: int) -> np.ndarray:
    """YaRN's stretch over base (the reference code's ramp), as a port that keeps it on every
    layer applies it. (P,)"""
    return context_frequencies("yarn", rope_dim, factor, original, base, ramp="code")


def tail_rope(x: np.ndarray, positions: np.ndarray, speeds: np.ndarray) -> np.ndarray:
    """DeepSeek-V4's RoPE on x (..., T, d): the last 2P lanes turned in interleaved pairs
    (2i, 2i + 1) by positions[t] * speeds[i], the leading lanes passed through (Hugging Face's
    DeepseekV4 `apply_rotary_pos_emb`: a head laid out as [nope | rope]). (..., T, d)"""
    x = np.asarray(x, dtype=float)
    speeds = np.asarray(speeds, dtype=float)
    rope_dim = 2 * len(speeds)
    if rope_dim > x.shape[-1]:
        raise ValueError(f"{rope_dim} turned lanes in a head of {x.shape[-1]}")
    angle = np.asarray(positions, dtype=float)[:, None] * speeds          # (T, P)
    cos, sin = np.cos(angle), np.sin(angle)
    out = x.copy()
    tail = x[..., x.shape[-1] - rope_dim:]
    a, b = tail[..., 0::2], tail[..., 1::2]
    out[..., x.shape[-1] - rope_dim::2] = a * cos - b * sin
    out[..., x.shape[-1] - rope_dim + 1::2] = a * sin + b * cos
    return out


def angle_gap(speeds: np.ndarray, other: np.ndarray, offset: float) -> np.ndarray:
    """How far apart two sets of speeds turn each pair over offset positions, in degrees
    (not wrapped: the accumulated difference). (P,)"""
    return np.degrees(abs(offset) * np.abs(np.asarray(speeds) - np.asarray(other)))


def yarn_drift(rope_dim: int, rope_theta: float, compress_theta: float, factor: float,
               original: int, window: int) -> tuple[float, int | None, int | None]:
    """What a port that keeps YaRN on a sliding-only layer does to it over its window: the
    largest `angle_gap` (degrees) between the layer's own speeds ("main") and YaRN's over its
    base, and the first and last pair it moves at all (by more than 1e-9 degrees; None if it
    moves none). DeepSeek-V4-Flash: 2.12 degrees, pairs 21 to 31."""
    gap = angle_gap(rope_speeds("main", rope_dim, rope_theta, compress_theta, factor, original),
                    yarn_speeds(rope_dim, rope_theta, factor, original), window)
    moved = np.nonzero(gap > 1e-9)[0]
    if not len(moved):
        return float(gap.max()), None, None
    return float(gap.max()), int(moved[0]), int(moved[-1])
