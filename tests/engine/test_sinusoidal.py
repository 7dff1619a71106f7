"""Sinusoidal encoding against the paper's formula, by slow loops and by hand."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from posviz.sinusoidal import (
    channel_role,
    dot_by_offset,
    dot_from,
    dots_from_starts,
    frequencies,
    mean_row_norms,
    offset_check,
    offset_matrix,
    sample_grid,
    similarity,
    sinusoidal,
    sinusoidal_at,
    sinusoidal_sampled,
    spread_channels,
    wavelength,
)


def slow_sinusoidal(seq_len, d_model, base, layout):
    """The paper's formula, one element at a time."""
    pe = np.zeros((seq_len, d_model))
    half = d_model // 2
    for pos in range(seq_len):
        for i in range(half):
            angle = pos / base ** (2 * i / d_model)
            if layout == "interleaved":
                pe[pos, 2 * i], pe[pos, 2 * i + 1] = math.sin(angle), math.cos(angle)
            else:
                pe[pos, i], pe[pos, half + i] = math.sin(angle), math.cos(angle)
    return pe


@pytest.mark.parametrize("layout", ["interleaved", "concatenated"])
@pytest.mark.parametrize("base", [10.0, 100.0, 10_000.0, 500_000.0])
@pytest.mark.parametrize(("seq_len", "d_model"), [(1, 2), (7, 4), (33, 6), (50, 64), (20, 128)])
def test_sinusoidal_matches_slow_loop(seq_len, d_model, base, layout):
    np.testing.assert_allclose(sinusoidal(seq_len, d_model, base, layout),
                               slow_sinusoidal(seq_len, d_model, base, layout), atol=1e-12)


def test_values_by_hand():
    pe = sinusoidal(3, 4)
    # position 1: pair 0 turns by 1 rad, pair 1 by 1 / 10000^(2/4) = 0.01 rad
    np.testing.assert_allclose(pe[1], [0.8414709848078965, 0.5403023058681398,
                                       0.009999833334166664, 0.9999500004166653], atol=1e-15)
    np.testing.assert_array_equal(pe[0], [0.0, 1.0, 0.0, 1.0])
    assert sinusoidal(2, 4, layout="concatenated")[1].tolist() == pytest.approx(
        [0.8414709848078965, 0.009999833334166664, 0.5403023058681398, 0.9999500004166653])


def test_exponent_is_2i_over_d_not_doubled():
    w = frequencies(8)
    np.testing.assert_allclose(w, [1.0, 10_000 ** -0.25, 10_000 ** -0.5, 10_000 ** -0.75])


def test_layouts_are_the_same_channels_reordered():
    inter, concat = sinusoidal(40, 16), sinusoidal(40, 16, layout="concatenated")
    order = np.concatenate([np.arange(0, 16, 2), np.arange(1, 16, 2)])
    np.testing.assert_array_equal(inter[:, order], concat)


@pytest.mark.parametrize(("args", "message"), [
    ((4, 5), "even"), ((4, 0), "even"), ((4, -2), "even"), ((-1, 4), "seq_len"),
    ((4, 4, 1.0), "base"), ((4, 4, 0.5), "base"), ((4, 4, 10.0, "zigzag"), "layout"),
])
def test_bad_sizes_raise_clear_errors(args, message):
    with pytest.raises(ValueError, match=message):
        sinusoidal(*args)


def test_zero_positions_is_an_empty_table():
    assert sinusoidal(0, 8).shape == (0, 8)


@given(st.integers(0, 5000), st.sampled_from([2, 8, 64, 512]))
def test_each_pair_lies_on_the_unit_circle(pos, d_model):
    row = sinusoidal_at(np.array([pos]), d_model)[0]
    np.testing.assert_allclose(row[0::2] ** 2 + row[1::2] ** 2, 1.0, atol=1e-12)


@given(st.integers(0, 2000), st.integers(0, 2000), st.integers(-300, 300),
       st.sampled_from([4, 16, 128]))
def test_dot_product_depends_only_on_the_offset(p, q, k, d_model):
    a = sinusoidal_at(np.array([p, p + k]), d_model)
    b = sinusoidal_at(np.array([q, q + k]), d_model)
    assert a[0] @ a[1] == pytest.approx(b[0] @ b[1], abs=1e-9)
    assert a[0] @ a[1] == pytest.approx(dot_by_offset(np.array([k]), d_model)[0], abs=1e-9)


def test_dot_product_is_symmetric_in_the_offset():
    k = np.arange(1, 60)
    np.testing.assert_allclose(dot_by_offset(k, 32), dot_by_offset(-k, 32), atol=1e-12)


@given(st.integers(-1000, 1000), st.integers(-500, 500), st.sampled_from([2, 6, 32, 256]),
       st.sampled_from([100.0, 10_000.0]))
def test_offset_matrix_maps_any_position_k_steps_on(pos, k, d_model, base):
    rows = sinusoidal_at(np.array([pos, pos + k]), d_model, base)
    np.testing.assert_allclose(offset_matrix(k, d_model, base) @ rows[0], rows[1], atol=1e-9)


def test_offset_matrix_is_a_rotation():
    m = offset_matrix(7, 16)
    np.testing.assert_allclose(m @ m.T, np.eye(16), atol=1e-12)
    np.testing.assert_allclose(offset_matrix(3, 16) @ offset_matrix(4, 16), m, atol=1e-12)


