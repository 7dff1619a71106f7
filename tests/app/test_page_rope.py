"""The RoPE page: the pairing switch, the shift control and the position switch."""

import re

import numpy as np
from streamlit.testing.v1 import AppTest

from posviz.attention import init_layers, queries_keys
from posviz.embedding import token_embeddings
from posviz.figures.common import as_array as array
from posviz.rope import context_frequencies, rope_scores, wavelengths
from posviz.tokens import tokenize
from tests.helpers.figure_data import chart_specs
from ui.i18n import text

PAGE = "../../pages/3_rope.py"
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
    assert rope_metric.delta.startswith("unchanged (difference ")
    assert rope_metric.delta.endswith(": float rounding)")
    assert not added_metric.delta.startswith("unchanged")
    assert abs(float(added_metric.delta.split()[0])) > 1e-3
    assert len(rope_metric.value.lstrip("-").replace(".", "")) <= 4, "a few significant digits"


def test_position_off_stops_rotating_and_says_scores_ignore_position():
    at = opened()
    at.toggle(key="pos").set_value(False).run()
    assert not at.exception
    assert text("rope.no_position", "en") in [w.value for w in at.warning]
    q, k = queries_and_keys()
    np.testing.assert_allclose(score_matrix(at), q @ k.T, rtol=1e-5, atol=1e-4)
    assert not [m for m in at.metric if "score at" in m.label], "the shift test is hidden"
    shafts = chart_specs(at)[0]["layout"]["shapes"]  # before rotation, then after
    assert [s["x1"] for s in shafts[:4]] == [s["x1"] for s in shafts[4:]]


def test_one_token_hides_the_relative_demos_and_says_why():
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.query_params["text"] = "刚"
    at.run()
    assert not at.exception
    assert text("rope.need_two", "en") in [i.value for i in at.info]
    assert not [t for spec in chart_specs(at) for t in spec["data"] if t["type"] == "heatmap"]
    keys = {w.key for w in [*at.select_slider, *at.slider]}
    assert not keys & {"rope_query", "rope_key", "rope_offset", "rope_token"}
    assert "rope_at" in keys, "the clock hands still move the one token"


def test_context_chart_draws_both_yarn_ramps_and_names_their_largest_gap():
    at = opened()
    (context,) = [spec for spec in chart_specs(at)
                  if "Wavelength" in spec["layout"]["title"]["text"]]
    traces = {trace["name"]: array(trace["y"]) for trace in context["data"]}
    paper, code = traces[text("rope.methods.yarn", "en")], traces[text("rope.yarn_code", "en")]
    np.testing.assert_allclose(traces[text("rope.methods.llama3", "en")], wavelengths(
        context_frequencies("llama3", 128, 4.0, 4096)), rtol=1e-6)
    np.testing.assert_allclose(code, wavelengths(context_frequencies(
        "yarn", 128, 4.0, 4096, ramp="code")), rtol=1e-6)
    assert not np.allclose(paper, code)
    assert text("rope.ramp_gap", "en", pair=34, ratio=1.7326) in [c.value for c in at.caption]

    at.select_slider(key="rope_scale").set_value(1).run()
    assert not at.exception
    assert not [c for c in at.caption if "differ most" in c.value]


def test_the_norms_table_shows_tokens_as_typed_and_lengths_kept_by_the_rotation():
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.query_params["text"] = "**x** $y$ <b>z</b>"
    at.run()
    (table,) = [e.proto.body for e in at.get("html") if "posviz-table" in e.proto.body]
    assert "<td>&#42;</td>" in table and "<b>" not in table  # each token as text, not markup
    norms = re.findall(r'<td class="number">(\d+\.\d{3})</td>', table)  # as every table rounds
    assert len(norms) == 2 * len(tokenize("**x** $y$ <b>z</b>"))
    assert norms[0::2] == norms[1::2]  # the rotation keeps lengths


def test_position_off_names_only_what_it_hides_and_still_draws_the_arrows_unturned():
    """The warning (shared with the lesson's scene 6, which draws the arrows) says nothing is
    hidden; the page's own caption names the clock hands and the shift test, which it hides."""
    at = opened()
    at.toggle(key="pos").set_value(False).run()
    assert not at.exception
    for lang in ("en", "zh"):
        assert "hidden" not in text("rope.no_position", lang) and "隐藏" not in text(
            "rope.no_position", lang)
    assert text("rope.hidden_off", "en") in [c.value for c in at.caption]
    titles = [spec["layout"]["title"]["text"] for spec in chart_specs(at)]
    assert titles[0].startswith("Pair 0") and not [t for t in titles if "Token" in t]
