"""Every causal language model type transformers knows, made tiny and read by posviz.pretrained:
`survey(model_type, folder)` builds the type's default configuration made tiny (random weights,
the tokenizer trained in tests/helpers/hf_models.py), saves it, lets posviz load it, and checks
what posviz says against the model itself:

- read: posviz's reading with position on is transformers' own run, every attention layer's
  weights and every layer's output; with position off it is transformers' own run with that
  signal removed by hand (every position id 0; each position table's weights zeroed; ALiBi's
  bias built as zeros), layer by layer; the scheme named is the model's (each kind of RoPE's
  frequencies are those the model's rotary module holds, and those its numbers give through
  transformers' ROPE_INIT_FUNCTIONS or the RoPE formula; the layers said to turn nothing are
  those the configuration names; a learned table's size is its weight's; "none" only for a
  model that neither its position ids nor a table changes);
- refused: a reason posviz says in words, in both languages;
- not built: the default configuration does not make a tiny model here (said why).

`python -m tests.helpers.model_types` prints the table docs/models.md carries.
"""

from __future__ import annotations

import contextlib
import io
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch
from transformers import AutoModelForCausalLM, PreTrainedTokenizerFast
from transformers.models.auto.modeling_auto import MODEL_FOR_CAUSAL_LM_MAPPING_NAMES

from posviz import pretrained
from posviz.pretrained import checking
from tests.helpers.hf_models import saved, tiny_config, tokenizer

TYPES = tuple(sorted(MODEL_FOR_CAUSAL_LM_MAPPING_NAMES))
MOST_PARAMETERS = 20_000_000  # a "tiny" model larger than this did not shrink: not built
SENTENCE = "刚想到了 the quick brown fox"
ATOL = 2e-5
REFUSALS = {"not_causal": "not causal (its attention reads both ways)",
            "no_attention": "no attention weights to draw",
            "unread": "position posviz cannot switch off",
            "keys": "its attention reads keys besides the sentence's tokens",
            "heads": "layers with different numbers of heads",
            "ids": "position ids change its attention, no rotary frequencies found",
            "fails": "transformers cannot run it"}
"""A refusal's reason in the table's words (the page says each at length, in both languages)."""


@dataclass
class Row:
    """One model type: what became of it, and what posviz said."""

    model_type: str
    outcome: str = "not built"  # "read", "refused" or "not built"
    said: str = ""  # the scheme, the refusal, or why it was not built
    problems: list[str] = field(default_factory=list)  # where posviz was wrong
    seconds: float = 0.0


def _quiet():
    stack = contextlib.ExitStack()
    stack.enter_context(contextlib.redirect_stdout(io.StringIO()))
    stack.enter_context(contextlib.redirect_stderr(io.StringIO()))
    stack.enter_context(warnings.catch_warnings())
    warnings.simplefilter("ignore")
    return stack


def _first_line(err: BaseException) -> str:
    return f"{type(err).__name__}: {(str(err).strip().splitlines() or [''])[0][:120]}".rstrip(
        ": ")


def build(model_type: str, folder: Path, vocab: int) -> Path:
    """The type's default configuration made tiny, saved in folder (ValueError: not built)."""
    config = tiny_config(model_type, vocab)
    with torch.device("meta"):
        size = sum(p.numel() for p in AutoModelForCausalLM.from_config(config).parameters())
    if size > MOST_PARAMETERS:
        raise ValueError(f"{size:,} parameters made tiny")
    path = saved(config, folder)
    try:
        _reference(_fresh(path), SENTENCE)
    except Exception as err:
        raise ValueError(f"transformers' own run fails: {_first_line(err)}") from err
    kind = checking._json(path / "config.json", path).get("model_type")
    if kind != model_type and kind not in MODEL_FOR_CAUSAL_LM_MAPPING_NAMES:
        raise ValueError(f"its causal LM saves a {kind} configuration, which "
                         "AutoModelForCausalLM does not load")
    return path


