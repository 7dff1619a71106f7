"""The port-bug clinic: position bugs that framework ports of 2026's models shipped, each as the
model's own rotation and the port's, run side by side on a sentence.

Each bug is one layer's rotation of a head's queries and keys, at the widths and speeds of the
model's published configuration (assets/models/schemes.toml). The head's queries and keys are
seeded random vectors, one per token, given one habit a trained RoPE head often has: looking
one token back (its keys carry a part that is its queries' part turned one position on,
`habit_head`). The model's
rotation keeps that habit; a port that turns the wrong lanes, or at the wrong speeds, loses it
where its rotation parts from the model's.

Shapes: T = tokens (an image's patches included), d = the head's width, K = offsets.
"""

from __future__ import annotations

import functools
import tomllib
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from posviz import layered, multimodal, proportional
from posviz.attention import attention_weights
from posviz.embedding import token_embeddings
from posviz.modern import value
from posviz.rope import apply_rope

REPORTS = Path(__file__).resolve().parent.parent / "assets" / "models" / "ports.toml"
Rotation = Callable[[np.ndarray, np.ndarray], np.ndarray]  # x (T, d), positions -> (T, d)
HABIT = 12.0
"""The look-back habit's score: |u|^2 / sqrt(d), its logit for the key one token back."""
STEP = 0.5
"""The habit lives in the lanes one position turns by this many radians or more: the fast
pairs, which tell the token one back from itself and from the one before it."""
FAR_AWAY = (12_345.0, 23_456.0, 34_567.0)  # a position that turns every lane that turns at all
ONSET = 0.1
"""A bug "matters" from the offset where it moves the head's scores by a tenth (`drift`)."""
IMAGE = (2, 3)  # the image an M-RoPE bug's sentence carries after its first token: rows, cols
FARTHEST = 2 ** 20  # the longest offset the drift is drawn to (a million positions)
DRIFT_VECTORS = 8  # the drift is measured on this many seeded queries and as many keys


@dataclass(frozen=True)
class Bug:
    """One port's bug: the model's rotation (right) and the port's (wrong) of a head of width
    d, whether the sentence carries an image (M-RoPE), and the farthest a key can be from its
    query in that layer (a sliding window), if any."""

    key: str
    model: str          # its published values: a table of assets/models/schemes.toml
    width: int
    right: Rotation
    wrong: Rotation
    image: bool = False
    window: int | None = None


def _gemma4() -> Bug:
    width, fraction, base = (value("gemma4_31b", k) for k in (
        "global_head_dim", "full_partial_rotary_factor", "full_rope_theta"))
    return Bug("gemma4_prefix", "gemma4_31b", width,
               lambda x, p: proportional.proportional_rope(x, p, fraction, base),
               lambda x, p: proportional.prefix_paired_rope(x, p, fraction, base))


def _gemma4_whole() -> Bug:
    """A port that ignored the partial factor: all of the wide head turned, at the global
    layers' base over the whole width (nexusquant pull request 12)."""
    width, fraction, base = (value("gemma4_31b", k) for k in (
        "global_head_dim", "full_partial_rotary_factor", "full_rope_theta"))
    return Bug("gemma4_whole", "gemma4_31b", width,
               lambda x, p: proportional.proportional_rope(x, p, fraction, base),
               lambda x, p: apply_rope(x, p, base, "half"))


def _v4(key: str, kind: str, wrong: str) -> Bug:
    """A DeepSeek-V4 layer of this kind, turned by its own rope and by a port's."""
    m = "deepseek_v4_flash"
    width, rope_dim, theta, compress, factor, original, window = (value(m, k) for k in (
        "head_dim", "qk_rope_head_dim", "rope_theta", "compress_rope_theta",
        "rope_scaling_factor", "rope_scaling_original_max_position_embeddings",
        "sliding_window"))
    right = layered.rope_speeds(layered.layer_rope(kind), rope_dim, theta, compress, factor,
                                original)
    speeds = {"yarn_main": layered.yarn_speeds(rope_dim, theta, factor, original),
              "compress": layered.rope_speeds("compress", rope_dim, theta, compress, factor,
                                              original)}[wrong]
    return Bug(key, m, width, lambda x, p: layered.tail_rope(x, p, right),
               lambda x, p: layered.tail_rope(x, p, speeds),
               window=window if kind == "sliding" else None)


