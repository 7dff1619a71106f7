"""Multimodal RoPE (M-RoPE) as Qwen2-VL and Qwen3-VL lay it out: every token has three position
ids (time, height, width), and each channel pair turns by the id of one axis. Qwen2-VL gives
each axis a contiguous block of pairs (mrope_section); Qwen3-VL interleaves them, pair j on
height when j = 1 (mod 3), on width when j = 2 (mod 3), each up to its section's count, and on
time otherwise; and it gives a video's frames their time as text timestamps between frames
instead of a growing time id.

Shapes: T = tokens, d = a head's width, P = d / 2 pairs, 3 = the axes (t, h, w).
"""

from __future__ import annotations

import numpy as np

from posviz.rope import rope_frequencies

LAYOUTS = ("contiguous", "interleaved")
"""Qwen2-VL's blocks of pairs per axis, and Qwen3-VL's interleaving."""
KINDS = ("text", "stamp", "patch")
"""What a token of a multimodal sequence is: typed text, a frame's timestamp, an image patch."""


def axes(sections: tuple[int, ...], layout: str) -> np.ndarray:
    """The axis (0 t, 1 h, 2 w) each pair turns by. contiguous: the first sections[0] pairs
    by time, the next sections[1] by height, the rest by width (Qwen2-VL's mrope_section);
    interleaved: pair j by height when j % 3 == 1 and j < 3 sections[1], by width when
    j % 3 == 2 and j < 3 sections[2], by time otherwise (Hugging Face's Qwen3-VL
    `recomposition_frequencies`). (P,)"""
    if layout not in LAYOUTS:
        raise ValueError(f"layout must be one of {LAYOUTS}, got {layout!r}")
    if len(sections) != 3 or min(sections) < 1:
        raise ValueError(f"need three positive sections, got {sections}")
    pairs = np.arange(sum(sections))
    if layout == "contiguous":
        return np.repeat(np.arange(3), sections)
    out = np.zeros(len(pairs), dtype=int)
    for axis in (1, 2):
        out[(pairs % 3 == axis) & (pairs < 3 * sections[axis])] = axis
    return out


def pair_count(sections: tuple[int, ...]) -> int:
    """How many pairs M-RoPE's sections share out among the axes: their sum (Qwen2-VL's
    16 + 24 + 24 = 64, a head of 128)."""
    return int(sum(sections))


def moved_pairs(sections: tuple[int, ...]) -> int:
    """How many pairs interleaving gives another axis than the contiguous blocks do.
    Qwen3-VL's sections (24, 20, 20): 43 of 64."""
    return int((axes(sections, "interleaved") != axes(sections, "contiguous")).sum())


def multimodal_rope(x: np.ndarray, positions: np.ndarray, pair_axes: np.ndarray,
                    base: float) -> np.ndarray:
    """M-RoPE on x (..., T, d): pair i (lanes i, i + d/2, as `rotate_half` pairs them) turned by
    positions[pair_axes[i], t] * base^(-2i/d). positions (3, T). (..., T, d)"""
    x = np.asarray(x, dtype=float)
    theta = rope_frequencies(x.shape[-1], base)
    if len(pair_axes) != len(theta):
        raise ValueError(f"{len(pair_axes)} axes for {len(theta)} pairs")
    angle = np.asarray(positions, dtype=float)[np.asarray(pair_axes)].T * theta   # (T, P)
    cos, sin = np.cos(angle), np.sin(angle)
    half = len(theta)
    a, b = x[..., :half], x[..., half:]
    return np.concatenate([a * cos - b * sin, a * sin + b * cos], axis=-1)


def image_positions(text_before: int, rows: int, cols: int, text_after: int
                    ) -> tuple[np.ndarray, list[str]]:
    """The three ids of text, one image of rows x cols patches, then text, as Qwen3-VL's
    `get_rope_index` gives them: text counts on with equal ids; the patches take time = the
    position where the text stopped, height and width that position plus their row and
    column; the text after goes on from that position plus max(rows, cols). Returns (3, T)
    and each token's kind."""
    parts, kinds, start = _text(text_before, 0), ["text"] * text_before, text_before
    parts.append(_frame(start, rows, cols))
    kinds += ["patch"] * (rows * cols)
    start += max(rows, cols)
    parts += _text(text_after, start)
    kinds += ["text"] * text_after
    return np.concatenate(parts, axis=1).astype(int), kinds


def video_positions(text_before: int, frames: int, rows: int, cols: int, stamp_tokens: int,
                    text_after: int, timestamps: bool = True) -> tuple[np.ndarray, list[str]]:
    """The three ids of text, a video of frames x rows x cols patches, then text.

    timestamps=True, Qwen3-VL: before each frame, stamp_tokens text tokens spell its time
    ("<0.5 seconds>"); each frame is an image of time id = where the text stopped (the video's
    grid split into frames of one, as `get_rope_index` splits it), and the next text goes on
    from there plus max(rows, cols). timestamps=False, Qwen2-VL: no stamps; one grid whose time
    id counts the frames from where the text stopped, and the text after goes on from the
    largest id plus one (`modern.mrope_positions`). Returns (3, T) and each token's kind."""
    parts, kinds, start = _text(text_before, 0), ["text"] * text_before, text_before
    if timestamps:
        for _ in range(frames):
            parts += _text(stamp_tokens, start)
            kinds += ["stamp"] * stamp_tokens
            start += stamp_tokens
            parts.append(_frame(start, rows, cols))
            kinds += ["patch"] * (rows * cols)
            start += max(rows, cols)
    else:
        t, h, w = (a.ravel() for a in np.indices((frames, rows, cols)))
        parts.append(np.stack([t, h, w]) + start)
        kinds += ["patch"] * (frames * rows * cols)
        start += max(frames, rows, cols)
    parts += _text(text_after, start)
    kinds += ["text"] * text_after
    return np.concatenate(parts, axis=1).astype(int), kinds


def patch_place(n: int, rows: int, cols: int) -> tuple[int, int, int]:
    """Where patch n of a video of frames of rows x cols patches stands, in reading order,
    frame by frame: its frame, row and column."""
    frame, at = divmod(n, rows * cols)
    return frame, at // cols, at % cols


def _text(n: int, start: int) -> list[np.ndarray]:
    """n text tokens from start: the same id on every axis. [(3, n)]"""
    return [np.stack([np.arange(start, start + n)] * 3)]


def _frame(start: int, rows: int, cols: int) -> np.ndarray:
    """One frame of rows x cols patches at start: time start, height start + row, width start
    + column, in reading order. (3, rows * cols)"""
    h, w = (a.ravel() for a in np.indices((rows, cols)))
    return np.stack([np.full(rows * cols, start), h + start, w + start])
