"""Position schemes from the research frontier, computed: xPos (RoPE with a decay per pair),
CoPE (positions that count what the context marks), LongRoPE (a searched stretch per pair) and
the layers of today's stacks without a position code (attention without position, the gated
delta rule).

Shapes: T = positions (queries i, keys j), d = a head's width, P = d / 2 pairs, D = d_model.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from posviz.attention import Layer, init_layers
from posviz.permutation import permutation_check, reversal
from posviz.rope import apply_rope, rope_frequencies

XPOS_GAMMA = 0.4  # torchscale's (i + 0.4 d) / (1.4 d)
XPOS_SCALE_BASE = 512  # torchscale's scale_base: the decay is zeta ** (offset / 512)
DELTA_ALPHA, DELTA_BETA = 0.9, 0.5  # the gated delta rule's decay and write strength, held fixed
LAYER_KINDS = ("rope", "nope", "unmasked", "linear")  # `reversal_gaps`' layers
STACK_KINDS = ("rope", "nope", "linear")  # what carries position in a layer (`layer_kinds`)
CLAUSE_MARKS = tuple("。！？，、；：.!?,;:")  # what `clause_positions`' gates open on
COPE_STEEP = 8.0  # gate logits +-8: sigmoid 0.9997 on a mark, 0.0003 elsewhere
SLIGHT = 0.01  # a change of scores under this share of the largest is "next to nothing"


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


def xpos_kept(dim: int, offset: float) -> np.ndarray:
    """What each pair keeps of its term at an offset under xPos: zeta_i ** (offset / 512). (P,)"""
    return xpos_decay(dim) ** (offset / XPOS_SCALE_BASE)


class XposReading(NamedTuple):
    """A sentence's last query against its first key at offsets 0, step, ..., farthest, with
    RoPE and with xPos, and what xPos's decay keeps."""

    offsets: np.ndarray  # (K,)
    rope: np.ndarray     # (K,)
    xpos: np.ndarray     # (K,)
    kept: np.ndarray     # (P,) what each pair keeps at the farthest offset (`xpos_kept`)
    far_from: int        # where the farther half of the offsets begins
    rope_far: float      # the mean |score| over the farther half, RoPE's
    xpos_far: float      # and xPos's: much smaller, the decay
    above: float         # the share of offsets at which xPos scores higher than RoPE
    negative_above: float | None  # that share where RoPE's score is negative (None: nowhere)
    sentence_offset: int  # the sentence's own longest offset, from its first token to its last
    own: float           # what the fastest pair keeps over it

    @property
    def slowest_pair(self) -> int:
        """The last pair, which keeps the most."""
        return len(self.kept) - 1


def xpos_reading(q: np.ndarray, k: np.ndarray, farthest: int, step: int = 2) -> XposReading:
    """`offset_scores` of the last query of q against the first key of k (T, d) with RoPE and
    with xPos out to farthest, and how they compare: far out xPos's scores are small; where
    RoPE's is negative xPos's is mostly higher (each term is pulled toward 0)."""
    offsets = np.arange(0, farthest + 1, step)
    rope, xpos = (offset_scores(q[-1], k[0], offsets, decay) for decay in (False, True))
    far = offsets >= farthest // 2
    negative = rope < 0
    dim = np.shape(q)[-1]
    return XposReading(offsets, rope, xpos, xpos_kept(dim, farthest), farthest // 2,
                       float(np.abs(rope[far]).mean()), float(np.abs(xpos[far]).mean()),
                       float((xpos > rope).mean()),
                       float((xpos[negative] > rope[negative]).mean()) if negative.any()
                       else None, len(q) - 1, float(xpos_kept(dim, len(q) - 1)[0]))


# ---- CoPE (Golovneva et al. 2024, arXiv 2405.18719; facebookresearch/RAM projects/cope) ----

def cope_positions(gate_logits: np.ndarray) -> np.ndarray:
    """Contextual positions p_ij = sum_{k=j}^{i} sigmoid(gate_ik) of every query i and key j
    at or before it (0 after it): a key is as far back as the number of keys from it to the
    query that the gates count. RAM's code: sigmoid, times the causal mask, then a cumulative
    sum from the right. (T, T)"""
    gates = 1 / (1 + np.exp(-np.asarray(gate_logits, dtype=float)))
    gates = np.tril(gates)                                   # the mask: no key after the query
    return np.flip(np.cumsum(np.flip(gates, axis=-1), axis=-1), axis=-1)


