"""The attention page: what the position switch and the causal mask do to the headline number."""

import json
import re

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from posviz.figures.common import as_array as array
from posviz.permutation import readable, reversal
from tests.helpers.figure_data import chart_payloads, chart_specs
from ui.cached import attention
from ui.i18n import text

PAGE = "../../pages/5_attention.py"


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


def messages(at: AppTest) -> str:
    """Every info, success, warning and error box on the page, as one text."""
    return " ".join(box.value for kind in ("info", "success", "warning", "error")
                    for box in getattr(at, kind))


def test_symmetric_alibi_message_appears_for_a_reversal_only(bidirectional):
    at = bidirectional
    at.radio(key="attention_scheme").set_value("alibi").run()
    assert headline(at) < 1e-9
    assert "Symmetric ALiBi cannot tell a sentence from its reversal" in messages(at)
    at.radio(key="attention_order").set_value("shuffle").run()
    assert headline(at) > 1e-3
    assert "Symmetric ALiBi" not in messages(at)
    assert "The two orders give different outputs" in messages(at)
    at.radio(key="attention_order").set_value("reverse").run()
    at.toggle(key="attention_keep_last").set_value(True).run()
    assert headline(at) > 1e-3 and "Symmetric ALiBi" not in messages(at)


def test_bidirectional_alibi_is_labelled_as_the_symmetric_variant(bidirectional):
    at = bidirectional
    at.radio(key="attention_scheme").set_value("alibi").run()
    assert "ALiBi, symmetric" in chart_specs(at)[0]["layout"]["title"]["text"]
    assert "The paper's ALiBi is causal" in " ".join(c.value for c in at.caption)
    at.toggle(key="attention_causal").set_value(True).run()
    assert "symmetric" not in chart_specs(at)[0]["layout"]["title"]["text"]


@pytest.mark.parametrize("typed", ["0 1 2 3", "０ １ ２ ３"])
def test_an_order_that_moves_nothing_says_so_instead_of_comparing(typed):
    at = AppTest.from_file(PAGE, default_timeout=30).run()
    at.radio(key="attention_order").set_value("typed").run()
    at.text_input(key="attention_typed").set_value(typed).run()
    assert not at.exception
    assert "Nothing moved" in messages(at)
    assert not at.metric and len(chart_specs(at)) == 2  # no twin maps, no numbers
    assert "different outputs" not in messages(at)


def test_keep_last_is_off_for_two_tokens_where_it_would_move_nothing():
    at = AppTest.from_file(PAGE, default_timeout=30).run()
    at.toggle(key="attention_keep_last").set_value(True).run()
    at.text_input(key="text").set_value("刚想").run()
    assert at.toggle(key="attention_keep_last").disabled
    assert "Nothing moved" not in messages(at)
    assert headline(at) > 0.1


@pytest.mark.parametrize(("lang", "typed", "says"), [
    ("zh", "0 0 1 2", "位置 0 出现了两次，位置 3 却没有出现"),
    ("zh", "0 1 2", "你的顺序列出了 3 个位置"),
    ("zh", "a b", "请用整数写出位置 0 到 3"),
    ("en", "4 2 1 0", "There is no position 4"),
])
def test_a_wrong_typed_order_is_explained_in_the_ui_language(lang, typed, says):
    at = AppTest.from_file(PAGE, default_timeout=30).run()
    at.radio(key="lang").set_value(lang).run()
    at.radio(key="attention_order").set_value("typed").run()
    at.text_input(key="attention_typed").set_value(typed).run()
    assert not at.exception
    assert [says in box.value for box in at.error] == [True]


def test_numbers_are_decimals_unless_tiny_everywhere_on_the_page():
    at = AppTest.from_file(PAGE, default_timeout=30).run()
    at.toggle(key="pos").set_value(False).run()
    at.toggle(key="attention_keep_last").set_value(True).run()
    at.slider(key="attention_layers").set_value(1).run()  # last token unchanged: rounding only
    shown = [m.value for m in at.metric] + at.table[0].value.iloc[:, 1:].stack().tolist()
    for number in shown:
        assert re.fullmatch(r"\d+\.\d{3}|\d\.\de[-+]\d\d|0", number), number
        assert ("e" in number) == (0 < float(number) < 1e-3)
    last = at.table[0].value.iloc[0, 2]
    assert f"({last})" in messages(at) and "e-" in last


def test_position_off_draws_the_maps_without_position():
    at = AppTest.from_file(PAGE, default_timeout=30).run()
    at.toggle(key="pos").set_value(False).run()
    title = chart_specs(at)[0]["layout"]["title"]["text"]
    assert "no position" in title


def test_causal_mask_without_position_leaks_order_from_the_second_layer():
    at = AppTest.from_file(PAGE, default_timeout=30).run()
    at.toggle(key="pos").set_value(False).run()
    at.toggle(key="attention_keep_last").set_value(True).run()
    at.slider(key="attention_layers").set_value(2).run()
    last = [float(v) for v in at.table[0].value.iloc[:, 2]]  # the last token, per layer
    assert last[0] < 1e-9 < 0.01 < last[1]
    assert headline(at) > 0.01


