"""The research frontier's schemes against slow loops written from their reference code's
procedure: xPos as torchscale applies it (centred positions, the scale on the query and its
inverse on the key), CoPE as facebookresearch/RAM computes its positions and interpolates."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from posviz import frontier

RNG = np.random.default_rng(3)


def xpos_by_loop(x: np.ndarray, downscale: bool, scale_base: float = 512) -> np.ndarray:
    """torchscale's procedure pair by pair: the scale's exponent counts from the middle of the
    sequence (-(T // 2) rounded down), the angle from 0; the key divided by the scale."""
    n, dim = x.shape
    low = (-n) // 2  # floor(-n / 2): 5 positions count from -3
    out = np.zeros_like(x, dtype=float)
    for t in range(n):
        for i in range(dim // 2):
            zeta = (2 * i + 0.4 * dim) / (1.4 * dim)
            s = zeta ** ((low + t) / scale_base)
            s = 1 / s if downscale else s
            angle = t * 10_000 ** (-2 * i / dim)
            a, b = x[t, 2 * i], x[t, 2 * i + 1]
            out[t, 2 * i] = s * (a * math.cos(angle) - b * math.sin(angle))
            out[t, 2 * i + 1] = s * (b * math.cos(angle) + a * math.sin(angle))
    return out


@pytest.mark.parametrize("n", [5, 8])
def test_xpos_scores_are_torchscales(n):
    q, k = RNG.normal(size=(n, 16)), RNG.normal(size=(n, 16))
    positions = np.arange(n)
    mine = frontier.xpos(q, positions) @ frontier.xpos(k, positions, downscale=True).T
    theirs = xpos_by_loop(q, False) @ xpos_by_loop(k, True).T  # centring cancels in a score
    np.testing.assert_allclose(mine, theirs, rtol=1e-12)
    for i in range(n):  # and each score is offset_scores' at its offset
        for j in range(i + 1):
            want = frontier.offset_scores(q[i], k[j], np.array([i - j]), decay=True)[0]
            assert np.isclose(mine[i, j], want)


def test_xpos_decays_each_pair_by_its_own_factor_and_is_rope_at_no_offset():
    zeta = frontier.xpos_decay(64)
    assert zeta[0] == pytest.approx(0.4 / 1.4) and (np.diff(zeta) > 0).all() and zeta[-1] < 1
    offsets = np.arange(0, 4097, 64)
    for pair in (0, 15, 31):  # a query and a key in one pair only: RoPE's score, decayed
        q, k = np.zeros(64), np.zeros(64)
        q[2 * pair:2 * pair + 2], k[2 * pair:2 * pair + 2] = RNG.normal(size=2), RNG.normal(size=2)
        rope, xpos = (frontier.offset_scores(q, k, offsets, decay) for decay in (False, True))
        np.testing.assert_allclose(xpos, rope * zeta[pair] ** (offsets / 512), atol=1e-12)
        assert rope[0] == xpos[0] == pytest.approx(q @ k)  # no offset: the dot product


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), dim=st.sampled_from([4, 16, 64]),
       offset=st.integers(0, 20_000))
def test_xpos_shrinks_every_pairs_term_toward_zero(seed, dim, offset):
    """Pair by pair (a slow loop over torchscale's formula), xPos's term is RoPE's times
    zeta_i ** (offset / 512) in (0, 1]: the same sign, no larger, so a negative term rises."""
    rng = np.random.default_rng(seed)
    q, k = rng.normal(size=dim), rng.normal(size=dim)
    rope, xpos = (frontier.offset_terms(q, k, np.array([offset]), decay)[0]
                  for decay in (False, True))
    for i in range(dim // 2):
        angle = offset * 10_000 ** (-2 * i / dim)
        term = ((q[2 * i] * k[2 * i] + q[2 * i + 1] * k[2 * i + 1]) * math.cos(angle)
                - (q[2 * i + 1] * k[2 * i] - q[2 * i] * k[2 * i + 1]) * math.sin(angle))
        shrink = ((2 * i + 0.4 * dim) / (1.4 * dim)) ** (offset / 512)
        assert rope[i] == pytest.approx(term, abs=1e-9)
        assert xpos[i] == pytest.approx(term * shrink, abs=1e-9)
        assert abs(xpos[i]) <= abs(rope[i]) and xpos[i] * rope[i] >= 0
        if rope[i] < 0:
            assert xpos[i] >= rope[i]
    np.testing.assert_allclose(frontier.offset_scores(q, k, np.array([offset]), True),
                               xpos.sum(), atol=1e-12)


def test_xpos_scores_above_ropes_where_ropes_terms_are_negative():
    """One pair only: a negative RoPE score is pulled up by xPos; a positive one down."""
    q, k = np.zeros(16), np.zeros(16)
    q[14:], k[14:] = (1.0, 0.0), (-1.0, 0.0)  # the slowest pair: -cos(offset theta_7) < 0
    offsets = np.arange(1, 400, 50)
    rope, xpos = (frontier.offset_scores(q, k, offsets, decay) for decay in (False, True))
    assert (rope < 0).all() and (xpos > rope).all() and (xpos < 0).all()
    assert (frontier.offset_scores(-q, k, offsets, True) < -rope).all()


@pytest.mark.parametrize("alpha", [0.5, 0.9, 1.0])
def test_the_gated_delta_rules_decay_tells_how_far_back_a_write_is(alpha):
    """No position code, yet position: with orthonormal keys, reading key s back after T
    writes gives beta * alpha ** (T - 1 - s) * v_s, the decay counting the steps since."""
    n, beta = 6, 0.5
    keys = np.eye(8)[:n]                                       # orthonormal, one per token
    values = RNG.normal(size=(n, 8))
    for s in range(n):
        queries = np.repeat(keys[s][None], n, axis=0)
        out = frontier.gated_delta(queries, keys, values, alpha=alpha, beta=beta)
        np.testing.assert_allclose(out[-1], beta * alpha ** (n - 1 - s) * values[s],
                                   atol=1e-12)


def test_cope_positions_count_the_gated_keys_from_each_to_the_query():
    logits = RNG.normal(size=(6, 6)) * 3
    p = frontier.cope_positions(logits)
    sig = 1 / (1 + np.exp(-logits))
    for i in range(6):
        for j in range(6):
            want = sum(sig[i, k] for k in range(j, i + 1)) if j <= i else 0.0
            assert p[i, j] == pytest.approx(want)
    assert (np.diff(p, axis=1)[np.tril(np.ones((6, 5), dtype=bool))] <= 0).all()  # farther back


def test_cope_interpolates_between_the_integer_positions():
    q, emb = RNG.normal(size=(4, 8)), RNG.normal(size=(5, 8))
    positions = np.array([[0.0, 0, 0, 0], [1.5, 0.25, 0, 0], [2, 9.0, 0.5, 0], [3.75, 3, 1, 0.1]])
    got = frontier.cope_position_logits(q, emb, positions)
    for i in range(4):
        for j in range(4):
            p = min(positions[i, j], 4)
            low, high = math.floor(p), math.ceil(p)
            want = (p - low) * q[i] @ emb[high] + (1 - (p - low)) * q[i] @ emb[low]
            assert got[i, j] == pytest.approx(want)


def test_longrope_divides_each_pair_by_its_published_factor():
    """Hugging Face's formula, 1 / (f_i base^(2i/d)), on Phi-3 mini 128K's own lists; its
    attention factor as the model's GGUF records it (float32)."""
    from posviz.modern import value

    dim, base = value("phi3_mini_128k", "head_dim_computed"), value("phi3_mini_128k", "rope_theta")
    for kind in ("long_factor", "short_factor"):
        factors = np.array(value("phi3_mini_128k", kind))
        assert factors.shape == (48,) and (np.diff(factors) >= 0).all()  # slower pairs more
        hf = 1.0 / (factors * base ** (np.arange(0, dim, 2) / dim))
        np.testing.assert_allclose(frontier.longrope_frequencies(dim, base, factors), hf,
                                   rtol=1e-12)
    assert frontier.longrope_attention_factor(131072 / 4096, 4096) == pytest.approx(
        1.190238118171692, abs=1e-7)
    with pytest.raises(ValueError, match="one factor per pair"):
        frontier.longrope_frequencies(dim, base, [1.0] * 47)


def test_longrope_turns_as_phi3s_rotary_embedding_does():
    """Hugging Face's procedure: cos and sin of positions times inv_freq, repeated over both
    halves and multiplied by the attention factor; x cos + rotate_half(x) sin."""
    from posviz.modern import value

    factors = value("phi3_mini_128k", "long_factor")
    x, positions = RNG.normal(size=(6, 96)), np.arange(6)
    inv_freq = 1.0 / (np.array(factors) * 10_000.0 ** (np.arange(0, 96, 2) / 96))
    emb = np.concatenate([positions[:, None] * inv_freq] * 2, axis=-1)          # (T, d)
    cos, sin = np.cos(emb) * 1.19, np.sin(emb) * 1.19
    rotated = np.concatenate([-x[:, 48:], x[:, :48]], axis=-1)                   # rotate_half
    np.testing.assert_allclose(frontier.longrope(x, positions, 10_000.0, factors, 1.19),
                               x * cos + rotated * sin, atol=1e-12)


def delta_by_loop(q, k, v, alpha, beta):
    """The gated delta rule as flash-linear-attention's naive recurrence writes it: decay the
    state, read what it holds for k, write beta times the error there, read out with q."""
    state, out = np.zeros((v.shape[1], k.shape[1])), []
    for q_t, k_t, v_t in zip(q / np.linalg.norm(q, axis=1, keepdims=True),
                             k / np.linalg.norm(k, axis=1, keepdims=True), v, strict=True):
        state = state * alpha
        state = state + np.outer(beta * (v_t - state @ k_t), k_t)
        out.append(state @ q_t)
    return np.array(out)


def test_the_gated_delta_rule_is_the_reference_recurrence():
    q, k, v = RNG.normal(size=(3, 7, 8))
    np.testing.assert_allclose(frontier.gated_delta(q, k, v, 0.8, 0.3),
                               delta_by_loop(q, k, v, 0.8, 0.3), atol=1e-12)


def test_with_orthonormal_keys_the_delta_rule_keeps_each_value_decayed():
    """Keys at right angles never overwrite each other: reading key j back at step t gives
    beta v_j decayed t - j times."""
    keys = np.linalg.qr(RNG.normal(size=(8, 8)))[0][:5]                        # (5, 8)
    v = RNG.normal(size=(5, 8))
    for j in range(5):
        out = frontier.gated_delta(np.repeat(keys[j:j + 1], 5, axis=0), keys, v, 0.9, 0.5)
        for t in range(5):
            want = 0.9 ** (t - j) * 0.5 * v[j] if t >= j else np.zeros(8)
            np.testing.assert_allclose(out[t], want, atol=1e-12)


def test_only_attention_with_neither_position_nor_mask_reads_a_bag_of_tokens():
    from posviz.embedding import token_embeddings

    x = token_embeddings(list("刚想到了"), 64)
    gaps = frontier.reversal_gaps(x)
    assert gaps["unmasked"] < 1e-12
    assert min(gaps["rope"], gaps["nope"], gaps["linear"]) > 0.1
    layer = frontier.init_layers(1, 64)[0]  # the linear layer is causal: a later token changes
    later = x.copy()                        # nothing before it
    later[3] = token_embeddings(["猫"], 64)[0]
    np.testing.assert_array_equal(frontier.linear_layer(x, layer)[:3],
                                  frontier.linear_layer(later, layer)[:3])


def test_each_stack_leaves_position_out_where_its_configuration_says():
    def at(model, kind):
        return [i + 1 for i, k in enumerate(frontier.layer_kinds(model)) if k == kind]

    assert at("llama4_scout", "nope") == list(range(4, 49, 4))
    assert at("smollm3_3b", "nope") == list(range(4, 37, 4)) and len(at("smollm3_3b", "rope")) == 27
    assert at("qwen3_next_80b_a3b", "rope") == list(range(4, 49, 4))
    assert len(at("qwen3_next_80b_a3b", "linear")) == 36
    assert at("kimi_linear_48b_a3b", "nope") == [4, 8, 12, 16, 20, 24, 27]
    assert len(at("kimi_linear_48b_a3b", "linear")) == 20


@pytest.mark.parametrize(("model", "counts"), [
    ("llama4_scout", (36, 12, 0)), ("smollm3_3b", (27, 9, 0)),
    ("qwen3_next_80b_a3b", (12, 0, 36)), ("kimi_linear_48b_a3b", (0, 7, 20))])
def test_layer_counts_add_up_each_kind_of_layer(model, counts):
    """The layers by kind, as the page's text quotes them, every layer counted once."""
    got = frontier.layer_counts(model)
    assert tuple(got.values()) == counts and tuple(got) == frontier.STACK_KINDS
    assert sum(got.values()) == len(frontier.layer_kinds(model))


def offset_score_by_loop(q, k, offset, decay, base=10_000.0):
    """A query at offset n - m after a key, pair by pair: Re[q_i conj(k_i) e^{i o theta_i}],
    times zeta_i ** (o / 512) under xPos."""
    dim, total = len(q), 0.0
    for i in range(dim // 2):
        zq, zk = complex(q[2 * i], q[2 * i + 1]), complex(k[2 * i], k[2 * i + 1])
        term = (zq * zk.conjugate() * complex(math.cos(offset * base ** (-2 * i / dim)),
                                              math.sin(offset * base ** (-2 * i / dim)))).real
        total += term * ((2 * i + 0.4 * dim) / (1.4 * dim)) ** (offset / 512) if decay else term
    return total


@pytest.mark.parametrize(("n", "dim", "farthest"), [(1, 8, 64), (4, 16, 200), (7, 32, 1024)])
def test_xpos_reading_scores_the_last_query_and_first_key_as_a_loop_does(n, dim, farthest):
    q, k = RNG.normal(size=(n, dim)), RNG.normal(size=(n, dim))
    read = frontier.xpos_reading(q, k, farthest)
    offsets = list(range(0, farthest + 1, 2))
    rope = np.array([offset_score_by_loop(q[-1], k[0], o, False) for o in offsets])
    xpos = np.array([offset_score_by_loop(q[-1], k[0], o, True) for o in offsets])
    np.testing.assert_allclose(read.rope, rope, atol=1e-9)
    np.testing.assert_allclose(read.xpos, xpos, atol=1e-9)
    far = [j for j, o in enumerate(offsets) if 2 * o >= farthest]
    assert read.far_from == farthest // 2
    assert read.rope_far == pytest.approx(np.mean([abs(rope[j]) for j in far]))
    assert read.xpos_far == pytest.approx(np.mean([abs(xpos[j]) for j in far]))
    assert read.above == pytest.approx(np.mean(xpos > rope))
    negative = [j for j in range(len(offsets)) if rope[j] < 0]
    assert read.negative_above == (pytest.approx(np.mean([xpos[j] > rope[j] for j in negative]))
                                   if negative else None)
    zeta = [(2 * i + 0.4 * dim) / (1.4 * dim) for i in range(dim // 2)]
    np.testing.assert_allclose(read.kept, [z ** (farthest / 512) for z in zeta])
    assert read.slowest_pair == dim // 2 - 1
    assert read.sentence_offset == n - 1
    assert read.own == pytest.approx(zeta[0] ** ((n - 1) / 512))


@pytest.mark.parametrize("tokens", [list("刚想到了，了到想刚。"), ["x"], list("刚想到了"),
                                    ["the", "cat", ",", "sat", ".", "on"]])
def test_clause_positions_count_the_marks_back_from_the_last_token(tokens):
    """The last query's contextual position of key j: sum over k = j .. last of
    sigmoid(+-8), as many marks from j on as there are, give or take 0.0003 a token."""
    gate = [1 / (1 + math.exp(-8 if t in frontier.CLAUSE_MARKS else 8)) for t in tokens]
    want = [sum(gate[j:]) for j in range(len(tokens))]
    np.testing.assert_allclose(frontier.clause_positions(tokens), want, rtol=1e-12)
    marks = sum(t in frontier.CLAUSE_MARKS for t in tokens)
    assert frontier.clause_marks(tokens) == marks
    assert abs(frontier.clause_positions(tokens)[0] - marks) < 0.0004 * len(tokens)


@pytest.mark.parametrize("n", [1, 3, 6])
def test_longrope_scores_turn_the_last_query_and_every_key_as_phi3_does(n):
    """Against rotations written pair by pair: (i, i + d/2) turned by t theta_i / f_i, times
    the attention factor; the short factors' scores are RoPE's times its square up to how far
    they slow the pairs."""
    dim, base = 12, 10_000.0
    short, long = [1.0, 1.5, 2.0, 4.0, 8.0, 16.0], [1.0, 3.0, 9.0, 27.0, 81.0, 243.0]
    q, k = RNG.normal(size=(n, dim)), RNG.normal(size=(n, dim))
    scale = frontier.longrope_attention_factor(32.0, 4096)

    def turned(x, factors, by):
        out = x.copy()
        for t in range(len(x)):
            for i in range(dim // 2):
                angle = t * base ** (-2 * i / dim) / factors[i]
                a, b = x[t, i], x[t, i + dim // 2]
                out[t, i] = by * (a * math.cos(angle) - b * math.sin(angle))
                out[t, i + dim // 2] = by * (a * math.sin(angle) + b * math.cos(angle))
        return out

    got = frontier.longrope_scores(q, k, base, short, long, scale)
    want = [turned(q, f, by)[-1] @ turned(k, f, by).T / math.sqrt(dim)
            for f, by in (([1.0] * 6, 1.0), (short, scale), (long, scale))]
    for mine, theirs in zip((got.rope, got.short, got.long), want, strict=True):
        np.testing.assert_allclose(mine, theirs, atol=1e-12)
    assert got.gain == pytest.approx(scale ** 2)
    assert got.moved == pytest.approx(np.abs(want[1] - want[0] * scale ** 2).max(), abs=1e-12)
    assert got.largest == pytest.approx(np.abs(want[0]).max())
    assert got.slight == (got.moved <= 0.01 * got.largest)
    if n == 1:
        assert got.slight  # one token: no offset, nothing to turn
    assert frontier.factor_range(short) == (1.0, 16.0)
