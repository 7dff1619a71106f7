"""The live order experiment: without position the classifier is blind to order (identical
logits for a sentence and any shuffle of it); with position it is not, and it learns."""

import numpy as np
import pytest
import torch

from posviz.classifier import (
    CLASSIFIER_SCHEMES,
    ExperimentSettings,
    OrderClassifier,
    by_length,
    config_for,
    in_order_probability,
    order_batch,
    seconds_left,
    shuffled,
    torch_threads,
    train_classifier,
)
from posviz.corpus import sentences, vocabulary
from posviz.model import ModelConfig

SMALL = ExperimentSettings(steps=6, batch=8, every=2, corpus_size=400, test_batches=2)


def classifier(scheme: str, seed: int = 0) -> OrderClassifier:
    torch.manual_seed(seed)
    return OrderClassifier(config_for(scheme, ExperimentSettings(), len(vocabulary())))


def logits(model: OrderClassifier, ids: np.ndarray) -> np.ndarray:
    with torch.no_grad():
        return model(torch.from_numpy(np.ascontiguousarray(ids))).numpy()


@pytest.mark.parametrize("seed", range(3))
def test_without_position_a_shuffle_gets_the_same_logits(seed):
    rng = np.random.default_rng(seed)
    ids = rng.integers(len(vocabulary()), size=(1, 9))
    moved = ids[:, rng.permutation(9)]
    model = classifier("none", seed)
    np.testing.assert_allclose(logits(model, ids), logits(model, moved), atol=1e-6)
    assert in_order_probability(model, ids[0]) == pytest.approx(
        in_order_probability(model, ids[0, ::-1]), abs=1e-6)


@pytest.mark.parametrize("scheme", ["sinusoidal", "rope"])
def test_with_position_a_shuffle_gets_other_logits(scheme):
    ids = np.arange(2, 11)[None]
    model = classifier(scheme)
    assert np.abs(logits(model, ids) - logits(model, ids[:, ::-1])).max() > 1e-4


def test_the_classifier_reads_the_whole_sentence():
    with pytest.raises(ValueError, match="causal"):
        OrderClassifier(ModelConfig(10, "rope", d_model=8, n_heads=2))


def test_a_shuffle_always_moves_something():
    rng = np.random.default_rng(0)
    ids = np.array([4, 4, 5])
    for _ in range(50):
        out = shuffled(ids, rng)
        assert sorted(out) == sorted(ids) and not np.array_equal(out, ids)


def test_batches_hold_one_length_with_shuffled_rows_labelled_one():
    vocab = vocabulary()
    groups = by_length(sentences(500), vocab)
    assert min(groups) >= 3
    known = {tuple(row) for rows in groups.values() for row in rows}
    ids, labels = order_batch(groups, 64, np.random.default_rng(1))
    assert ids.shape[0] == 64 and set(labels) == {0, 1}
    assert all(tuple(row) in known for row in ids[labels == 0])
    assert all(len(set(row)) > 1 for row in ids)


def test_training_reports_progress_until_the_last_step():
    points = list(train_classifier("rope", seed=0, settings=SMALL))
    assert [p.step for p in points] == [2, 4, 6]
    last = points[-1]
    assert last.step == last.steps == 6
    assert len(last.history["loss"]) == len(last.history["accuracy"]) == 3
    assert all(0 <= a <= 1 for a in last.history["accuracy"])
    seconds = [p.seconds for p in points]
    assert 0 < seconds[0] <= seconds[1] <= seconds[2], "wall-clock seconds since the run began"


def test_time_left_is_the_finished_trainings_mean_times_what_remains():
    assert seconds_left([2.0, 4.0], done=0.5, to_come=1) == pytest.approx(3.0 * 1.5)
    assert seconds_left([3.0], done=1.0, to_come=0) == 0.0
    assert seconds_left([3.0], done=0.0, to_come=2) == pytest.approx(9.0)
    lefts = [seconds_left([3.0], done=step / 10, to_come=1) for step in range(11)]
    assert lefts == sorted(lefts, reverse=True)


def test_time_left_is_unknown_until_a_training_has_finished():
    assert seconds_left([], done=0.7, to_come=2) is None


@pytest.mark.parametrize(("done", "to_come"), [(-0.1, 1), (1.5, 1), (0.5, -1)])
def test_time_left_refuses_a_share_out_of_range_or_negative_count(done, to_come):
    with pytest.raises(ValueError):
        seconds_left([3.0], done=done, to_come=to_come)


def test_torch_threads_are_set_inside_the_block_and_put_back_however_it_ends():
    before = torch.get_num_threads()
    with pytest.raises(RuntimeError), torch_threads(1):
        assert torch.get_num_threads() == 1
        raise RuntimeError("a stopped run")
    assert torch.get_num_threads() == before


def test_unknown_scheme_is_refused():
    with pytest.raises(ValueError, match="scheme"):
        next(train_classifier("alibi"))


def test_position_lets_a_classifier_learn_order_and_none_stays_at_chance():
    settings = ExperimentSettings(steps=200, every=200)
    final = {scheme: list(train_classifier(scheme, seed=0, settings=settings))[-1]
             for scheme in CLASSIFIER_SCHEMES}
    assert abs(final["none"].history["accuracy"][-1] - 0.5) < 0.1
    assert final["sinusoidal"].history["accuracy"][-1] > 0.65
    assert final["rope"].history["accuracy"][-1] > 0.65
