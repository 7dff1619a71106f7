"""The ALiBi page: head counts, the position switch, language and the T5 controls."""

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from posviz.alibi import alibi_slopes, heads_shown
from posviz.figures.common import as_array as array
from tests.helpers.figure_data import chart_specs, value_traces


def figures(at: AppTest) -> dict[str, dict]:
    """Each chart's spec by its title."""
    return {spec["layout"]["title"]["text"]: spec for spec in chart_specs(at)}


@pytest.fixture
def at() -> AppTest:
    app = AppTest.from_file("../../pages/4_alibi.py", default_timeout=30)
    app.run()
    assert not app.exception
    return app


@pytest.mark.parametrize("n_heads", [1, 3, 8, 12, 64])
def test_head_count_sets_slopes_grid_and_head_choices(at, n_heads):
    at.text_input(key="text").set_value("the cat sat on a mat " * 10).run()
    at.slider(key="alibi_heads").set_value(n_heads).run()
    assert not at.exception
    figs = figures(at)
    slopes = figs["Slope m of each head, in head order (log scale)"]["data"]
    drawn = np.concatenate([array(t["y"]) for t in slopes]).astype(float)
    assert np.allclose(drawn, alibi_slopes(n_heads), rtol=1e-6)
    grid = value_traces(figs["Bias added to the score of query i on key j: −m·(i − j)"]["data"])
    assert len(grid) == len(heads_shown(n_heads))
    assert array(grid[-1]["z"]).shape == (60, 60)
    assert at.number_input(key="alibi_head").max == n_heads


def test_chosen_head_is_drawn_with_and_without_the_bias(at):
    at.number_input(key="alibi_head").set_value(2).run()
    figs = figures(at)
    without = array(figs["Head 2: attention weights without any position"]["data"][-1]["z"])
    with_bias = array(figs["Head 2: with its ALiBi bias (m = 2⁻² = 0.25)"]["data"][-1]
                      ["z"])
    assert np.allclose(np.nansum(with_bias, axis=1), 1, atol=1e-5)
    assert not np.allclose(without, with_bias, equal_nan=True)
    assert float(at.metric[1].value) < 1e-12


def test_position_off_zeroes_every_bias_and_says_distance_is_ignored(at):
    at.toggle(key="pos").set_value(False).run()
    assert not at.exception
    assert any("attention now ignores distance" in info.value for info in at.info)
    figs = figures(at)
    grid = figs["Bias added to the score of query i on key j: −m·(i − j)"]["data"]
    for trace in value_traces(grid):
        z = array(trace["z"]).astype(float)
        assert np.all(z[~np.isnan(z)] == 0) and np.isnan(z).any()
    without = array(figs["Head 1: attention weights without any position"]["data"][-1]["z"])
    same = array(figs["Head 1: position off, no bias"]["data"][-1]["z"])
    assert np.array_equal(without, same, equal_nan=True)
    assert not at.metric


def test_chinese_page_renders_with_translated_titles(at):
    at.radio(key="lang").set_value("zh").run()
    assert not at.exception
    assert at.title[0].value == "ALiBi：给每个注意力分数加上距离惩罚"


@pytest.mark.parametrize(("lang", "says"), [("en", "must be at least 65"), ("zh", "至少要取 65")])
def test_impossible_bucket_setting_explains_itself_in_the_ui_language(at, lang, says):
    at.radio(key="lang").set_value(lang).run()
    at.select_slider(key="alibi_buckets").set_value(128).run()
    at.select_slider(key="alibi_max_distance").set_value(16).run()
    assert not at.exception
    assert len(at.error) == 1 and says in at.error[0].value
    assert "max_distance" not in at.error[0].value
    at.select_slider(key="alibi_max_distance").set_value(128).run()
    assert not at.error


def test_slope_is_named_exactly_in_the_grid_and_the_weights_title(at):
    at.slider(key="alibi_heads").set_value(8).run()
    at.number_input(key="alibi_head").set_value(5).run()
    figs = figures(at)
    grid = figs["Bias added to the score of query i on key j: −m·(i − j)"]["layout"]
    assert "head 5<br>m = 2⁻⁵ = 0.03125" in [a["text"] for a in grid["annotations"]]
    assert "Head 5: with its ALiBi bias (m = 2⁻⁵ = 0.03125)" in figs


@pytest.mark.parametrize(("n_heads", "says"), [
    (1, "its only head"), (8, "all 8 heads"), (12, "8 of the 12 heads (1, 3, 4, 6, 7, 9, 10, 12)")])
def test_t5_caption_counts_the_heads_it_draws(at, n_heads, says):
    at.slider(key="alibi_heads").set_value(n_heads).run()
    assert any(says in caption.value for caption in at.caption)


def test_caption_says_a_new_head_count_is_a_new_model(at):
    at.slider(key="alibi_heads").set_value(12).run()
    assert any("16 × 12 = 192 dimensions wide" in caption.value for caption in at.caption)


def test_empty_sentence_keeps_the_slopes_and_asks_for_text(at):
    at.text_input(key="text").set_value("   ").run()
    assert not at.exception
    assert len(chart_specs(at)) == 1 and at.info