def _qwen3vl() -> Bug:
    m = "qwen3_vl_8b"
    width, base = value(m, "head_dim"), value(m, "rope_theta")
    sections = tuple(value(m, "mrope_section"))
    right, wrong = (multimodal.axes(sections, layout) for layout in ("interleaved",
                                                                      "contiguous"))
    return Bug("qwen3vl_contiguous", m, width,
               lambda x, p: multimodal.multimodal_rope(x, p, right, base),
               lambda x, p: multimodal.multimodal_rope(x, p, wrong, base), image=True)


def _halves() -> Bug:
    m = "qwen3_5_0_8b"
    width, base = value(m, "rotary_dim"), value(m, "rope_theta")
    return Bug("halves_as_pairs", m, width, lambda x, p: apply_rope(x, p, base, "half"),
               lambda x, p: apply_rope(x, p, base, "interleaved"))


@functools.cache
def bugs() -> tuple[Bug, ...]:
    """Every bug of the clinic, in the order the page lists them."""
    return (_gemma4(), _gemma4_whole(), _v4("v4_one_base", "csa", "yarn_main"),
            _v4("v4_compress_on_sliding", "sliding", "compress"),
            _v4("v4_yarn_on_sliding", "sliding", "yarn_main"), _qwen3vl(), _halves())


def bug(key: str) -> Bug:
    """The bug named key."""
    found = {b.key: b for b in bugs()}
    if key not in found:
        raise ValueError(f"bug must be one of {tuple(found)}, got {key!r}")
    return found[key]


@functools.cache
def _reports() -> dict[str, dict]:
    with REPORTS.open("rb") as f:
        return tomllib.load(f)


def reports(key: str) -> list[dict]:
    """The public issues and pull requests that found or fixed a bug (assets/models/ports.toml),
    each as {url, role, quote} and, where it gives one, the measured effect "figure"."""
    return _reports()[key]["reports"]


def measured(key: str) -> bool:
    """Whether some report of a bug gives the effect it measured (a "figure")."""
    return any("figure" in report for report in reports(key))


def quoted(key: str) -> dict[str, float]:
    """The published numbers a bug's description names, from its model's values: the turned
    lanes and their layout (Gemma 4), the two bases and the window (DeepSeek-V4), the image's
    size (Qwen3-VL), the head's width and base (the others)."""
    b = bug(key)
    if key.startswith("gemma4_"):
        lanes = proportional.lane_layout(b.width, value(b.model, "full_partial_rotary_factor"))
        return dict(lanes=lanes.turned, inside=lanes.pairs, across=lanes.partner,
                    wide=b.width, still=lanes.still, base=value(b.model, "full_rope_theta"))
    if key.startswith("v4_"):
        main, compress = value(b.model, "rope_theta"), value(b.model, "compress_rope_theta")
        rope = value(b.model, "qk_rope_head_dim")
        return dict(main=main, compress=compress, window=value(b.model, "sliding_window"),
                    second_main=main ** (-2 / rope),  # pair 1: base^(-2/r) rad per position
                    second_compress=compress ** (-2 / rope))
    if b.image:
        return dict(zip(("rows", "cols"), IMAGE, strict=True))
    return dict(lanes=b.width, base=value(b.model, "rope_theta"))


def named(url: str) -> str:
    """A report as people name it: owner/repo #number (a GitHub issue or pull request)."""
    owner, repo, _, number = url.removeprefix("https://github.com/").split("/")[:4]
    return f"{owner}/{repo} #{number}"


# ---- the sentence a bug is run on ------------------------------------------------------------

def sequence(tokens: list[str], image: bool) -> tuple[list[str], np.ndarray]:
    """The tokens a bug reads and their positions: the sentence, positions 0 .. T-1; with an
    image, IMAGE's patches after its first token (named "▦ r,c"), and their three ids each
    (multimodal.image_positions). Positions (T,) or (3, T)."""
    if not image:
        return list(tokens), np.arange(len(tokens))
    rows, cols = IMAGE
    ids, _ = multimodal.image_positions(1, rows, cols, len(tokens) - 1)
    patches = [f"▦ {r},{c}" for r in range(rows) for c in range(cols)]
    return [tokens[0], *patches, *tokens[1:]], ids


def one_step(image: bool) -> np.ndarray:
    """The position one token on from 0: 1, or (1, 1, 1) for M-RoPE's three ids."""
    return np.ones((3, 1)) if image else np.ones(1)


