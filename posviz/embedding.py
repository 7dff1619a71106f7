"""Token embeddings: what a token means, whatever its position.

Shapes: T = number of tokens, D = d_model.
"""

from __future__ import annotations

import hashlib

import numpy as np


def token_seed(token: str, seed: int = 0) -> list[int]:
    """A seed for one token's random stream, from its UTF-8 bytes (stable across processes)."""
    digest = hashlib.blake2b(token.encode("utf-8", "surrogatepass"), digest_size=8).digest()
    return [seed, int.from_bytes(digest, "little")]


def token_embeddings(tokens: list[str], d_model: int, seed: int = 0) -> np.ndarray:
    """A stand-in embedding table, looked up for each token: E[t] = e(tokens[t]).

    Each distinct token gets its own vector of independent N(0, 1) entries, drawn from a random
    stream seeded by the token's text and `seed` (never by Python's salted hash), so the same
    token has the same row at any position, in any sentence and in any process. A larger d_model
    extends a token's vector without changing its first entries.

    Returns (T, D), float64.
    """
    if d_model < 1:
        raise ValueError(f"d_model must be at least 1, got {d_model}")
    table = {tok: np.random.default_rng(token_seed(tok, seed)).standard_normal(d_model)
             for tok in dict.fromkeys(tokens)}
    return np.array([table[tok] for tok in tokens]).reshape(len(tokens), d_model)  # (T, D)


def cosine_similarity(x: np.ndarray) -> np.ndarray:
    """Cosine of the angle between every pair of rows: C[s, t] = x_s . x_t / (|x_s| |x_t|).

    A zero row has similarity 0 with everything (and NaN never appears). Returns (T, T).
    """
    norms = np.linalg.norm(x, axis=1)
    safe = np.where(norms > 0, norms, 1.0)
    unit = x / safe[:, None]
    return unit @ unit.T


def repeat_distances(tokens: list[str], embeddings: np.ndarray,
                     inputs: np.ndarray) -> list[dict[str, object]]:
    """For every pair of positions first < second holding the same token, a table row:
    {"token", "first", "second", "embedding_distance": |E_first - E_second|,
    "input_distance": |X_first - X_second|}.

    The embedding distance is always 0 (meaning ignores position); the input distance is what
    the positional encoding adds (0 when there is none).
    """
    return [{"token": tokens[s], "first": s, "second": t,
             "embedding_distance": float(np.linalg.norm(embeddings[s] - embeddings[t])),
             "input_distance": float(np.linalg.norm(inputs[s] - inputs[t]))}
            for s in range(len(tokens)) for t in range(s + 1, len(tokens))
            if tokens[s] == tokens[t]]
