"""The right option of each guided-lesson question, from the numbers (ui/answer_key.py)."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from posviz.alibi import alibi_slopes
from posviz.sinusoidal import dot_by_offset
from ui import answer_key as lesson
from ui.i18n import catalog

finite = st.floats(-1e6, 1e6, allow_nan=False)


@given(finite)
def test_a_number_has_not_changed_from_itself_nor_by_rounding(x):
    assert not lesson.changed(x, x)
    assert not lesson.changed(x, x * (1 + 1e-13))
    assert lesson.changed(x, x + 1e-3 * max(1.0, abs(x)))


@given(finite, finite)
def test_changed_is_symmetric(a, b):
    assert lesson.changed(a, b) == lesson.changed(b, a)


def test_every_scene_has_its_options_in_both_languages():
    for scene, n in lesson.OPTIONS.items():
        for letter in "abcdef"[:n]:
            assert f"lesson.{scene}.options.{letter}" in catalog()
        assert f"lesson.{scene}.options.{'abcdef'[n]}" not in catalog()


def test_float_rounding_reads_as_no_change():
    assert lesson.meaning(0.0) == 1 and lesson.meaning(2.3) == 0
    assert lesson.total(0.0) == 0 and lesson.total(1.7) == 1
    assert lesson.order(1.3e-15) == 1 and lesson.order(2.867) == 0
    assert lesson.leak(1.1e-16, 0.4) == 1 and lesson.leak(0.0, 0.0) == 0
    assert lesson.leak(0.3, 0.0) == 2 and lesson.leak(0.3, 0.4) == 3


def test_the_sinusoidal_dot_product_cannot_tell_after_from_before():
    after, before = dot_by_offset(np.array([3, -3]), 64)
    assert lesson.sinusoidal(after, before) == 1
    assert lesson.sinusoidal(1.0, 0.5) == 0


def test_nearby_positions_are_more_alike_with_the_papers_encoding():
    same, near, far = dot_by_offset(np.array([0, 1, 10]), 64)
    assert lesson.position(near, far) == 0
    assert lesson.position(far, near) == 1 and lesson.position(near, near) == 2


@pytest.mark.parametrize(("scores", "right"), [
    ((-12.5, -12.5 + 3e-14, 4.0, 6.1), 1),   # RoPE keeps the score, the added encoding moves it
    ((1.0, 1.0, 2.0, 2.0), 0), ((1.0, 1.3, 2.0, 2.0), 2), ((1.0, 1.3, 2.0, 2.5), 3)])
def test_rope_options(scores, right):
    assert lesson.rope(*scores) == right


def test_alibi_pulls_attention_closer_and_the_steepest_slope_hardest():
    assert alibi_slopes(8)[0] > alibi_slopes(8)[-1]
    assert lesson.alibi(0.6, 1.5, 1.4, 1.5) == 0
    assert lesson.alibi(1.4, 1.5, 0.6, 1.5) == 1
    assert lesson.alibi(0.0, 0.0, 0.0, 0.0) == 2  # one token: nothing to look back at
    assert lesson.alibi(1.6, 1.5, 1.4, 1.5) == 3


def test_the_first_token_under_a_causal_mask_keeps_all_its_attention():
    assert lesson.causal(1.0, 4) == 0 and lesson.causal(1 - 1e-15, 4) == 0
    assert lesson.causal(0.25, 4) == 2 and lesson.causal(0.6, 4) == 1


def test_the_copy_row_is_the_pair_of_position_zero_and_the_copy():
    rows = [{"first": 0, "second": 2}, {"first": 0, "second": 4}, {"first": 1, "second": 4}]
    assert lesson.copy_row(rows, 4) == {"first": 0, "second": 4}


def test_the_port_question_is_right_where_the_ports_map_is_drawn():
    assert lesson.port(0) == 0 and lesson.port(1) == 1
    with pytest.raises(ValueError, match="drawn at 0 or 1"):
        lesson.port(2)


@pytest.mark.parametrize("tokens", [("刚", "想", "到", "了"),
                                    ("the", "cat", "sat", "on", "the", "mat"), ("a", "b"),
                                    ("我",) * 8])
@pytest.mark.parametrize("scheme", ["none", "sinusoidal"])
def test_the_causal_picture_is_decided_by_the_mask_not_by_the_weights(tokens, scheme):
    """Scene 8's predicted picture: the right key is the first one the marked token gives no
    attention at all, which the mask decides (the key right after it), whatever the seeded
    weights; every key up to it gets some, and they sum to 1."""
    from ui.cached import attention

    weights = attention.stack(tokens, 1, 4, scheme, True).mean_weights(0)
    query = (min(len(tokens), 6) - 1) // 2
    assert lesson.first_hidden(weights[query, :6]) == query + 1
    assert (weights[query, :query + 1] > 0).all()
    assert weights[query, :query + 1].sum() == pytest.approx(1.0)


def test_a_row_with_nothing_masked_has_no_first_hidden_key():
    with pytest.raises(ValueError, match="no key is masked"):
        lesson.first_hidden(np.full(4, 0.25))
    assert lesson.most_attended([0.2, 0.5, 0.3]) == 1
