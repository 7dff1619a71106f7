"""T5's relative position buckets (Raffel et al. 2020, "Exploring the Limits of Transfer
Learning", sec. 2.1; `_relative_position_bucket` in mesh-tensorflow and Hugging Face T5).

T5 learns one scalar bias per head per bucket of the distance r = key - query. Small distances
get a bucket each; larger ones share log-spaced buckets up to max_distance, beyond which every
distance falls in the last bucket. Shapes: K = number of distances.
"""

from __future__ import annotations

import numpy as np

FORMULA = (
    r"b(r) = \begin{cases} |r| & |r| < e \\ \min\!\left(e + \left\lfloor"
    r"\frac{\ln(|r|/e)}{\ln(D/e)}\,(n - e)\right\rfloor,\; n - 1\right) & |r| \ge e \end{cases}"
    r",\qquad e = n/2"
)
"""LaTeX of the bucket of |r| among n buckets (D = max_distance); bidirectional T5 first
halves n and adds n/2 when the key comes after the query; causal T5 clips r > 0 to 0."""


def smallest_max_distance(num_buckets: int, bidirectional: bool = True) -> int:
    """The least max_distance the bucket formula can use: it must exceed e = n/2, the distances
    that get a bucket each (n = num_buckets, halved when bidirectional), or the log-spaced
    buckets would divide by ln(max_distance / e) <= 0."""
    half = num_buckets // 2 if bidirectional else num_buckets
    return half // 2 + 1


def relative_position_bucket(relative_position: np.ndarray, bidirectional: bool = True,
                             num_buckets: int = 32, max_distance: int = 128) -> np.ndarray:
    """The bucket of each distance r = key - query.

    Bidirectional: half the buckets for keys at or before the query, half (offset by
    num_buckets/2) for keys after it. Causal: every r > 0 goes to bucket 0 (the mask hides
    those keys anyway). Within n buckets, |r| < n/2 is its own bucket and the rest are
    log-spaced up to max_distance, clipped to n - 1. Returns int array, same shape as r.
    """
    half = num_buckets // 2 if bidirectional else num_buckets
    if half < 2:
        raise ValueError(f"num_buckets is too small, got {num_buckets}")
    if max_distance < (least := smallest_max_distance(num_buckets, bidirectional)):
        raise ValueError(f"max_distance must be at least {least}, got {max_distance}")
    r = np.asarray(relative_position, dtype=np.int64)
    if bidirectional:
        offset = np.where(r > 0, half, 0)
        n = np.abs(r)
    else:
        offset = np.zeros_like(r)
        n = np.maximum(-r, 0)
    max_exact = half // 2
    with np.errstate(divide="ignore"):  # log(0) where n = 0 is never used: n is small there
        large = max_exact + (np.log(n / max_exact) / np.log(max_distance / max_exact)
                             * (half - max_exact))
    large = np.minimum(np.where(n < max_exact, 0, large).astype(np.int64), half - 1)
    return offset + np.where(n < max_exact, n, large)


def buckets_by_distance(span: int, num_buckets: int = 32,
                        max_distance: int = 128) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Distances r = -span .. span with their bidirectional and causal buckets: three (K,)."""
    if span < 0:
        raise ValueError(f"span must not be negative, got {span}")
    r = np.arange(-span, span + 1)
    return (r, relative_position_bucket(r, True, num_buckets, max_distance),
            relative_position_bucket(r, False, num_buckets, max_distance))
