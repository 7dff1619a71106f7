"""A real model run as a buggy port of it runs it: the bugs of the port-bug clinic
(posviz.ports; their public reports in assets/models/ports.toml) that apply to the model
transformers built, each a third state of a run beside position on and off
(`pretrained.read(loaded, text, port=port)`).

Which bugs apply is read from what transformers built, as pretrained.scheme reads it (the
rotary modules' frequencies, the layer types, what each attention layer is given and the
rotation its code calls):
- "halves_as_pairs": a layer turns lane i with lane i + r/2 of its r rotary lanes
  (transformers' `rotate_half`, cos and sin laid out as two equal halves); the port reads the
  weights as neighbouring pairs and turns lanes 2i and 2i + 1 together, at the same speeds
  (lattice pull request 96, Qwen3.5);
- "gemma4_prefix": a proportional partial RoPE (Gemma 4's global layers: only the first n of a
  head's r/2 pairs turn, at base^(-2i/r), lane i with lane i + r/2); the port pairs lane i with
  lane i + n, inside the turned stretch (Megatron-Bridge issue 4195);
- "gemma4_whole": the same layers, the partial factor ignored: every pair turns, at
  base^(-2i/r) (nexusquant pull request 12);
- "one_base": layer kinds that turn at different bases (Gemma 3's sliding and full layers);
  the port turns every layer at one of them, each kind keeping its own width and scaling
  (found in ports of DeepSeek-V4: mlx-lm pull request 1189, atlas pull request 276).

A pairing bug is the model's own rotation R between a permutation P of a head's rotary lanes
and its inverse: the port's rotation is P^T R P (for neighbouring pairs, (P x)_i = x_2i and
(P x)_(i+r/2) = x_(2i+1): R then turns x_2i with x_2i+1 by the angle of pair i). It runs as
transformers' own code, the layer given cos and sin permuted (P^T cos) and `rotate_half` read
through P for that layer's run only:
    P^T (P x * cos + rotate_half(P x) * sin) = x * P^T cos + P^T rotate_half(P x) * P^T sin.
A frequency bug runs with the rotary module's inv_freq of a layer kind replaced. Both are put
back after the run, and the run holds the model's lock (pretrained.run).

Shapes: T = tokens, r = a layer's rotary lanes (cos and sin's width), n = pairs that turn.
"""

from __future__ import annotations

import inspect
import threading
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

import numpy as np

from posviz.pretrained import probing
from posviz.pretrained.records import Loaded, Refused, Scheme, error_line

RELATIVE = 1e-5  # float32 frequencies agree with their formula to this
REPORTS = {"halves_as_pairs": ("halves_as_pairs",), "gemma4_prefix": ("gemma4_prefix",),
           "gemma4_whole": ("gemma4_whole",), "one_base": ("v4_one_base",
                                                           "v4_compress_on_sliding")}
"""Each bug (in the order `ports` offers them) and the tables of assets/models/ports.toml
(posviz.ports.reports) that name it."""


@dataclass(frozen=True)
class Port:
    """A port's bug as it would run this model: which bug, the model's layers (from 0) it
    turns otherwise than the model does, and its numbers on this model (for the page): the
    rotary lanes r, the pairs that turn n, the bases. `key` is unique among a model's ports."""

    key: str
    bug: str
    layers: tuple[int, ...]
    numbers: dict
    _lanes: tuple = field(default=(), compare=False, repr=False)  # (attention, p, back)
    _frequencies: tuple = field(default=(), compare=False, repr=False)  # (rotary, name, new)
    _namespaces: tuple = field(default=(), compare=False, repr=False)  # where rotate_half is

    @property
    def reports(self) -> tuple[str, ...]:
        return REPORTS[self.bug]

    @contextmanager
    def applied(self) -> Iterator[None]:
        """The model runs as the port runs it for the length of the block (the caller holds
        the model's lock); everything is put back after. A run that fails so is Refused
        ("fails"), in words."""
        try:
            with ExitStack() as stack:
                for namespace in self._namespaces:
                    stack.enter_context(_read_through(namespace))
                stack.enter_context(_replaced(self._frequencies))
                stack.enter_context(_permuted(self._lanes))
                yield
        except Exception as err:  # transformers' own code, run with the port's change
            raise Refused("fails", error_line(err)) from err


# ---- the pairing: rotate_half read through a permutation, for one layer's run ---------------

