"""What today's models do with RoPE, computed: the rotation as complex multiplication, partial
RoPE, MLA's decoupled RoPE and its cache, iRoPE's layers, Llama 3.1's frequency scaling, M-RoPE
and Gemma 3's two bases (partial RoPE itself is posviz.partial). The models' own numbers are in
assets/models/schemes.toml, each with its source (posviz.published), and what a page quotes of
them is read here (`stretch`, `table_row`).

Shapes: T = tokens, d = channels of a head, P = d / 2 channel pairs.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from posviz.attention import attention_layer, init_layers
from posviz.partial import partial_rope as partial_rope
from posviz.partial import rotated_dims
from posviz.published import PUBLISHED_FILE as PUBLISHED_FILE
from posviz.published import first_value, value
from posviz.published import published as published
from posviz.rope import apply_rope, rope_frequencies

AXES = ("t", "h", "w")  # M-RoPE's three position axes: time, height, width


class Stretch(NamedTuple):
    """A model's context extension: trained on `original` positions, run on `context`, its
    slowest pairs slowed `factor` times."""

    original: int
    context: int
    factor: float

    @property
    def ratio(self) -> float:
        """How many times longer the context is than the training: context / original."""
        return self.context / self.original

    @property
    def covered(self) -> float:
        """Positions the slowest pairs, slowed factor times, cover within the angles they met
        in training: factor * original."""
        return self.factor * self.original

    @property
    def beyond(self) -> float:
        """How many times farther than that the context still turns them: context /
        covered."""
        return self.context / self.covered


def stretch(model: str) -> Stretch:
    """A model's published context extension: its original and full context, and its
    rope_scaling factor (where it publishes none, as Phi-3's LongRoPE, the ratio of the two)."""
    original = first_value(model, ("rope_scaling_original_max_position_embeddings",
                                   "original_max_position_embeddings"))
    context = value(model, "max_position_embeddings")
    factor = first_value(model, ("rope_scaling_factor",))
    return Stretch(original, context, context / original if factor is None else factor)


# ---- RoPE as complex multiplication --------------------------------------------------------

COMPLEX_FORMULA = (r"z_i' = z_i\, e^{\,\mathrm{i}\, m \theta_i} \qquad "
                   r"x' = x \cos(m\theta) + \mathrm{rotate\_half}(x) \sin(m\theta) \qquad "
                   r"\mathrm{rotate\_half}(x_1, x_2) = (-x_2,\ x_1)")
"""LaTeX of `complex_rope`, `rope_by_rotate_half` and `rotate_half`."""


def as_complex(x: np.ndarray) -> np.ndarray:
    """Channel pairs (2i, 2i+1) of x (..., d) as complex numbers x_2i + i x_2i+1: (..., P)."""
    x = np.asarray(x, dtype=float)
    return x[..., 0::2] + 1j * x[..., 1::2]


def from_complex(z: np.ndarray) -> np.ndarray:
    """The inverse of as_complex: (..., P) complex -> (..., 2P) real, pairs interleaved."""
    out = np.empty((*z.shape[:-1], 2 * z.shape[-1]))
    out[..., 0::2], out[..., 1::2] = z.real, z.imag
    return out


def complex_rope(x: np.ndarray, positions: np.ndarray, base: float = 10_000.0) -> np.ndarray:
    """RoPE as one multiplication per pair: z_i e^{i m theta_i} (Meta's llama `apply_rotary_emb`
    with `torch.polar`). Equals apply_rope(x, positions, base, "interleaved"). x (T, d)."""
    turn = np.exp(1j * np.asarray(positions, dtype=float)[:, None] * rope_frequencies(
        np.shape(x)[-1], base))                                          # (T, P)
    return from_complex(as_complex(x) * turn)


def rotate_half(x: np.ndarray) -> np.ndarray:
    """Hugging Face's rotate_half: (x1, x2) -> (-x2, x1) for the two halves of x (..., d):
    each pair (i, i + d/2) turned by 90 degrees, that is, multiplied by i."""
    x = np.asarray(x, dtype=float)
    half = x.shape[-1] // 2
    return np.concatenate([-x[..., half:], x[..., :half]], axis=-1)


def rope_by_rotate_half(x: np.ndarray, positions: np.ndarray,
                        base: float = 10_000.0) -> np.ndarray:
    """RoPE as Hugging Face writes it: x cos(m theta) + rotate_half(x) sin(m theta), with the
    angles repeated over both halves. Equals apply_rope(..., pairing="half"). x (T, d)."""
    angle = np.asarray(positions, dtype=float)[:, None] * rope_frequencies(np.shape(x)[-1], base)
    angle = np.concatenate([angle, angle], axis=-1)                        # (T, d)
    return np.asarray(x, dtype=float) * np.cos(angle) + rotate_half(x) * np.sin(angle)


def halves_order(dim: int) -> np.ndarray:
    """The fixed reordering of a head's channels that turns the interleaved pairing into the
    split-halves one: even channels first, then odd ones, so pair (2i, 2i + 1) becomes
    (i, i + d/2). rope_by_rotate_half(x[:, order]) equals complex_rope(x)[:, order]: this is
    why Hugging Face's conversion of Meta's Llama weights permutes the rows of W_q and W_k. (d,)"""
    return np.concatenate([np.arange(0, dim, 2), np.arange(1, dim, 2)])


class PairingGaps(NamedTuple):
    """How far apart RoPE's writings of one head lie: largest absolute differences."""

    forms: float      # complex_rope and rope_by_rotate_half from apply_rope in their pairings
    pairings: float   # complex_rope from rope_by_rotate_half: they turn other channel pairs
    reordered: float  # the same after halves_order: 0 up to rounding


def pairing_gaps(x: np.ndarray, base: float = 10_000.0) -> PairingGaps:
    """RoPE written three ways on x (T, d) at positions 0 .. T-1: as one complex product per
    pair and as rotate_half are each apply_rope in its own pairing (forms: 0 up to rounding);
    the two turn different channel pairs (pairings: not 0), until the channels are reordered
    by halves_order (reordered: 0 up to rounding)."""
    x = np.asarray(x, dtype=float)
    positions = np.arange(len(x))
    turned = complex_rope(x, positions, base)                            # (T, d)
    halves = rope_by_rotate_half(x, positions, base)                     # (T, d)
    order = halves_order(x.shape[-1])
    forms = max(np.abs(turned - apply_rope(x, positions, base)).max(),
                np.abs(halves - apply_rope(x, positions, base, pairing="half")).max())
    return PairingGaps(float(forms), float(np.abs(turned - halves).max()),
                       float(np.abs(turned[:, order]
                                    - rope_by_rotate_half(x[:, order], positions, base)).max()))


# ---- a table of today's models ------------------------------------------------------------

NOT_EXTENSIONS = ("mrope",)
"""rope_scaling types that name no context extension (M-RoPE's sections live there)."""


class TableRow(NamedTuple):
    """What a model publishes about its position code: its RoPE base (and its local layers'
    base, if they have their own), the channels of a head RoPE turns, its context, and its
    rope_scaling type and factor (None where it publishes none)."""

    base: float | None
    local_base: float | None
    turned: int | None
    context: int
    extension: str | None
    factor: float | None


def table_row(model: str) -> TableRow:
    """A model's TableRow from its published values: the turned channels are rotated_dims of
    its head (partial RoPE), its decoupled RoPE key (MLA) or its whole head."""
    width = first_value(model, ("head_dim", "head_dim_computed"))
    share = first_value(model, ("rotary_pct", "partial_rotary_factor"))
    decoupled = first_value(model, ("qk_rope_head_dim",))
    turned = (rotated_dims(width, share) if share else width if decoupled is None
              else decoupled)
    factor = first_value(model, ("rope_scaling_factor",))
    return TableRow(first_value(model, ("rope_theta", "rotary_emb_base", "rope_theta_global")),
                    first_value(model, ("rope_local_base_freq",)), turned,
                    value(model, "max_position_embeddings"),
                    first_value(model, ("rope_scaling_rope_type", "rope_scaling_type")),
                    factor if isinstance(factor, int | float) else None)


def turned_share(model: str) -> tuple[int, int]:
    """The channels of a head partial RoPE turns, and the head's width, from a model's
    published values (GPT-NeoX's rotary_pct, Hugging Face's partial_rotary_factor)."""
    width = first_value(model, ("head_dim", "head_dim_computed"))
    return rotated_dims(width, first_value(model, ("rotary_pct", "partial_rotary_factor"))), width


def local_global(model: str) -> tuple[int, int]:
    """Gemma 3's layer pattern as local layers to global ones: sliding_window_pattern n makes
    every n-th layer global, the n - 1 before it local (sliding window)."""
    return value(model, "sliding_window_pattern") - 1, 1


# ---- MLA's decoupled RoPE ------------------------------------------------------------------


def mla_cache(kv_lora_rank: int, rope_dim: int) -> int:
    """Values MLA keeps per token and layer: the compressed latent c (kv_lora_rank) and the
    one rotated key shared by every head (rope_dim)."""
    return kv_lora_rank + rope_dim


def mha_cache(heads: int, key_dim: int, value_dim: int) -> int:
    """Values full multi-head attention keeps per token and layer: every head's key and
    value."""
    return heads * (key_dim + value_dim)


def kv_cache(model: str) -> tuple[int, int]:
    """Values an MLA model keeps per token and layer (`mla_cache` of its kv_lora_rank and
    qk_rope_head_dim), and what full multi-head attention with its heads would keep
    (`mha_cache`, each head's key of qk_nope_head_dim + qk_rope_head_dim channels and its value
    of v_head_dim), from its published values. DeepSeek-V3: 576 and 40,960."""
    key_dim = value(model, "qk_nope_head_dim") + value(model, "qk_rope_head_dim")
    return (mla_cache(value(model, "kv_lora_rank"), value(model, "qk_rope_head_dim")),
            mha_cache(value(model, "num_attention_heads"), key_dim, value(model, "v_head_dim")))


def absorbed_scores(q: np.ndarray, w_uk: np.ndarray, latents: np.ndarray) -> np.ndarray:
    """Scores q^T (W_UK c_j) computed the way MLA serves them, without rebuilding the keys:
    (W_UK^T q)^T c_j. q (d,), w_uk (d, r), latents (T, r). Returns (T,)."""
    return latents @ (w_uk.T @ q)


def absorbed_queries(q: np.ndarray, w_uk: np.ndarray, query_position: int,
                     key_positions: np.ndarray, base: float = 10_000.0) -> np.ndarray:
    """The query each key's latent would need under RoPE: (R(n - m) W_UK)^T q for the query at
    position m and each key position n, since (R_m q)^T (R_n W_UK c) = q^T R(n - m) W_UK c.
    Without RoPE every row would be W_UK^T q, one absorbed query for every key; with RoPE the
    rows differ from key to key, so no single matrix can be absorbed (DeepSeek-V2 sec. 2.1.3).
    q (d,), w_uk (d, r); returns (T, r)."""
    offsets = query_position - np.asarray(key_positions)  # R(n - m)^T q = R(m - n) q
    return apply_rope(np.broadcast_to(q, (len(offsets), len(q))), offsets, base) @ w_uk


def absorption_gaps(query_position: int, dim: int = 16, rank: int = 8,
                    seed: int = 0) -> tuple[float, float]:
    """MLA's absorption tried on seeded vectors (q (d,), W_UK (d, r), a latent per key at 0 ..
    query_position, in that order from one generator): how far `absorbed_scores` lies from
    q^T (W_UK c_j) computed plainly (0 up to rounding), and how far apart the queries RoPE
    would need for the keys are (`absorbed_queries`; not 0: no one query can be absorbed)."""
    rng = np.random.default_rng(seed)
    q, w_uk = rng.normal(size=dim), rng.normal(size=(dim, rank))
    latents = rng.normal(size=(query_position + 1, rank))                # (keys, r)
    plain = np.abs(absorbed_scores(q, w_uk, latents) - latents @ w_uk.T @ q).max()
    needed = absorbed_queries(q, w_uk, query_position, np.arange(query_position + 1))
    return float(plain), float(np.abs(needed - needed[:, None]).max())


# ---- iRoPE (Llama 4) -----------------------------------------------------------------------


def irope_layers(n_layers: int, interval: int = 4) -> list[bool]:
    """For each layer whether it uses RoPE (with chunked local attention): every layer but
    each interval-th, which has no position and attends globally (Hugging Face's
    `no_rope_layers[i] = int((i + 1) % interval != 0)`)."""
    return [(layer + 1) % interval != 0 for layer in range(n_layers)]


def chunked_mask(seq_len: int, chunk: int) -> np.ndarray:
    """Llama 4's chunked causal mask: query i sees key j when j <= i and both lie in the same
    chunk of `chunk` tokens. (T, T) bool."""
    i, j = np.indices((seq_len, seq_len))
    return (j <= i) & (i // chunk == j // chunk)


def attention_temperature(positions: np.ndarray, floor_scale: int = 8192,
                          attn_scale: float = 0.1) -> np.ndarray:
    """The factor Llama 4 multiplies into the queries of its layers without position, growing
    with the position: 1 + attn_scale ln(floor((p + 1) / floor_scale) + 1)."""
    p = np.asarray(positions, dtype=float)
    return 1 + attn_scale * np.log(np.floor((p + 1) / floor_scale) + 1)


def query_scale(positions: np.ndarray, beta: float = 0.1, original: int = 8192) -> np.ndarray:
    """The factor Mistral Small 4 and Ministral 3 multiply into the queries of every layer,
    after RoPE (transformers' get_llama_4_attn_scale, with rope_parameters'
    llama_4_scaling_beta and original_max_position_embeddings):

        1 + beta ln(1 + floor(p / original)),   p the position id, from 0

    Llama 4's `attention_temperature` with p in place of p + 1, so it steps one position
    later, at p = original, 2 original, ...; and in layers that turn by RoPE as well. (T,)"""
    p = np.asarray(positions, dtype=float)
    return 1 + beta * np.log(1 + np.floor(p / original))


def scale_positions(original: int, context: int) -> np.ndarray:
    """Where a query scale of period `original` is worth reading, up to a context of `context`
    positions: 0, the last position before the first step and the step itself, then every
    4th power of 2 times original below the context, and its last position. Sorted, (n,)."""
    if not 0 < original < context:
        raise ValueError(f"original must lie in (0, context), got {original} and {context}")
    steps = [original * 4 ** k for k in range(1, 64) if original * 4 ** k < context]
    return np.unique([0, original - 1, original, *steps, context - 1])


# ---- M-RoPE (Qwen2-VL) ---------------------------------------------------------------------


def mrope_positions(text_before: int, grid: tuple[int, int, int],
                    text_after: int) -> np.ndarray:
    """The three position ids (t, h, w) of text, then an image or video of grid (t, h, w)
    patches, then more text, as Qwen2-VL's `get_rope_index` builds them: a text token has the
    same id on all three axes, counting on; the patches count from where the text stopped
    along each axis of their grid; the text after them goes on from the largest id plus one.
    Returns (3, T) integers."""
    t_n, h_n, w_n = grid
    before = np.arange(text_before)
    t, h, w = (a.ravel() for a in np.indices(grid))
    patches = np.stack([t, h, w]) + text_before
    start = int(patches.max()) + 1 if patches.size else text_before
    after = np.arange(start, start + text_after)
    return np.concatenate([np.stack([before] * 3), patches, np.stack([after] * 3)], axis=1)


def mrope_axes(sections: tuple[int, ...]) -> np.ndarray:
    """Which position axis each channel pair turns by: the first sections[0] pairs by time,
    the next sections[1] by height, the rest by width (mrope_section). Returns (P,)."""
    return np.repeat(np.arange(len(sections)), sections)


def mrope_angles(positions: np.ndarray, sections: tuple[int, ...],
                 base: float = 10_000.0) -> np.ndarray:
    """Each token's angle in each pair: pair i turns by the position on its axis times theta_i.
    positions (3, T). Returns (T, P)."""
    axes = mrope_axes(sections)
    theta = rope_frequencies(2 * len(axes), base)
    return np.asarray(positions, dtype=float)[axes].T * theta


def layered_gap(x: np.ndarray, order: np.ndarray, schemes: tuple[str, ...], n_heads: int,
                causal: bool = False, seed: int = 0) -> float:
    """The largest change of any token's output after the last layer when the sentence x
    (T, D) is reordered (outputs lined up by token), through layers whose position schemes
    differ (iRoPE: RoPE layers under a layer without position). The layers are
    init_layers(len(schemes), D, seed), as attention_stack's."""
    x = np.asarray(x, dtype=float)
    order = np.asarray(order)
    layers = init_layers(len(schemes), x.shape[1], seed)

    def run(rows: np.ndarray) -> np.ndarray:
        for layer, scheme in zip(layers, schemes, strict=True):
            rows = attention_layer(rows, layer, n_heads, scheme, causal)[1]
        return rows

    return float(np.abs(run(x) - run(x[order])[np.argsort(order)]).max())


# ---- a decoder without position knows where it is -------------------------------------------


class Counted(NamedTuple):
    """Positions read back without a position code: each token's true position (from 1), the
    layer's output there, and the position read back from it. (T,) each."""

    positions: np.ndarray
    outputs: np.ndarray
    read: np.ndarray


def positions_without_encoding(n_tokens: int) -> Counted:
    """Kazemnejad et al. (2023)'s construction, in one causal attention layer with no position
    at all: a start token whose value is 1 (every other token's 0), and queries and keys that
    ignore content (all scores equal), so the token at position t spreads its attention evenly
    over the start token, the t - 1 tokens before it and itself: t + 1 tokens in all. The
    output at position t is then 1 / (t + 1), and the position comes back as 1 / output - 1.
    Returns the positions 1 .. n_tokens of the tokens after the start token, their outputs
    and the positions read back."""
    scores = np.zeros((n_tokens + 1, n_tokens + 1))
    scores[np.triu_indices(n_tokens + 1, k=1)] = -np.inf               # the causal mask
    weights = np.exp(scores - scores.max(axis=1, keepdims=True))
    weights /= weights.sum(axis=1, keepdims=True)                     # softmax
    values = np.zeros(n_tokens + 1)
    values[0] = 1.0                                                   # the start token's
    outputs = (weights @ values)[1:]
    return Counted(np.arange(1, n_tokens + 1), outputs, 1 / outputs - 1)
