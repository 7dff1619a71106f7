"""posviz.splitmix against a slow loop over Python integers (SplitMix64 as Steele, Lea and
Flood write it), against numpy's log, cos and sin, and its reference values (the browser's
engine is held to the same ones in tests/browser/test_golden.py)."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from posviz.splitmix import (
    GAMMA,
    MASK,
    log_unit,
    mix64,
    normals,
    stream_key,
    text_stream,
    turn,
    uniforms,
    words,
)

REFERENCE = {
    "mix64(1)": 0x5692161D100B05E5,
    'text_stream("刚")': 0x19B8251B660E1026,
    "uniforms(0, 0, 2)": [0.33805245419550545, 0.2691302712263999],
    "normals(0, 5, 2)": [-2.242470714533718, 0.24854328750495583],
}


def slow_mix(z: int) -> int:
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def slow_words(seed: int, stream: int, count: int) -> list[int]:
    """SplitMix64's sequence from the state key: add GAMMA, then mix, count times."""
    state = slow_mix(slow_mix((seed + GAMMA) & MASK) ^ stream)
    out = []
    for _ in range(count):
        state = (state + GAMMA) & MASK
        out.append(slow_mix(state))
    return out


def test_the_reference_values_hold():
    assert int(mix64(np.array([1], dtype=np.uint64))[0]) == REFERENCE["mix64(1)"]
    assert text_stream("刚") == REFERENCE['text_stream("刚")']
    assert uniforms(0, 0, 2).tolist() == REFERENCE["uniforms(0, 0, 2)"]
    assert normals(0, 5, 2).tolist() == REFERENCE["normals(0, 5, 2)"]


@given(st.integers(0, 2**40), st.integers(0, MASK), st.integers(0, 40))
def test_words_are_splitmix64_from_the_stream_key(seed, stream, count):
    assert words(seed, stream, count).tolist() == slow_words(seed, stream, count)


def test_any_word_can_be_drawn_alone():
    assert words(3, 7, 5, start=10).tolist() == words(3, 7, 15)[10:].tolist()
    assert stream_key(0, 1) != stream_key(1, 0)


def test_fnv1a_of_the_utf8_bytes_names_a_stream():
    assert text_stream("") == 0xCBF29CE484222325
    assert text_stream("a") == 0xAF63DC4C8601EC8C  # FNV-1a 64 of "a" (the published test vector)
    assert text_stream("\ud800") != text_stream("\ufffd")  # a lone surrogate keeps its bytes


def test_uniforms_are_53_bit_fractions_in_the_unit_interval():
    u = uniforms(0, 1, 100_000)
    assert u.min() >= 0 and u.max() < 1 and np.all(u * 2**53 == np.floor(u * 2**53))
    assert abs(u.mean() - 0.5) < 0.005


def test_log_and_turn_agree_with_the_library_to_rounding():
    u = np.concatenate([uniforms(0, 2, 100_000), [2.0**-53, 0.5, 1.0]])
    u = u[u > 0]
    assert np.abs(log_unit(u) - np.log(u)).max() < 4e-15
    v = uniforms(0, 3, 100_000)
    cos, sin = turn(np.concatenate([v, [0.0, 0.25, 0.5, 0.75]]))
    angle = 2 * np.pi * np.concatenate([v, [0.0, 0.25, 0.5, 0.75]])
    assert np.abs(cos - np.cos(angle)).max() < 2e-15 and np.abs(sin - np.sin(angle)).max() < 2e-15


def test_normals_look_standard_normal_and_keep_their_prefix():
    z = normals(0, 4, 400_000)
    assert abs(z.mean()) < 0.01 and abs(z.std() - 1) < 0.01
    assert abs((np.abs(z) > 1.96).mean() - 0.05) < 0.002
    assert normals(0, 4, 7).tolist() == z[:7].tolist()


@pytest.mark.parametrize("count", [0, 1, 2, 3])
def test_normals_of_any_count(count):
    assert normals(1, 2, count).shape == (count,) and not np.isnan(normals(1, 2, count)).any()
    assert all(math.isfinite(v) for v in normals(1, 2, count))
