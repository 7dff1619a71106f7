"""The context-extension experiment, measured: `python -m tests.benchmarks.extension_benchmark`.

Runs `posviz.extension.run` as the trained-models page does (torch on one thread) and prints
how long its two phases took, wall clock and CPU, then its figures: each method's mean loss
inside the training length (and its change from the model as trained, with the windows'
standard error) and past it. Not a test (pytest does not collect it): the times depend on the
machine and its load; the figures are seeded and do not.
"""

from __future__ import annotations

import time

from posviz import classifier, extension


def main() -> None:
    clock, cpu = time.perf_counter(), time.process_time()
    phases = []
    with classifier.torch_threads(1):
        for p in extension.run():
            if p.done in (len(extension.METHODS), p.total):
                phases.append((time.perf_counter() - clock, time.process_time() - cpu))
    result = p.result
    (read_wall, read_cpu), (all_wall, all_cpu) = phases
    print(f"torch on 1 thread: the {len(extension.METHODS)} stretched readings "
          f"{read_wall:.1f} s ({read_cpu:.1f} CPU-s); recalibration of "
          f"{extension.RECALIBRATION_STEPS} steps and DroPE's reading "
          f"{all_wall - read_wall:.1f} s ({all_cpu - read_cpu:.1f} CPU-s); "
          f"all {all_wall:.1f} s")
    n = result.trained
    inside, past = slice(0, n), slice(n, None)
    for method in result.losses:
        change, noise = result.change(method, inside)
        print(f"{method:>9}: positions 0-{n - 1} {result.mean(method)[inside].mean():.3f} "
              f"({change:+.3f} ± {noise:.3f}); past {n} "
              f"{result.mean(method)[past].mean():.3f}")


if __name__ == "__main__":
    main()
