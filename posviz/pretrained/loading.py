"""Loading a model its card describes, with its tokenizer, its position scheme read and checked;
posviz's own models loaded from their checkpoints."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from posviz.alibi import alibi_slopes
from posviz.pretrained.checking import card
from posviz.pretrained.finding import find
from posviz.pretrained.position import scheme
from posviz.pretrained.records import Card, Loaded, Refused, Rotary, Scheme, error_line
from posviz.schemes import position_scheme

THREADS = 4  # torch's threads at most: a run shares the server with every other reader


def load(about: Card) -> Loaded:
    """The model a card describes and its tokenizer, its position scheme read and checked
    (Refused if it should not be loaded, or cannot be read right). Nothing is kept: each call
    loads afresh."""
    if about.available is not None and about.needed > about.available:
        raise Refused("too_large", f"{about.needed} > {about.available} bytes")
    if about.model_type.startswith("posviz-"):
        return _load_own(about)
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from transformers.utils import logging

    logging.disable_progress_bar()  # a server's log is for what goes wrong
    torch.set_num_threads(min(torch.get_num_threads(), THREADS))  # the process's count
    try:
        model = AutoModelForCausalLM.from_pretrained(
            about.path, local_files_only=True, trust_remote_code=False, use_safetensors=True,
            attn_implementation="eager", dtype=torch.float32)
        tokenizer = AutoTokenizer.from_pretrained(about.path, local_files_only=True,
                                                  trust_remote_code=False)
    except Exception as err:  # transformers' own refusal of a file, a shape, a setting
        raise Refused("fails", error_line(err)) from err
    model.eval()
    try:
        named, tables, drawn = scheme(model)
    except Refused:
        raise
    except Exception as err:  # a model transformers builds but posviz cannot run as it reads
        raise Refused("fails", error_line(err)) from err
    return Loaded(about, model, tokenizer, named, tables=tables, drawn=drawn)


def _load_own(about: Card) -> Loaded:
    from posviz.model import load_checkpoint, without_position

    model, vocab = load_checkpoint(about.path)
    c = model.config
    rotary = (Rotary(tuple(range(c.n_layers)), None, c.base, 1.0, "default", None,
                     tuple(c.base ** (-np.arange(0, c.d_model // c.n_heads, 2)
                                      / (c.d_model // c.n_heads)))),)
    numbers = {"rope": {"base": c.base, "type": "default", "fraction": 1.0,
                        "trained": c.max_len},
               "learned": {"size": c.max_len, "width": c.d_model},
               "alibi": {"heads": c.n_heads, "slopes": alibi_slopes(c.n_heads).tolist()},
               "sinusoidal": {"base": c.base, "width": c.d_model}}.get(c.scheme, {})
    layers = tuple(range(c.n_layers))
    turned = position_scheme(c.scheme, "models").kind == "rotate"
    return Loaded(about, model, vocab,
                  Scheme(c.scheme, numbers, rotary if turned else (), (), layers,
                         c.n_layers), without_position(model))


def by_name(name: str, folder: Path | None = None) -> Loaded:
    """A model by its name (find), its files checked (card) and loaded (load), for a
    notebook."""
    return load(card(find(name, folder)))
