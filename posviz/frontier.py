"""Position schemes from the research frontier, computed: xPos (RoPE with a decay per pair),
CoPE (positions that count what the context marks), LongRoPE (a searched stretch per pair) and
the layers of today's stacks without a position code (attention without position, the gated
delta rule).

Shapes: T = positions (queries i, keys j), d = a head's width, P = d / 2 pairs, D = d_model.
"""

from __future__ import annotations

import numpy as np

from posviz.attention import Layer, init_layers
from posviz.permutation import permutation_check, reversal
from posviz.rope import apply_rope, rope_frequencies

XPOS_GAMMA = 0.4  # torchscale's (i + 0.4 d) / (1.4 d)
XPOS_SCALE_BASE = 512  # torchscale's scale_base: the decay is zeta ** (offset / 512)
DELTA_ALPHA, DELTA_BETA = 0.9, 0.5  # the gated delta rule's decay and write strength, held fixed
LAYER_KINDS = ("rope", "nope", "unmasked", "linear")  # `reversal_gaps`' layers


# ---- xPos (Sun et al. 2022, arXiv 2212.10554; microsoft/torchscale) -----------------------

def xpos_decay(dim: int, gamma: float = XPOS_GAMMA) -> np.ndarray:
    """zeta_i = (2i + gamma d) / ((1 + gamma) d) for each pair: below 1, smallest for the
    fastest pair (torchscale's `scale` buffer). (P,)"""
    return (np.arange(0, dim, 2) + gamma * dim) / ((1 + gamma) * dim)


def xpos(x: np.ndarray, positions: np.ndarray, downscale: bool = False,
         base: float = 10_000.0, scale_base: float = XPOS_SCALE_BASE) -> np.ndarray:
    """xPos on x (T, d): RoPE's turn of each interleaved pair by positions[t] * theta_i, the
    pair multiplied by zeta_i ** (positions[t] / scale_base), or divided by it (downscale, for
    the keys). A query at n and a key at m then score
    sum_i zeta_i ** ((n - m) / scale_base) Re[q_i conj(k_i) e^{i (n - m) theta_i}]: RoPE's
    score with each pair decaying with the offset (torchscale centres the positions first,
    which leaves every score as it is)."""
    positions = np.asarray(positions, dtype=float)
    zeta = xpos_decay(np.shape(x)[-1]) ** (positions[:, None] / scale_base)  # (T, P)
    zeta = np.repeat(1 / zeta if downscale else zeta, 2, axis=-1)            # (T, d)
    return apply_rope(np.asarray(x, dtype=float) * zeta, positions, base)


def offset_terms(q: np.ndarray, k: np.ndarray, offsets: np.ndarray, decay: bool,
                 base: float = 10_000.0) -> np.ndarray:
    """Each pair's term of the score of a query q at offset n - m after a key k (d,), with RoPE
    (decay False) or xPos (decay True): [zeta_i ** ((n - m) / 512)] Re[q_i conj(k_i) e^{i (n -
    m) theta_i}]. At an offset >= 0 xPos's term is RoPE's times a factor in (0, 1]: shrunk
    toward 0, a positive term lower and a negative one higher. (len(offsets), P)"""
    offsets = np.asarray(offsets, dtype=float)[:, None]                      # (N, 1)
    dim = np.shape(q)[-1]
    zq, zk = q[0::2] + 1j * q[1::2], k[0::2] + 1j * k[1::2]                   # (P,)
    turned = np.real(zq * np.conj(zk) * np.exp(1j * offsets * rope_frequencies(dim, base)))
    if decay:
        turned = turned * xpos_decay(dim) ** (offsets / XPOS_SCALE_BASE)
    return turned


def offset_scores(q: np.ndarray, k: np.ndarray, offsets: np.ndarray, decay: bool,
                  base: float = 10_000.0) -> np.ndarray:
    """The score of a query q at offset n - m after a key k (d,), with RoPE (decay False) or
    xPos (decay True): the sum of `offset_terms` over the pairs. Each xPos term is pulled
    toward 0, so where RoPE's score is negative xPos's is mostly higher, not lower.
    (len(offsets),)"""
    return offset_terms(q, k, offsets, decay, base).sum(axis=-1)


# ---- CoPE (Golovneva et al. 2024, arXiv 2405.18719; facebookresearch/RAM projects/cope) ----

def cope_positions(gate_logits: np.ndarray) -> np.ndarray:
    """Contextual positions p_ij = sum_{k=j}^{i} sigmoid(gate_ik) of every query i and key j
    at or before it (0 after it): a key is as far back as the number of keys from it to the
    query that the gates count. RAM's code: sigmoid, times the causal mask, then a cumulative
    sum from the right. (T, T)"""
    gates = 1 / (1 + np.exp(-np.asarray(gate_logits, dtype=float)))
    gates = np.tril(gates)                                   # the mask: no key after the query
    return np.flip(np.cumsum(np.flip(gates, axis=-1), axis=-1), axis=-1)


def cope_position_logits(query: np.ndarray, embeddings: np.ndarray,
                         positions: np.ndarray) -> np.ndarray:
    """What a contextual position adds to each score: query (T, d) against the position
    embeddings (n_pos, d) at the integer positions below and above p_ij, blended linearly
    ((p - floor p) of the upper one). Positions past the last embedding are clamped to it.
    (T, T)"""
    positions = np.clip(positions, 0, len(embeddings) - 1)
    fixed = np.asarray(query, dtype=float) @ np.asarray(embeddings, dtype=float).T  # (T, n)
    lower, upper = np.floor(positions).astype(int), np.ceil(positions).astype(int)
    rows = np.arange(len(positions))[:, None]
    weight = positions - lower
    return fixed[rows, upper] * weight + fixed[rows, lower] * (1 - weight)


