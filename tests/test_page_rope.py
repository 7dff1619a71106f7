"""The RoPE page: the pairing switch, the shift control and the position switch."""

import numpy as np
from streamlit.testing.v1 import AppTest

from posviz.attention import init_layers, queries_keys
from posviz.embedding import token_embeddings
from posviz.rope import rope_scores
from tests.figure_data import array, chart_specs
from ui.i18n import text

PAGE = "../pages/3_rope.py"
D_MODEL = 64  # the page's head size
TOKENS = list("刚想到了")


def opened() -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=60).run()
    assert not at.exception
    return at


def score_matrix(at: AppTest) -> np.ndarray:
    """z of the one heatmap on the page: the score matrix."""
    (heatmap,) = [trace for spec in chart_specs(at) for trace in spec["data"]
                  if trace["type"] == "heatmap"]
    return array(heatmap["z"])


def queries_and_keys() -> tuple[np.ndarray, np.ndarray]:
    q, k = queries_keys(token_embeddings(TOKENS, D_MODEL), init_layers(1, D_MODEL)[0], 1)
    return q[0], k[0]


def test_pairing_switch_changes_the_rotation_and_the_scores():
    at = opened()
    q, k = queries_and_keys()
    interleaved = score_matrix(at)
    np.testing.assert_allclose(interleaved, rope_scores(q, k, np.arange(4)), rtol=1e-5, atol=1e-4)
    assert "channels (0, 1)" in chart_specs(at)[0]["layout"]["title"]["text"]

    at.radio(key="rope_pairing").set_value("half").run()
    assert not at.exception
    half = score_matrix(at)
    np.testing.assert_allclose(half, rope_scores(q, k, np.arange(4), pairing="half"), rtol=1e-5,
                               atol=1e-4)
    assert not np.allclose(half, interleaved, atol=1e-3)
    assert "channels (0, 32)" in chart_specs(at)[0]["layout"]["title"]["text"]


def test_shifting_both_tokens_keeps_the_rope_score_but_not_the_added_one():
    at = opened()
    at.slider(key="rope_offset").set_value(300).run()
    assert not at.exception
    rope_metric, added_metric = [m for m in at.metric if "score at" in m.label]
    assert "300" in rope_metric.label and "300" in added_metric.label
    assert abs(float(rope_metric.delta)) < 1e-9
    assert abs(float(added_metric.delta)) > 1e-3


def test_position_off_stops_rotating_and_says_scores_ignore_position():
    at = opened()
    at.toggle(key="pos").set_value(False).run()
    assert not at.exception
    assert text("rope.no_position", "en") in [w.value for w in at.warning]
    q, k = queries_and_keys()
    np.testing.assert_allclose(score_matrix(at), q @ k.T, rtol=1e-5, atol=1e-4)
    assert not [m for m in at.metric if "score at" in m.label], "the shift test is hidden"
    plane = chart_specs(at)[0]["data"]
    np.testing.assert_array_equal(array(plane[0]["x"]), array(plane[1]["x"]))
