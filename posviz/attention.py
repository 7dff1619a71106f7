"""Scaled dot-product self-attention with seeded weights (Vaswani et al. 2017, sec. 3.2).

Shapes: T = number of tokens, D = d_model, H = number of heads, d = D / H (head dimension),
L = number of layers.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from posviz.alibi import alibi_bias, alibi_key_bias, causal_mask, hide_masked
from posviz.embedding import token_embeddings
from posviz.partial import partial_rope
from posviz.schemes import offered, position_scheme
from posviz.sinusoidal import sinusoidal
from posviz.splitmix import normals, text_stream

HEAD_DIM = 16
"""Channels per head of the seeded model every lesson shares: d_model = HEAD_DIM * n_heads, so
any head count 1 .. 64 divides it and the same head count gives the same weights everywhere."""

BIAS_FORMS = ("paper", "reference", "none")
"""ALiBi's bias as the paper writes it (-m(i-j)), as its reference code adds it (+m j), or none."""

ATTENTION_SCHEMES = offered("attention")
"""The seeded attention stack's position schemes (`attention_stack`), as posviz.schemes lists
them: where position enters, nowhere, added to the input, turning q and k, or biasing the
scores."""

ADDED_TABLES = {"sinusoidal": sinusoidal}
"""The tables a scheme of kind "input" may add to this stack's input, by its `table`: only a
formula (a trained table has nothing to be trained with here)."""

FORMULA = (
    r"\mathrm{Attention}(Q, K, V) = \mathrm{softmax}\!\left(\frac{QK^\top}{\sqrt{d}}"
    r" + B + M\right) V,\qquad M_{ij} = \begin{cases} 0 & j \le i \\ -\infty & j > i"
    r"\end{cases}"
)
"""LaTeX of `attention_weights` with bias B and causal mask M."""


@dataclass(frozen=True)
class Layer:
    """One attention layer's projections, each (D, D); head h uses columns h*d .. (h+1)*d."""

    wq: np.ndarray
    wk: np.ndarray
    wv: np.ndarray
    wo: np.ndarray


LAYER_WEIGHTS = ("wq", "wk", "wv", "wo")
"""A layer's projections, in the order `Layer` holds them."""


def layer_stream(layer: int, name: str) -> int:
    """The random stream of one projection of one layer, named "layer 0 wq", "layer 0 wk", ...
    (no token shares it: a token never holds a space)."""
    return text_stream(f"layer {layer} {name}")


def init_layers(n_layers: int, d_model: int, seed: int = 0) -> list[Layer]:
    """Seeded random layers with N(0, 1/D) entries, the same for every position scheme.

    W[r, c] of projection `name` in layer l is entry r * D + c of normals(seed, layer_stream(l,
    name), D * D), divided by sqrt(D) (posviz.splitmix: the browser's engine draws the same). A
    layer does not depend on how many layers follow it."""
    if n_layers < 1:
        raise ValueError(f"n_layers must be at least 1, got {n_layers}")
    if d_model < 1:
        raise ValueError(f"d_model must be at least 1, got {d_model}")
    return [_drawn_layer(index, d_model, seed) for index in range(n_layers)]


@functools.lru_cache(maxsize=64)
def _drawn_layer(index: int, d_model: int, seed: int) -> Layer:
    """Layer `index` of `init_layers`, drawn once (drawing costs about 0.25 us a weight) and
    read-only, so the same weights can serve every sentence and scheme."""
    weights = []
    for name in LAYER_WEIGHTS:
        w = normals(seed, layer_stream(index, name), d_model * d_model).reshape(d_model, d_model)
        w /= np.sqrt(d_model)
        w.flags.writeable = False
        weights.append(w)
    return Layer(*weights)


def split_heads(x: np.ndarray, n_heads: int) -> np.ndarray:
    """(T, D) -> (H, T, d): head h gets channels h*d .. (h+1)*d."""
    seq_len, d_model = x.shape
    if n_heads < 1 or d_model % n_heads:
        raise ValueError(f"d_model ({d_model}) must be a multiple of n_heads ({n_heads})")
    return x.reshape(seq_len, n_heads, d_model // n_heads).transpose(1, 0, 2)  # (H, T, d)


def merge_heads(x: np.ndarray) -> np.ndarray:
    """(H, T, d) -> (T, D), the inverse of split_heads."""
    n_heads, seq_len, d_head = x.shape
    return x.transpose(1, 0, 2).reshape(seq_len, n_heads * d_head)  # (T, D)


def softmax(scores: np.ndarray) -> np.ndarray:
    """Softmax over the last axis; -inf scores get weight exactly 0. Rows sum to 1."""
    shifted = scores - scores.max(axis=-1, keepdims=True)
    e = np.exp(shifted)
    return e / e.sum(axis=-1, keepdims=True)


def attention_weights(q: np.ndarray, k: np.ndarray, bias: np.ndarray | None = None,
                      causal: bool = False) -> np.ndarray:
    """softmax(q k^T / sqrt(d) + bias + mask) for q, k of shape (..., T, d).

    bias broadcasts against (..., T, T); with causal=True, key j > query i gets -inf (weight 0).
    Returns (..., T, T): every row sums to 1, every weight lies in [0, 1].
    """
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])  # (..., T, T)
    if bias is not None:
        scores = scores + bias
    if causal:
        scores = np.where(causal_mask(scores.shape[-1]), scores, -np.inf)
    return softmax(scores)


