"""The training command: runs end to end in a reduced setting; the committed checkpoints load
with weights_only=True and reproduce the figures recorded beside them."""

import json
import subprocess
import sys

import numpy as np
import pytest
import torch

from posviz.corpus import vocabulary
from posviz.model import MODEL_SCHEMES, load_checkpoint, next_token_probabilities
from posviz.train import (
    MODELS,
    TrainSettings,
    evaluation_windows,
    learning_rate,
    measured_losses,
)
from tests.conftest import ROOT

MAX_BYTES = 2_000_000


@pytest.fixture(scope="module")
def committed() -> dict:
    return json.loads((MODELS / "report.json").read_text("utf-8"))


def test_the_command_trains_every_scheme_in_a_reduced_setting(tmp_path):
    subprocess.run([sys.executable, "-m", "posviz.train", "--out", str(tmp_path), "--steps", "4",
                    "--batch", "4", "--eval-windows", "2", "--corpus-size", "300"],
                   cwd=ROOT, check=True, capture_output=True, timeout=120)
    report = json.loads((tmp_path / "report.json").read_text("utf-8"))
    assert set(report["models"]) == set(MODEL_SCHEMES)
    assert report["settings"]["steps"] == 4
    for scheme, result in report["models"].items():
        assert result["curve"]["step"][-1] == 4
        assert len(result["position_loss"]) == report["settings"]["eval_len"]
        torch.load(tmp_path / f"{scheme}.pt", weights_only=True)
    learned = report["models"]["learned"]["position_loss"]
    assert all(v is not None for v in learned[:32]) and all(v is None for v in learned[32:])
    assert all(v is not None for v in report["models"]["alibi"]["position_loss"])


def test_learning_rate_warms_up_then_decays_to_a_tenth():
    s = TrainSettings(steps=1000, warmup=100, learning_rate=1.0)
    assert learning_rate(0, s) == pytest.approx(0.01)
    assert learning_rate(99, s) == pytest.approx(1.0)
    assert learning_rate(100, s) == pytest.approx(1.0)
    assert learning_rate(1000, s) == pytest.approx(0.1)


def test_committed_checkpoints_are_small_and_load_with_weights_only(committed):
    for scheme in MODEL_SCHEMES:
        path = MODELS / f"{scheme}.pt"
        assert path.stat().st_size <= MAX_BYTES
        saved = torch.load(path, weights_only=True)
        assert all(t.dtype == torch.float32 for t in saved["state_dict"].values())
        assert committed["models"][scheme]["bytes"] == path.stat().st_size


def test_committed_models_were_trained_short_and_evaluated_long(committed):
    assert committed["settings"]["train_len"] == 32 and committed["settings"]["eval_len"] == 128
    assert committed["settings"]["threads"] == 2


@pytest.mark.parametrize("scheme", MODEL_SCHEMES)
def test_checkpoints_reproduce_the_recorded_losses(scheme, committed):
    settings = TrainSettings(**committed["settings"])
    model, vocab = load_checkpoint(MODELS / f"{scheme}.pt")
    assert vocab == vocabulary()
    recorded = committed["models"][scheme]["position_loss"]
    measured = measured_losses(model, evaluation_windows(settings, vocab))
    assert [v is None for v in measured] == [v is None for v in recorded]
    known = [v is not None for v in recorded]
    np.testing.assert_allclose(np.array(measured)[known].astype(float),
                               np.array(recorded)[known].astype(float), atol=1e-3)
    assert committed["models"][scheme]["eval_loss"] == pytest.approx(
        np.mean(measured[: settings.train_len]), abs=1e-3)


@pytest.mark.parametrize("scheme", MODEL_SCHEMES)
def test_every_trained_model_puts_xiang_after_gang_and_not_after_le(scheme, committed):
    model, vocab = load_checkpoint(MODELS / f"{scheme}.pt")
    after_gang = next_token_probabilities(model, vocab.encode(list("刚想到了")))[0]
    after_le = next_token_probabilities(model, vocab.encode(list("了到想刚")))[0]
    xiang = vocab.index["想"]
    assert after_gang.argmax() == xiang
    assert after_le[xiang] < 0.05 < after_gang[xiang]
    gang, le = committed["models"][scheme]["probes"]
    assert gang["top"][0] == "想" and gang["p_target"] == pytest.approx(after_gang[xiang],
                                                                        abs=1e-4)
    assert le["p_target"] == pytest.approx(after_le[xiang], abs=1e-4)
