"""The trained-models page: every scheme answers the typed sentence, unknown tokens are shown as
unknown, the learned table's limit is stated, and the live experiment trains and is cached, one
reader at a time, for a few seeds, saying which classifier trains and the time left."""

import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from streamlit.elements.progress import ProgressMixin
from streamlit.testing.v1 import AppTest

from posviz import classifier
from posviz.model import MODEL_SCHEMES
from tests.helpers.figure_data import chart_specs, value_traces
from ui.cached import models as cached

PAGE = "../../pages/6_models.py"
TIMEOUT = 120


QUICK = classifier.ExperimentSettings(steps=4, batch=8, every=2, corpus_size=300, test_batches=1)
"""A stand-in training that takes a fraction of a second."""


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


@pytest.mark.parametrize("scheme", MODEL_SCHEMES)
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
    at.number_input(key="models_seed").set_value(3).run()
    at.button(key="models_train").click().run()
    assert not at.exception
    verdicts = at.table[-1].value
    assert len(verdicts) == 3
    typed, reversed_ = verdicts.iloc[0, 1], verdicts.iloc[0, 2]
    assert typed == pytest.approx(reversed_, abs=1e-6), "no position: blind to order"

    again = opened("刚想到了")  # another session: the server kept the finished runs
    again.number_input(key="models_seed").set_value(3).run()
    assert not again.exception
    assert not [b for b in again.button if b.key == "models_train"]
    assert len(again.table[-1].value) == 3


@pytest.mark.parametrize("raw", ["77", "-1"])
def test_a_seed_out_of_range_in_a_link_falls_back_to_the_first(raw):
    at = AppTest.from_file(PAGE, default_timeout=TIMEOUT)
    at.query_params["models_seed"] = raw
    at.run()
    assert not at.exception
    seed = at.number_input(key="models_seed")
    assert (seed.value, seed.min, seed.max) == (0, 0, cached.SEEDS - 1)
    assert "models_seed" not in at.query_params
    assert f"{cached.SEEDS} seeds" in seed.help


def test_a_queued_reader_waits_its_turn_and_does_not_train_a_seed_trained_meanwhile():
    """Another reader (this test) holds the line and finishes seed 4 while the page waits; the
    page then shows that run and trains nothing. A quick stand-in training keeps it short."""
    seed, line = 4, cached.trainings()
    at = opened("dog bites man")
    at.number_input(key="models_seed").set_value(seed).run()
    try:
        with line.joined(), ThreadPoolExecutor(1) as pool:
            pressed = pool.submit(at.button(key="models_train").click().run)
            while len(line) < 2 and not pressed.done():  # until the page has joined the line
                time.sleep(0.01)
            assert len(line) == 2, "the page did not queue behind the reader who holds the line"
            for name in classifier.CLASSIFIER_SCHEMES:
                *_, p = classifier.train_classifier(name, seed, QUICK)
                cached.experiments()[(name, seed)] = (p.history, p.model)
        pressed.result(TIMEOUT)
        assert not at.exception
        assert not at.get("progress"), "the page trained a seed that was already trained"
        assert len(at.table[-1].value) == 3
        assert len(line) == 0
    finally:  # the stand-in runs are no one's to see
        for name in classifier.CLASSIFIER_SCHEMES:
            cached.experiments().pop((name, seed), None)


@pytest.mark.parametrize(("lang", "first", "second", "done"), [
    ("en", "Training classifier 1 of 3: none (NoPE). The time left is estimated once",
     "Training classifier 2 of 3: sinusoidal. About ", "Trained 3 classifiers here in "),
    ("zh", "正在训练第 1 个分类器（共 3 个）：无位置（NoPE）。第一个分类器训练完后",
     "正在训练第 2 个分类器（共 3 个）：正弦。预计还需约 ", "已在此训练 3 个分类器，共用 ")])