def queries_keys(x: np.ndarray, layer: Layer, n_heads: int) -> tuple[np.ndarray, np.ndarray]:
    """Per-head queries and keys of x (T, D) under one layer: two arrays of shape (H, T, d)."""
    return split_heads(x @ layer.wq, n_heads), split_heads(x @ layer.wk, n_heads)


def one_head(tokens: list[str], d_model: int, seed: int = 0
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray, Layer]:
    """The seeded model's first layer as one head of width d_model on tokens: the embeddings
    x, queries q and keys k, (T, D) each, and the layer (its W_q and W_k)."""
    layer = init_layers(1, d_model, seed)[0]
    x = token_embeddings(list(tokens), d_model)                          # (T, D)
    q, k = (heads[0] for heads in queries_keys(x, layer, n_heads=1))     # (T, D) each
    return x, q, k, layer


def attention_mask(seq_len: int, causal: bool) -> np.ndarray:
    """True where query i may attend to key j: j <= i when causal, everywhere otherwise. (T, T)."""
    return causal_mask(seq_len) if causal else np.ones((seq_len, seq_len), dtype=bool)


@dataclass(frozen=True)
class AttentionRun:
    """What a stack of attention layers computed for one sentence."""

    weights: list[np.ndarray]  # per layer (H, T, T): weights[l][h, i, j], query i on key j
    outputs: list[np.ndarray]  # per layer (T, D): the residual stream after layer l
    mask: np.ndarray           # (T, T): True where query i may attend to key j

    def mean_weights(self, layer: int) -> np.ndarray:
        """The attention weights of one layer averaged over its heads. Rows sum to 1. (T, T)."""
        return self.weights[layer].mean(axis=0)

    def head_maps(self, layer: int) -> np.ndarray:
        """Every head's weights in one layer, then their mean as a last map. (H + 1, T, T)."""
        return np.concatenate([self.weights[layer], self.mean_weights(layer)[None]])


LAYER_FORMULA = (
    r"x^{(l)} = x^{(l-1)} + \big[A_1 V_1 \,\|\, \cdots \,\|\, A_H V_H\big]\, W_O"
)
"""LaTeX of `attention_layer` and `attention_stack`: attention plus a residual connection."""


def attention_layer(x: np.ndarray, layer: Layer, n_heads: int, scheme: str,
                    causal: bool = True, base: float = 10_000.0) -> tuple[np.ndarray, np.ndarray]:
    """One multi-head self-attention layer with a residual connection.

        A_h = softmax(q_h k_h^T / sqrt(d) + B_h + M),   y = x + concat_h(A_h v_h) W_o

    The scheme's registry entry (posviz.schemes) says how position enters. Kind "rotate"
    turns every head's q and k by their positions, its `fraction` of each head's channels in
    its `pairing` (RoPE: all of them, interleaved as RoFormer; partial RoPE: the first quarter,
    split halves as Qwen3-Next). Kind "bias" (ALiBi) adds B_h = -m_h |i - j|: with
    causal=True that is the paper's -m_h (i - j) wherever the mask lets a query see (Press et
    al. 2022); with causal=False it is a symmetric variant for encoders, not in the paper
    (whose ALiBi is causal), and it cannot tell a sentence from its reversal. Other kinds leave
    q, k and the scores alone (kind "input", as sinusoidal, is added to the stack's input, not
    here). Returns the weights
    (H, T, T) and the output (T, D).
    """

    how = position_scheme(scheme)
    seq_len = x.shape[0]
    q, k = queries_keys(x, layer, n_heads)                      # (H, T, d) each
    if how.kind == "rotate":
        fraction, pairing = how.params["fraction"], how.params["pairing"]
        q, k = (partial_rope(each, np.arange(seq_len), fraction, base, pairing) for each in (q, k))
    bias = alibi_bias(n_heads, seq_len) if how.kind == "bias" else None  # (H, T, T)
    weights = attention_weights(q, k, bias, causal)             # (H, T, T)
    v = split_heads(x @ layer.wv, n_heads)                      # (H, T, d)
    return weights, x + merge_heads(weights @ v) @ layer.wo     # (H, T, T), (T, D)


