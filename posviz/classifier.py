"""The live order experiment: can a model tell a sentence from a shuffle of its own tokens?

A small bidirectional transformer (`posviz.model.Encoder`, causal=False) reads a sentence,
averages its outputs over the tokens and says "in order" or "shuffled". Without position,
bidirectional attention is permutation-equivariant and the average is permutation-invariant:
the sentence and every shuffle of it get the same logits, so the classifier cannot beat chance.
With sinusoidal or RoPE position it can learn.

Shapes: B = batch, T = tokens, D = d_model.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from posviz.corpus import Vocabulary, sentences, vocabulary
from posviz.model import Encoder, ModelConfig
from posviz.schemes import offered, position_scheme

CLASSIFIER_SCHEMES = offered("classifier")
"""The order classifiers' position schemes: the three trained side by side."""
MIN_TOKENS = 3


class OrderClassifier(nn.Module):
    """logits (in order, shuffled) = W mean_t(encoder(x)_t) + b."""

    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        if config.causal:
            raise ValueError("the order classifier reads the whole sentence: causal must be False")
        self.config = config
        self.encoder = Encoder(config)
        self.head = nn.Linear(config.d_model, 2)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        """ids (B, T) -> logits (B, 2); column 0 is "in order"."""
        hidden, _ = self.encoder(ids)          # (B, T, D)
        return self.head(hidden.mean(dim=1))   # (B, 2)


@dataclass(frozen=True)
class ExperimentSettings:
    steps: int = 300
    batch: int = 64
    learning_rate: float = 3e-3
    every: int = 10
    d_model: int = 32
    n_heads: int = 2
    n_layers: int = 2
    d_ff: int = 64
    corpus_size: int = 6_000
    test_batches: int = 8


@dataclass(frozen=True)
class TrainingPoint:
    """A point of a classifier's training, as its curves are drawn live: its step of steps, the
    curves so far ({"step", "loss", "accuracy"}, one entry per point), the classifier being
    trained (the same object at every point; trained once step == steps) and the wall-clock
    seconds since the training began (what its caller did between two points included: the
    time a reader waits)."""

    step: int
    steps: int
    history: dict[str, list[float]]
    model: OrderClassifier
    seconds: float


def shuffled(ids: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A random reordering of ids (T,) that differs from ids (ids must not all be equal)."""
    while True:
        out = ids[rng.permutation(len(ids))]
        if not np.array_equal(out, ids):
            return out


def by_length(corpus: list[list[str]], vocab: Vocabulary) -> dict[int, np.ndarray]:
    """Encoded sentences with at least MIN_TOKENS tokens, not all alike, grouped by length:
    a batch is one length, so nothing needs padding. {T: (count, T)}"""
    groups: dict[int, list[np.ndarray]] = {}
    for sentence in corpus:
        ids = vocab.encode(sentence)
        if len(ids) >= MIN_TOKENS and len(set(ids.tolist())) > 1:
            groups.setdefault(len(ids), []).append(ids)
    return {length: np.stack(rows) for length, rows in sorted(groups.items())}


def order_batch(groups: dict[int, np.ndarray], size: int,
                rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """size sentences of one length (picked in proportion to how many there are), each kept in
    order (label 0) or shuffled (label 1) with equal chance. Returns ids (B, T), labels (B,)."""
    lengths = np.array(list(groups))
    counts = np.array([len(groups[n]) for n in lengths], dtype=float)
    rows = groups[int(rng.choice(lengths, p=counts / counts.sum()))]
    ids = rows[rng.integers(len(rows), size=size)].copy()           # (B, T)
    labels = rng.integers(2, size=size)
    for b in np.flatnonzero(labels):
        ids[b] = shuffled(ids[b], rng)
    return ids, labels


def config_for(scheme: str, settings: ExperimentSettings, vocab_size: int) -> ModelConfig:
    longest = 64  # the app's MAX_TOKENS: the position schemes here need no table
    return ModelConfig(vocab_size, scheme, settings.d_model, settings.n_heads, settings.n_layers,
                       settings.d_ff, longest, causal=False)


def train_classifier(scheme: str, seed: int = 0, settings: ExperimentSettings = ExperimentSettings()
                     ) -> Iterator[TrainingPoint]:
    """Train one classifier, yielding its training loss (mean since the previous point) and its
    accuracy on fixed held-out batches every settings.every steps, and once at the end."""
    position_scheme(scheme, "classifier")  # a ValueError names the classifier's schemes
    started = time.perf_counter()
    vocab = vocabulary()
    rng = np.random.default_rng(seed)
    train = by_length(sentences(settings.corpus_size, seed=seed + 10), vocab)
    held_out = by_length(sentences(settings.corpus_size // 4, seed=seed + 11), vocab)
    tests = [order_batch(held_out, settings.batch, rng) for _ in range(settings.test_batches)]
    torch.manual_seed(seed)
    model = OrderClassifier(config_for(scheme, settings, len(vocab)))
    optimizer = torch.optim.AdamW(model.parameters(), lr=settings.learning_rate)
    history: dict[str, list[float]] = {"step": [], "loss": [], "accuracy": []}
    running = []
    for step in range(1, settings.steps + 1):
        ids, labels = order_batch(train, settings.batch, rng)
        loss = F.cross_entropy(model(torch.from_numpy(ids)), torch.from_numpy(labels))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        running.append(loss.item())
        if step % settings.every == 0 or step == settings.steps:
            history["step"].append(step)
            history["loss"].append(float(np.mean(running)))
            history["accuracy"].append(accuracy(model, tests))
            running = []
            yield TrainingPoint(step, settings.steps, history, model,
                                time.perf_counter() - started)


def seconds_left(finished: Sequence[float], done: float, to_come: int) -> float | None:
    """The time left for trainings run one after another, from the seconds each finished one
    took:

        left = mean(finished) * ((1 - done) + to_come)

    done is the share of the current training done (0 to 1), to_come how many trainings follow
    it. None while no training has finished: there is nothing to estimate from.
    """
    if not 0 <= done <= 1:
        raise ValueError(f"done must be between 0 and 1, got {done}")
    if to_come < 0:
        raise ValueError(f"to_come must be at least 0, got {to_come}")
    if not finished:
        return None
    return float(np.mean(finished)) * ((1 - done) + to_come)


@contextmanager
def torch_threads(n: int) -> Iterator[None]:
    """torch on n threads inside the block, back to its previous count after it.

    For a whole training: the classifiers are so small that a second thread barely shortens a
    training and doubles the CPU it takes (`python -m tests.benchmarks.training_benchmark`). The
    count is the process's, seen by its other threads too (measured: an op on another thread ran on
    one core while it was set to 1), so one caller at a time may change it: the live experiment
    trains one classifier at a time per server (ui.turns).
    """
    before = torch.get_num_threads()
    torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def accuracy(model: OrderClassifier, batches: list[tuple[np.ndarray, np.ndarray]]) -> float:
    """The share of sentences labelled correctly over the batches."""
    with torch.no_grad():
        right = sum(int((model(torch.from_numpy(ids)).argmax(-1).numpy() == labels).sum())
                    for ids, labels in batches)
    return right / sum(len(labels) for _, labels in batches)


def in_order_probability(model: OrderClassifier, ids: np.ndarray) -> float:
    """The classifier's p(in order) for one sentence ids (T,)."""
    with torch.no_grad():
        logits = model(torch.from_numpy(np.ascontiguousarray(ids, dtype=np.int64))[None])[0]
    return float(logits.softmax(-1)[0])