# ---- LongRoPE (Phi-3's long-context models: rope_scaling "longrope") ---------------------

def longrope_frequencies(dim: int, base: float, factors: list[float]) -> np.ndarray:
    """Each pair's speed divided by its own searched factor: theta_i / f_i (Hugging Face's
    `_compute_longrope_parameters`: 1 / (f_i base^(2i/d))). Phi-3 uses its short factors up
    to the original context and its long ones past it. (P,)"""
    factors = np.asarray(factors, dtype=float)
    if factors.shape != (dim // 2,):
        raise ValueError(f"need one factor per pair ({dim // 2}), got {factors.shape}")
    return rope_frequencies(dim, base) / factors


def longrope_attention_factor(factor: float, original: int) -> float:
    """LongRoPE's scale on the turned queries and keys: sqrt(1 + ln s / ln L) for a context s
    times the original L (Hugging Face's `_compute_longrope_parameters`)."""
    return float(np.sqrt(1 + np.log(factor) / np.log(original)))


def longrope(x: np.ndarray, positions: np.ndarray, base: float, factors: list[float],
             scale: float) -> np.ndarray:
    """LongRoPE on x (T, d) as Phi-3 applies it: split-halves pairs (`rotate_half`) turned at
    `longrope_frequencies`, the result times the attention factor `scale` (Hugging Face
    multiplies cos and sin by it, so a score grows by scale ** 2). (T, d)"""
    return scale * apply_rope(x, positions, base, pairing="half",
                              frequencies=longrope_frequencies(np.shape(x)[-1], base, factors))


# ---- layers without position in today's stacks -------------------------------------------

def gated_delta(q: np.ndarray, k: np.ndarray, v: np.ndarray, alpha: float = DELTA_ALPHA,
                beta: float = DELTA_BETA) -> np.ndarray:
    """The gated delta rule (Yang et al. 2024, arXiv 2412.06464), token by token: a state S
    (d, d) decays by alpha, forgets beta of what it held for key k_t and writes beta v_t there,

        S_t = alpha S_{t-1} (I - beta k_t k_t^T) + beta v_t k_t^T,    o_t = S_t q_t,

    with q and k L2-normalised as Gated DeltaNet does. No position code enters, yet order
    reaches o_t twice: through the order of the updates, and through the decay, which weights
    a write s steps back by alpha ** s (a recency signal). Gated DeltaNet also runs a short
    causal convolution over q, k and v, another position signal, left out here. q, k, v (T, d);
    returns o (T, d)."""
    q, k = (np.asarray(a, dtype=float) / np.linalg.norm(a, axis=-1, keepdims=True)
            for a in (q, k))
    state = np.zeros((np.shape(v)[-1], k.shape[-1]))                      # (d, d)
    out = np.empty((len(q), state.shape[0]))
    for t, (q_t, k_t, v_t) in enumerate(zip(q, k, np.asarray(v, dtype=float), strict=True)):
        state = alpha * (state - beta * np.outer(state @ k_t, k_t)) + beta * np.outer(v_t, k_t)
        out[t] = state @ q_t
    return out


def linear_layer(x: np.ndarray, layer: Layer) -> np.ndarray:
    """One linear-attention layer with a residual connection, as `attention_layer` is one
    softmax-attention layer: y = x + gated_delta(x W_q, x W_k, x W_v) W_o. (T, D)"""
    return x + gated_delta(x @ layer.wq, x @ layer.wk, x @ layer.wv) @ layer.wo


def reversal_gaps(x: np.ndarray, seed: int = 0) -> dict[str, float]:
    """How differently one seeded layer of each kind reads a sentence x (T, D) and its reversal:
    the largest |y - y'| over tokens and channels, the reversal's outputs put back with their
    tokens. "rope": causal attention with RoPE; "nope": causal attention without position;
    "unmasked": attention with neither (0 up to rounding: a bag of tokens); "linear": the gated
    delta rule."""
    x = np.asarray(x, dtype=float)
    order = reversal(len(x))
    gaps = {kind: permutation_check(x, order, 1, 1, "rope" if kind == "rope" else "none",
                                    causal=kind != "unmasked", seed=seed).gap
            for kind in LAYER_KINDS[:3]}
    layer = init_layers(1, x.shape[1], seed)[0]
    gaps["linear"] = float(np.abs(linear_layer(x, layer)
                                  - linear_layer(x[order], layer)[np.argsort(order)]).max())
    return gaps

def layer_kinds(model: str) -> list[str]:
    """What carries position in each layer of a model, from its published configuration:
    "rope" (attention with RoPE), "nope" (attention with no position), "linear" (linear
    attention: no position code, position from its decay and short convolution). Llama 4
    Scout and SmolLM3: every interval-th layer NoPE; Qwen3-Next: every 4th layer gated
    attention with RoPE, the rest Gated DeltaNet; Kimi Linear: its MLA layers (counted from
    1) with NoPE, the rest Kimi Delta Attention."""
    from posviz.modern import value

    layers = value(model, "num_hidden_layers")
    if model in ("llama4_scout", "smollm3_3b"):
        interval = value(model, "no_rope_layer_interval")
        return ["rope" if (i + 1) % interval else "nope" for i in range(layers)]
    if model == "qwen3_next_80b_a3b":
        interval = value(model, "full_attention_interval")
        return ["linear" if (i + 1) % interval else "rope" for i in range(layers)]
    if model == "kimi_linear_48b_a3b":
        full = set(value(model, "full_attn_layers"))
        return ["nope" if i + 1 in full else "linear" for i in range(layers)]
    raise ValueError(f"no layer layout for {model}")