def attention_stack(x: np.ndarray, n_layers: int, n_heads: int, scheme: str,
                    causal: bool = True, seed: int = 0, base: float = 10_000.0) -> AttentionRun:
    """n_layers attention layers over token embeddings x (T, D), position entering by scheme.

    Every scheme uses the same seeded weights, init_layers(n_layers, D, seed), so only the
    scheme differs between runs. scheme="sinusoidal" adds sinusoidal(T, D, base) to x once,
    before layer 1. Each layer is attention plus a residual connection, nothing else: no
    normalisation and no feed-forward block. Those act on each token alone, so every fact about
    word order (MATH.md, "No position") holds with them too; leaving them out keeps every
    number traceable.
    """
    x = np.asarray(x, dtype=float)
    if x.ndim != 2 or x.shape[0] < 1:
        raise ValueError(f"x must be (tokens, d_model) with at least one token, got {x.shape}")
    how = position_scheme(scheme)
    seq_len, d_model = x.shape
    if how.kind == "input":
        x = x + ADDED_TABLES[how.params["table"]](seq_len, d_model, base)  # (T, D)
    weights, outputs = [], []
    for layer in init_layers(n_layers, d_model, seed):
        w, x = attention_layer(x, layer, n_heads, scheme, causal, base)
        weights.append(w)
        outputs.append(x)
    return AttentionRun(weights, outputs, attention_mask(seq_len, causal))


def alibi_attention(tokens: list[str], n_heads: int, bias: str | tuple[str, ...] = "paper",
                    seed: int = 0, head_dim: int = HEAD_DIM) -> np.ndarray:
    """Causal attention weights of layer 1 of the seeded model, ALiBi style: nothing is added
    to the token embeddings, each head adds its bias to the scores.

        w_h = softmax(q_h k_h^T / sqrt(head_dim) + B_h + M)

    bias="paper" uses -m_h (i - j) (`alibi_bias`), "reference" the code's +m_h j
    (`alibi_key_bias`), "none" no bias at all (no position information). The queries and keys
    are those of `init_layers(1, n_heads * head_dim, seed)[0]` on `token_embeddings(tokens,
    n_heads * head_dim)`, as in the attention lesson. Returns (H, T, T): rows sum to 1, keys
    after the query get weight 0. A tuple of forms gives each form's weights, stacked
    (F, H, T, T), from one set of queries and keys (the seeded layer is the slow part).
    """
    forms = (bias,) if isinstance(bias, str) else tuple(bias)
    if unknown := [form for form in forms if form not in BIAS_FORMS]:
        raise ValueError(f"bias must be one of {BIAS_FORMS}, got {unknown[0]!r}")
    if n_heads < 1:
        raise ValueError(f"n_heads must be at least 1, got {n_heads}")
    d_model = n_heads * head_dim
    x = token_embeddings(tokens, d_model)                                  # (T, D)
    q, k = queries_keys(x, init_layers(1, d_model, seed)[0], n_heads)      # (H, T, d) each
    seq_len = len(tokens)
    biases = {"paper": alibi_bias, "reference": alibi_key_bias}
    weights = np.stack([attention_weights(q, k, biases[form](n_heads, seq_len)
                                          if form in biases else None, causal=True)
                        for form in forms])                                # (F, H, T, T)
    return weights[0] if isinstance(bias, str) else weights


def bias_form_gap(tokens: list[str], n_heads: int, seed: int = 0) -> tuple[float, float]:
    """How far apart the paper's -m(i - j) and the reference +m j forms are, over the cells a
    causal mask lets through: (largest raw bias difference, largest attention-weight
    difference). The first is max_h m_h (T - 1) (T >= 2), the steepest head's shift of the
    last row; that is m_1 (T - 1) only when head 1 is the steepest, not for 3, 5 or 12 heads.
    The second is rounding error only."""
    raw = hide_masked(alibi_key_bias(n_heads, len(tokens)) - alibi_bias(n_heads, len(tokens)))
    reference, paper = alibi_attention(tokens, n_heads, ("reference", "paper"), seed)
    return float(np.nanmax(np.abs(raw))), float(np.abs(reference - paper).max())
