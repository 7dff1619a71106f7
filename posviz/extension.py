"""Context extension run on a trained model: posviz's RoPE model, trained on sequences of
train_len tokens, read on held-out windows of eval_len tokens (posviz.train's evaluation
windows), as trained and stretched at inference by each method of `posviz.rope.context_
frequencies` at the factor that maps eval_len onto train_len:

- "original": as trained; past train_len its slow pairs reach angles it never met;
- "pi", "ntk", "yarn", "llama3": every pair turned at the method's frequencies, and YaRN's
  scores multiplied by 1 / t (`yarn_temperature`); "yarn" ramps as YaRN's reference code and
  transformers do, "yarn_paper" as the paper's formula does (a variant no library ships);
- "drope" (DroPE, arXiv 2512.12167): RoPE dropped after training, then the
  model recalibrated briefly on the same corpus at the training length.

Loss is measured at every position of every window, so a method's change at the positions
of training can be set against the windows' own spread (`Extension.change`).

Shapes: N = windows, T = positions.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace

import numpy as np
import torch

from posviz.corpus import sentences, token_stream
from posviz.model import LanguageModel, load_checkpoint, window_losses, without_position
from posviz.rope import context_frequencies, yarn_temperature
from posviz.schemes import position_scheme
from posviz.train import MODELS, TrainSettings, evaluation_windows, fit

YARN_PAPER = "yarn_paper"  # YaRN with the paper's ramp, linear in turns
METHODS = ("original", "pi", "ntk", "yarn", YARN_PAPER, "llama3")
"""The stretched readings, in the order they run: posviz.rope's methods and YaRN's two ramps."""
DROPE = "drope"
RECALIBRATION_STEPS = 200  # a tenth of the training's 2,000
RECALIBRATION_RATE = 1e-3  # a third of the training's peak


def stretched(model: LanguageModel, method: str, scale: float) -> LanguageModel:
    """The RoPE model with its pairs turned at method's frequencies (one of METHODS) for scale
    times its training length (and YaRN's temperature); the same weights, in eval mode."""
    c = model.config
    if position_scheme(c.scheme, "models").kind != "rotate":
        raise ValueError(f"only a RoPE model can be stretched, not {c.scheme}")
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    ramp, method = ("paper", "yarn") if method == YARN_PAPER else ("code", method)
    frequencies = context_frequencies(method, c.d_model // c.n_heads, scale, c.max_len, c.base,
                                      ramp=ramp)
    out = LanguageModel(replace(c, frequencies=tuple(frequencies.tolist()),
                                score_scale=1 / yarn_temperature(scale) if method == "yarn"
                                else 1.0))
    out.load_state_dict(model.state_dict())
    return out.eval()


@dataclass(frozen=True)
class Extension:
    """Loss at each position of each held-out window, per method (N, T), and the length the
    model was trained on."""

    losses: dict[str, np.ndarray]
    trained: int

    def mean(self, method: str) -> np.ndarray:
        """The loss at each position, over the windows. (T,)"""
        return self.losses[method].mean(axis=0)

    def change(self, method: str, positions: slice) -> tuple[float, float]:
        """How much method changed the loss over positions from the model as trained: the mean
        of each window's change, and its standard error over the windows (the noise)."""
        paired = (self.losses[method][:, positions].mean(axis=1)
                  - self.losses["original"][:, positions].mean(axis=1))  # (N,)
        return float(paired.mean()), float(paired.std(ddof=1) / np.sqrt(len(paired)))


@dataclass(frozen=True)
class Progress:
    """Where a run is: done of total steps, and the result once it is complete."""

    done: int
    total: int
    result: Extension | None = None


def run(steps: int | None = None) -> Iterator[Progress]:
    """The experiment on the committed RoPE model, seeded: each method's losses, then DroPE's
    after steps of recalibration; yields its progress, the last one with the result."""
    import json

    steps = RECALIBRATION_STEPS if steps is None else steps
    report = json.loads((MODELS / "report.json").read_text("utf-8"))
    settings = TrainSettings(**report["settings"])
    model, vocab = load_checkpoint(MODELS / "rope.pt")
    held_out = evaluation_windows(settings, vocab)
    scale = settings.eval_len / settings.train_len
    total = len(METHODS) + steps + 1
    losses = {}
    for k, method in enumerate(METHODS, 1):
        losses[method] = window_losses(stretched(model, method, scale), held_out)
        yield Progress(k, total)
    torch.manual_seed(settings.seed)
    twin = without_position(model)  # RoPE dropped
    stream = token_stream(sentences(settings.corpus_size, seed=settings.seed), vocab)
    recalibration = replace(settings, steps=steps, warmup=max(1, steps // 10),
                            learning_rate=RECALIBRATION_RATE)
    for k, _ in enumerate(fit(twin, recalibration, stream), 1):
        yield Progress(len(METHODS) + k, total)
    losses[DROPE] = window_losses(twin, held_out)
    yield Progress(total, total, Extension(losses, settings.train_len))