def scheme_said(scheme: pretrained.Scheme) -> str:
    """A scheme in a line of the table."""
    n = scheme.numbers
    if scheme.kind == "rope":
        parts = [f"layers {_layers(r.layers)}{f' ({r.layer_type})' if r.layer_type else ''}: "
                 f"base {r.base:g}, {r.fraction:.0%}"
                 + ("" if r.rope_type == "default" else f", {r.rope_type}")
                 + (", neighbouring pairs" if r.pairing == "neighbours" else "")
                 for r in scheme.rotary]
        parts += [f"layers {_layers(scheme.unturned)}: none"] if scheme.unturned else []
        said = "RoPE: " + "; ".join(parts)
    elif scheme.kind in ("learned", "sinusoidal"):
        said = f"{scheme.kind} table {n.get('size')} x {n.get('width')}"
    elif scheme.kind == "alibi":
        said = f"ALiBi, {n['heads']} heads"
    else:
        said = "none"
    if scheme.beside:
        said += (f"; a Mamba branch beside attention in {len(scheme.beside)} of "
                 f"{scheme.layers} layers")
    if scheme.ordered:
        kinds = ", ".join(sorted(set(scheme.ordered)))
        said += f"; {len(scheme.ordered)} of {scheme.layers} layers mix tokens otherwise ({kinds})"
    return said


def _layers(layers) -> str:
    return ",".join(str(k + 1) for k in layers)


def _fresh(path: Path, change=None):
    """The saved model loaded afresh by transformers (change: what to do to it first), with
    its tokenizer."""
    model = AutoModelForCausalLM.from_pretrained(path, attn_implementation="eager",
                                                 local_files_only=True, dtype=torch.float32)
    model.eval()
    if change:
        change(model)
    return model, PreTrainedTokenizerFast.from_pretrained(path)


def _reference(fresh, text: str, zero_ids: bool = False):
    """transformers' own run of a model (_fresh) on the sentence: its attentions and hidden
    states (with every position id 0, if zero_ids)."""
    model, tokens = fresh
    ids = torch.tensor([tokens(text)["input_ids"]])
    extra = {"position_ids": torch.zeros_like(ids)} if zero_ids else {}
    with torch.no_grad():
        return model(input_ids=ids, attention_mask=torch.ones_like(ids), output_attentions=True,
                     output_hidden_states=True, **extra)


def _zero_tables(model) -> None:
    """Every table of absolute positions of the model zeroed: its weights (a learned table),
    its buffer (a sinusoidal one), or a model's own buffer of them (CTRL's pos_encoding)."""
    with torch.no_grad():
        for name, module in model.named_modules():
            last = name.rsplit(".", 1)[-1]
            if ("pos" in last and not last.startswith("post")) or last == "wpe":
                for tensor in (getattr(module, "weight", None), getattr(module, "weights", None)):
                    if isinstance(tensor, torch.Tensor):
                        tensor.zero_()
            for buffer, tensor in module.named_buffers(recurse=False):
                if buffer == "pos_encoding":
                    tensor.zero_()


def _zero_alibi(model) -> None:
    """ALiBi's bias built as zeros, by the model's own builder wrapped."""
    base, kind = model.base_model, model.config.model_type
    if kind == "falcon":
        base.use_alibi = False
        return
    name = {"bloom": "build_alibi_tensor", "mpt": "build_mpt_alibi_tensor"}[kind]
    build = getattr(base, name)
    setattr(base, name, lambda *args, **kwargs: torch.zeros_like(build(*args, **kwargs)))


