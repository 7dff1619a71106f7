"""posviz.permutation: which reorderings attention can see, with and without position."""

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from posviz.attention import attention_stack
from posviz.embedding import token_embeddings
from posviz.permutation import (
    OrderError,
    compare_runs,
    is_identity,
    is_reversal,
    parse_order,
    permutation_check,
    readable,
    reordered,
    repeat_gap,
    reversal,
    shuffle,
    undo,
)

WORDS = ["刚", "想", "到", "了", "the", "dog", "chased", "<b>"]
D_MODEL = 16
ROUNDING = 1e-9


@st.composite
def sentence_and_order(draw, min_size=1, max_size=10):
    """A sentence and an order of its positions."""
    tokens = draw(st.lists(st.sampled_from(WORDS), min_size=min_size, max_size=max_size))
    return tokens, np.array(draw(st.permutations(range(len(tokens)))))


@settings(max_examples=40, deadline=None)
@given(case=sentence_and_order(), n_layers=st.integers(1, 4), n_heads=st.sampled_from([1, 2, 4]))
def test_bidirectional_attention_without_position_is_permutation_equivariant(case, n_layers,
                                                                             n_heads):
    tokens, order = case
    x = token_embeddings(tokens, D_MODEL)
    run = attention_stack(x, n_layers, n_heads, "none", causal=False)
    moved = attention_stack(x[order], n_layers, n_heads, "none", causal=False)
    for y, y_moved in zip(run.outputs, moved.outputs, strict=True):
        np.testing.assert_allclose(y_moved, y[order], rtol=0, atol=ROUNDING)
    assert permutation_check(x, order, n_layers, n_heads, "none", causal=False).gap < ROUNDING


@settings(max_examples=40, deadline=None)
@given(case=sentence_and_order(min_size=2), data=st.data())
def test_one_causal_layer_output_at_t_ignores_the_order_before_t(case, data):
    tokens, _ = case
    t = data.draw(st.integers(1, len(tokens) - 1))
    before = data.draw(st.permutations(range(t)))
    order = np.array([*before, *range(t, len(tokens))])
    x = token_embeddings(tokens, D_MODEL)
    y = attention_stack(x, 1, 2, "none", causal=True).outputs[0]
    y_moved = attention_stack(x[order], 1, 2, "none", causal=True).outputs[0]
    np.testing.assert_allclose(y_moved[t:], y[t:], rtol=0, atol=ROUNDING)


@settings(max_examples=40, deadline=None)
@given(tokens=st.lists(st.sampled_from(WORDS), min_size=2, max_size=10),
       scheme=st.sampled_from(["sinusoidal", "rope"]), causal=st.booleans(),
       n_layers=st.integers(1, 3))
def test_reversal_changes_outputs_with_sinusoidal_or_rope(tokens, scheme, causal, n_layers):
    assume(len(set(tokens)) >= 2)
    x = token_embeddings(tokens, D_MODEL)
    check = permutation_check(x, reversal(len(tokens)), n_layers, 2, scheme, causal)
    assert check.gap > 1e-3


@settings(max_examples=40, deadline=None)
@given(tokens=st.lists(st.sampled_from(WORDS), min_size=1, max_size=12),
       n_layers=st.integers(1, 4), n_heads=st.sampled_from([1, 2, 4, 8]))
def test_bidirectional_alibi_cannot_tell_a_sentence_from_its_reversal(tokens, n_layers, n_heads):
    x = token_embeddings(tokens, D_MODEL)
    check = permutation_check(x, reversal(len(tokens)), n_layers, n_heads, "alibi", causal=False)
    assert check.gap < ROUNDING
    for layer in range(n_layers):
        np.testing.assert_allclose(check.aligned.weights[layer], check.original.weights[layer],
                                   rtol=0, atol=ROUNDING)


def test_bidirectional_alibi_does_tell_a_shuffle_apart():
    x = token_embeddings(["dog", "bites", "man", "today"], D_MODEL)
    assert permutation_check(x, np.array([1, 0, 2, 3]), 1, 2, "alibi", causal=False).gap > 1e-3


