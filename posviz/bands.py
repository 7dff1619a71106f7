"""Which frequency bands carry position: FoPE and HoPE, two answers of RoPE's followers.

FoPE (Hua et al. 2024, arXiv 2412.17739; TsinghuaC3I/Fourier-Position-Embedding, olmo/model.py
`FourierEmbedding`) zeroes the pairs too slow to turn once within the trained length (their
speed under the floor 2 pi / L) and makes each of the first pairs a Fourier series: its cosine
and sine are weighted sums over every frequency kept; the pairs after those it pads with
cos = sin = 1. HoPE (Chen et al. 2024, arXiv 2410.21216) keeps only high-frequency pairs and
makes the others position-independent. The HoPE paper's method section is not in the material
searched; the ports read (praxis `HoPE`: "inv_freq < 2*pi/L" dropped, "the matching head-dim
slots unrotated") cut where FoPE cuts and leave the cut pairs as they are. So on one head the two
keep the same pairs and differ in what the others do: HoPE's are unturned, FoPE's padded ones
are turned 45 degrees and stretched by sqrt 2 at every position (`fixed_turns`).

Shapes: T = positions, d = a head's width, P = d / 2 pairs, F = the frequencies FoPE keeps,
O = the pairs it turns by Fourier series.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from posviz.rope import apply_rope, rope_frequencies

FOPE_GAIN = 0.3  # the canonical configs' fourier_init_norm_gain (the 60M model's, "0_3")
FOPE_HEADS = 8  # the 60M model's n_heads: the canonical init draws one basis per head
FOPE_PAD = 1.0  # the value the canonical code pads cos and sin with past the series' pairs

FORMULA = (r"\omega_{\mathrm{floor}} = \tfrac{2\pi}{L},\ \ \theta_i < \omega_{\mathrm{floor}}"
           r" \Rightarrow \theta_i = 0 \qquad "
           r"\cos_j(m) = \sum_{f} A_{fj} \cos(m \omega_f),\ \ "
           r"\sin_j(m) = \sum_{f} B_{fj} \sin(m \omega_f)")
"""LaTeX of `floor_frequencies` and `fope_tables`."""


def floor_frequency(trained_length: int) -> float:
    """The slowest speed that turns a pair once within the trained length: 2 pi / L (the
    canonical code's floor_freq with floor_freq_ratio 1)."""
    if trained_length < 1:
        raise ValueError(f"trained_length must be at least 1, got {trained_length}")
    return 2 * np.pi / trained_length


def floor_frequencies(dim: int, base: float, trained_length: int) -> np.ndarray:
    """RoPE's speeds with every one under floor_frequency set to 0 (rope_clamp_floor_freq and
    rope_clamp_floor_to_zero): those pairs turn by no angle and carry no position. (P,)"""
    theta = rope_frequencies(dim, base)
    return np.where(theta < floor_frequency(trained_length), 0.0, theta)


def kept_wavelengths(dim: int, base: float, trained_length: int) -> np.ndarray:
    """The wavelength of each pair the cut keeps, inf for a pair it makes position-free. (P,)"""
    theta = floor_frequencies(dim, base, trained_length)
    return np.where(theta > 0, 2 * np.pi / np.where(theta > 0, theta, 1.0), np.inf)


def hope(x: np.ndarray, positions: np.ndarray, base: float, trained_length: int) -> np.ndarray:
    """HoPE's cut on x (..., T, d) in split-halves pairs: the pairs that turn at least once in
    the trained length turn as RoPE turns them, the rest are left as they are
    (position-independent). The cut is floor_frequency, as the ports read it (module
    docstring): the same pairs as FoPE's. (..., T, d)"""
    x = np.asarray(x, dtype=float)
    return apply_rope(x, positions, base, "half",
                      frequencies=floor_frequencies(x.shape[-1], base, trained_length))


def hope_tables(positions: np.ndarray, dim: int, base: float,
                trained_length: int) -> tuple[np.ndarray, np.ndarray]:
    """HoPE's cosine and sine for every position and pair, the form of `fope_tables`: RoPE's on
    the kept pairs, cos = 1 and sin = 0 (no turn) on the cut ones. (T, P) each."""
    angle = np.asarray(positions, dtype=float)[:, None] * floor_frequencies(
        dim, base, trained_length)                                          # (T, P)
    return np.cos(angle), np.sin(angle)


def fixed_turns(cos: np.ndarray, sin: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """What a pair that carries no position does instead: for each pair whose cosine and sine are
    the same at every position, the angle it turns by (degrees) and the factor it stretches by,
    atan2(sin, cos) and hypot(cos, sin); NaN for a pair whose turn changes with position. (P,)
    each."""
    still = np.all(cos == cos[:1], axis=0) & np.all(sin == sin[:1], axis=0)  # (P,)
    angle = np.degrees(np.arctan2(sin[0], cos[0]))
    return np.where(still, angle, np.nan), np.where(still, np.hypot(cos[0], sin[0]), np.nan)


def fope_sizes(dim: int, base: float, trained_length: int) -> tuple[int, int]:
    """How many frequencies FoPE keeps (F, its input_dim, the non-zero ones) and how many pairs
    it turns by a series (O, its output_dim = min(F, d // 4))."""
    kept = int(np.count_nonzero(floor_frequencies(dim, base, trained_length)))
    return kept, min(kept, dim // 4)


class FopePairs(NamedTuple):
    """A head's pairs as FoPE treats them: kept + cut = series + padded = pairs (d / 2)."""

    pairs: int
    kept: int    # turning at least once in the trained length: their frequencies stay
    cut: int     # too slow for that: set to zero
    series: int  # the first pairs, each turned by a Fourier series over the kept frequencies
    padded: int  # the pairs after those, which carry no position

    @property
    def last_kept(self) -> int:
        """The last pair whose frequency stays: kept - 1."""
        return self.kept - 1


def fope_pairs(dim: int, base: float, trained_length: int) -> FopePairs:
    """`fope_sizes` with the pairs it leaves out counted too."""
    kept, series = fope_sizes(dim, base, trained_length)
    return FopePairs(dim // 2, kept, dim // 2 - kept, series, dim // 2 - series)


def xavier_std(heads: int, kept: int, pairs: int, gain: float = FOPE_GAIN) -> float:
    """The spread of torch's xavier_normal_ on FoPE's (heads, F, O) basis: gain sqrt(2 /
    (fan_in + fan_out)) with fan_in = F O and fan_out = heads O (torch reads dimension 1 as the
    inputs, 0 as the outputs, and the rest as a kernel)."""
    return gain * float(np.sqrt(2.0 / (kept * pairs + heads * pairs)))


def fope_coefficients(dim: int, base: float, trained_length: int, gain: float = FOPE_GAIN,
                      heads: int = FOPE_HEADS, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """One head's initial FoPE coefficients, as the canonical code's "eye_xavier_norm" sets them
    with separate sine and cosine bases per head: a Xavier-normal draw (`xavier_std`) plus the
    "step eye", which gives pair j the frequency j * ceil(F / O). Seeded; (F, O) each, cosine's
    then sine's. With gain 0 every pair is a single frequency again."""
    kept, pairs = fope_sizes(dim, base, trained_length)
    if kept == 0:
        raise ValueError(f"no pair of a {dim}-wide head turns within {trained_length} positions")
    step = -(-kept // pairs)
    eye = np.zeros((kept, pairs))
    j = np.arange(pairs)
    eye[j * step, j] = 1.0                                       # pairs, step < kept always
    std = xavier_std(heads, kept, pairs, gain)
    rng = np.random.default_rng(seed)
    return (rng.normal(0.0, std, (kept, pairs)) + eye, rng.normal(0.0, std, (kept, pairs)) + eye)


def fope_tables(positions: np.ndarray, dim: int, base: float, trained_length: int,
                coefficients: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """FoPE's cosine and sine for every position and pair: pair j < O takes sum_f A_fj
    cos(m w_f) and sum_f B_fj sin(m w_f) over the kept frequencies w_f; the pairs after are
    padded with FOPE_PAD (the canonical code pads both with 1: a fixed turn by 45 degrees and a
    stretch by sqrt 2, the same at every position, so they carry none). (T, P) each."""
    theta = floor_frequencies(dim, base, trained_length)
    kept = theta[theta > 0]                                                  # (F,)
    angle = np.asarray(positions, dtype=float)[:, None] * kept               # (T, F)
    cos_a, sin_b = coefficients
    cos = np.full((len(angle), dim // 2), FOPE_PAD)
    sin = np.full((len(angle), dim // 2), FOPE_PAD)
    cos[:, :cos_a.shape[1]] = np.cos(angle) @ cos_a
    sin[:, :sin_b.shape[1]] = np.sin(angle) @ sin_b
    return cos, sin


def fope(x: np.ndarray, positions: np.ndarray, base: float, trained_length: int,
         coefficients: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """FoPE on x (T, d): x cos + rotate_half(x) sin with fope_tables (the canonical
    `FourierEmbedding.apply_rotary_pos_emb`, split-halves pairs). (T, d)"""
    x = np.asarray(x, dtype=float)
    cos, sin = fope_tables(positions, x.shape[-1], base, trained_length, coefficients)
    half = x.shape[-1] // 2
    a, b = x[..., :half], x[..., half:]
    return np.concatenate([a * cos - b * sin, b * cos + a * sin], axis=-1)


def dominant_wavelengths(dim: int, base: float, trained_length: int,
                         coefficients: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """For each pair, the wavelength of the frequency that weighs most in its cosine series (its
    step-eye frequency at initialization), inf for a pair FoPE pads. (P,)"""
    theta = floor_frequencies(dim, base, trained_length)
    kept = theta[theta > 0]
    out = np.full(dim // 2, np.inf)
    cos_a = coefficients[0]
    out[:cos_a.shape[1]] = 2 * np.pi / kept[np.abs(cos_a).argmax(axis=0)]
    return out
