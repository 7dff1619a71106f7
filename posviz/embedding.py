"""Token embeddings: what a token means, whatever its position.

Shapes: T = number of tokens, D = d_model.
"""

from __future__ import annotations

import numpy as np

from posviz.splitmix import normals, text_stream


def token_stream(token: str) -> int:
    """The random stream of one token's embedding, named by its text (`text_stream`: stable
    across processes and the same in the browser's engine)."""
    return text_stream(token)


def token_embeddings(tokens: list[str], d_model: int, seed: int = 0) -> np.ndarray:
    """A stand-in embedding table, looked up for each token: E[t] = e(tokens[t]).

    Each distinct token gets its own vector of independent N(0, 1) entries, drawn from a random
    stream named by the token's text, under `seed` (posviz.splitmix, never Python's salted hash),
    so the same token has the same row at any position, in any sentence, in any process and in
    the browser's engine. A larger d_model extends a token's vector without changing its first
    entries.

    Returns (T, D), float64.
    """
    if d_model < 1:
        raise ValueError(f"d_model must be at least 1, got {d_model}")
    distinct = list(dict.fromkeys(tokens))
    if not distinct:
        return np.zeros((0, d_model))
    rows = normals(seed, np.array([token_stream(tok) for tok in distinct], dtype=np.uint64),
                   d_model).reshape(len(distinct), d_model)                     # (V, D)
    where = {tok: row for row, tok in enumerate(distinct)}
    return rows[[where[tok] for tok in tokens]].reshape(len(tokens), d_model)  # (T, D)


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
