"""Rotary position embedding (Su et al. 2021, "RoFormer", sec. 3.2-3.4) and how long-context
models stretch it (Chen et al. 2023 position interpolation; NTK-aware scaling; Peng et al. 2023
"YaRN").

Shapes: T = number of positions, d = head dimension (even), P = d/2 channel pairs,
K = number of offsets or distances, N = number of chosen pairs.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from posviz.sinusoidal import sinusoidal

PAIRINGS = ("interleaved", "half")
METHODS = ("original", "pi", "ntk", "yarn", "llama3")
"""Context extension schemes: none, position interpolation, NTK-aware base, YaRN, Llama 3.1's."""
LLAMA3_FACTORS = (1.0, 4.0)
"""Llama 3.1's low_freq_factor and high_freq_factor (rope_scaling; assets/models/schemes.toml)."""
YARN_RAMPS = ("paper", "code")
"""YaRN's blend as the paper defines it, and as its reference code computes it (the one
transformers' `_compute_yarn_parameters` runs, and the default here)."""
YARN_BETA = 32.0  # YaRN's ramp keeps the speed of a pair that turned this many times (paper)

FORMULA = (
    r"\begin{pmatrix} q'_{2i} \\ q'_{2i+1} \end{pmatrix} ="
    r"\begin{pmatrix} \cos m\theta_i & -\sin m\theta_i \\ \sin m\theta_i & \cos m\theta_i"
    r"\end{pmatrix}\begin{pmatrix} q_{2i} \\ q_{2i+1} \end{pmatrix},\qquad"
    r"\theta_i = b^{-2i/d}"
)
"""LaTeX of `apply_rope` (pairing="interleaved"); m is the position, b the base."""

FORMULA_HALF = (
    r"\begin{pmatrix} q'_{i} \\ q'_{i+d/2} \end{pmatrix} ="
    r"\begin{pmatrix} \cos m\theta_i & -\sin m\theta_i \\ \sin m\theta_i & \cos m\theta_i"
    r"\end{pmatrix}\begin{pmatrix} q_{i} \\ q_{i+d/2} \end{pmatrix},\qquad"
    r"\theta_i = b^{-2i/d}"
)
"""LaTeX of `apply_rope` (pairing="half")."""

SCORE_FORMULA = (
    r"s_{mn} = \langle R_m q_m,\, R_n k_n \rangle = \langle q_m,\, R_{n-m} k_n \rangle"
)
"""LaTeX of `rope_scores`: the score sees the positions only through n - m."""

DECAY_FORMULA = (
    r"\frac{1}{d/2}\sum_{j=1}^{d/2} \lvert S_j \rvert,\qquad "
    r"S_j = \sum_{i=0}^{j-1} e^{\,\mathrm{i}\,(m-n)\,\theta_i}"
)
"""LaTeX of `decay_bound` (RoFormer sec. 3.4.3)."""

CONTEXT_FORMULA = (  # parts a phone stacks (formula_parts), side by side on a desk
    r"\text{PI: } m \to \tfrac{m}{s} \qquad \text{NTK: } b' = b\, s^{d/(d-2)} \qquad"
    r"\text{YaRN: } \theta'_i = (1-\gamma_i)\,\tfrac{\theta_i}{s} + \gamma_i\,\theta_i \qquad "
    r"\sqrt{1/t} = 0.1 \ln s + 1 \qquad "
    r"\gamma_i = \min\!\left(1, \max\!\left(0, \tfrac{L/\lambda_i - \alpha}{\beta - \alpha}"
    r"\right)\right) \qquad "
    r"\tilde\gamma_i = \min\!\left(1, \max\!\left(0, \tfrac{\lceil i_\alpha \rceil - i}"
    r"{\lceil i_\alpha \rceil - \lfloor i_\beta \rfloor}\right)\right) \qquad "
    r"i_r = \tfrac{d \ln (L / 2\pi r)}{2 \ln b}"
)
"""LaTeX of `context_frequencies`, `yarn_ramp` (gamma: ramp="paper", tilde gamma: ramp="code")
and `yarn_temperature`. Language-neutral: the page names L, lambda_i, alpha, beta and t in a
caption."""


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


