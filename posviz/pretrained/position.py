"""How a loaded model carries position, read from what transformers built and checked on the
model (scheme), and position switched off for a run, one thing per scheme (switched)."""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from contextlib import contextmanager
from importlib import import_module
from typing import NamedTuple

import numpy as np

from posviz.pretrained import probing
from posviz.pretrained.records import Loaded, Refused, Rotary, Scheme, error_line

TABLE_NAME = re.compile(
    r"^(wpe|embed_positions|position_embeddings?|positions_embed|pos_emb|pos_encoding)$")
"""Names transformers gives a table of absolute positions (a module, or a buffer: CTRL's)."""


class Buffered(NamedTuple):
    """A table of absolute positions kept as a buffer of a module, not as a module of its own
    (CTRL's pos_encoding, which its model indexes by position id): switched off by putting a
    buffer of zeros in its place for the run."""

    owner: object  # the module that holds the buffer
    name: str

    @property
    def table(self):
        return getattr(self.owner, self.name)


SINUSOID_ROWS = 64
"""The first rows `_sinusoid` checks: a float32 table computes p w to 6e-8 of itself, so far
rows (CTRL's reach p = n_positions - 1) carry rounding larger than the check's tolerance."""


def _sinusoid(table) -> bool:
    """Whether every column of a (P, D) table is a sinusoid of the position p, sin(p w + phi):
    each value the one before and the one after average to cos(w) times it, one w a column
    (x[p + 1] + x[p - 1] = 2 cos(w) x[p]), found by least squares over its first
    SINUSOID_ROWS positions."""
    import torch

    x = table[:SINUSOID_ROWS].double()
    if x.dim() != 2 or len(x) < 4 or not bool((x.abs() <= 1 + 1e-6).all()):
        return False
    middle, sides = x[1:-1], x[2:] + x[:-2]                                   # (P-2, D) each
    twice_cos = (middle * sides).sum(0) / (middle * middle).sum(0).clamp_min(1e-12)  # (D,)
    return bool(torch.allclose(sides, middle * twice_cos, atol=1e-4)) and bool(
        (twice_cos.abs() <= 2 + 1e-6).all())


def _tables(model) -> list[tuple[str, object]]:
    """The model's tables of absolute positions on the text's path (name, module or
    Buffered): modules so named, and buffers so named whose columns are sinusoids (a buffer is
    not trained: a table of them is computed, and posviz names it only when it is the
    sinusoidal one)."""
    found: list[tuple[str, object]] = []
    for name, module in model.named_modules():
        if any(n in type(module).__name__ for n in ("Rotary", "Relative")) or (
                name and not probing.text_path(name)):
            continue
        if name and TABLE_NAME.match(name.rsplit(".", 1)[-1]):
            found.append((name, module))
        for buffer, table in module.named_buffers(recurse=False):
            if TABLE_NAME.match(buffer) and _sinusoid(table):
                found.append((f"{name}.{buffer}".lstrip("."), Buffered(module, buffer)))
    return found


