"""How long a page's document takes to draw (ui.documents): what a room's followers are sent, a
downloaded file holds and the hostile-input tests draw most. Each page once warm, then on
inputs from the hostile corpus it has not seen (no cache helps), in one process on one core.

    python -m tests.benchmarks.documents_benchmark [--inputs N]

prints each page's median and mean milliseconds per document, and the total.
"""

from __future__ import annotations

import argparse
import statistics
import time

from tests.helpers.hostile import HOSTILE
from ui import documents


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--inputs", type=int, default=30, help="hostile inputs per page")
    inputs = HOSTILE[:parser.parse_args().inputs]
    for page in documents.pages():  # warm: the models' training, imports, caches
        documents.drawn(page, {"text": ["warm up"]}, "en", frozenset())
    total = 0.0
    print(f"{'page':12} {'median ms':>10} {'mean ms':>9}   ({len(inputs)} inputs each)")
    for page in documents.pages():
        times = []
        for typed in inputs:
            start = time.perf_counter()
            documents.drawn(page, {"text": [typed]}, "en", frozenset())
            times.append(time.perf_counter() - start)
        total += sum(times)
        print(f"{page:12} {1000 * statistics.median(times):10.1f} "
              f"{1000 * statistics.mean(times):9.1f}")
    print(f"all pages: {total:.2f} s")


if __name__ == "__main__":
    main()