def pair_coordinates(x: np.ndarray, pair: int, pairing: str = "interleaved") -> np.ndarray:
    """The two channels (a_i, b_i) of pair i of every row of x (..., T, d): the point that
    RoPE turns in that pair's plane. Returns (..., T, 2)."""
    a, b = pair_index(x.shape[-1], pairing)
    if not 0 <= pair < len(a):
        raise ValueError(f"pair must lie in 0..{len(a) - 1}, got {pair}")
    return np.stack([x[..., a[pair]], x[..., b[pair]]], axis=-1)


def ladder_pairs(dim: int, n_hands: int = 4) -> np.ndarray:
    """n_hands pair indices spread evenly from the fastest (0) to the slowest (P-1) pair, like
    the hands of a clock. Returns (N,) int, increasing, without repeats."""
    if dim < 2 or dim % 2:
        raise ValueError(f"dim must be a positive even number, got {dim}")
    return np.unique(np.linspace(0, dim // 2 - 1, n_hands).round().astype(int))


def pair_trajectory(vector: np.ndarray, positions: np.ndarray, pairs: np.ndarray,
                    base: float = 10_000.0, pairing: str = "interleaved") -> np.ndarray:
    """Where one vector (d,) lands in each chosen pair's plane when it stands at each position:
    point [n, k] is pair pairs[n] of R_{positions[k]} vector. Returns (N, K, 2)."""
    placed = np.broadcast_to(np.asarray(vector, dtype=float), (len(positions), len(vector)))
    rotated = apply_rope(placed, positions, base, pairing)  # (K, d)
    return np.stack([pair_coordinates(rotated, int(p), pairing) for p in pairs])  # (N, K, 2)


def rope_scores(q: np.ndarray, k: np.ndarray, positions: np.ndarray, base: float = 10_000.0,
                pairing: str = "interleaved") -> np.ndarray:
    """Raw scores s[m, n] = <R_(p_m) q_m, R_(p_n) k_n> of queries q and keys k, both (T, d),
    standing at positions p. They depend on the positions only through p_n - p_m.
    Returns (T, T)."""
    return apply_rope(q, positions, base, pairing) @ apply_rope(k, positions, base, pairing).T


def rope_norms(x: np.ndarray, positions: np.ndarray, base: float = 10_000.0,
               pairing: str = "interleaved") -> tuple[np.ndarray, np.ndarray]:
    """|x_t| and |R_(p_t) x_t| for every row of x (T, d): equal, since rotations keep lengths.
    Returns two (T,) arrays."""
    return (np.linalg.norm(x, axis=-1),
            np.linalg.norm(apply_rope(x, positions, base, pairing), axis=-1))


def _check_shift(seq_len: int, m: int, n: int, offsets: np.ndarray) -> np.ndarray:
    """offsets as an int array, after checking m, n are positions and every offset >= 0."""
    if not (0 <= m < seq_len and 0 <= n < seq_len):
        raise ValueError(f"positions must lie in 0..{seq_len - 1}, got {m} and {n}")
    offsets = np.asarray(offsets, dtype=int)
    if offsets.size and offsets.min() < 0:
        raise ValueError(f"offsets must not be negative, got {offsets.min()}")
    return offsets


def shifted_rope_scores(q: np.ndarray, k: np.ndarray, m: int, n: int, offsets: np.ndarray,
                        base: float = 10_000.0, pairing: str = "interleaved") -> np.ndarray:
    """The RoPE score of query q_m and key k_n after moving the whole sentence by each offset o:
    <R_(m+o) q_m, R_(n+o) k_n>. The same for every o, up to float rounding. Returns (K,)."""
    offsets = _check_shift(len(q), m, n, offsets)
    qs = apply_rope(np.broadcast_to(q[m], (len(offsets), q.shape[-1])), m + offsets, base, pairing)
    ks = apply_rope(np.broadcast_to(k[n], (len(offsets), k.shape[-1])), n + offsets, base, pairing)
    return (qs * ks).sum(axis=-1)


def same_up_to_rounding(before: float, after: float, rtol: float = 1e-9) -> bool:
    """Whether two float64 numbers differ by rounding only: |after - before| <= rtol · max(1,
    |before|, |after|). RoPE's score moved by a shift differs from the unmoved one by about
    1e-14; any real change is many orders of magnitude larger."""
    return abs(after - before) <= rtol * max(1.0, abs(before), abs(after))


def shifted_added_scores(x: np.ndarray, wq: np.ndarray, wk: np.ndarray, m: int, n: int,
                         offsets: np.ndarray, base: float = 10_000.0) -> np.ndarray:
    """The same shift with sinusoidal PE added to the input instead (Vaswani et al. 2017):
    ((x_m + PE_(m+o)) W_q) . ((x_n + PE_(n+o)) W_k). It changes with o. x is (T, D), the
    projections W_q, W_k are (D, d). Returns (K,)."""
    offsets = _check_shift(len(x), m, n, offsets)
    pe = sinusoidal(max(m, n) + int(offsets.max(initial=0)) + 1, x.shape[-1], base)  # (T+o, D)
    qs = (x[m] + pe[m + offsets]) @ wq  # (K, D)
    ks = (x[n] + pe[n + offsets]) @ wk  # (K, D)
    return (qs * ks).sum(axis=-1)


def decay_bound(distances: np.ndarray, dim: int, base: float = 10_000.0) -> np.ndarray:
    """RoFormer's long-term decay bound (sec. 3.4.3) at each relative distance m - n:

        (1/(d/2)) * sum_{j=1..d/2} |S_j|,   S_j = sum_{i=0..j-1} exp(1j * (m - n) * theta_i)

    A worst-case bound on |score| (up to a factor set by q and k) that uses no q or k; it is
    (d/2 + 1)/2 at distance 0. For a large d and base (such as 128 and 10000) its envelope
    falls, with ripples, as the distance grows; with a small d or base it soon just
    oscillates. Returns (K,).
    """
    theta = rope_frequencies(dim, base)                                         # (P,)
    phases = np.exp(1j * np.asarray(distances, dtype=float)[:, None] * theta)  # (K, P)
    return np.abs(np.cumsum(phases, axis=-1)).mean(axis=-1)


def ntk_base(base: float, scale: float, dim: int) -> float:
    """NTK-aware base b' = b * s^(d/(d-2)): pair 0 keeps its speed, pair P-1 turns s times
    slower."""
    _check_scale(scale)
    if dim < 4 or dim % 2:
        raise ValueError(f"dim must be an even number of at least 4, got {dim}")
    return base * scale ** (dim / (dim - 2))


DYNAMIC_FORMULA = (r"b' = b \left(\frac{s\, n}{L} - (s - 1)\right)^{d/(d-2)}"
                   r"\qquad (n > L)")
"""LaTeX of `dynamic_ntk_base`: n the text's length, L the trained one, s the scale."""


def dynamic_ntk_base(base: float, scale: float, dim: int, length: int,
                     trained_length: int) -> float:
    """Dynamic NTK scaling's base for a text of `length` tokens (transformers' rope_type
    "dynamic", `_compute_dynamic_ntk_parameters`): b (s n / L - (s - 1))^(d/(d-2)) with
    n = max(length, L). At n = L it is b. At n = s L the bracket is s^2 - s + 1, so the base
    is larger than NTK-aware scaling's at s (`ntk_base`), which dynamic NTK reaches already at
    n = (2 - 1/s) L."""
    ntk_base(base, scale, dim)  # refuses a scale < 1 or a dim too small
    if trained_length < 1:
        raise ValueError(f"trained_length must be at least 1, got {trained_length}")
    n = max(length, trained_length)
    return base * (scale * n / trained_length - (scale - 1)) ** (dim / (dim - 2))


def dynamic_ntk_meet(scale: float, trained_length: int) -> float:
    """The length at which dynamic NTK's bracket s n / L - (s - 1) reaches s, so that its base
    is NTK-aware scaling's at s (`ntk_base`): n = (2 - 1/s) L, short of s L."""
    _check_scale(scale)
    return (2 - 1 / scale) * trained_length


def interpolate_positions(positions: np.ndarray, scale: float) -> np.ndarray:
    """Position interpolation: m -> m / s, squeezing s times more tokens into the trained
    range. Returns the positions as floats, same shape."""
    _check_scale(scale)
    return np.asarray(positions, dtype=float) / scale


def yarn_ramp(dim: int, trained_length: int, base: float = 10_000.0, alpha: float = 1.0,
              beta: float = YARN_BETA, ramp: str = "code") -> np.ndarray:
    """YaRN's blend gamma_i per pair (Peng et al. 2023, sec. 3.2). Returns (P,) in [0, 1]:
    1 keeps the pair's speed, 0 interpolates it fully.

    ramp="paper": with r_i = L / lambda_i the number of turns pair i makes over the trained
    length L, gamma_i = 0 for r_i < alpha, 1 for r_i > beta, linear in r_i in between.
    ramp="code" (the default): the reference code's ramp, which transformers'
    `_compute_yarn_parameters` runs too, linear in the pair index i (so linear in log r_i)
    between the pairs `yarn_ramp_bounds` finds. Both keep the pairs beyond beta turns and
    interpolate those below alpha; in between, the code's ramp keeps most pairs faster.
    """
    if ramp not in YARN_RAMPS:
        raise ValueError(f"ramp must be one of {YARN_RAMPS}, got {ramp!r}")
    if trained_length < 1:
        raise ValueError(f"trained_length must be at least 1, got {trained_length}")
    if not 0 < alpha < beta:
        raise ValueError(f"need 0 < alpha < beta, got alpha={alpha}, beta={beta}")
    if ramp == "code":
        low, high = yarn_ramp_bounds(dim, trained_length, base, alpha, beta)
        high = high + 0.001 if low == high else high  # as the reference code: no 0/0
        return 1.0 - np.clip((np.arange(dim // 2) - low) / (high - low), 0.0, 1.0)
    turns = trained_length / wavelengths(rope_frequencies(dim, base))  # (P,)
    return np.clip((turns - alpha) / (beta - alpha), 0.0, 1.0)


def yarn_ramp_bounds(dim: int, trained_length: int, base: float = 10_000.0, alpha: float = 1.0,
                     beta: float = 32.0) -> tuple[int, int]:
    """The pair indices between which the YaRN reference code ramps (its
    `_yarn_find_correction_range`): i_r = d ln(L / (2 pi r)) / (2 ln b) is the (fractional)
    pair that makes r turns over L; the ramp runs from floor(i_beta) to ceil(i_alpha), clamped
    to 0 .. d-1 as that code does."""
    rope_frequencies(dim, base)  # refuses an odd dim or a base <= 1

    def pair_making(turns: float) -> float:
        return dim * math.log(trained_length / (turns * 2 * math.pi)) / (2 * math.log(base))

    return max(math.floor(pair_making(beta)), 0), min(math.ceil(pair_making(alpha)), dim - 1)


def yarn_temperature(scale: float) -> float:
    """YaRN's attention temperature t, from sqrt(1/t) = 0.1 ln s + 1 (Peng et al. 2023,
    sec. 3.4): logits are divided by t, i.e. multiplied by (0.1 ln s + 1)^2. The rule is an
    empirical fit (lowest perplexity on LLaMA models); t < 1 sharpens the softmax, offsetting
    part of the flattening that many more tokens bring."""
    _check_scale(scale)
    return 1.0 / (0.1 * math.log(scale) + 1.0) ** 2


def llama3_frequencies(dim: int, base: float, factor: float, low_freq_factor: float,
                       high_freq_factor: float, original: int) -> np.ndarray:
    """Llama 3.1's RoPE frequencies (rope_type "llama3"): pairs whose wavelength is shorter
    than original / high_freq_factor keep their speed, those longer than original /
    low_freq_factor turn factor times slower, those between move smoothly from one to the
    other. Written as Hugging Face's `_compute_llama3_parameters`. Returns (P,)."""
    theta = rope_frequencies(dim, base)
    wavelength = 2 * math.pi / theta
    low, high = original / low_freq_factor, original / high_freq_factor  # wavelengths
    smooth = (original / wavelength - low_freq_factor) / (high_freq_factor - low_freq_factor)
    between = (1 - smooth) * theta / factor + smooth * theta
    return np.where(wavelength < high, theta, np.where(wavelength > low, theta / factor,
                                                       between))


def llama3_wavelengths(original: int, low_freq_factor: float,
                       high_freq_factor: float) -> tuple[float, float]:
    """The wavelengths that bound Llama 3.1's blend: pairs turning with a shorter one than
    original / high_freq_factor keep their speed, those with a longer one than original /
    low_freq_factor are slowed (`llama3_frequencies`). Llama 3.1: 2,048 and 8,192."""
    return original / high_freq_factor, original / low_freq_factor


class Llama3Bands(NamedTuple):
    """How many of a head's pairs Llama 3.1's scaling keeps at their speed, blends, slows."""

    kept: int
    blended: int
    slowed: int

    @property
    def pairs(self) -> int:
        """All the head's pairs: d / 2."""
        return self.kept + self.blended + self.slowed


def llama3_bands(dim: int, base: float, factor: float, low_freq_factor: float,
                 high_freq_factor: float, original: int) -> Llama3Bands:
    """How many pairs `llama3_frequencies` leaves at their speed, blends, and slows factor
    times. Llama 3.1 8B's head (d 128, base 500,000): 29, 6, 29."""
    scaled = llama3_frequencies(dim, base, factor, low_freq_factor, high_freq_factor, original)
    theta = rope_frequencies(dim, base)
    kept, slowed = np.isclose(scaled, theta), np.isclose(scaled, theta / factor)
    return Llama3Bands(int(kept.sum()), int((~kept & ~slowed).sum()), int(slowed.sum()))


def context_frequencies(method: str, dim: int, scale: float, trained_length: int,
                        base: float = 10_000.0, ramp: str = "code") -> np.ndarray:
    """Rotation speed of each pair after stretching a model trained on trained_length tokens
    to scale times as many:

    - "original": theta_i = base^(-2i/d), unchanged;
    - "pi": theta_i / s (the same as interpolate_positions);
    - "ntk": rope_frequencies with base ntk_base(base, s, d);
    - "yarn": (1 - gamma_i) theta_i / s + gamma_i theta_i, gamma from yarn_ramp (alpha 1,
      beta 32; the reference code's ramp, as transformers runs it, or with ramp="paper" the
      paper's); use it with yarn_temperature;
    - "llama3": llama3_frequencies with factor s, Llama 3.1's frequency factors and
      trained_length as the original context.

    At s = 1 every method gives the original frequencies. Returns (P,).
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    _check_scale(scale)
    theta = rope_frequencies(dim, base)
    if method == "pi":
        return theta / scale
    if method == "ntk":
        return rope_frequencies(dim, ntk_base(base, scale, dim))
    if method == "yarn":
        gamma = yarn_ramp(dim, trained_length, base, ramp=ramp)
        return (1 - gamma) * theta / scale + gamma * theta
    if method == "llama3":
        return llama3_frequencies(dim, base, scale, *LLAMA3_FACTORS, trained_length)
    return theta


def yarn_ramp_gap(dim: int, scale: float, trained_length: int,
                  base: float = 10_000.0) -> tuple[int, float]:
    """Where YaRN's two ramps disagree most: the pair i, and the ratio of its speeds with the
    code's ramp and with the paper's (> 1: the code's ramp keeps that pair faster). At s = 1
    neither ramp changes any pair and the ratio is 1 (up to rounding)."""
    paper, code = (context_frequencies("yarn", dim, scale, trained_length, base, ramp=ramp)
                   for ramp in YARN_RAMPS)
    pair = int(np.abs(np.log(code / paper)).argmax())  # furthest apart, either way
    return pair, float(code[pair] / paper[pair])


def wavelengths(frequencies: np.ndarray) -> np.ndarray:
    """Positions per full turn of each pair: lambda_i = 2 pi / theta_i. Same shape."""
    return 2 * np.pi / np.asarray(frequencies, dtype=float)


def _check_scale(scale: float) -> None:
    """Raise ValueError unless the context scale s = new length / trained length is >= 1."""
    if not scale >= 1:
        raise ValueError(f"scale must be at least 1, got {scale}")