def _alibi(model) -> np.ndarray | None:
    """Each head's ALiBi slope as the model's own code builds its bias (what a token of distance
    takes off a score entering the softmax), or None for a model without ALiBi: BLOOM; Falcon
    with `alibi` set (the bias divided by the square root of the head's width); MPT (always, in
    transformers; its slopes for a head count that is not a power of 2 are its own)."""
    import torch

    config, base = model.config, model.base_model
    kind = config.model_type
    if kind == "bloom" or (kind == "falcon" and config.alibi):
        heads = probing.head_count(config)
        build = import_module(f"transformers.models.{kind}.modeling_{kind}").build_alibi_tensor
        bias = build(torch.ones(1, 2), heads, torch.float32)[:, 0, 1]  # distance 1: the slope
        scale = math.sqrt(config.hidden_size // heads) if kind == "falcon" else 1
        return bias.double().numpy() / scale
    if kind == "mpt":
        return -base.build_mpt_alibi_tensor(probing.head_count(config), 2)[:, 0, 0].double().numpy()
    return None


def _frequencies(module) -> dict[str | None, object]:
    """A rotary module's frequencies (inv_freq) by layer type (None: every layer), as
    transformers computed them when it built the module. GPT-J's and CodeGen's keep no
    inv_freq but a table of [sin | cos] by position (embed_positions): row 1 holds
    sin(theta_i) and cos(theta_i), so theta_i = atan2 of the two (every theta_i <= 1 rad)."""
    import torch

    found = {}
    for name, buffer in module.named_buffers(recurse=False):
        if name == "inv_freq":
            found[None] = buffer
        elif name.endswith("_inv_freq") and not name.endswith("original_inv_freq"):
            found[name.removesuffix("_inv_freq")] = buffer
        elif name == "embed_positions" and buffer.dim() == 2 and len(buffer) > 1:
            sin, cos = buffer[1].double().chunk(2)  # position 1: (r/2,) each
            found[None] = torch.atan2(sin, cos)
    return found


def _pairing(module) -> str:
    """Which lanes a rotary module's model turns together: GPT-J's and CodeGen's modeling code
    turns neighbours (rotate_every_two: lanes 2i and 2i + 1), the others split halves
    (rotate_half: lanes i and i + r/2)."""
    code = import_module(type(module).__module__)
    return "neighbours" if hasattr(code, "rotate_every_two") and not hasattr(
        code, "rotate_half") else "halves"


def _rope_numbers(config, layer_type: str | None) -> dict:
    """The RoPE settings of config (for layer_type, where they differ by layer type)."""
    params = getattr(config, "rope_parameters", None) or {}
    if isinstance(params, dict) and layer_type in params and isinstance(params[layer_type], dict):
        params = params[layer_type]
    return params if isinstance(params, dict) else {}


def _turning(model, probe: probing.Probe, ids: list[int], drawn: list[int]) -> list[bool]:
    """For each attention layer, whether it turns its queries and keys by position: the model
    run with every position id 0, each attention layer given the very input it had with
    positions 0, 1, 2, ... (so that only its own use of the ids can change its weights)."""
    import torch

    if not probe.modules:
        return [True] * len(probe.layers)
    inputs: list = []

    def keep(_, args, kwargs):
        inputs.append(kwargs["hidden_states"] if "hidden_states" in kwargs else args[0])

    def put(_, args, kwargs):
        given = inputs[len(used)]
        used.append(1)
        if "hidden_states" in kwargs:
            return args, kwargs | {"hidden_states": given}
        return (given, *args[1:]), kwargs

    used: list = []
    runs = []
    for hook, zero in ((keep, False), (put, True)):
        handles = [m.register_forward_pre_hook(hook, with_kwargs=True) for m in probe.modules]
        try:
            zeros = torch.zeros((1, len(ids)), dtype=torch.long) if zero else None
            runs.append(probing.run_ids(model, ids, zeros))
        finally:
            for handle in handles:
                handle.remove()
    on, off = ([run.attentions[i] for i in drawn] for run in runs)
    return [not torch.allclose(a, b, atol=1e-6) for a, b in zip(on, off, strict=True)]


def _head_width(modules: list, config) -> int | None:
    """The width of a head's queries and keys in these attention modules (or config's)."""
    for module in modules:
        for name in ("qk_head_dim", "head_dim", "head_size"):
            if isinstance(getattr(module, name, None), int):
                return getattr(module, name)
    width = getattr(config, "head_dim", None)
    return width or (config.hidden_size // probing.head_count(config) if getattr(
        config, "hidden_size", None) else None)


def _rotary(model, probe: probing.Probe, turning: list[bool]) -> tuple[Rotary, ...]:
    """Each kind of rotary position the model's turning attention layers use."""
    config = model.config.get_text_config() if hasattr(model.config, "get_text_config") \
        else model.config
    entries: dict[str | None, object] = {}
    for name, module in model.named_modules():
        if "Rotary" in type(module).__name__ and probing.text_path(name):
            for kind, freq in _frequencies(module).items():
                entries.setdefault(kind, (module, freq))
    types = getattr(config, "layer_types", None)
    groups: dict[str | None, list[int]] = {}
    for layer, turns in zip(probe.layers, turning, strict=True):
        if turns:
            kind = types[layer] if isinstance(types, list) and layer < len(types) else None
            groups.setdefault(kind if kind in entries else None, []).append(layer)
    merged: dict[str | None, list[int]] = {}
    for kind, layers in groups.items():
        if kind not in entries:
            if len(entries) != 1:
                return ()
            kind = next(iter(entries))
        merged.setdefault(kind, []).extend(layers)
    out = []
    for kind, layers in merged.items():
        module, freq = entries[kind]
        params = _rope_numbers(config, kind)
        held = getattr(module, "rope_type", None)
        rope_type = held.get(kind) if isinstance(held, dict) \
            else held or params.get("rope_type", "default")
        base = params.get("rope_theta", getattr(config, "rope_theta", None))
        turned = int((freq != 0).sum())  # a "proportional" RoPE leaves some pairs at 0
        if base is None and turned > 1:  # GPT-J: no rope_theta; theta_1 = base^(-2/r)
            base = float(f"{float(freq[1]) ** (-turned):.6g}")
        width = _head_width([probe.modules[probe.layers.index(k)] for k in layers]
                            if probe.modules else [], config)
        fraction = min(1.0, 2 * turned / width) if width else 1.0
        factor = params.get("factor")
        same = isinstance(types, list) and all(
            k < len(types) and types[k] == kind for k in layers)
        out.append(Rotary(tuple(sorted(layers)), kind if same else None,
                          float(base) if base else None, fraction,
                          str(rope_type or "default"),
                          float(factor) if isinstance(factor, int | float) else None,
                          tuple(float(f) for f in freq.double()), _pairing(module)))
    return tuple(sorted(out, key=lambda r: r.layers))


