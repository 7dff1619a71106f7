"""posviz's random numbers: a counter-based generator both engines compute bit for bit.

The stand-in weights (token embeddings, the seeded attention layers) must be the same numbers in
the Python engine and in the browser's (assets/viewer/src/engine/splitmix.js, the same names).
numpy's PCG64 and its ziggurat cannot be matched in a browser without porting numpy, so posviz
draws from SplitMix64 (Steele, Lea and Flood 2014, "Fast splittable pseudorandom number
generators"; the finaliser of Java's SplittableRandom), used as a counter-based generator: word i
of a stream is a pure function of (seed, stream, i), so any entry can be drawn alone.

    mix64(z)   = z3,  z1 = (z ^ z >> 30) * 0xBF58476D1CE4E5B9,  z2 = (z1 ^ z1 >> 27) *
                 0x94D049BB133111EB,  z3 = z2 ^ z2 >> 31                     (all mod 2^64)
    key        = mix64(mix64(seed + GAMMA) ^ stream),  GAMMA = 0x9E3779B97F4A7C15
    word(i)    = mix64(key + (i + 1) * GAMMA)
    uniform(i) = (word(i) >> 11) * 2^-53                                      in [0, 1)

A stream is named by text (`text_stream`: FNV-1a, 64 bits, over its UTF-8 bytes, a lone
surrogate written as its three bytes). Normals come in Box-Muller pairs: pair p uses uniforms
2p and 2p + 1,

    r = sqrt(-2 ln(1 - u_2p)),  normal(2p) = r cos(2 pi u_2p+1),
                                normal(2p + 1) = r sin(2 pi u_2p+1)

with ln, cos and sin computed here (`log_unit`, `turn`) from +, -, *, / and sqrt only, in a fixed
order: IEEE 754 rounds each of those exactly, in numpy as in JavaScript, while the libraries'
log, cos and sin may differ in the last bit. So every draw is the same double in both engines.
Reference values (tests/engine/test_splitmix.py checks them, and the browser test runs the same):
mix64(1) = 0x5692161D100B05E5, text_stream("刚") = 0x19B8251B660E1026,
uniforms(0, 0, 2) = [0.33805245419550545, 0.2691302712263999],
normals(0, 5, 2) = [-2.242470714533718, 0.24854328750495583].
"""

from __future__ import annotations

import numpy as np

MASK = (1 << 64) - 1
GAMMA = 0x9E3779B97F4A7C15
FNV_OFFSET = 0xCBF29CE484222325
FNV_PRIME = 0x100000001B3
LN2 = 0.6931471805599453
HALF_PI = 1.5707963267948966
SQRT_HALF = 0.7071067811865476
LOG_TERMS = [1.0 / (2 * n + 1) for n in range(11, -1, -1)]
"""1/23, 1/21, ..., 1/3, 1: the atanh series of `log_unit`, highest first (|s| <= 0.172)."""
INVERSE_FACTORIALS = [1.0]
for _k in range(1, 26):
    INVERSE_FACTORIALS.append(INVERSE_FACTORIALS[-1] / _k)
"""1/k! for k = 0..25, each the previous divided by k (the same divisions in both engines)."""

_U64 = np.uint64


def mix64(z: np.ndarray) -> np.ndarray:
    """SplitMix64's finaliser on uint64 words (mod 2^64). Same shape."""
    z = np.asarray(z, dtype=_U64)
    z = (z ^ (z >> _U64(30))) * _U64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> _U64(27))) * _U64(0x94D049BB133111EB)
    return z ^ (z >> _U64(31))




def text_stream(text: str) -> int:
    """A stream's number from its name: FNV-1a (64 bits) of the UTF-8 bytes of text."""
    h = FNV_OFFSET
    for byte in text.encode("utf-8", "surrogatepass"):
        h = ((h ^ byte) * FNV_PRIME) & MASK
    return h


def stream_keys(seed: int, streams: np.ndarray) -> np.ndarray:
    """key = mix64(mix64(seed + GAMMA) ^ stream) of each stream (seed taken mod 2^64). (S,)"""
    streams = np.asarray([int(s) & MASK for s in np.atleast_1d(streams)], dtype=_U64)  # (S,)
    return mix64(mix64(np.array([(seed + GAMMA) & MASK], dtype=_U64)) ^ streams)


