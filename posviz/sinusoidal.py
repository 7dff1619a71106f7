"""Sinusoidal positional encoding (Vaswani et al. 2017, "Attention Is All You Need", sec. 3.5).

Shapes: T = number of positions, D = d_model, K = number of offsets.
"""

from __future__ import annotations

import numpy as np

LAYOUTS = ("interleaved", "concatenated")

FORMULA = (
    r"PE_{(pos,\,2i)} = \sin\!\left(\frac{pos}{b^{2i/d}}\right),\qquad "
    r"PE_{(pos,\,2i+1)} = \cos\!\left(\frac{pos}{b^{2i/d}}\right),\qquad "
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
    """Sinusoidal positional encoding of positions 0 .. seq_len-1.

        PE[t, 2i] = sin(t * w_i),  PE[t, 2i+1] = cos(t * w_i),  w_i = base^(-2i/d_model)

    layout="interleaved" is the paper's channel order (sin, cos, sin, cos, ...);
    layout="concatenated" puts every sine first, then every cosine ([sin | cos]), with the
    same frequencies. Returns (T, D), float64: row t is added to the token embedding at
    position t.
    """
    if seq_len < 0:
        raise ValueError(f"seq_len must not be negative, got {seq_len}")
    return sinusoidal_at(np.arange(seq_len), d_model, base, layout)


def sinusoidal_at(positions: np.ndarray, d_model: int, base: float = 10_000.0,
                  layout: str = "interleaved") -> np.ndarray:
    """The rows of `sinusoidal` for the given positions only. Returns (len(positions), D)."""
    if layout not in LAYOUTS:
        raise ValueError(f"layout must be one of {LAYOUTS}, got {layout!r}")
    angles = np.asarray(positions, dtype=float)[:, None] * frequencies(d_model, base)  # (T, D/2)
    if layout == "concatenated":
        return np.concatenate([np.sin(angles), np.cos(angles)], axis=1)  # (T, D)
    pe = np.empty((len(angles), d_model))                                # (T, D)
    pe[:, 0::2], pe[:, 1::2] = np.sin(angles), np.cos(angles)
    return pe


def channel_role(channel: int, d_model: int, layout: str = "interleaved") -> tuple[int, str]:
    """Which pair i a channel belongs to and whether it carries "sin" or "cos"."""
    if not 0 <= channel < d_model:
        raise ValueError(f"channel must lie in 0..{d_model - 1}, got {channel}")
    if layout == "interleaved":
        return channel // 2, ("sin", "cos")[channel % 2]
    return channel % (d_model // 2), ("sin", "cos")[int(channel >= d_model // 2)]


def wavelength(d_model: int, base: float = 10_000.0) -> np.ndarray:
    """Period in positions of each pair, 2 pi / w_i: from 2 pi up to nearly 2 pi * base. (D/2,)"""
    return 2 * np.pi / frequencies(d_model, base)


def sample_grid(seq_len: int, d_model: int, max_cells: int,
                layout: str = "interleaved") -> tuple[np.ndarray, np.ndarray]:
    """Positions and channels to draw so that at most max_cells cells remain.

    Every r-th position and every r-th (sin, cos) pair are kept (the smallest r that fits),
    both channels of a pair together, so a thinned heatmap still shows sines and cosines; the
    values drawn are exact, not averaged. Channels come in the order of the layout.
    Returns (rows, channels), index arrays.
    """
    if max_cells < 2:
        raise ValueError(f"max_cells must be at least 2, got {max_cells}")
    stride = 1
    while -(-seq_len // stride) * -(-(d_model // 2) // stride) * 2 > max_cells:
        stride += 1
    kept_pairs = np.arange(0, d_model // 2, stride)
    if layout == "concatenated":
        channels = np.concatenate([kept_pairs, kept_pairs + d_model // 2])
    else:
        channels = np.stack([2 * kept_pairs, 2 * kept_pairs + 1], axis=1).ravel()
    return np.arange(0, seq_len, stride), channels


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


def dot_from(pe: np.ndarray, start: int, offsets: np.ndarray) -> np.ndarray:
    """PE(start) . PE(start + k) read off the table pe for each offset k; NaN outside it. (K,)"""
    offsets = np.asarray(offsets)
    target = start + offsets
    inside = (target >= 0) & (target < len(pe))
    out = np.full(len(offsets), np.nan)
    out[inside] = pe[target[inside]] @ pe[start]
    return out


def offset_check(start: int, offset: int, d_model: int,
                 base: float = 10_000.0) -> tuple[np.ndarray, np.ndarray, float]:
    """PE(start + offset), M_offset PE(start), and the largest difference between them.

    The difference is rounding error (about 1e-15): a fixed offset is a fixed linear map.
    """
    pe_start, pe_target = sinusoidal_at(np.array([start, start + offset]), d_model, base)
    mapped = offset_matrix(offset, d_model, base) @ pe_start
    return pe_target, mapped, float(np.abs(pe_target - mapped).max())


def mean_row_norms(embeddings: np.ndarray, base: float = 10_000.0) -> tuple[float, float, float]:
    """How large the sinusoidal rows are beside the token embeddings E (T, D) they are added to.

    Returns the mean row length of E, of sqrt(D) * E (the original Transformer multiplies the
    embeddings by sqrt(d_model) before adding PE: Vaswani et al. 2017, sec. 3.4) and of PE at
    positions 0 .. T-1. Every PE row has length sqrt(D/2): each (sin, cos) pair has length 1.
    """
    embeddings = np.asarray(embeddings, dtype=float)
    if embeddings.ndim != 2 or not len(embeddings):
        raise ValueError(f"need a (T, D) table with T >= 1, got shape {embeddings.shape}")
    seq_len, d_model = embeddings.shape
    e = float(np.linalg.norm(embeddings, axis=1).mean())
    pe = float(np.linalg.norm(sinusoidal(seq_len, d_model, base), axis=1).mean())
    return e, float(np.sqrt(d_model)) * e, pe


def similarity(pe: np.ndarray) -> np.ndarray:
    """Dot products of every pair of position vectors: S[p, q] = PE(p) . PE(q). Returns (T, T)."""
    return pe @ pe.T


def sinusoidal_sampled(seq_len: int, d_model: int, base: float = 10_000.0,
                       layout: str = "interleaved", max_cells: int = 200_000,
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """The encoding on the grid of `sample_grid`: (values, positions, channels, stride).

    values is (len(positions), len(channels)); stride 1 means nothing was left out.
    """
    if seq_len < 1:
        raise ValueError(f"seq_len must be at least 1, got {seq_len}")
    rows, channels = sample_grid(seq_len, d_model, max_cells, layout)
    values = sinusoidal_at(rows, d_model, base, layout)[:, channels]
    return values, rows, channels, int(rows[1] - rows[0]) if len(rows) > 1 else 1


def spread_channels(d_model: int, layout: str = "interleaved", count: int = 4) -> list[int]:
    """The sine channels of `count` pairs spread from fastest to slowest, for the wave plot."""
    pairs = np.unique(np.linspace(0, d_model // 2 - 1, count).round().astype(int))
    return [int(2 * p if layout == "interleaved" else p) for p in pairs]


def dots_from_starts(pe: np.ndarray, offsets: np.ndarray) -> dict[int, np.ndarray]:
    """`dot_from` at starting positions 0, T/4 and T/2 of the table: the same curve each time."""
    return {p: dot_from(pe, p, offsets) for p in sorted({0, len(pe) // 4, len(pe) // 2})}
