"""Every numeric control on every page, at its smallest and largest values and combinations."""

import pytest

from tests.helpers.controls import (
    LONGEST,
    ROUTES,
    at_extreme,
    numeric_controls,
    opened,
    page_radios,
)

SENTENCES = {"64 tokens": LONGEST, "one token": "刚"}


def where(route, sentence, detail) -> str:
    return f"{route or 'home'} with {sentence}: {detail}"


@pytest.mark.parametrize("sentence", list(SENTENCES))
@pytest.mark.parametrize("route", ROUTES)
def test_every_control_alone_and_all_together_at_their_ends(route, sentence):
    at = opened(route, SENTENCES[sentence])
    assert not at.exception, where(route, sentence, "defaults")
    controls = numeric_controls(at)
    for control in controls:
        for end in ("low", "high"):
            at_extreme(at, end, {control.key})
            assert not at.exception, where(route, sentence, f"{control.key} at its {end} end")
            at_extreme(at, "high" if end == "low" else "low", {control.key})
    for end in ("low", "high", "low"):
        at_extreme(at, end)
        assert not at.exception, where(route, sentence, f"every control at its {end} end")
    at.toggle(key="pos").set_value(False).run()
    assert not at.exception, where(route, sentence, "all low, position off")
    at_extreme(at, "high")
    assert not at.exception, where(route, sentence, "all high, position off")


@pytest.mark.parametrize("route", ROUTES)
def test_every_choice_of_a_radio_with_the_controls_it_shows_at_their_ends(route):
    """A radio choice can reveal controls (the attention page's shuffle seed): each choice, each
    end, with the longest sentence."""
    at = opened(route, LONGEST)
    radios = page_radios(at)
    for key, options in radios.items():
        for option in options:
            at.radio(key=key).set_value(option).run()
            assert not at.exception, where(route, "64 tokens", f"{key}={option}")
            for end in ("low", "high"):
                at_extreme(at, end)
                assert not at.exception, where(route, "64 tokens", f"{key}={option}, all {end}")
        at.radio(key=key).set_value(options[0]).run()


def test_controls_are_found():
    """Discovery works: the lessons draw numeric controls, and each has a range."""
    found = [c for route in ROUTES for c in numeric_controls(opened(route, LONGEST))]
    assert found
    assert all(c.low != c.high for c in found)
