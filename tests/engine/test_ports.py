"""The port-bug clinic (posviz/ports.py): each port's rotation against the model's, on a
sentence, with the published values and the public reports of assets/models/ports.toml."""

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from posviz import ports
from posviz.attention import softmax
from posviz.modern import value

KEYS = [b.key for b in ports.bugs()]
SENTENCES = (list("刚想到了"), ["the", "cat", "sat", "on", "the", "mat", "and", "looked", "at",
                               "the", "dog"])


@pytest.mark.parametrize("key", KEYS)
def test_each_port_turns_nothing_at_position_0_and_keeps_every_norm(key):
    b = ports.bug(key)
    x = np.random.default_rng(1).normal(size=(3, b.width))
    zero = np.zeros((3, 3)) if b.image else np.zeros(3)
    for turn in (b.right, b.wrong):
        np.testing.assert_allclose(turn(x, zero), x, atol=1e-12)
    far = np.array([[0, 5, 90], [0, 7, 300], [0, 2, 40]]) if b.image else np.array([0, 7, 900])
    for turn in (b.right, b.wrong):
        np.testing.assert_allclose(np.linalg.norm(turn(x, far), axis=1),
                                   np.linalg.norm(x, axis=1))
    assert np.abs(b.right(x, far) - b.wrong(x, far)).max() > 1e-6  # the bug is real


def slow_reading(tokens, key):
    """Scores and causal softmax by loops, from the habit head's vectors."""
    b = ports.bug(key)
    seq, positions = ports.sequence(tokens, b.image)
    q, k = ports.habit_head(seq, b)
    out = []
    for turn in (b.right, b.wrong):
        rq, rk = turn(q, positions), turn(k, positions)
        weights = np.zeros((len(seq), len(seq)))
        for i in range(len(seq)):
            row = np.array([rq[i] @ rk[j] / np.sqrt(b.width) for j in range(i + 1)])
            weights[i, :i + 1] = softmax(row)
        out.append(weights)
    return seq, out


@pytest.mark.parametrize("key", KEYS)
@pytest.mark.parametrize("tokens", SENTENCES)
def test_a_reading_is_the_slow_causal_attention_and_its_largest_change(key, tokens):
    read = ports.reading(tokens, key)
    seq, (right, wrong) = slow_reading(tokens, key)
    assert read.tokens == seq
    np.testing.assert_allclose(read.weights[0], right, atol=1e-12)
    np.testing.assert_allclose(read.weights[1], wrong, atol=1e-12)
    moved = np.abs(wrong - right)
    assert read.change == pytest.approx(moved.max())
    assert moved[read.largest] == pytest.approx(moved.max())


@pytest.mark.parametrize("tokens", SENTENCES)
def test_the_last_querys_scores_are_its_dot_products_with_each_turned_key(tokens):
    def turn(x, positions):  # each row rotated by its position, in its first two lanes
        out = x.copy()
        for t, p in enumerate(positions):
            c, s = np.cos(0.3 * p), np.sin(0.3 * p)
            out[t, 0], out[t, 1] = c * x[t, 0] - s * x[t, 1], s * x[t, 0] + c * x[t, 1]
        return out

    q, k = ports.seeded_head(tokens, 8)
    last = len(tokens) - 1
    slow = [sum(a * b for a, b in zip(turn(q[last:], [last])[0], turn(k[j:j + 1], [j])[0],
                                      strict=True)) / np.sqrt(8) for j in range(len(tokens))]
    np.testing.assert_allclose(ports.last_scores(tokens, 8, turn), slow, atol=1e-12)


def test_the_habit_looks_one_token_back_under_the_models_rotation():
    """<R_m u, R_n R_1 u> = |u|^2 = HABIT sqrt(d) when the key is one token before."""
    for b in ports.bugs():
        u, turned = ports.habit(b.key)
        assert u @ u == pytest.approx(ports.HABIT * np.sqrt(b.width))
        at = ports.one_step(b.image)
        home = np.zeros_like(at)
        assert float(b.right(u[None], at)[0] @ b.right(turned[None], home)[0]) == \
            pytest.approx(u @ u)


def test_on_the_typed_sentence_gemma_4s_port_loses_the_look_back():
    read = ports.reading(SENTENCES[1], "gemma4_prefix")
    right, wrong = (ports.looks_back(w) for w in read.weights)
    assert right >= 8 and wrong <= 3  # of 10 queries with a token before them


