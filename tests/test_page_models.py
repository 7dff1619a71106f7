"""The trained-models page: every scheme answers the typed sentence, unknown tokens are shown as
unknown, the learned table's limit is stated, and the live experiment trains and is cached."""

import pytest
from streamlit.testing.v1 import AppTest

from posviz.model import SCHEMES
from tests.figure_data import chart_specs, value_traces

PAGE = "../pages/6_models.py"
TIMEOUT = 120


def opened(sentence: str, lang: str = "en") -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=TIMEOUT).run()
    assert not at.exception
    if lang != "en":
        at.radio(key="lang").set_value(lang).run()
    at.text_input(key="text").set_value(sentence).run()
    assert not at.exception
    return at


def top_guesses(at) -> list[list[str]]:
    """The top-5 chart's cell texts, token before the probability."""
    (guesses,) = [spec for spec in chart_specs(at) if spec["data"][0].get("texttemplate")]
    return [[cell.split("<br>")[0] for cell in row] for row in guesses["data"][0]["text"]]


@pytest.mark.parametrize("scheme", SCHEMES)
def test_each_scheme_guesses_xiang_after_gang_but_not_after_le(scheme):
    at = opened("刚想到了")
    at.radio(key="models_scheme").set_value(scheme).run()
    assert not at.exception
    assert top_guesses(at)[0][0] == "想"
    at.text_input(key="text").set_value("了到想刚").run()
    assert top_guesses(at)[0][0] != "想"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_unseen_tokens_are_shown_as_unknown(lang):
    at = opened("the 🦒 zebra bites man", lang)
    assert any("<unk>" in w.value for w in at.warning)
    guesses = top_guesses(at)
    assert len(guesses) == 5
    labels = value_traces(chart_specs(at)[0]["data"])[0]["y"]  # the query rows
    assert "1 &lt;unk&gt;" in labels and "2 &lt;unk&gt;" in labels


def test_learned_model_reads_only_as_many_tokens_as_its_table_has_rows():
    at = opened(" ".join(["one two three four five"] * 8))
    at.radio(key="models_scheme").set_value("learned").run()
    assert not at.exception
    assert any("32 rows" in w.value for w in at.warning)
    assert len(top_guesses(at)) == 32
    at.radio(key="models_scheme").set_value("alibi").run()
    assert len(top_guesses(at)) == 40


def test_position_switch_shows_the_model_without_position():
    at = opened("刚想到了")
    at.radio(key="models_scheme").set_value("rope").run()
    at.toggle(key="pos").set_value(False).run()
    assert not at.exception
    assert at.radio(key="models_scheme").disabled
    assert any("NoPE" in i.value for i in at.info)


def test_the_live_experiment_trains_three_classifiers_and_is_cached():
    at = opened("dog bites man")
    at.number_input(key="models_seed").set_value(7).run()
    at.button(key="models_train").click().run()
    assert not at.exception
    verdicts = at.table[-1].value
    assert len(verdicts) == 3
    typed, reversed_ = verdicts.iloc[0, 1], verdicts.iloc[0, 2]
    assert typed == pytest.approx(reversed_, abs=1e-6), "no position: blind to order"

    again = opened("刚想到了")  # another session: the server kept the finished runs
    again.number_input(key="models_seed").set_value(7).run()
    assert not again.exception
    assert not [b for b in again.button if b.key == "models_train"]
    assert len(again.table[-1].value) == 3