_LANES: ContextVar[tuple | None] = ContextVar("posviz_port_lanes", default=None)
_SEEN: ContextVar[Callable | None] = ContextVar("posviz_rotate_half_seen", default=None)
_GUARD = threading.Lock()
_INSTALLED: dict[int, list] = {}  # id(namespace): [namespace, its rotate_half, runs using it]


def _through(original, namespace: dict):
    def rotate_half(x):
        if (seen := _SEEN.get()) is not None:
            seen(namespace, x.shape[-1])
        lanes = _LANES.get()
        if lanes is None or x.shape[-1] != len(lanes[0]):
            return original(x)
        p, back = lanes
        return original(x[..., p])[..., back]
    return rotate_half


@contextmanager
def _read_through(namespace: dict) -> Iterator[None]:
    """A modeling module's rotate_half, for the length of the block, reads through the
    permutation of the layer being run (_LANES) and tells who asks (_SEEN) of each call; both
    are set for this thread only, so that other models of the module, run meanwhile in other
    threads, turn as their own code does."""
    with _GUARD:
        entry = _INSTALLED.get(id(namespace))
        if entry is None:
            entry = _INSTALLED[id(namespace)] = [namespace, namespace["rotate_half"], 0]
            namespace["rotate_half"] = _through(entry[1], namespace)
        entry[2] += 1
    try:
        yield
    finally:
        with _GUARD:
            entry[2] -= 1
            if not entry[2]:
                namespace["rotate_half"] = entry[1]
                del _INSTALLED[id(namespace)]


@contextmanager
def _permuted(lanes: tuple) -> Iterator[None]:
    """Each attention module of lanes gets cos and sin permuted (P^T), and rotate_half reads
    through P while it runs."""
    handles = []

    def before(permutation):
        def hook(_, args, kwargs):
            back = permutation[1]
            cos, sin = kwargs["position_embeddings"]
            _LANES.set(permutation)
            return args, {**kwargs, "position_embeddings": (cos[..., back], sin[..., back])}
        return hook

    def after(*_):
        _LANES.set(None)

    try:
        for module, p, back in lanes:
            handles.append(module.register_forward_pre_hook(before((p, back)),
                                                            with_kwargs=True))
            handles.append(module.register_forward_hook(after))
        yield
    finally:
        _LANES.set(None)
        for handle in handles:
            handle.remove()


@contextmanager
def _replaced(frequencies: tuple) -> Iterator[None]:
    """Each rotary module's inv_freq buffer named in frequencies replaced for the block."""
    kept = []
    try:
        for module, name, new in frequencies:
            old = getattr(module, name)
            kept.append((module, name, old))
            setattr(module, name, new.to(dtype=old.dtype, device=old.device))
        yield
    finally:
        for module, name, old in reversed(kept):
            setattr(module, name, old)


# ---- which bugs apply ------------------------------------------------------------------------

def halves_lanes(width: int) -> np.ndarray:
    """P for neighbouring pairs read from split halves: p[i] = 2i, p[r/2 + i] = 2i + 1. (r,)"""
    return np.concatenate([np.arange(0, width, 2), np.arange(1, width, 2)])


def prefix_lanes(width: int, turned: int) -> np.ndarray:
    """P for pairs inside the turned stretch: lane i (i < n) with lane n + i, where the model
    pairs it with lane r/2 + i; the lanes no pair turns keep their places or fill the rest in
    order (R leaves them alone, and P^T puts them back). (r,)"""
    half = width // 2
    p = np.full(width, -1)
    p[:turned], p[half:half + turned] = np.arange(turned), np.arange(turned, 2 * turned)
    p[p < 0] = np.arange(2 * turned, width)
    return p


def _geometric(frequencies: np.ndarray, base: float | None) -> bool:
    """Whether the turned pairs (a prefix of them) turn at f_0 base^(-2i/r), r = twice the
    pairs: a default, linear or proportional RoPE, whose base can be swapped."""
    turned = int(np.count_nonzero(frequencies))
    if not base or base <= 1 or not turned or np.any(frequencies[turned:]) or \
            np.any(frequencies[:turned] <= 0):
        return False
    want = frequencies[0] * _speeds(base, 2 * len(frequencies), turned)
    return bool(np.allclose(frequencies[:turned], want, rtol=RELATIVE, atol=0))