def test_the_live_experiment_says_which_classifier_trains_and_the_time_left(
        monkeypatch, lang, first, second, done):
    """One bar for the whole press: classifier k of n by name, a time left once one classifier
    has finished, then how long each took. A quick stand-in training keeps it short."""
    seed, shown = 1, []
    drawn = ProgressMixin.progress

    def progress(self, value, text=None, **kwargs):
        shown.append((value, text))
        return drawn(self, value, text, **kwargs)

    quick = classifier.train_classifier
    monkeypatch.setattr(classifier, "train_classifier",
                        lambda name, seed: quick(name, seed, QUICK))
    monkeypatch.setattr(ProgressMixin, "progress", progress)
    try:
        at = opened("dog bites man", lang)
        at.number_input(key="models_seed").set_value(seed).run()
        at.button(key="models_train").click().run()
        assert not at.exception
        values = [value for value, _ in shown]
        assert values == sorted(values) and values[-1] == 1.0
        texts = [text for _, text in shown]
        assert texts[0].startswith(first)
        assert any(text.startswith(second) for text in texts)
        assert all("3 of 3" in text or "第 3 个" in text for text in texts[-3:-1])
        (bar,) = at.get("progress")
        assert bar.proto.text == texts[-1] and texts[-1].startswith(done)
        for name in classifier.CLASSIFIER_SCHEMES:  # each classifier's seconds, by name
            assert cached.names(lang)[name] in texts[-1]
        assert len(at.table[-1].value) == 3
    finally:  # the stand-in runs are no one's to see
        for name in classifier.CLASSIFIER_SCHEMES:
            cached.experiments().pop((name, seed), None)


def test_the_stretch_experiment_runs_on_a_press_and_is_kept(monkeypatch):
    """Pressed, the experiment runs here (a short recalibration stands in for the page's),
    draws a line per method and DroPE, tables them, and says what the numbers show; another
    reader then sees it without pressing. A document never runs it."""
    from posviz import extension
    from ui.documents import blocks
    from ui.i18n import text

    monkeypatch.setattr(extension, "RECALIBRATION_STEPS", 2)
    assert not any(b["t"] == "chart" and b.get("name") == "models_stretch"
                   for b in blocks("models", "text=刚想到了", "en"))
    at = opened("dog bites man")
    assert not [s for s in chart_specs(at) if "RoPE model as trained" in str(s)]
    at.button(key="models_stretch").click().run()
    assert not at.exception
    [figure] = [s for s in chart_specs(at) if "stretched" in s["layout"]["title"]["text"]]
    names = [t["name"] for t in figure["data"]]
    assert names == [text(f"today.method_{m}", "en") for m in extension.METHODS] + [
        text("models.method_drope", "en")]
    result = cached.stretches()[2]
    stretched_table = next(t.value for t in at.table if len(t.value) == 7)
    assert stretched_table.iloc[0, 2] == "+0.0000 ± 0.0000"  # the model as trained, itself
    assert stretched_table.iloc[1, 3] == f"{result.mean('pi')[32:].mean():.3f}"
    verdict = next(m.value for m in at.markdown if m.value.startswith("**What this run"))
    assert text("today.method_pi", "en") in verdict
    past = {m: result.mean(m)[32:].mean() for m in result.losses}
    assert min(past, key=past.get) == "yarn"  # the ramp transformers runs, decided by the run
    assert verdict.startswith(f"**What this run shows.** Past the training length, "
                              f"{text('today.method_yarn', 'en')} reads best")
    # YaRN's ramps on d 16, L 32: the code's runs from pair 0 to pair 2 (pair 0 kept, pair 1
    # half); the paper's keeps none, pair 0 (5.09 turns) blended (5.09 - 1) / 31 = 0.132
    said = text("models.stretch_yarn", "en", pairs=8, kept=1, blended=1, slowed=6, factor="4")
    turns = 32 / (2 * np.pi)
    gamma = (turns - 1) / 31
    slowed = 1 / ((1 - gamma) / 4 + gamma)
    said += " " + text("models.stretch_yarn_paper", "en", beta="32", n=32, turns=f"{turns:.1f}",
                       fast=f"{slowed:.1f}", factor="4")
    assert said in [c.value for c in at.caption] and "2.9 times" in said
    again = opened("刚想到了")  # another reader: kept, and a button to run it again
    [button] = [b for b in again.button if b.key == "models_stretch"]
    assert button.label == text("models.stretch_again", "en")
    assert any("stretched" in s["layout"]["title"]["text"] for s in chart_specs(again))
    button.click().run()  # in front of the class: the same seeded figures, a new run
    assert cached.stretches()[2] is not result
    np.testing.assert_array_equal(cached.stretches()[2].losses["drope"], result.losses["drope"])