def stream_key(seed: int, stream: int) -> int:
    """The key of one stream (`stream_keys`)."""
    return int(stream_keys(seed, np.array([stream & MASK], dtype=_U64))[0])


def words(seed: int, stream: int | np.ndarray, count: int, start: int = 0) -> np.ndarray:
    """Words start .. start + count - 1 of the stream: mix64(key + (i + 1) GAMMA). (N,) uint64,
    or (S, N) for an array of S streams."""
    if count < 0 or start < 0:
        raise ValueError(f"count and start must not be negative, got {count}, {start}")
    counters = np.arange(start + 1, start + count + 1, dtype=_U64)  # (N,)
    keys = stream_keys(seed, streams=stream)                        # (S,)
    drawn = mix64(keys[:, None] + counters[None, :] * _U64(GAMMA))  # (S, N)
    return drawn if np.ndim(stream) else drawn[0]


def uniforms(seed: int, stream: int | np.ndarray, count: int, start: int = 0) -> np.ndarray:
    """Uniform doubles in [0, 1), 53 random bits each: (word >> 11) * 2^-53. (N,) or (S, N)."""
    return (words(seed, stream, count, start) >> _U64(11)).astype(np.float64) * 2.0 ** -53


def log_unit(u: np.ndarray) -> np.ndarray:
    """ln u for u in (0, 1], from exact operations: u = m 2^e with m in [sqrt(1/2), sqrt(2)),
    ln u = e ln 2 + 2 atanh(s), s = (m - 1)/(m + 1), the series to s^23 (error < 1e-16)."""
    m, e = np.frexp(np.asarray(u, dtype=np.float64))                 # m in [0.5, 1)
    low = m < SQRT_HALF
    m, e = np.where(low, m * 2.0, m), np.where(low, e - 1, e).astype(np.float64)
    s = (m - 1.0) / (m + 1.0)
    s2 = s * s
    series = np.full_like(s, LOG_TERMS[0])
    for c in LOG_TERMS[1:]:
        series = series * s2 + c
    return e * LN2 + 2.0 * s * series


def turn(v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(cos 2 pi v, sin 2 pi v) for v in [0, 1), from exact operations: the quarter turn
    q = floor(4v) is split off exactly, the rest x = (4v - q) pi/2 in [0, pi/2) goes through
    Taylor series to x^25. Two (N,) arrays."""
    t = np.asarray(v, dtype=np.float64) * 4.0
    q = np.floor(t)
    x = (t - q) * HALF_PI
    x2 = x * x
    c = np.full_like(x, INVERSE_FACTORIALS[24])
    for k in range(22, -1, -2):
        c = c * x2 + (INVERSE_FACTORIALS[k] if k % 4 == 0 else -INVERSE_FACTORIALS[k])
    s = np.full_like(x, INVERSE_FACTORIALS[25])
    for k in range(23, 0, -2):
        s = s * x2 + (INVERSE_FACTORIALS[k] if k % 4 == 1 else -INVERSE_FACTORIALS[k])
    s = s * x
    quarter = q.astype(np.int64) % 4
    cos = np.choose(quarter, [c, -s, -c, s])
    sin = np.choose(quarter, [s, c, -s, -c])
    return cos, sin


def normals(seed: int, stream: int | np.ndarray, count: int) -> np.ndarray:
    """count standard normal doubles of the stream, by Box-Muller pairs (module docstring).
    The first entries do not depend on count. (N,), or (S, N) for an array of S streams."""
    pairs = (count + 1) // 2
    u = uniforms(seed, np.atleast_1d(stream), 2 * pairs)               # (S, 2P)
    r = np.sqrt(-2.0 * log_unit(1.0 - u[:, 0::2]))                     # (S, P)
    cos, sin = turn(u[:, 1::2])
    drawn = np.stack([r * cos, r * sin], axis=-1).reshape(len(u), -1)[:, :count]  # (S, N)
    return drawn if np.ndim(stream) else drawn[0]
