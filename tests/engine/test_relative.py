"""T5 relative position buckets against a slow port of the reference function."""

import math

import numpy as np
import pytest

from posviz.relative import buckets_by_distance, relative_position_bucket, smallest_max_distance


def reference_bucket(relative_position, bidirectional=True, num_buckets=32, max_distance=128):
    """Port of mesh-tensorflow's _relative_position_bucket (the same as Hugging Face T5's),
    one distance at a time."""
    ret = 0
    n = -relative_position
    if bidirectional:
        num_buckets //= 2
        ret += int(n < 0) * num_buckets
        n = abs(n)
    else:
        n = max(n, 0)
    max_exact = num_buckets // 2
    if n < max_exact:
        return ret + n
    val_if_large = max_exact + int(math.log(n / max_exact) / math.log(max_distance / max_exact)
                                   * (num_buckets - max_exact))
    return ret + min(val_if_large, num_buckets - 1)


@pytest.mark.parametrize("bidirectional", [True, False])
@pytest.mark.parametrize(("num_buckets", "max_distance"), [(32, 128), (16, 64), (64, 256),
                                                           (8, 20)])
def test_buckets_match_the_reference_from_minus_300_to_300(bidirectional, num_buckets,
                                                          max_distance):
    r = np.arange(-300, 301)
    got = relative_position_bucket(r, bidirectional, num_buckets, max_distance)
    assert got.tolist() == [reference_bucket(int(d), bidirectional, num_buckets, max_distance)
                            for d in r]


def test_t5_defaults_give_eight_exact_buckets_per_side_then_log_spaced_to_128():
    r, both, causal = buckets_by_distance(300)
    # bucket 16 would hold "distance 0, key after the query", which cannot happen
    assert sorted(set(both.tolist())) == [b for b in range(32) if b != 16]
    assert both[r == -7].item() == 7 and both[r == 7].item() == 16 + 7
    assert np.all(both[r <= -128] == 15) and np.all(both[r >= 128] == 31)
    assert causal[r == -15].item() == 15 and np.all(causal[r <= -128] == 31)


def test_causal_buckets_send_every_later_key_to_bucket_zero():
    r, _, causal = buckets_by_distance(300)
    assert np.all(causal[r >= 0] == 0)


def test_buckets_never_shrink_as_a_key_moves_further_back():
    r, both, causal = buckets_by_distance(300)
    back = r <= 0
    assert np.all(np.diff(both[back][::-1]) >= 0) and np.all(np.diff(causal[back][::-1]) >= 0)


@pytest.mark.parametrize(("num_buckets", "max_distance"), [(2, 128), (32, 8)])
def test_buckets_reject_sizes_the_formula_cannot_use(num_buckets, max_distance):
    with pytest.raises(ValueError):
        relative_position_bucket(np.arange(3), True, num_buckets, max_distance)


@pytest.mark.parametrize("bidirectional", [True, False])
@pytest.mark.parametrize("num_buckets", [8, 16, 32, 64, 128])
def test_smallest_max_distance_is_the_first_the_formula_accepts(num_buckets, bidirectional):
    least = smallest_max_distance(num_buckets, bidirectional)
    r = np.arange(-300, 301)
    assert relative_position_bucket(r, bidirectional, num_buckets, least).shape == r.shape
    with pytest.raises(ValueError, match=f"at least {least}"):
        relative_position_bucket(r, bidirectional, num_buckets, least - 1)