def clause_positions(tokens: list[str], marks: tuple[str, ...] = CLAUSE_MARKS,
                     steep: float = COPE_STEEP) -> np.ndarray:
    """How far back each token stands from the last one in CoPE's count, when every query's
    gates open (logit +steep) on the tokens in marks and shut (-steep) on the others: the
    number of clause marks from it to the last token, about. `cope_positions`' last row.
    (T,)"""
    marked = np.array([t in marks for t in tokens])
    gates = np.where(marked, steep, -steep)[None, :].repeat(len(tokens), axis=0)  # (T, T)
    return cope_positions(gates)[-1]


def clause_marks(tokens: list[str], marks: tuple[str, ...] = CLAUSE_MARKS) -> int:
    """How many of the tokens are clause marks (`clause_positions` counts them)."""
    return sum(t in marks for t in tokens)


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


def factor_range(factors: list[float]) -> tuple[float, float]:
    """The smallest and the largest of a set of LongRoPE factors."""
    return min(factors), max(factors)


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


class LongRopeScores(NamedTuple):
    """A sentence's last query against every key (T,) turned as plain RoPE and as LongRoPE
    with its short and its long factors, and how far the short factors move the scores."""

    rope: np.ndarray
    short: np.ndarray
    long: np.ndarray
    gain: float     # scale^2: what LongRoPE's attention factor multiplies a score by
    moved: float    # the largest |short - rope * gain|: what the short factors change
    largest: float  # the largest |rope|

    @property
    def slight(self) -> bool:
        """Whether the short factors move the scores by next to nothing (SLIGHT of the
        largest): one token has no offset to turn, a few turn little."""
        return self.moved <= SLIGHT * self.largest


def longrope_scores(q: np.ndarray, k: np.ndarray, base: float, short: list[float],
                    long: list[float], scale: float) -> LongRopeScores:
    """The last query of q against every key of k (T, d), q_last . k_j / sqrt(d), both turned
    at positions 0 .. T-1 by RoPE in split halves and by `longrope` with each set of factors.
    The short factors' scores differ from RoPE's times scale^2 only as far as the factors
    slow the pairs."""
    positions = np.arange(len(q))
    dim = np.shape(q)[-1]

    def last(turn) -> np.ndarray:
        return turn(q)[-1] @ turn(k).T / np.sqrt(dim)

    rope = last(lambda x: apply_rope(x, positions, base, "half"))
    turned = [last(lambda x, f=f: longrope(x, positions, base, f, scale)) for f in (short, long)]
    gain = scale ** 2
    return LongRopeScores(rope, turned[0], turned[1], gain,
                          float(np.abs(turned[0] - rope * gain).max()),
                          float(np.abs(rope).max()))


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

def layer_counts(model: str) -> dict[str, int]:
    """How many of a model's layers are of each of STACK_KINDS (`layer_kinds`)."""
    kinds = layer_kinds(model)
    return {kind: kinds.count(kind) for kind in STACK_KINDS}


def layer_kinds(model: str) -> list[str]:
    """What carries position in each layer of a model, from its published configuration:
    "rope" (attention with RoPE), "nope" (attention with no position), "linear" (linear
    attention: no position code, position from its decay and short convolution). Llama 4
    Scout and SmolLM3: every interval-th layer NoPE; Qwen3-Next: every 4th layer gated
    attention with RoPE, the rest Gated DeltaNet; Kimi Linear: its MLA layers (counted from
    1) with NoPE, the rest Kimi Delta Attention."""
    from posviz.modern import irope_layers, value

    layers = value(model, "num_hidden_layers")
    if model in ("llama4_scout", "smollm3_3b"):
        return ["rope" if turned else "nope"
                for turned in irope_layers(layers, value(model, "no_rope_layer_interval"))]
    if model == "qwen3_next_80b_a3b":
        interval = value(model, "full_attention_interval")
        return ["linear" if (i + 1) % interval else "rope" for i in range(layers)]
    if model == "kimi_linear_48b_a3b":
        full = set(value(model, "full_attn_layers"))
        return ["nope" if i + 1 in full else "linear" for i in range(layers)]
    raise ValueError(f"no layer layout for {model}")