def _speeds(base: float, width: int, pairs: int) -> np.ndarray:
    """base^(-2i/r) for the first pairs pairs of r lanes. (pairs,)"""
    return base ** (-np.arange(pairs) * 2.0 / width)


def _turns_halves(namespace: dict) -> bool:
    """Whether a modeling module's globals hold a rotate_half that turns split halves (lane i
    with lane i + r/2, as transformers' Llama writes it): where a pairing bug would read it
    through P."""
    import torch

    rotate = namespace.get("rotate_half")
    if not inspect.isfunction(rotate):
        return False
    x = torch.eye(8)
    try:
        return torch.equal(rotate(x), torch.cat((-x[:, 4:], x[:, :4]), dim=-1))
    except Exception:  # a rotate_half of another kind of argument
        return False


def _given(model, ids: list[int]) -> tuple[dict, dict, probing.Probe, dict]:
    """One run of the model: what each module was given as position_embeddings (cos, sin), the
    split-halves rotate_half calls made while it ran (their namespace and width), and the
    attention modules (posviz.pretrained.probing's probe of the same run)."""
    given: dict[int, tuple] = {}
    calls: dict[int, list] = defaultdict(list)
    running: list[int] = []

    def enter(module, _, kwargs):
        running.append(id(module))
        pair = kwargs.get("position_embeddings")
        if isinstance(pair, tuple) and len(pair) == 2 and id(module) not in given:
            given[id(module)] = pair

    def leave(*_):
        running.pop()

    def seen(namespace, width):
        for module in running:
            calls[module].append((id(namespace), width))

    modules = list(model.modules())
    code = {id(n): n for n in (getattr(inspect.unwrap(type(m).forward), "__globals__", None)
                               for m in modules) if n is not None}
    namespaces = tuple(n for n in code.values() if _turns_halves(n))
    handles = [h for m in modules for h in (
        m.register_forward_pre_hook(enter, with_kwargs=True),
        m.register_forward_hook(leave, always_call=True))]
    token = _SEEN.set(seen)
    try:
        with ExitStack() as stack:
            for namespace in namespaces:
                stack.enter_context(_read_through(namespace))
            probe, _ = probing.probe(model, ids)
    finally:
        _SEEN.reset(token)
        for handle in handles:
            handle.remove()
    return given, dict(calls), probe, {id(n): n for n in namespaces}


