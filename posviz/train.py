"""Train one tiny language model per position scheme and measure how each extrapolates.

    python -m posviz.train                  # the committed models, into assets/models/
    python -m posviz.train --steps 20 --eval-windows 4 --out /tmp/models   # a quick check

Each model reads windows of `train_len` tokens cut from a packed stream of generated
sentences (`posviz.corpus`), on the CPU. Afterwards every model is scored at each position
of longer held-out windows (`eval_len`): positions past `train_len` were never seen in
training. The learned table has no rows there, so its losses past `train_len` are recorded
as null. Writes <scheme>.pt per model and report.json: settings, training curves, losses,
sizes, what each model predicts after 刚 and after 了, and seconds, both wall clock and CPU
time summed over threads (on a shared machine the wall clock also counts the time other
programs held the cores).

Shapes: N = windows, T = positions.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import torch
from torch.nn import functional as F

from posviz.corpus import Vocabulary, sentences, token_stream, vocabulary, windows
from posviz.model import (
    MODEL_SCHEMES,
    LanguageModel,
    ModelConfig,
    next_token_probabilities,
    position_losses,
    save_checkpoint,
    top_predictions,
)
from posviz.schemes import position_scheme

MODELS = Path(__file__).resolve().parent.parent / "assets" / "models"
PROBES = (("刚想到了", "想"), ("了到想刚", "想"))
"""Sentence, and the token whose probability after its first token is recorded: a model that
learned order puts 想 after 刚, not after 了."""


@dataclass(frozen=True)
class TrainSettings:
    """Everything a training run depends on (written into report.json)."""

    steps: int = 2000
    batch: int = 32
    train_len: int = 32
    eval_len: int = 128
    eval_windows: int = 64
    learning_rate: float = 3e-3
    warmup: int = 100
    corpus_size: int = 40_000
    seed: int = 0
    d_model: int = 64
    n_heads: int = 4
    n_layers: int = 2
    d_ff: int = 256
    threads: int = 2


def config_for(scheme: str, settings: TrainSettings, vocab: Vocabulary) -> ModelConfig:
    return ModelConfig(len(vocab), scheme, settings.d_model, settings.n_heads,
                       settings.n_layers, settings.d_ff, settings.train_len)


def learning_rate(step: int, settings: TrainSettings) -> float:
    """Linear warm-up, then a cosine decay to a tenth of the peak."""
    if step < settings.warmup:
        return settings.learning_rate * (step + 1) / settings.warmup
    done = (step - settings.warmup) / max(1, settings.steps - settings.warmup)
    return settings.learning_rate * (0.1 + 0.45 * (1 + math.cos(math.pi * done)))


def fit(model: LanguageModel, settings: TrainSettings, stream: np.ndarray) -> Iterator[float]:
    """Train model in place for settings.steps steps on random windows of train_len + 1 ids of
    stream (AdamW, the warm-up and cosine schedule of `learning_rate`), yielding each step's
    loss."""
    optimizer = torch.optim.AdamW(model.parameters(), lr=settings.learning_rate,
                                  weight_decay=0.01)
    model.train()
    for step in range(settings.steps):
        for group in optimizer.param_groups:
            group["lr"] = learning_rate(step, settings)
        batch = torch.from_numpy(windows(stream, settings.train_len + 1, settings.batch,
                                         seed=settings.seed * 1_000_003 + step))  # (N, T + 1)
        loss = F.cross_entropy(model(batch[:, :-1]).transpose(1, 2), batch[:, 1:])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        yield loss.item()
    model.eval()


def train_model(scheme: str, settings: TrainSettings, stream: np.ndarray,
                vocab: Vocabulary) -> tuple[LanguageModel, dict[str, list[float]]]:
    """One model trained on random windows of stream; its loss curve (about 50 points, each
    the mean training loss since the previous one)."""
    torch.manual_seed(settings.seed)
    model = LanguageModel(config_for(scheme, settings, vocab))
    every = max(1, settings.steps // 50)
    curve: dict[str, list[float]] = {"step": [], "loss": []}
    running = []
    for step, loss in enumerate(fit(model, settings, stream)):
        running.append(loss)
        if (step + 1) % every == 0 or step + 1 == settings.steps:
            curve["step"].append(step + 1)
            curve["loss"].append(round(float(np.mean(running)), 5))
            running = []
    return model, curve


def evaluation_windows(settings: TrainSettings, vocab: Vocabulary) -> np.ndarray:
    """Held-out windows of eval_len + 1 ids, from sentences drawn with another seed. (N, T + 1)"""
    held_out = sentences(max(2_000, settings.eval_windows * 40), seed=settings.seed + 1)
    return windows(token_stream(held_out, vocab), settings.eval_len + 1, settings.eval_windows,
                   seed=settings.seed + 2)


def measured_losses(model: LanguageModel, held_out: np.ndarray) -> list[float | None]:
    """Loss at each position 0 .. eval_len - 1; None where the model has no position (the
    learned table past its rows)."""
    seq_len = held_out.shape[1] - 1
    table = position_scheme(model.config.scheme, "models").learned_table
    reach = model.config.max_len if table else seq_len
    losses = position_losses(model, held_out[:, : reach + 1])
    return [round(float(x), 5) for x in losses] + [None] * (seq_len - reach)


def order_probe(model: LanguageModel, vocab: Vocabulary) -> list[dict]:
    """For each of PROBES: the top 5 after the first token, and the probability of the target."""
    out = []
    for sentence, target in PROBES:
        tokens = list(sentence)
        probabilities = next_token_probabilities(model, vocab.encode(tokens))[0]
        ids, ps = top_predictions(probabilities[None], 5)
        out.append({"sentence": sentence, "after": tokens[0], "target": target,
                    "p_target": round(float(probabilities[vocab.index[target]]), 5),
                    "top": vocab.decode(ids[0]), "top_p": [round(float(p), 5) for p in ps[0]]})
    return out


def train_all(settings: TrainSettings, out: Path, schemes: tuple[str, ...] = MODEL_SCHEMES) -> dict:
    """Train every scheme, write <scheme>.pt and report.json into out; returns the report."""
    torch.set_num_threads(settings.threads)
    out.mkdir(parents=True, exist_ok=True)
    vocab = vocabulary()
    stream = token_stream(sentences(settings.corpus_size, seed=settings.seed), vocab)
    held_out = evaluation_windows(settings, vocab)
    report: dict = {"settings": asdict(settings), "vocabulary_size": len(vocab), "models": {}}
    started, started_cpu = time.perf_counter(), time.process_time()
    for scheme in schemes:
        clock, cpu = time.perf_counter(), time.process_time()
        model, curve = train_model(scheme, settings, stream, vocab)
        seconds, cpu_seconds = time.perf_counter() - clock, time.process_time() - cpu
        losses = measured_losses(model, held_out)
        report["models"][scheme] = {
            "curve": curve,
            "eval_loss": round(float(np.mean(losses[: settings.train_len])), 5),
            "position_loss": losses,
            "probes": order_probe(model, vocab),
            "parameters": sum(p.numel() for p in model.parameters()),
            "bytes": save_checkpoint(model, vocab, out / f"{scheme}.pt"),
            "seconds": round(seconds, 1),
            "cpu_seconds": round(cpu_seconds, 1),
        }
    report["seconds"] = round(time.perf_counter() - started, 1)
    report["cpu_seconds"] = round(time.process_time() - started_cpu, 1)
    (out / "report.json").write_text(json.dumps(report, ensure_ascii=False, indent=1) + "\n",
                                     "utf-8")
    return report


def main(argv: list[str] | None = None) -> None:
    defaults = TrainSettings()
    parser = argparse.ArgumentParser(prog="python -m posviz.train", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=MODELS, help="folder for the files")
    parser.add_argument("--schemes", nargs="+", choices=MODEL_SCHEMES, default=list(MODEL_SCHEMES))
    for name in ("steps", "batch", "eval_windows", "corpus_size", "seed"):
        parser.add_argument(f"--{name.replace('_', '-')}", type=int,
                            default=getattr(defaults, name))
    args = parser.parse_args(argv)
    settings = TrainSettings(steps=args.steps, batch=args.batch, eval_windows=args.eval_windows,
                             corpus_size=args.corpus_size, seed=args.seed,
                             warmup=min(defaults.warmup, args.steps // 10))
    report = train_all(settings, args.out, tuple(args.schemes))
    for scheme, result in report["models"].items():
        print(f"{scheme:>10}: eval loss {result['eval_loss']:.3f}, "
              f"{result['bytes'] / 1e6:.2f} MB, {result['seconds']:.0f} s")
    print(f"all: {report['seconds']:.0f} s -> {args.out}")


if __name__ == "__main__":
    main()
