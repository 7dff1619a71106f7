"""The live experiment's cost, measured: `python -m tests.benchmarks.training_benchmark [--runs N]`.

Prints, in seconds of wall clock and of CPU (cores = CPU / wall):
1. one press of Train (the three classifiers of one seed) with torch on 1 thread and on 2;
2. two presses at once in one process, as two readers' script threads ran them before the
   line (torch on 2 threads), against the same two one after the other on 1 thread (now);
3. the trained-models page's own torch work for a 64-token sentence (attention maps and
   next-token guesses of the five models) on 1 thread and on 2: what another reader's page
   does while a training holds torch at 1 thread.

Not a test (pytest does not collect it): the figures depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import os
import statistics
import threading
import time
from collections.abc import Callable

import torch

from posviz import classifier
from posviz.model import MODEL_SCHEMES, attention_maps, load_checkpoint, next_token_probabilities
from posviz.train import MODELS
from tests.helpers.controls import LONGEST


def press(seed: int) -> None:
    """What one press of Train computes: the three classifiers of one seed."""
    for scheme in classifier.CLASSIFIER_SCHEMES:
        for _ in classifier.train_classifier(scheme, seed):
            pass


def side_by_side(*jobs: Callable[[], None]) -> None:
    threads = [threading.Thread(target=job) for job in jobs]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def measured(job: Callable[[], None], threads: int, runs: int) -> tuple[float, float]:
    """Median wall and CPU seconds of job with torch on that many threads."""
    walls, cpus = [], []
    with classifier.torch_threads(threads):
        for _ in range(runs):
            wall, cpu = time.perf_counter(), time.process_time()
            job()
            walls.append(time.perf_counter() - wall)
            cpus.append(time.process_time() - cpu)
    return statistics.median(walls), statistics.median(cpus)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="runs of each measure (median)")
    args = parser.parse_args()
    print(f"{os.cpu_count()} cores, torch {torch.__version__}, "
          f"{torch.get_num_threads()} threads by default; median of {args.runs} runs")
    press(1)  # the corpus and vocabulary built once, as on a server that has trained before
    models = [load_checkpoint(MODELS / f"{scheme}.pt") for scheme in MODEL_SCHEMES]
    ids = models[0][1].encode(LONGEST.split())

    def page() -> None:
        for model, _ in models:
            cut = ids[: model.config.max_len]  # as the page cuts it for the learned table
            attention_maps(model, cut)
            next_token_probabilities(model, cut)

    rows = [
        ("one press (3 classifiers)", lambda: press(0), (1, 2)),
        ("two presses at once", lambda: side_by_side(lambda: press(0), lambda: press(2)), (2,)),
        ("two presses in turn", lambda: (press(0), press(2)), (1,)),
        ("the page's torch work, 5 models", page, (1, 2)),
    ]
    print(f"{'measure':34} {'threads':>7} {'wall s':>8} {'CPU s':>8} {'cores':>6}")
    for name, job, counts in rows:
        for threads in counts:
            wall, cpu = measured(job, threads, args.runs)
            print(f"{name:34} {threads:>7} {wall:>8.3f} {cpu:>8.3f} {cpu / wall:>6.2f}")


if __name__ == "__main__":
    main()
