"""The trained-models figures carry exactly the numbers they are given."""

import numpy as np

from posviz.figures.common import as_array as array
from posviz.figures.models import SCHEME_COLORS, extrapolation, top_predictions, training_curves
from posviz.model import MODEL_SCHEMES
from tests.helpers.figure_data import figure_json

NAMES = {"none": "none", "learned": "learned", "alibi": "ALiBi"}


def test_top_predictions_write_escaped_tokens_and_colour_by_probability():
    p = np.array([[0.9, 0.05], [0.5, 0.25]])
    fig = figure_json(top_predictions(p, [["想", "<unk>"], ["<sep>", "b"]], ["0 刚", "1 <b>"],
                                      title="t", x_title="rank", y_title="after",
                                      value_name="p"))
    (trace,) = fig["data"]
    np.testing.assert_allclose(array(trace["z"]), p, atol=1e-6)
    assert trace["text"][0] == ["想<br>0.90", "&lt;unk&gt;<br>0.05"]
    assert trace["y"] == ["0 刚", "1 &lt;b&gt;"]
    assert (trace["zmin"], trace["zmax"]) == (0.0, 1.0)


def test_extrapolation_leaves_a_gap_where_a_scheme_has_no_value():
    losses = {"none": [2.0, 2.5, 3.0, 3.5], "learned": [1.0, 1.5, None, None],
              "alibi": [1.0, 1.1, 1.2, 1.3]}
    fig = figure_json(extrapolation(losses, NAMES, 2, title="t", x_title="position",
                                    y_title="loss", trained_name="trained on 2"))
    by_name = {trace["name"]: array(trace["y"]) for trace in fig["data"]}
    np.testing.assert_allclose(by_name["none"], losses["none"])
    assert np.isnan(by_name["learned"][2:]).all() and not np.isnan(by_name["learned"][:2]).any()
    (line,) = fig["layout"]["shapes"]
    assert line["x0"] == line["x1"] == 1.5
    assert fig["layout"]["annotations"][0]["text"] == "trained on 2"


def test_extrapolation_lines_that_coincide_all_stay_visible():
    """The five models' losses agree to two decimals up to the training length: each line has
    its own (dash, width) and colour, is drawn under the narrower solid lines only, and the
    legend lists the schemes in the order given."""
    same = [1.4, 1.0, 0.9, 1.2]
    losses = {scheme: list(same) for scheme in MODEL_SCHEMES}
    names = {scheme: scheme for scheme in MODEL_SCHEMES}
    fig = figure_json(extrapolation(losses, names, 4, title="t", x_title="position",
                                    y_title="loss", trained_name="trained on 4"))
    lines = {trace["name"]: trace["line"] for trace in fig["data"]}
    assert len({(line.get("dash", "solid"), line["width"]) for line in lines.values()}) == 5
    assert {name: line["color"] for name, line in lines.items()} == SCHEME_COLORS
    drawn = [trace["line"] for trace in fig["data"]]
    for below, line in enumerate(drawn):
        for above in drawn[below + 1:]:  # a solid line drawn later is narrower than this one
            assert above.get("dash", "solid") != "solid" or above["width"] < line["width"]
    legend = sorted(fig["data"], key=lambda trace: trace["legendrank"])
    assert [trace["name"] for trace in legend] == list(MODEL_SCHEMES)


def test_training_curves_draw_loss_and_accuracy_per_scheme_with_chance_marked():
    histories = {name: {"step": [10, 20], "loss": [0.7, 0.6], "accuracy": [0.5, 0.8]}
                 for name in ("none", "alibi")}
    fig = figure_json(training_curves(histories, NAMES, title="t", step_title="step",
                                      loss_title="loss", accuracy_title="accuracy",
                                      chance_name="chance"))
    assert len(fig["data"]) == 4
    loss, accuracy = fig["data"][:2]
    np.testing.assert_allclose(array(loss["y"]), [0.7, 0.6])
    assert accuracy["yaxis"] == "y2"
    np.testing.assert_allclose(array(accuracy["y"]), [0.5, 0.8])
    (chance,) = fig["layout"]["shapes"]
    assert chance["y0"] == chance["y1"] == 0.5
