"""The sinusoidal page at its extremes: the heatmap stays small, the linear map holds."""

import pytest
from streamlit.testing.v1 import AppTest

from tests.helpers.figure_data import chart_payloads, chart_specs
from ui.i18n import text


@pytest.mark.parametrize(("d_model", "n_pos", "base", "layout"), [
    (1024, 4096, 1e6, "concatenated"), (2, 1, 2.0, "interleaved"), (1024, 1, 10_000.0,
                                                                    "interleaved"),
])
def test_extreme_settings_render_within_budget(d_model, n_pos, base, layout):
    at = AppTest.from_file("../../pages/2_sinusoidal.py", default_timeout=60).run()
    at.number_input(key="sinusoidal_d").set_value(d_model)
    at.number_input(key="sinusoidal_n").set_value(n_pos)
    at.number_input(key="sinusoidal_base").set_value(base)
    at.radio(key="sinusoidal_layout").set_value(layout).run()
    assert not at.exception
    sizes = [len(payload["figure"]) for payload in chart_payloads(at)]
    assert max(sizes) < 1_500_000


def test_thinned_heatmap_says_so_and_only_then():
    at = AppTest.from_file("../../pages/2_sinusoidal.py", default_timeout=60).run()
    note = text("sinusoidal.thinned", "en", stride=1).split(" 1 ")[0]  # the words before it
    assert not any(caption.value.startswith(note) for caption in at.caption)
    at.number_input(key="sinusoidal_n").set_value(4096)
    at.number_input(key="sinusoidal_d").set_value(1024).run()
    assert text("sinusoidal.thinned", "en", stride=5) in [caption.value for caption in at.caption]


def test_linear_map_residual_is_rounding_error():
    at = AppTest.from_file("../../pages/2_sinusoidal.py", default_timeout=60).run()
    at.slider(key="sinusoidal_p").set_value(4000)
    at.slider(key="sinusoidal_k").set_value(-256).run()
    assert not at.exception
    assert float(at.metric[0].value) < 1e-9
    assert len(chart_specs(at)) == 5
