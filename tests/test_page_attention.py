"""The attention page: what the position switch and the causal mask do to the headline number."""

import json

import pytest
from streamlit.testing.v1 import AppTest

PAGE = "../pages/5_attention.py"


def headline(at: AppTest) -> float:
    """The largest output difference the page reports (its first metric)."""
    return float(at.metric[0].value)


@pytest.fixture
def bidirectional() -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=30).run()
    at.toggle(key="attention_causal").set_value(False).run()
    assert not at.exception
    return at


def test_position_switch_collapses_the_bidirectional_difference_to_rounding(bidirectional):
    at = bidirectional
    assert headline(at) > 0.1
    at.toggle(key="pos").set_value(False).run()
    assert not at.exception
    assert headline(at) < 1e-9
    at.toggle(key="pos").set_value(True).run()
    assert headline(at) > 0.1


@pytest.mark.parametrize("scheme", ["sinusoidal", "rope"])
def test_every_position_scheme_but_symmetric_alibi_separates_the_orders(bidirectional, scheme):
    at = bidirectional
    at.radio(key="attention_scheme").set_value(scheme).run()
    assert headline(at) > 0.1


def test_bidirectional_alibi_reversal_is_reported_as_symmetric(bidirectional):
    at = bidirectional
    at.radio(key="attention_scheme").set_value("alibi").run()
    assert headline(at) < 1e-9
    at.radio(key="attention_order").set_value("shuffle").run()
    assert headline(at) > 1e-3


def test_position_off_draws_the_maps_without_position():
    at = AppTest.from_file(PAGE, default_timeout=30).run()
    at.toggle(key="pos").set_value(False).run()
    title = json.loads(at.get("plotly_chart")[0].proto.spec)["layout"]["title"]["text"]
    assert "no position" in title


def test_causal_mask_without_position_leaks_order_from_the_second_layer():
    at = AppTest.from_file(PAGE, default_timeout=30).run()
    at.toggle(key="pos").set_value(False).run()
    at.toggle(key="attention_keep_last").set_value(True).run()
    at.slider(key="attention_layers").set_value(2).run()
    last = at.dataframe[0].value.iloc[:, 2].tolist()  # difference at the last token, per layer
    assert last[0] < 1e-9 < 0.01 < last[1]
    assert headline(at) > 0.01


def test_a_typed_order_that_is_not_a_permutation_gives_a_message_not_a_traceback():
    at = AppTest.from_file(PAGE, default_timeout=30).run()
    at.radio(key="attention_order").set_value("typed").run()
    at.text_input(key="attention_typed").set_value("0 0 1 2").run()
    assert not at.exception
    assert at.error
    at.text_input(key="attention_typed").set_value("1 0 2 3").run()
    assert not at.exception and headline(at) > 0.1