@pytest.mark.parametrize("key", KEYS)
def test_the_drift_never_falls_and_starts_at_what_the_nearest_offset_moves(key):
    deltas = ports.offsets()
    moved = ports.drift(key, deltas)
    assert (np.diff(moved) >= 0).all()
    b = ports.bug(key)
    q, k = ports.drift_head(key)
    lanes = ports.moving_lanes(key)
    q, k = q * lanes, k * lanes
    here = ports.apart(deltas[:1], len(q), b.image)
    home = ports.apart(np.zeros(1), len(k), b.image)
    first = (b.wrong(q, here) @ b.wrong(k, home).T) - (b.right(q, here) @ b.right(k, home).T)
    assert moved[0] == pytest.approx(np.sqrt(np.mean(first ** 2)
                                             / np.mean((q @ k.T) ** 2)))


def test_the_drift_is_the_largest_change_so_far_offset_by_offset():
    """By a loop: at each offset, every query against every key, both rotations."""
    key, deltas = "v4_one_base", np.array([1.0, 3.0, 10.0, 40.0])
    b = ports.bug(key)
    q, k = ports.drift_head(key)
    lanes = ports.moving_lanes(key)
    q, k = q * lanes, k * lanes
    scale = np.sqrt(np.mean([(qi @ kj) ** 2 for qi in q for kj in k]))
    worst, expected = 0.0, []
    for delta in deltas:
        gaps = [(b.wrong(qi[None], np.array([delta]))[0] @ kj
                 - b.right(qi[None], np.array([delta]))[0] @ kj) ** 2 for qi in q for kj in k]
        worst = max(worst, np.sqrt(np.mean(gaps)) / scale)
        expected.append(worst)
    np.testing.assert_allclose(ports.drift(key, deltas), expected, rtol=1e-9)


def test_the_drift_head_carries_the_habit_and_is_fixed_by_its_seed():
    for b in ports.bugs():
        q, k = ports.drift_head(b.key)
        assert q.shape == k.shape == (ports.DRIFT_VECTORS, b.width)
        np.testing.assert_array_equal(q, ports.drift_head(b.key)[0])
        u, turned = ports.habit(b.key)
        assert not np.array_equal(q, ports.drift_head(b.key, seed=1)[0])
        assert np.mean(q @ u) > 0.5 * (u @ u) and np.mean(k @ turned) > 0.5 * (turned @ turned)


def test_where_each_bug_starts_to_matter():
    onsets = {key: ports.onset(key) for key in KEYS}
    assert onsets["gemma4_prefix"] == onsets["halves_as_pairs"] == 1  # from the next token
    assert onsets["qwen3vl_contiguous"] == 1  # one row down the image
    assert 2 <= onsets["v4_one_base"] <= 32  # the mid pairs part first
    assert 100 <= onsets["gemma4_whole"] <= 5000  # only the slow pairs turn too many
    assert onsets["v4_yarn_on_sliding"] is None  # never, within the 128-token window
    deltas = ports.offsets()
    seen = ports.reach("v4_yarn_on_sliding", deltas)
    assert deltas[seen].max() <= 128 < deltas[~seen].min()


def test_gemma_4s_whole_width_port_turns_the_64_pairs_alike_and_the_192_others_too():
    """Pair i is lanes (i, i + 256); the model turns pairs 0..63 at 1e6^(-2i/512), the port
    every pair at that speed."""
    b = ports.bug("gemma4_whole")
    x = np.random.default_rng(3).normal(size=(1, 512))
    at = np.array([1000.0])
    right, wrong = b.right(x, at), b.wrong(x, at)
    for i in range(256):
        a, c = x[0, i], x[0, i + 256]
        angle = 1000.0 * 1e6 ** (-2 * i / 512)
        turned = (a * np.cos(angle) - c * np.sin(angle), a * np.sin(angle) + c * np.cos(angle))
        np.testing.assert_allclose((wrong[0, i], wrong[0, i + 256]), turned, atol=1e-9)
        np.testing.assert_allclose((right[0, i], right[0, i + 256]),
                                   turned if i < 64 else (a, c), atol=1e-9)


