"""A real model's cost, measured: `python -m tests.benchmarks.pretrained_benchmark [--runs N]`.

A model of SmolLM2-135M's shape (Llama: 30 layers, 9 heads with 3 key-value heads, 576 wide,
1,536 in the MLP, a 49,152-token vocabulary, tied embeddings, RoPE base 100,000: the values of
its published config.json), built here with random weights and saved to a temporary folder (no
download), then read by posviz.pretrained as a lecturer's model is. Prints:
1. the load (from the folder to a model ready to run) in seconds, of it the checks of how the
   model carries position (posviz.pretrained.scheme: a few runs on six tokens), and the
   process's resident memory before it, after it and after a first run (the model is made and
   saved by another process);
2. for a new sentence of about 20 tokens each run (median and largest of N): the attention of
   every layer and head and the top-5 next tokens at each position, with position on and off;
3. the real-model page run in full (Streamlit's AppTest, in this process) on a new sentence of
   about 20 tokens each run, the model loaded: its four model runs (position on and off, the
   sentence and its reversal), every figure and the document; with the sidebar's position switch
   on and off (the page reads both ways either way).

torch's threads are its default (the machine's cores), as the app's server runs it, unless
--threads says otherwise (one thread counts CPU-seconds a busy machine does not inflate). Not a test
(pytest does not collect it): the figures depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
import tempfile
import time
from pathlib import Path

import torch
from transformers import LlamaConfig

from posviz import pretrained
from tests.helpers.hf_models import saved

SHAPE = LlamaConfig(vocab_size=49_152, hidden_size=576, intermediate_size=1_536,
                    num_hidden_layers=30, num_attention_heads=9, num_key_value_heads=3,
                    max_position_embeddings=8_192, rope_theta=100_000.0,
                    tie_word_embeddings=True, bos_token_id=0, eos_token_id=0)
WORDS = ["the", "quick", "brown", "fox", "jumps", "over", "the", "lazy", "dog", "position",
         "encoding", "in", "transformers", "the", "dog", "jumps", "over", "the", "quick", "fox"]
"""Words the trained tokenizer holds (nearly all whole): a sentence of them is about 20
tokens."""


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def sentence(k: int) -> str:
    """A new sentence for run k: the 20 words turned by k (so no run repeats another)."""
    return " ".join(WORDS[k % len(WORDS):] + WORDS[:k % len(WORDS)])


NAME = "smollm2-shape"  # the model's folder under the benchmark's models folder


def save(folder: str) -> None:
    saved(SHAPE, Path(folder) / NAME, scale=None, vocab=1_000)


def page_runs(runs: int) -> None:
    """The page on a new sentence each run, the model already loaded by the first one."""
    from tests.helpers.controls import opened

    at = opened("pages/8_real.py", sentence(0))
    at.text_input(key="model").set_value(NAME).run()
    assert not at.exception and not at.error, (at.exception, at.error)
    for position in (True, False):
        at.toggle(key="pos").set_value(position).run()
        took = []
        for k in range(1, runs + 1):
            start = time.perf_counter()
            at.text_input(key="text").set_value(sentence(k + runs * (not position))).run()
            took.append(time.perf_counter() - start)
            assert not at.exception, at.exception
        print(f"page run, sidebar position {'on ' if position else 'off'}: median "
              f"{statistics.median(took):.3f} s, largest {max(took):.3f} s over {runs} "
              f"sentences")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--threads", type=int, default=0,
                        help="torch's threads (default: its own, the machine's cores)")
    args = parser.parse_args()
    runs = args.runs
    if args.threads:
        torch.set_num_threads(args.threads)
    with tempfile.TemporaryDirectory() as folder:
        made = multiprocessing.get_context("spawn").Process(target=save, args=(folder,))
        made.start()  # made in a process of its own: this one's memory holds only the load
        made.join()
        before = rss_mb()
        start = time.perf_counter()
        model = pretrained.load(pretrained.card(Path(folder) / NAME))
        loaded = time.perf_counter() - start
        print(f"model: {model.card.parameters:,} parameters, {model.scheme.kind} "
              f"{model.scheme.numbers['base']:,.0f}; torch threads {torch.get_num_threads()}")
        print(f"load {loaded:.2f} s; resident memory {before:.0f} MB before, "
              f"{rss_mb():.0f} MB after")
        start, cpu = time.perf_counter(), time.process_time()
        pretrained.scheme(model.model)  # what the load spent checking how it carries position
        print(f"of it, the checks of its position scheme: {time.perf_counter() - start:.2f} s "
              f"({time.process_time() - cpu:.2f} CPU-seconds)")
        pretrained.attention(model, sentence(0))  # the first run's one-time costs
        print(f"after a first run {rss_mb():.0f} MB")
        for position in (True, False):
            took = []
            for k in range(1, runs + 1):
                start = time.perf_counter()
                pieces, weights = pretrained.attention(model, sentence(k), position)
                pretrained.next_tokens(model, sentence(k), position)
                took.append(time.perf_counter() - start)
            print(f"position {'on ' if position else 'off'}: {len(pieces)} tokens, weights "
                  f"{weights.shape}; attention and top 5: median {statistics.median(took):.3f}"
                  f" s, largest {max(took):.3f} s over {runs} sentences")
        os.environ["POSVIZ_MODELS"] = folder
        page_runs(runs)


if __name__ == "__main__":
    main()