def _compare(row: Row, loaded, path: Path, fresh, position: bool) -> None:
    """posviz's reading against transformers' own run (of fresh, the model as saved), every
    layer, position on or off."""
    kind = loaded.scheme.kind
    change = None if position else {"learned": _zero_tables, "sinusoidal": _zero_tables,
                                    "alibi": _zero_alibi}.get(kind)
    for text in (SENTENCE,):
        reading = pretrained.read(loaded, text, position)
        out = _reference(_fresh(path, change) if change else fresh, text,
                         zero_ids=not position and kind == "rope")
        attentions = [out.attentions[i] for i in loaded.drawn]
        want = np.stack([a[0].double().numpy() for a in attentions])
        states = [_tokens_first(h.double().numpy()) for h in out.hidden_states[1:]]
        where = "on" if position else "off"
        if reading.weights.shape != want.shape:
            row.problems.append(f"position {where}: weights {reading.weights.shape} "
                                f"!= {want.shape}")
            continue
        for layer in range(len(want)):
            if not np.allclose(reading.weights[layer], want[layer], atol=ATOL):
                row.problems.append(f"position {where}: attention layer {layer + 1} differs")
        for layer, state in enumerate(states):
            shown = reading.states[layer]
            if not (np.allclose(shown[:, :state.shape[1]], state, atol=ATOL, rtol=1e-4)
                    and not shown[:, state.shape[1]:].any()):
                row.problems.append(f"position {where}: layer {layer + 1}'s output differs")


def _tokens_first(state: np.ndarray) -> np.ndarray:
    """A layer's output (1, T, D), (1, T, streams, D) or (streams, 1, T, D) as (T, D'): the
    batch's axis (the first of size 1) dropped, the tokens' axis (after it) put first, every
    stream of a token side by side."""
    batch = list(state.shape).index(1)
    state = np.moveaxis(np.take(state, 0, axis=batch), batch, 0)
    return state.reshape(len(state), -1)


def _rotary_modules(model) -> list:
    return [m for name, m in model.named_modules() if "Rotary" in type(m).__name__
            and not any(a in name for a in pretrained.AWAY)]