def test_a_typed_order_that_is_not_a_permutation_gives_a_message_not_a_traceback():
    at = AppTest.from_file(PAGE, default_timeout=30).run()
    at.radio(key="attention_order").set_value("typed").run()
    at.text_input(key="attention_typed").set_value("0 0 1 2").run()
    assert not at.exception
    assert at.error
    at.text_input(key="attention_typed").set_value("1，0，2，3").run()
    assert not at.exception and headline(at) > 0.1


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_default_view_explains_why_no_position_differs_under_the_causal_mask(lang):
    """At the page's defaults (causal mask on) "no position" shows a large difference beside
    the schemes: the page says the mask carries order, with the no-mask number beside it."""
    from posviz.permutation import readable, reversal
    from ui.cached.attention import check
    from ui.i18n import text

    at = AppTest.from_file(PAGE, default_timeout=30)
    at.query_params["lang"] = lang
    at.run()
    tokens, order = tuple("刚想到了"), tuple(reversal(4).tolist())
    masked, unmasked = (check(tokens, order, 2, 4, "none", causal).gap for causal in (True, False))
    assert masked > 0.1 and unmasked < 1e-9
    said = text("attention.mask_carries_order", lang, none=readable(masked),
                off=readable(unmasked))
    assert said in [info.value for info in at.info]
    at.toggle(key="attention_causal").set_value(False).run()
    assert not [i for i in at.info if i.value.startswith(said[:20])]


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("sentence", ["我我我", "a b a"])
def test_a_reordering_that_reads_the_same_says_nothing_moved(lang, sentence):
    """我我我 or "a b a" reversed is the same sentence again: the page reports no difference
    (no 1.43 from position, no "a causal mask is not order-blind"), only that nothing moved."""
    from posviz.permutation import reads_the_same, reversal
    from ui.i18n import text

    assert reads_the_same(sentence.split() if " " in sentence else list(sentence), reversal(3))
    at = AppTest.from_file(PAGE, default_timeout=30)
    at.query_params.update({"lang": lang, "text": sentence})
    at.run()
    for position, causal in ((True, True), (False, True), (True, False)):
        at.toggle(key="pos").set_value(position)
        at.toggle(key="attention_causal").set_value(causal).run()
        assert not at.exception
        assert text("attention.reads_same", lang) in messages(at)
        assert not at.metric and len(chart_specs(at)) == 2  # no twin maps, no numbers
    at.text_input(key="text").set_value("a b c").run()
    assert text("attention.reads_same", lang) not in messages(at) and headline(at) > 0.1


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_position_off_shows_the_bag_of_tokens_first_and_the_masks_leak_beside_it(lang):
    """The classic collapse first (no mask: the reversed sentence's outputs are the same, only
    reordered), with what the causal mask still leaks in the same note, before any map; a
    sentence that reads the same reversed has no collapse to show. The collapse is drawn first
    of all the page's charts."""
    at = AppTest.from_file(PAGE, default_timeout=30)
    at.query_params.update(text="刚想到了", pos="false", lang=lang)
    at.run()
    assert not at.exception
    backwards, stack = tuple(reversal(4).tolist()), (at.slider(key="attention_layers").value,
                                                     at.select_slider(key="attention_heads").value)
    off, on = (attention.check(tuple("刚想到了"), backwards, *stack, "none", masked).gap
               for masked in (False, True))
    assert off < 1e-9 and on > 0.1
    assert at.success[0].value == text("attention.collapse", lang, off=readable(off),
                                       on=readable(on))
    first = chart_payloads(at)[0]  # drawn: the two orders lined up are one map, no difference
    assert first["name"] == "bag"
    difference = [trace for trace in json.loads(first["figure"])["data"]
                  if trace.get("coloraxis") == "coloraxis2"]
    assert len(difference) == 1 and np.nanmax(np.abs(array(difference[0]["z"]))) < 1e-9
    again = AppTest.from_file(PAGE, default_timeout=30)
    again.query_params.update(text="我我我", pos="false", lang=lang)
    again.run()
    assert not [m for m in again.success
                if m.value.startswith(text("attention.collapse", lang)[:9])]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_each_causal_number_says_so_and_shows_the_same_comparison_with_the_mask_off(lang):
    """At the defaults (causal mask on) "no position" reads 5.328 beside sinusoidal's 6.459
    and RoPE's 5.101: read alone, the mask would seem to tell the orders apart nearly as well
    as position does. Each number names the mask, and
    under it stands the same comparison with the mask off: rounding error with no position,
    the orders told apart by sinusoidal and RoPE (ALiBi without a mask is its symmetric
    variant, which a reversal defeats, and its line says so)."""
    from posviz.attention import ATTENTION_SCHEMES

    at = AppTest.from_file(PAGE, default_timeout=30)
    at.query_params["lang"] = lang
    at.run()
    tokens, order = tuple("刚想到了"), tuple(reversal(4).tolist())
    masked = attention.scheme_gaps(tokens, order, 2, 4, True)
    unmasked = attention.scheme_gaps(tokens, order, 2, 4, False)
    assert min(masked) > 1 and unmasked[0] < 1e-9 < 0.1 < min(unmasked[1:3])
    headline, *schemes = (m.proto for m in at.metric)
    assert [m.body for m in schemes] == [readable(gap) for gap in masked]
    for metric, name, gap in zip(schemes, ATTENTION_SCHEMES, unmasked, strict=True):
        assert metric.label == text("attention.scheme_gap_masked", lang,
                                    scheme=attention.scheme_name(name, True, lang))
        assert metric.delta.endswith(readable(gap)), metric.delta
    assert schemes[3].delta == text("attention.mask_off_gap_symmetric", lang,
                                    gap=readable(unmasked[3]))
    assert headline.label == text("attention.headline_masked", lang)
    assert headline.delta == schemes[ATTENTION_SCHEMES.index("sinusoidal")].delta  # the default

    at.toggle(key="attention_causal").set_value(False).run()  # no mask: position alone
    headline, *schemes = (m.proto for m in at.metric)
    assert [m.body for m in schemes] == [readable(gap) for gap in unmasked]
    assert not any(m.delta for m in (headline, *schemes))
    assert headline.label == text("attention.headline", lang)