def test_a_text_only_sentence_moves_nothing_under_the_m_rope_port():
    b = ports.bug("qwen3vl_contiguous")
    x = np.random.default_rng(2).normal(size=(4, b.width))
    ids = np.stack([np.arange(4)] * 3)
    np.testing.assert_allclose(b.right(x, ids), b.wrong(x, ids), atol=1e-12)


@given(st.text(min_size=1, max_size=30))
@settings(max_examples=40, deadline=None)
def test_the_port_map_is_drawn_on_a_side_fixed_by_the_sentence(text):
    assert ports.port_side(text) in (0, 1)
    assert ports.port_side(text) == ports.port_side(str(text))


def test_both_sides_occur():
    assert {ports.port_side(t) for t in "abcdefghijkl"} == {0, 1}


@pytest.mark.parametrize("key", [*KEYS, "qwen3vl_rope_index"])
def test_every_bug_names_the_public_issue_or_pull_request_with_its_words(key):
    found = ports.reports(key)
    assert found
    for report in found:
        assert re.fullmatch(r"https://github\.com/[\w.-]+/[\w.-]+/(issues|pull)/\d+",
                            report["url"])
        assert report["role"] in ("found", "fixed", "proposed") and len(report["quote"]) > 40


def test_a_pull_request_closed_unmerged_fixed_nothing():
    """alibaba/MNN #4133 was closed without being merged (its stored thread: "closed", not
    "merged"): it proposed a fix; and mlx-lm #1189's words are the stored thread's, with no
    figure it does not give."""
    roles = {r["url"]: r["role"] for key in (*KEYS, "qwen3vl_rope_index")
             for r in ports.reports(key)}
    assert roles["https://github.com/alibaba/MNN/pull/4133"] == "proposed"
    [mlx] = ports.reports("v4_one_base")
    assert "figure" not in mlx and "for all 43 layers" in mlx["quote"]


def test_deepseek_v4s_two_bases_turn_only_the_fastest_pair_alike():
    """At base 10000 and 160000 over 64 rotary lanes, pair 0 turns 1 rad per position at
    both, pair 1 0.750 against 0.688 (the review's figures): the clinic says so, not that
    the fastest pairs turn alike."""
    from ui.i18n import text

    said = ports.quoted("v4_one_base")
    assert round(said["second_main"], 3) == 0.750 and round(said["second_compress"], 3) == 0.688
    assert said["second_main"] == pytest.approx(10_000 ** (-2 / 64), rel=1e-12)
    words = text("schemes.bug.v4_one_base.what", "en", **said)
    assert "fastest pairs turn alike" not in words and "Only the fastest pair" in words


def test_a_reported_figure_is_the_reports_own_words():
    for key in KEYS:
        for report in ports.reports(key):
            if "figure" in report:
                for number in re.findall(r"\d+(?:\.\d+)?", report["figure"]):
                    assert number in report["quote"], (key, number)


def test_each_bug_quotes_its_models_published_numbers():
    assert ports.quoted("gemma4_prefix") == dict(lanes=128, inside=64, across=256, wide=512,
                                                 still=192, base=1e6)
    assert ports.quoted("v4_one_base") == dict(main=10_000, compress=160_000, window=128,
                                               second_main=10_000 ** (-2 / 64),
                                               second_compress=160_000 ** (-2 / 64))
    assert ports.quoted("qwen3vl_contiguous") == dict(rows=2, cols=3)
    assert ports.quoted("halves_as_pairs") == dict(lanes=ports.bug("halves_as_pairs").width,
                                                   base=value("qwen3_5_0_8b", "rope_theta"))


@pytest.mark.parametrize("key", KEYS)
def test_a_bug_is_measured_when_a_report_gives_a_figure(key):
    assert ports.measured(key) == any("figure" in r for r in ports.reports(key))


@pytest.mark.parametrize("key", KEYS)
def test_the_largest_change_names_the_cells_two_weights(key):
    read = ports.reading(list("刚想到了"), key)
    right, wrong = read.largest_weights
    assert abs(wrong - right) == pytest.approx(read.change)
    assert (right, wrong) == (read.weights[0][read.largest], read.weights[1][read.largest])


def test_an_unknown_bug_is_refused():
    with pytest.raises(ValueError, match="bug must be one of"):
        ports.bug("none")