def test_offset_check_residual_is_rounding_error():
    target, mapped, residual = offset_check(5, 3, 64)
    np.testing.assert_allclose(target, sinusoidal(9, 64)[8], atol=1e-15)
    assert residual < 1e-12 and residual == np.abs(target - mapped).max()


def test_dot_from_reads_the_table_and_marks_outside_as_nan():
    pe = sinusoidal(10, 8)
    values = dot_from(pe, 2, np.array([-3, -2, 0, 7, 8]))
    assert np.isnan(values[0]) and np.isnan(values[4])
    np.testing.assert_allclose(values[1:4], [pe[2] @ pe[0], pe[2] @ pe[2], pe[2] @ pe[9]])
    starts = dots_from_starts(sinusoidal(40, 8), np.arange(-5, 6))
    assert list(starts) == [0, 10, 20]
    np.testing.assert_allclose(starts[20], dot_by_offset(np.arange(-5, 6), 8), atol=1e-12)


def test_similarity_is_all_dot_products():
    pe = sinusoidal(12, 6)
    sim = similarity(pe)
    assert sim[3, 8] == pytest.approx(pe[3] @ pe[8])
    np.testing.assert_allclose(np.diag(sim), 3.0)


@pytest.mark.parametrize("layout", ["interleaved", "concatenated"])
@pytest.mark.parametrize(("seq_len", "d_model"), [(4096, 1024), (4096, 2), (1, 1024),
                                                  (128, 128), (3000, 10)])
def test_sampled_grid_fits_and_keeps_exact_values(seq_len, d_model, layout):
    values, rows, channels, stride = sinusoidal_sampled(seq_len, d_model, layout=layout,
                                                        max_cells=200_000)
    assert values.shape == (len(rows), len(channels)) and values.size <= 200_000
    assert rows[0] == 0 and np.all(np.diff(rows) == stride)
    full = sinusoidal_at(rows, d_model, layout=layout)
    np.testing.assert_array_equal(values, full[:, channels])
    pairs = [channel_role(c, d_model, layout) for c in channels]
    assert sorted(fn for _, fn in pairs).count("sin") == len(channels) // 2


def test_small_tables_are_not_thinned():
    rows, channels = sample_grid(128, 128, 200_000)
    assert len(rows) == 128 and channels.tolist() == list(range(128))


def test_channel_roles_and_wavelengths():
    assert channel_role(5, 8) == (2, "cos")
    assert channel_role(5, 8, "concatenated") == (1, "cos")
    assert channel_role(2, 8, "concatenated") == (2, "sin")
    with pytest.raises(ValueError):
        channel_role(8, 8)
    np.testing.assert_allclose(wavelength(4), [2 * np.pi, 2 * np.pi * 100])
    assert spread_channels(128) == [0, 42, 84, 126]
    assert spread_channels(128, "concatenated") == [0, 21, 42, 63]
    assert spread_channels(2) == [0]


def test_position_similarity_is_highest_nearby_but_not_monotone_in_the_offset():
    """At the lesson's width d = 16 row 19 is more like row 0 than rows 2 and 3 are (the numbers
    scene 2 quotes): similarity depends only on the offset and peaks at the neighbours, yet it
    does not fall steadily with the distance."""
    pe = slow_sinusoidal(64, 16, 10_000.0, "interleaved")
    dots = pe[0] @ pe.T                                            # PE(0) . PE(k), k = 0..63
    np.testing.assert_allclose(sinusoidal(64, 16)[0] @ sinusoidal(64, 16).T, dots, atol=1e-12)
    assert [f"{dots[k]:.2f}" for k in (19, 2, 3)] == ["6.43", "6.37", "5.54"]
    assert dots[19] > dots[2] > dots[3]
    assert dots[1] == max(dots[1:])                                # the neighbour is the most alike
    assert (np.diff(dots[:20]) > 0).any()                          # rises again somewhere


@pytest.mark.parametrize("d_model", [4, 16, 64, 128])
def test_mean_row_norms_against_a_loop(d_model):
    """E's mean row length, the same for sqrt(d_model) * E, and every PE row at sqrt(D/2)."""
    e = np.random.default_rng(d_model).standard_normal((5, d_model))
    e_norm, scaled, pe_norm = mean_row_norms(e)
    lengths = [math.sqrt(sum(v * v for v in row)) for row in e]
    assert e_norm == pytest.approx(sum(lengths) / 5, rel=1e-12)
    assert scaled == pytest.approx(math.sqrt(d_model) * sum(lengths) / 5, rel=1e-12)
    assert pe_norm == pytest.approx(math.sqrt(d_model / 2), rel=1e-12)
    with pytest.raises(ValueError, match="T >= 1"):
        mean_row_norms(np.zeros((0, d_model)))


def test_the_concatenated_layout_starts_the_fastest_wave_again_at_column_half_d():
    pe = sinusoidal(50, 16, layout="concatenated")
    t = np.arange(50)
    np.testing.assert_allclose(pe[:, 0], np.sin(t), atol=1e-12)
    np.testing.assert_allclose(pe[:, 8], np.cos(t), atol=1e-12)   # column d/2: pair 0's cosine
    assert channel_role(8, 16, "concatenated") == (0, "cos")
