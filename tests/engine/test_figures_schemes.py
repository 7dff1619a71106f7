"""The figures of 2026's schemes and the port-bug clinic (posviz/figures/schemes.py): what each
draws, read from the figure's data."""

import numpy as np

from posviz import multimodal, proportional
from posviz.figures.common import MASKED_COLOR, as_array
from posviz.figures.schemes import KIND_COLORS, axis_grid, drift_chart, kind_stack, lane_strips


def test_a_stack_draws_one_cell_per_layer_in_its_kinds_colour():
    kinds = ["sliding", "sliding", "csa", "hca", "csa"]
    fig = kind_stack(kinds, {"sliding": "window", "csa": "CSA", "hca": "HCA"}, model="V4",
                     title="t", x_title="layer")
    by_kind = {t.name: t for t in fig.data}
    assert as_array(by_kind["window"].base).tolist() == [0, 1]
    assert as_array(by_kind["CSA"].base).tolist() == [2, 4]
    assert list(by_kind["HCA"].customdata) == [4]  # layers counted from 1
    assert by_kind["CSA"].marker.color == KIND_COLORS["csa"]
    assert list(fig.layout.xaxis.range) == [0, 5]


def test_the_axis_grid_colours_each_pair_by_its_axis_with_a_key_for_each():
    rows = {"blocks": multimodal.axes((2, 1, 1), "contiguous"),
            "interleaved": multimodal.axes((2, 1, 1), "interleaved")}
    fig = axis_grid(rows, ("time", "height", "width"), title="t", x_title="pair")
    cells = fig.data[0]
    assert as_array(cells.z).tolist() == [[0, 0, 1, 2], [0, 1, 2, 0]]
    assert [list(r) for r in cells.customdata][1] == ["time", "height", "width", "time"]
    assert [t.name for t in fig.data[1:]] == ["time", "height", "width"]


def test_lane_strips_grey_the_lanes_that_never_turn_and_end_with_their_head():
    rows = {"wide": proportional.lane_wavelengths(8, 0.5, 1e4),
            "narrow": proportional.lane_wavelengths(4, 1.0, 1e4)}
    fig = lane_strips(rows, title="t", x_title="lane", value_name="wavelength",
                      never_name="never")
    grey, cells, key = fig.data
    never = as_array(grey.z)
    assert never[0].tolist() == [0, 0, 1, 1, 0, 0, 1, 1]  # pairs 0 and 1 of 4 turn
    assert never[1].tolist() == [0, 0, 0, 0, 0, 0, 0, 0]  # past its four lanes: no cell at all
    z = as_array(cells.z)
    assert np.isnan(z[1, 4:]).all() and np.isfinite(z[1, :4]).all()
    assert z[0, 0] == np.float32(np.log10(2 * np.pi))
    assert key.marker.color == MASKED_COLOR and key.name == "never"


def test_the_drift_chart_is_logarithmic_in_distance_with_its_threshold_and_marks():
    fig = drift_chart(np.array([1.0, 10.0, 100.0]), {"bug": np.array([0.0, 0.2, 0.4])},
                      title="t", x_title="offset", y_title="change", threshold=0.1,
                      threshold_name="a tenth", marks={"window": 128})
    assert fig.layout.xaxis.type == "log"
    lines = fig.layout.shapes
    assert lines[0].y0 == lines[0].y1 == 0.1 and lines[1].x0 == 128
    assert [a.text for a in fig.layout.annotations] == ["a tenth", "window"]
    assert fig.layout.annotations[1].x == np.log10(128)
