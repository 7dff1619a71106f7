"""A folder of many entries in POSVIZ_MODELS, measured:
`python -m tests.benchmarks.models_folder_benchmark [--entries N]`.

Makes a folder of N empty folders (100,000 unless given) and one tiny model, names it in
POSVIZ_MODELS, opens the real-model page on that model (Streamlit's AppTest, in this process) and
moves its head slider five times. Prints the first runs (the folder listed once, the model
loaded), each slider move's run (the folder not listed again), and one listing of the folder
alone. Not a test (pytest does not collect it): the figures depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from transformers import GPT2Config

from posviz import pretrained
from tests.helpers.hf_models import saved, tokenizer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--entries", type=int, default=100_000)
    entries = parser.parse_args().entries
    from huggingface_hub import constants

    from tests.helpers.controls import opened

    with tempfile.TemporaryDirectory() as folder, tempfile.TemporaryDirectory() as cache:
        for k in range(entries):
            (Path(folder) / f"entry-{k:06d}").mkdir()
        saved(GPT2Config(n_embd=32, n_layer=2, n_head=4, n_positions=64,
                         vocab_size=len(tokenizer()), bos_token_id=0, eos_token_id=0),
              Path(folder) / "gpt2")
        os.environ["POSVIZ_MODELS"] = folder
        constants.HF_HUB_CACHE = cache
        start = time.perf_counter()
        at = opened("pages/8_real.py", "刚想到了")
        at.text_input(key="model").set_value("gpt2").run()
        assert not at.exception, at.exception
        print(f"first runs (the folder of {entries + 1:,} entries listed, the model loaded): "
              f"{time.perf_counter() - start:.2f} s")
        took = []
        for k in range(1, 6):
            start = time.perf_counter()
            at.slider(key="real_head").set_value(1 + k % 4).run()
            took.append(time.perf_counter() - start)
            assert not at.exception, at.exception
        print("a slider move's run:", ", ".join(f"{t:.2f}" for t in took), "s")
        start = time.perf_counter()
        pretrained.in_folder(Path(folder))
        print(f"one listing of the folder alone: {time.perf_counter() - start:.2f} s")


if __name__ == "__main__":
    main()