def _bag(model, switch, ids: list[int]) -> bool:
    """Whether, with position switched off, the first layer reads the tokens before the last
    one as a bag: its output at the last token is the same for another order of them."""
    import torch

    moved = [ids[2], ids[0], ids[4], ids[1], ids[3], ids[5]]
    outputs = []
    for sequence in (ids, moved):
        with switch(sequence) as extra:
            tensor = torch.tensor([sequence])
            with torch.inference_mode():
                out = model(input_ids=tensor, attention_mask=torch.ones_like(tensor),
                            output_hidden_states=True, **extra)
        outputs.append(probing.per_token(out.hidden_states[1], len(sequence))[-1])
    size = float(outputs[0].norm()) or 1.0
    return float((outputs[0] - outputs[1]).norm()) / size < 1e-4


def _causal(attentions) -> bool:
    import torch

    return all(bool((torch.triu(a[0], diagonal=1).abs() < 1e-9).all()) for a in attentions)


def _other_layers(config, attention: list[int], layers: int) -> tuple[str, ...]:
    """The kinds of the model's layers that are not attention (from its layer types), one per
    such layer."""
    types = getattr(config, "layer_types", None)
    rest = [k for k in range(layers) if k not in attention]
    if isinstance(types, list) and len(types) == layers:
        return tuple(str(types[k]) for k in rest)
    return tuple("other" for _ in rest)


def _lengths(config, layer_type: str | None) -> dict:
    """The lengths a configuration names: "length", the longest sequence it is made for
    (max_position_embeddings); "pretrained", the length of pre-training, only where it names
    one (original_max_position_embeddings: Llama 3.1's, YaRN's, LongRoPE's, whose RoPE is
    stretched from it). Neither says the model was trained on sequences of that length."""
    original = (_rope_numbers(config, layer_type).get("original_max_position_embeddings")
                or getattr(config, "original_max_position_embeddings", None))
    out = {"length": getattr(config, "max_position_embeddings", None)}
    return out | ({"pretrained": int(original)} if isinstance(original, int | float) else {})


def _beside(model, attention: tuple[int, ...]) -> tuple[int, ...]:
    """The attention layers that also run a Mamba branch on the same input (Falcon-H1's
    `mamba` beside its `self_attn` in every layer): a recurrence, which reads order itself."""
    found = {probing.layer_of(name) for name, module in model.named_modules()
             if probing.text_path(name) and ("mamba" in name.rsplit(".", 1)[-1].lower()
                                             or "Mamba" in type(module).__name__)}
    return tuple(k for k in attention if k in found)