def test_causal_alibi_tells_a_sentence_from_its_reversal():
    x = token_embeddings(list("刚想到了"), D_MODEL)
    assert permutation_check(x, reversal(4), 1, 2, "alibi", causal=True).gap > 1e-3


def test_two_causal_layers_without_position_leak_the_earlier_order():
    # dog bites man -> bites dog man: the last token keeps its place and sees the same tokens
    x = token_embeddings(["dog", "bites", "man"], D_MODEL)
    check = permutation_check(x, np.array([1, 0, 2]), 2, 2, "none", causal=True)
    assert check.keeps_last
    assert check.last_gaps[0] < ROUNDING  # layer 1: the last token cannot tell
    assert check.last_gaps[1] > 0.05      # layer 2 reads "dog" alone vs "dog" after "bites"


def test_one_causal_layer_is_not_order_blind_as_a_whole():
    x = token_embeddings(["dog", "bites", "man"], D_MODEL)
    check = permutation_check(x, np.array([1, 0, 2]), 1, 2, "none", causal=True)
    assert check.last_gaps[0] < ROUNDING
    assert check.layer_gaps[0] > 0.05


def test_repeated_tokens_get_identical_outputs_only_without_position():
    tokens = ["the", "dog", "chased", "the", "dog"]
    x = token_embeddings(tokens, D_MODEL)
    bag = attention_stack(x, 3, 2, "none", causal=False).outputs[-1]
    placed = attention_stack(x, 3, 2, "rope", causal=False).outputs[-1]
    assert repeat_gap(tokens, bag) < ROUNDING
    assert repeat_gap(tokens, placed) > 1e-3
    assert repeat_gap(["dog", "bites", "man"], bag[:3]) is None


def test_undo_puts_every_row_and_key_back_with_its_token():
    tokens = ["a", "b", "c", "d"]
    order = np.array([2, 0, 3, 1])
    run = attention_stack(token_embeddings(tokens, D_MODEL), 2, 2, "rope", causal=True)
    back = undo(run, order)
    for i in range(4):
        np.testing.assert_array_equal(back.outputs[1][order[i]], run.outputs[1][i])
        for j in range(4):
            assert back.weights[0][1, order[i], order[j]] == run.weights[0][1, i, j]
            assert back.mask[order[i], order[j]] == run.mask[i, j]


def test_gaps_are_taken_token_by_token_not_position_by_position():
    # without position, reversal only moves the rows: compared by position they would differ
    x = token_embeddings(["dog", "bites", "man"], D_MODEL)
    check = permutation_check(x, reversal(3), 2, 2, "none", causal=False)
    assert check.gap < ROUNDING
    moved = attention_stack(x[::-1], 2, 2, "none", causal=False)
    assert np.abs(moved.outputs[-1] - check.original.outputs[-1]).max() > 0.05


def test_reversal_flips_the_order_and_can_keep_the_last_token():
    assert reversal(4).tolist() == [3, 2, 1, 0]
    assert reversal(4, keep_last=True).tolist() == [2, 1, 0, 3]
    assert reversal(1).tolist() == [0]
    assert reversal(0).tolist() == []


@given(seq_len=st.integers(2, 20), seed=st.integers(0, 10_000), keep_last=st.booleans())
def test_shuffle_is_a_seeded_reordering_that_moves_something(seq_len, seed, keep_last):
    order = shuffle(seq_len, seed, keep_last)
    assert sorted(order.tolist()) == list(range(seq_len))
    assert order.tolist() == shuffle(seq_len, seed, keep_last).tolist()
    if keep_last:
        assert order[-1] == seq_len - 1
    if seq_len - keep_last >= 2:
        assert order.tolist() != list(range(seq_len))


@pytest.mark.parametrize("text", ["3 2 1 0", "3,2,1,0", " 3， 2、1 ;0 ", "3\n2\t1 0",
                                  "３，２，１，０", "３　２　１　０", "３ 2，1 0"])
def test_parse_order_reads_positions_with_any_separator_and_full_width_digits(text):
    assert parse_order(text, 4).tolist() == [3, 2, 1, 0]