def _halves_layout(pair) -> bool:
    """cos and sin laid out as rotate_half reads them: two equal halves (1, T, r)."""
    import torch

    cos, sin = pair
    if not (isinstance(cos, torch.Tensor) and isinstance(sin, torch.Tensor)):
        return False
    width = cos.shape[-1]
    return cos.dim() == 3 and width % 2 == 0 and cos.shape == sin.shape and all(
        bool((t[..., :width // 2] == t[..., width // 2:]).all()) for t in (cos, sin))


def _buffers(model, kind: str | None) -> list[tuple[object, str, object]]:
    """The rotary modules' inv_freq buffers of a layer kind (None: the single kind)."""
    name = "inv_freq" if kind is None else f"{kind}_inv_freq"
    return [(module, name, buffer) for path, module in model.named_modules()
            if "Rotary" in type(module).__name__ and probing.text_path(path)
            for own, buffer in module.named_buffers(recurse=False) if own == name]


def ports(loaded: Loaded) -> tuple[Port, ...]:
    """The clinic's bugs that apply to a loaded transformers model, in REPORTS' order
    (one_base once per base), each ready to run (`pretrained.read(..., port=...)`); () for a
    model without RoPE and for posviz's own models. Runs the model once (Refused, "fails", if
    that run fails)."""
    import torch

    scheme = loaded.scheme
    if scheme.kind != "rope" or loaded.no_position is not None or not scheme.rotary:
        return ()
    model = loaded.model
    config = model.config.get_text_config()
    vocab = int(getattr(config, "vocab_size", 0) or model.get_input_embeddings().num_embeddings)
    try:
        with loaded.lock, torch.inference_mode():
            given, calls, probe, namespaces = _given(model,
                                                     [i % vocab for i in probing.PROBE])
    except Exception as err:  # transformers' own run, watched by hooks
        raise Refused("fails", error_line(err)) from err
    if len(probe.modules) != len(probe.layers):
        return ()
    by_layer = dict(zip(probe.layers, probe.modules, strict=True))
    sites = []  # (rotary, its attention modules, namespace, width), for layers it can read
    for rotary in scheme.rotary:
        modules = [by_layer.get(layer) for layer in rotary.layers]
        pairs = [given.get(id(m)) for m in modules]
        if any(m is None or p is None or not _halves_layout(p) for m, p in
               zip(modules, pairs, strict=True)):
            continue
        turning = [{c for c in calls.get(id(m), ()) if c[1] == p[0].shape[-1]}
                   for m, p in zip(modules, pairs, strict=True)]  # each layer's, at its width
        turned = set().union(*turning)
        if all(turning) and len(turned) == 1 and \
                len(rotary.frequencies) == next(iter(turned))[1] // 2:
            [(namespace, width)] = turned
            sites.append((rotary, modules, namespaces[namespace], width))
    return (*_halves_port(sites), *_proportional(model, sites), *_one_base(model, scheme))


def _lanes(modules, p: np.ndarray) -> tuple:
    import torch

    p = torch.as_tensor(p, dtype=torch.long)
    return tuple((m, p, torch.argsort(p)) for m in modules)


def _halves_port(sites) -> tuple[Port, ...]:
    if not sites:
        return ()
    lanes = sum((_lanes(modules, halves_lanes(width)) for _, modules, _, width in sites), ())
    return (Port("halves_as_pairs", "halves_as_pairs",
                 tuple(sorted(k for rotary, *_ in sites for k in rotary.layers)),
                 {"widths": sorted({width for *_, width in sites})}, lanes,
                 _namespaces=_unique(namespace for _, _, namespace, _ in sites)),)


def _unique(namespaces) -> tuple:
    return tuple({id(n): n for n in namespaces}.values())


def _proportional(model, sites) -> tuple[Port, ...]:
    """The two Gemma 4 bugs, for a kind of layer whose RoPE is proportional: its first n of
    r/2 pairs turn, at base^(-2i/r) (the whole width in the denominator), the rest not."""
    import torch

    found = []
    for rotary, modules, namespace, width in sites:
        frequencies = np.asarray(rotary.frequencies)
        turned = int(np.count_nonzero(frequencies))
        buffers = _buffers(model, rotary.layer_type)
        if not 0 < turned < width // 2 or not _geometric(frequencies, rotary.base) or \
                not buffers:
            continue
        numbers = {"width": width, "turned": turned, "half": width // 2,
                   "base": rotary.base, "kind": rotary.layer_type}
        whole = torch.as_tensor(frequencies[0] * _speeds(rotary.base, width, width // 2))
        found.append((Port("gemma4_prefix", "gemma4_prefix", rotary.layers, numbers,
                           _lanes(modules, prefix_lanes(width, turned)),
                           _namespaces=(namespace,)),
                      Port("gemma4_whole", "gemma4_whole", rotary.layers, numbers,
                           _frequencies=tuple((m, name, whole) for m, name, _ in buffers))))
    if len(found) != 1:  # one proportional kind, as Gemma 4 has: the bugs name it alone
        return ()
    return found[0]


def _one_base(model, scheme: Scheme) -> tuple[Port, ...]:
    """For a model whose kinds of layer turn at different bases (each a default, linear or
    proportional RoPE, so that its base can be swapped): one port per base, turning every
    layer at that base."""
    import torch

    kinds = [r for r in scheme.rotary
             if r.layer_type and _geometric(np.asarray(r.frequencies), r.base)
             and _buffers(model, r.layer_type)]
    if len(kinds) != len(scheme.rotary) or len({r.base for r in kinds}) < 2:
        return ()
    found = []
    for base in sorted({r.base for r in kinds}):
        wrong = [r for r in kinds if r.base != base]
        changes = []
        for r in wrong:
            frequencies = np.asarray(r.frequencies)
            width = 2 * len(frequencies)
            moved = frequencies * (base / r.base) ** (-np.arange(len(frequencies)) * 2.0 / width)
            changes += [(m, name, torch.as_tensor(moved)) for m, name, _ in
                        _buffers(model, r.layer_type)]
        layers = tuple(sorted(k for r in wrong for k in r.layers))
        found.append(Port(f"one_base.{base:g}", "one_base", layers,
                          {"base": base, "own": {r.layer_type: r.base for r in kinds},
                           "kinds": [r.layer_type for r in wrong]},
                          _frequencies=tuple(changes)))
    return tuple(found)