def scheme(model) -> tuple[Scheme, tuple, tuple[int, ...]]:
    """How the loaded model carries position, read from what transformers built; the tables of
    absolute positions position off zeroes; and which of the attentions transformers gives are
    maps of the sentence's tokens over themselves (another layer's, such as a linear
    attention's state, is not). Refused if the model has no attention, is not causal, or
    carries position in a way posviz cannot switch off."""
    import torch

    config = model.config.get_text_config() if hasattr(model.config, "get_text_config") \
        else model.config
    vocab = int(getattr(config, "vocab_size", 0) or model.get_input_embeddings().num_embeddings)
    ids = [i % vocab for i in probing.PROBE]
    layers = int(getattr(config, "num_hidden_layers", 0) or 0)
    try:
        probe, out = probing.probe(model, ids)
    except Exception as err:  # transformers' own run fails on the model as it is
        raise Refused("fails", error_line(err)) from err
    given = list(getattr(out, "attentions", None) or ())
    square = [i for i, a in enumerate(given)
              if a is not None and a.dim() == 4 and a.shape[-2:] == (len(ids), len(ids))]
    if any(a is not None and a.dim() == 4 and a.shape[-2] == len(ids) and i not in square
           for i, a in enumerate(given)):
        raise Refused("keys", config.model_type)
    attentions = [given[i] for i in square]
    if not attentions:
        raise Refused("no_attention", config.model_type)
    if len(square) != len(given) or len(probe.layers) != len(given):
        probe = probing.Probe(
            [probe.modules[i] for i in square] if len(probe.modules) == len(given) else [],
            [probe.layers[i] for i in square] if len(probe.layers) == len(given)
            else list(range(len(square))))
    if len({a.shape[1] for a in attentions}) > 1:
        raise Refused("heads", config.model_type)
    if not _causal(attentions):
        raise Refused("not_causal", config.model_type)
    layers = max(layers, len(out.hidden_states) - 1)
    attention = tuple(probe.layers)
    other = _other_layers(config, list(attention), layers)
    shape = {"attention": attention, "layers": layers, "other": other,
             "beside": _beside(model, attention)}

    tables = []
    for name, module in _tables(model):
        with _zeroed((module,)):
            changed = probing.run_ids(model, ids).logits
        if not torch.allclose(changed, out.logits, atol=1e-7):
            tables.append((name, module))

    if (slopes := _alibi(model)) is not None:
        named = Scheme("alibi", {"heads": probing.head_count(config),
                                 "slopes": slopes.tolist()}, **shape)
    elif tables and not any("Rotary" in type(m).__name__ for m in model.modules()):
        name, module = tables[0]
        weight = module.table if isinstance(module, Buffered) else getattr(
            module, "weight", getattr(module, "weights", None))
        rows, width = (weight.shape if weight is not None else (None, None))
        rows = rows - getattr(module, "offset", 0) if rows else rows
        kind = "sinusoidal" if isinstance(module, Buffered) or "Sinusoid" in type(
            module).__name__ else "learned"
        named = Scheme(kind, {"size": rows, "width": width}, **shape)
    else:
        turning = _turning(model, probe, ids, square)
        rotary = _rotary(model, probe, turning) if any(turning) else ()
        if any(turning) and not rotary:
            raise Refused("ids", config.model_type)
        if rotary:
            first = rotary[0]
            named = Scheme("rope", {
                "base": first.base, "type": first.rope_type, "fraction": first.fraction,
                "factor": first.factor, **_lengths(config, first.layer_type)},
                rotary, tuple(layer for layer, turns in zip(attention, turning, strict=True)
                              if not turns), **shape)
        else:
            named = Scheme("none", {}, **shape)
    loaded = Loaded(None, model, None, named, tables=tuple(m for _, m in tables),
                    drawn=tuple(square))
    if not (named.ordered or named.beside) and not _bag(
            model, lambda seq: switched(loaded, False, seq), ids):
        raise Refused("unread", f"{config.model_type}: order still read with "
                      f"{named.off if named.kind != 'none' else 'no position found'}")
    return named, loaded.tables, loaded.drawn


@contextmanager
def _zeroed(tables) -> Iterator[None]:
    """Each table of absolute positions gives rows of zeros for the length of the block: a
    module's output zeroed by a hook, a buffer (Buffered) swapped for zeros and put back."""
    import torch

    def zero(_, __, out):
        if isinstance(out, tuple):  # (the rows, what else the module gives)
            return (torch.zeros_like(out[0]), *out[1:])
        return torch.zeros_like(out)

    kept = [(t, t.table) for t in tables if isinstance(t, Buffered)]
    handles = [t.register_forward_hook(zero) for t in tables if not isinstance(t, Buffered)]
    try:
        for t, table in kept:
            setattr(t.owner, t.name, torch.zeros_like(table))
        yield
    finally:
        for t, table in kept:
            setattr(t.owner, t.name, table)
        for handle in handles:
            handle.remove()


@contextmanager
def switched(loaded: Loaded, on: bool, ids) -> Iterator[dict]:
    """The run's extra arguments for the token ids with position on or off, the model changed
    for the run if need be (and put back after)."""
    import torch

    kind = loaded.scheme.kind
    if on or kind == "none":
        yield {}
        return
    if kind == "rope":
        yield {"position_ids": torch.zeros((1, len(ids)), dtype=torch.long)}
        return
    if kind in ("learned", "sinusoidal"):
        with _zeroed(loaded.tables):
            yield {}
        return
    model = loaded.model
    base = model.base_model  # alibi: no bias, as if every slope were 0
    if model.config.model_type == "falcon":  # Falcon adds its bias only while use_alibi
        base.use_alibi = False
        try:
            yield {}
        finally:
            base.use_alibi = True
        return
    name = {"bloom": "build_alibi_tensor", "mpt": "build_mpt_alibi_tensor"}[
        model.config.model_type]
    build = getattr(base, name)
    setattr(base, name, lambda *args, **kwargs: torch.zeros_like(build(*args, **kwargs)))
    try:
        yield {}
    finally:
        delattr(base, name)
