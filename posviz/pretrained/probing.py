"""A transformers model run once on a few token ids, and what posviz reads of it: which modules
give the attention maps (probe), each layer's output per token, its heads, its text's path."""

from __future__ import annotations

import re
from dataclasses import dataclass

PROBE = (3, 7, 11, 5, 2, 9)  # token ids a model is checked on when it loads (its vocabulary's)
AWAY = ("vision", "visual", "audio", "image", "speech", "video")
"""Parts of a multimodal model that never read the text (their own position tables)."""


def text_path(name: str) -> bool:
    """Whether a module of the model (by its name) lies on the text's path (none of AWAY)."""
    return not any(part in name.lower() for part in AWAY)


def head_count(config) -> int:
    """A transformers configuration's attention heads (BLOOM names them n_head)."""
    return getattr(config, "num_attention_heads", None) or config.n_head


@dataclass
class Probe:
    """The attention layers of a model found by one run: each one's module and layer number."""

    modules: list
    layers: list[int]


def layer_of(name: str) -> int | None:
    """The layer (from 0) a module's name puts it in (its first number), if any."""
    found = re.search(r"\.(\d+)(\.|$)", name)
    return int(found[1]) if found else None


def run_ids(model, ids: list[int], position_ids=None):
    """One run of the model on token ids (a batch of one), its attention and every layer's
    output given (position_ids, if given, in place of 0, 1, 2, ...)."""
    import torch

    tensor = torch.tensor([ids])
    extra = {} if position_ids is None else {"position_ids": position_ids}
    with torch.inference_mode():
        return model(input_ids=tensor, attention_mask=torch.ones_like(tensor),
                     output_attentions=True, output_hidden_states=True, **extra)


def probe(model, ids: list[int]) -> tuple[Probe, object]:
    """Which modules return the attention weights (the innermost module whose output holds each
    one), found by one run; and the run."""
    seen: dict[int, tuple[str, object]] = {}
    handles = []
    names = {module: name for name, module in model.named_modules()}

    def note(module, _, out) -> None:
        for item in out if isinstance(out, tuple) else ():
            if hasattr(item, "dim") and item.dim() == 4 and id(item) not in seen:
                seen[id(item)] = (names[module], module)

    for module in names:
        handles.append(module.register_forward_hook(note))
    try:
        out = run_ids(model, ids)
    finally:
        for handle in handles:
            handle.remove()
    attentions = [a for a in (getattr(out, "attentions", None) or ()) if a is not None]
    found = [seen.get(id(a)) for a in attentions]
    modules = [f[1] for f in found if f]
    layers = [(layer_of(f[0]) if f else None) for f in found]
    if None in layers or len(set(layers)) != len(layers):
        layers = list(range(len(attentions)))
    return Probe(modules if len(modules) == len(attentions) else [], layers), out


def per_token(hidden, n_tokens: int):
    """One layer's output of a batch of one as (T, D'), every stream of a token side by side:
    (1, T, D) as it is; (1, T, streams, D) (DeepSeek-V4's hyper-connections) and
    (streams, 1, T, D) (Gemma 3n's AltUp: the streams lead) flattened per token. The batch's
    axis is the first of size 1 followed by the tokens' axis."""
    shape = tuple(hidden.shape)
    batch = next(k for k in range(len(shape) - 1) if shape[k] == 1 and shape[k + 1] == n_tokens)
    tokens = hidden.select(batch, 0).movedim(batch, 0)  # (T, ...): the tokens' axis first
    return tokens.double().reshape(n_tokens, -1)