def _check_rope(row: Row, loaded) -> None:
    """Each kind of RoPE posviz names: its frequencies the model's rotary module holds, and
    given by its numbers (the RoPE formula for the default kind, transformers'
    ROPE_INIT_FUNCTIONS for a scaled one); the layers without RoPE those the config names."""
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    model, scheme = loaded.model, loaded.scheme
    held = [b.double().numpy() for m in _rotary_modules(model)
            for n, b in m.named_buffers(recurse=False)
            if n.endswith("inv_freq") and "original" not in n]
    held += [np.arcsin(b[1, :b.shape[1] // 2].double().numpy())  # GPT-J: [sin | cos] rows
             for m in _rotary_modules(model) for n, b in m.named_buffers(recurse=False)
             if n == "embed_positions"]
    config = model.config.get_text_config()
    for r in scheme.rotary:
        freq = np.array(r.frequencies)
        if not any(f.shape == freq.shape and np.allclose(f, freq) for f in held):
            row.problems.append(f"layers {_layers(r.layers)}: frequencies not the model's")
        turned = freq[freq != 0]
        if r.rope_type == "default":  # base^(-2i/d), d the rotated width (odd: one fewer)
            width = 2 * len(turned)
            if r.base is None or not any(np.allclose(
                    turned, r.base ** (-np.arange(0, width, 2) / d), rtol=1e-5)
                    for d in (width, width - 1)):
                row.problems.append(f"layers {_layers(r.layers)}: base {r.base} does not "
                                    "give the model's frequencies")
        elif r.rope_type in ROPE_INIT_FUNCTIONS:
            init = ROPE_INIT_FUNCTIONS[r.rope_type]
            try:
                given = init(config, None, layer_type=r.layer_type)[0]
            except TypeError:
                given = init(config, None)[0]
            if not np.allclose(given.double().numpy(), freq, rtol=1e-5):
                row.problems.append(f"layers {_layers(r.layers)}: {r.rope_type} numbers do "
                                    "not give the model's frequencies")
    declared = getattr(config, "no_rope_layers", None)  # Llama 4, SmolLM3: 0 means no RoPE
    if isinstance(declared, list):
        want = tuple(k for k in scheme.attention if not declared[k])
        if want != scheme.unturned:
            row.problems.append(f"layers without RoPE {scheme.unturned}, config says {want}")


def _check_named(row: Row, loaded, path: Path, fresh) -> None:
    """The scheme named is the model's."""
    scheme = loaded.scheme
    if scheme.kind == "rope":
        _check_rope(row, loaded)
    elif scheme.kind in ("learned", "sinusoidal"):
        model = fresh[0]
        shapes = [tuple(t.shape) for n, m in model.named_modules()
                  if ("pos" in n.rsplit(".", 1)[-1] and not n.rsplit(".", 1)[-1].startswith(
                      "post")) or n.endswith("wpe")
                  for t in (getattr(m, "weight", None), getattr(m, "weights", None))
                  if isinstance(t, torch.Tensor)]
        shapes += [tuple(t.shape) for n, t in model.named_buffers()
                   if n.rsplit(".", 1)[-1] == "pos_encoding"]
        size = scheme.numbers["size"] + getattr(loaded.tables[0], "offset", 0)
        if (size, scheme.numbers["width"]) not in shapes:
            row.problems.append(f"table {scheme.numbers} is none of the model's {shapes}")
    elif scheme.kind == "none":
        on = _reference(fresh, SENTENCE)
        zero = _reference(fresh, SENTENCE, zero_ids=True)
        tables = _reference(_fresh(path, _zero_tables), SENTENCE)
        for said, out in (("position ids", zero), ("a position table", tables)):
            if not torch.allclose(on.logits, out.logits, atol=1e-6):
                row.problems.append(f"called none, yet {said} changes its output")


def survey(model_type: str, folder: Path) -> Row:
    """What posviz makes of the model type (Row; problems lists where it was wrong)."""
    from ui.i18n import text

    row, start = Row(model_type), time.perf_counter()
    with _quiet():
        try:
            path = build(model_type, folder, len(tokenizer()))
        except Exception as err:
            row.said = _first_line(err)
            row.seconds = time.perf_counter() - start
            return row
        try:
            loaded = pretrained.load(pretrained.card(path))
        except pretrained.Refused as refused:
            row.outcome = "refused"
            row.said = f"{REFUSALS.get(refused.reason, refused.reason)}: {refused.detail}"
            for lang in ("en", "zh"):
                if not text(f"real.refused.{refused.reason}", lang, name="x", detail="y",
                            needed="1", free="0"):
                    row.problems.append(f"no words for {refused.reason} in {lang}")
        except Exception as err:  # posviz must refuse in words, never fail
            row.problems.append(f"posviz failed: {_first_line(err)}")
        else:
            row.outcome, row.said = "read", scheme_said(loaded.scheme)
            try:
                fresh = _fresh(path)
                for position in (True, False):
                    _compare(row, loaded, path, fresh, position)
                _check_named(row, loaded, path, fresh)
            except Exception as err:
                row.problems.append(f"reading failed: {_first_line(err)}")
    row.seconds = time.perf_counter() - start
    return row


def table(rows: list[Row]) -> str:
    """The rows as docs/models.md shows them."""
    import transformers

    lines = [f"transformers {transformers.__version__}: {len(rows)} causal language model "
             f"types; {sum(r.outcome == 'read' for r in rows)} read, "
             f"{sum(r.outcome == 'refused' for r in rows)} refused in words, "
             f"{sum(r.outcome == 'not built' for r in rows)} not built tiny here.", "",
             "| type | outcome | scheme, or why |", "|---|---|---|"]
    lines += [f"| `{r.model_type}` | {r.outcome} | {r.said.replace('|', '/')} |" for r in rows]
    return "\n".join(lines)


def main() -> None:
    from transformers.utils import logging

    logging.set_verbosity_error()
    torch.set_num_threads(1)
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for model_type in TYPES:
            rows.append(survey(model_type, Path(folder) / model_type.replace("/", "_")))
            print(f"{model_type}: {rows[-1].outcome} {rows[-1].seconds:.1f} s "
                  f"{rows[-1].problems or ''}", file=sys.stderr)
    sys.stdout.write(table(rows) + "\n")


if __name__ == "__main__":
    main()