@pytest.mark.parametrize(("text", "reason", "values"), [
    ("3 2 1", "count", {"got": 3, "last": 3}),
    ("3 2 1 0 4", "count", {"got": 5, "last": 3}),
    ("", "count", {"got": 0, "last": 3}),
    ("0 0 1 2", "repeated", {"position": 0, "missing": 3, "last": 3}),
    ("3 1 1 0", "repeated", {"position": 1, "missing": 2, "last": 3}),
    ("4 2 1 0", "range", {"position": 4, "last": 3}),
    ("3 2 1 00000000000000000000000000000000000000000042", "range",
     {"position": "42", "last": 3}),
    ("9" * 5000, "range", {"position": "9" * 12 + "…", "last": 3}),  # no C long holds it
    ("a b c d", "not_numbers", {"last": 3}),
    ("-1 0 1 2", "not_numbers", {"last": 3}),
    ("1.5 0 2 3", "not_numbers", {"last": 3}),
    ("٣ 2 1 0", "not_numbers", {"last": 3}),  # other scripts' digits are not positions
])
def test_parse_order_names_what_is_wrong_with_the_numbers_that_matter(text, reason, values):
    with pytest.raises(OrderError) as caught:
        parse_order(text, 4)
    assert (caught.value.reason, caught.value.values) == (reason, values)
    assert isinstance(caught.value, ValueError)


def test_identity_and_reversal_are_recognised_exactly():
    assert is_identity(np.arange(4)) and is_identity(reversal(2, keep_last=True))
    assert not is_identity(reversal(3, keep_last=True))
    assert is_reversal(reversal(4)) and is_reversal(np.array([1, 0]))
    assert not is_reversal(reversal(4, keep_last=True)) and not is_reversal(shuffle(4, 0))


def test_reordered_puts_token_order_k_at_position_k():
    assert reordered(["dog", "bites", "man"], np.array([2, 0, 1])) == ["man", "dog", "bites"]


def test_comparing_two_runs_is_the_permutation_check():
    tokens, order = ["dog", "bites", "man", "today"], np.array([2, 0, 3, 1])
    x = token_embeddings(tokens, D_MODEL)
    run = attention_stack(x, 2, 2, "rope", causal=True)
    moved = attention_stack(token_embeddings(reordered(tokens, order), D_MODEL), 2, 2, "rope",
                            causal=True)
    direct = permutation_check(x, order, 2, 2, "rope", causal=True)
    np.testing.assert_array_equal(compare_runs(run, moved, order).layer_gaps, direct.layer_gaps)


def test_headline_is_the_largest_difference_over_every_token_channel_and_layer():
    tokens, order = ["dog", "bites", "man", "today", "again"], [3, 0, 4, 1, 2]
    x = token_embeddings(tokens, D_MODEL)
    check = permutation_check(x, np.array(order), 3, 2, "sinusoidal", causal=True)
    run = attention_stack(x, 3, 2, "sinusoidal", causal=True)
    moved = attention_stack(x[order], 3, 2, "sinusoidal", causal=True)
    per_token = [[max(abs(run.outputs[layer][i, c] - moved.outputs[layer][order.index(i), c])
                      for c in range(D_MODEL)) for i in range(len(tokens))] for layer in range(3)]
    assert check.gap == max(max(gaps) for gaps in per_token)
    assert check.layer_gaps.tolist() == [max(gaps) for gaps in per_token]
    assert check.last_gaps.tolist() == [gaps[-1] for gaps in per_token]
    assert min(min(gaps) for gaps in per_token) < 0.5 * check.gap  # a mean would differ


@pytest.mark.parametrize(("value", "written"), [
    (0.2912, "0.291"), (5.2716, "5.272"), (12.4071, "12.407"), (0.001, "0.001"),
    (0.00034, "3.4e-04"), (1.1e-16, "1.1e-16"), (0.0, "0")])
def test_readable_writes_decimals_unless_the_value_is_tiny(value, written):
    assert readable(value) == written


def test_check_refuses_an_order_of_the_wrong_length():
    with pytest.raises(OrderError, match="lists 2 positions"):
        permutation_check(np.zeros((3, 8)), np.array([1, 0]), 1, 2, "none")