def lane_moves(turn: Rotation, width: int, where: np.ndarray) -> np.ndarray:
    """How far a rotation at one position moves each lane's unit vector. where: (1,) or
    (3, 1). (d,)"""
    positions = np.repeat(where, width, axis=-1)                             # (d,) or (3, d)
    return np.linalg.norm(turn(np.eye(width), positions) - np.eye(width), axis=-1)


@functools.cache
def moving_lanes(key: str) -> np.ndarray:
    """The lanes either rotation of a bug turns at all: where the position lives in the
    scores. (d,) bool, not to be changed by its callers."""
    b = bug(key)
    far = np.array(FAR_AWAY)[:, None] if b.image else np.array(FAR_AWAY[:1])
    return (lane_moves(b.right, b.width, far) > 1e-9) | (lane_moves(b.wrong, b.width,
                                                                      far) > 1e-9)


@functools.cache
def habit(key: str, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """The look-back habit of a bug's head: a seeded u (|u|^2 = HABIT sqrt(d)) in the lanes
    one position turns by STEP or more under the model's rotation, and u turned one position
    on by that rotation. (d,) each, not to be changed by their callers."""
    b = bug(key)
    u = np.random.default_rng(seed + 1).standard_normal(b.width)
    u *= lane_moves(b.right, b.width, one_step(b.image)) >= 2 * np.sin(STEP / 2)
    u *= np.sqrt(HABIT * np.sqrt(b.width)) / np.linalg.norm(u)
    return u, b.right(u[None], one_step(b.image))[0]


def habit_head(tokens: list[str], b: Bug, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """A head's queries and keys (T, d) for tokens: each token's own seeded query and key
    (independent N(0, 1) entries, as the seeded model's projections of its embedding have;
    posviz.embedding, with seeds of their own), each given the look-back habit: u added to
    every query, u turned one position on by the model's rotation added to every key. Under
    the model's rotation a query then finds u in the key one token back:
    <R_m u, R_n R_1 u> = |u|^2 at n = m - 1."""
    u, turned = habit(b.key, seed)
    q, k = seeded_head(tokens, b.width, seed)
    return q + u, k + turned


def seeded_head(tokens: list[str], width: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Each token's own seeded query and key, (T, d) each: independent N(0, 1) entries, as the
    seeded model's projections of an embedding have (posviz.embedding's table, with seeds of
    their own), the same for a token wherever it stands."""
    return (token_embeddings(list(tokens), width, seed + 2),
            token_embeddings(list(tokens), width, seed + 3))


def last_scores(tokens: list[str], width: int, turn: Rotation, seed: int = 0) -> np.ndarray:
    """The sentence's last query against every key, (T,): q_last . k_j / sqrt(d) on the seeded
    queries and keys of this width, both turned by turn at their positions 0..T-1."""
    q, k = seeded_head(tokens, width, seed)
    positions = np.arange(len(tokens))
    return turn(q, positions)[-1] @ turn(k, positions).T / np.sqrt(width)


@dataclass(frozen=True)
class Reading:
    """A bug run on a sentence: the tokens read (with an image's patches), the scores and the
    causal attention of the model's rotation and of the port's, (T, T) each, and the cell
    whose weight moved most."""

    tokens: list[str]
    scores: tuple[np.ndarray, np.ndarray]   # right, wrong: q k^T / sqrt(d), masked cells -inf
    weights: tuple[np.ndarray, np.ndarray]  # right, wrong: rows sum to 1
    largest: tuple[int, int]                # (query, key) of the largest weight change

    @property
    def change(self) -> float:
        """The largest change of any weight, |w_wrong - w_right|."""
        i, j = self.largest
        return float(abs(self.weights[1][i, j] - self.weights[0][i, j]))

    @property
    def largest_weights(self) -> tuple[float, float]:
        """The weight the largest change moved, under the model's rotation and the port's."""
        i, j = self.largest
        return float(self.weights[0][i, j]), float(self.weights[1][i, j])


def reading(tokens: list[str], key: str, seed: int = 0) -> Reading:
    """Bug key run on the sentence tokens (T >= 1): both rotations of habit_head's queries and
    keys at the sequence's positions, their scores and causal attention."""
    b = bug(key)
    seq, positions = sequence(tokens, b.image)
    q, k = habit_head(seq, b, seed)
    scores, weights = [], []
    for turn in (b.right, b.wrong):
        s = turn(q, positions) @ turn(k, positions).T / np.sqrt(b.width)     # (T, T)
        scores.append(np.where(np.tril(np.ones_like(s, dtype=bool)), s, -np.inf))
        weights.append(attention_weights(turn(q, positions), turn(k, positions), causal=True))
    moved = np.abs(weights[1] - weights[0])
    largest = np.unravel_index(int(moved.argmax()), moved.shape)
    return Reading(seq, (scores[0], scores[1]), (weights[0], weights[1]),
                   (int(largest[0]), int(largest[1])))


# ---- where in a long context a bug starts to matter ------------------------------------------

def offsets(farthest: int = FARTHEST) -> np.ndarray:
    """Offsets from 1 to farthest, about eight to a factor of ten, whole numbers. (K,)"""
    return np.unique(np.round(np.geomspace(1, farthest, 1 + int(8 * np.log10(farthest)))))


def apart(deltas: np.ndarray, n: int, image: bool) -> np.ndarray:
    """Positions of n queries at each delta after their keys' position 0, delta by delta: the
    delta itself, or for M-RoPE delta rows down an image (time 0, height delta, width 0).
    (K n,) or (3, K n)"""
    along = np.repeat(np.asarray(deltas, dtype=float), n)
    if image:
        return np.stack([np.zeros_like(along), along, np.zeros_like(along)])
    return along


def drift_head(key: str, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """The queries and keys a bug's drift is measured on, (DRIFT_VECTORS, d) each: independent
    N(0, 1) entries with the head's look-back habit (u added to each query, u turned one
    position on to each key), as on a sentence, but of no sentence: where a bug starts to
    matter is the port's, whatever was typed."""
    b = bug(key)
    u, turned = habit(key, seed)
    q, k = np.random.default_rng(seed + 4).standard_normal((2, DRIFT_VECTORS, b.width))
    return q + u, k + turned


def drift(key: str, deltas: np.ndarray, seed: int = 0) -> np.ndarray:
    """How much the port has moved the part of the head's scores that carries position by the
    time key and query are delta apart: with every key at each offset d <= delta before every
    query (deltas increasing), the root mean square over all (query, key) pairs of drift_head
    (restricted to the moving lanes) of s_wrong - s_right, at its largest so far, divided by
    the root mean square of the scores at offset 0 (where neither rotation turns anything).
    Never decreasing. (K,)"""
    b = bug(key)
    q, k = drift_head(key, seed)
    lanes = moving_lanes(key)
    q, k = q * lanes, k * lanes
    home, there = apart(np.zeros(1), len(k), b.image), apart(deltas, len(q), b.image)
    scores = [(turn(np.tile(q, (len(deltas), 1)), there) @ turn(k, home).T).reshape(
        len(deltas), len(q), len(k)) for turn in (b.right, b.wrong)]              # (K, N, N)
    moved = np.sqrt(np.mean((scores[1] - scores[0]) ** 2, axis=(1, 2)))
    scale = np.sqrt(np.mean((q @ k.T) ** 2))                     # the scores at offset 0
    return np.maximum.accumulate(moved) / scale


def reach(key: str, deltas: np.ndarray) -> np.ndarray:
    """Which offsets a bug's layer can see: all, or those within its sliding window. (K,)"""
    window = bug(key).window
    return np.ones(len(deltas), dtype=bool) if window is None else deltas <= window


def first_over(deltas: np.ndarray, moved: np.ndarray, seen: np.ndarray) -> int | None:
    """The first offset a layer sees at which the scores moved by ONSET or more; None if none."""
    over = np.nonzero((np.asarray(moved) >= ONSET) & seen)[0]
    return int(deltas[over[0]]) if len(over) else None


@functools.cache
def onset(key: str, seed: int = 0) -> int | None:
    """The first offset (of `offsets`, within the bug's window if it has one) at which the
    port moves the position part of the head's scores by ONSET or more; None if it never
    does."""
    deltas = offsets()
    return first_over(deltas, drift(key, deltas, seed), reach(key, deltas))


def looks_back(weights: np.ndarray) -> int:
    """How many queries with a token before them give it the most of their weight. (T, T)
    weights; an int in 0 .. T - 1."""
    rows = np.arange(1, len(weights))
    return int(np.sum(np.argmax(weights[1:], axis=-1) == rows - 1))


# ---- the lesson's question: which map is the port's -------------------------------------------

def port_side(text: str) -> int:
    """Where a sentence's port map is drawn, 0 (A) or 1 (B): fixed by the sentence (a room and
    its followers and files agree on it), not by the order of the lesson."""
    return zlib.crc32(text.encode("utf-8")) % 2
