"""Running a loaded model on a sentence, position on or off (or as a buggy port of it runs it):
its attention, its layers' outputs and its likeliest next tokens; a reordered sentence
compared with it token by token."""

from __future__ import annotations

from contextlib import nullcontext

import numpy as np

from posviz.permutation import check_order
from posviz.pretrained.position import switched
from posviz.pretrained.probing import head_count, per_token
from posviz.pretrained.records import Guess, Loaded, Piece, Reading, Refused, RunChange, Twin
from posviz.pretrained.tokenized import encode, guess


def read(loaded: Loaded, text: str, position: bool = True, k: int = 5,
         port: RunChange | None = None) -> Reading:
    """The model's attention, its layers' outputs and its k likeliest next tokens on the
    sentence, in one run (as a buggy port of it runs it, if port is given: posviz.ported)."""
    ids, pieces, total = encode(loaded, text)
    return Reading(pieces, total, *run(loaded, ids, position, k, port))


def run(loaded: Loaded, ids: list[int], position: bool, k: int = 5, port: RunChange | None = None
        ) -> tuple[np.ndarray, np.ndarray, list[list[Guess]]]:
    """One run on token ids: attention (attention layers, heads, T, T), outputs (layers, T, D)
    and the top k next tokens at each position; with port (one of posviz.ported.ports(loaded)),
    the model changed for the run as the port runs it, and put back after."""
    import torch

    if port is not None and loaded.no_position is not None:
        raise ValueError("posviz's own models run no port")
    if not ids:
        scheme = loaded.scheme
        heads = (loaded.model.config.n_heads if loaded.no_position is not None
                 else head_count(loaded.model.config.get_text_config()))
        return (np.zeros((len(scheme.attention), heads, 0, 0)),
                np.zeros((scheme.layers, 0, 0)), [])
    if loaded.no_position is not None:
        return _run_own(loaded, ids, position, k)
    tensor = torch.tensor([ids])
    args = {"input_ids": tensor, "attention_mask": torch.ones_like(tensor),
            "output_attentions": True, "output_hidden_states": True}
    with loaded.lock, torch.inference_mode(), switched(loaded, position, ids) as extra, \
            (port.applied() if port is not None else nullcontext()):
        out = loaded.model(**args, **extra)
    given = list(out.attentions)
    maps = [given[i] for i in (loaded.drawn if loaded.drawn is not None else range(len(given)))]
    if any(a is None or a.shape[-2:] != (len(ids), len(ids)) for a in maps):
        raise Refused("keys", loaded.model.config.model_type)
    weights = np.stack([a[0].double().numpy() for a in maps])
    states = outputs(out.hidden_states[1:], len(ids))
    probs = torch.softmax(out.logits[0].double(), dim=-1)
    best = torch.topk(probs, k=min(k, probs.shape[-1]), dim=-1)
    top = [[guess(loaded.tokenizer, int(i), float(p)) for p, i in zip(ps, row, strict=True)]
           for ps, row in zip(best.values, best.indices, strict=True)]
    return weights, states, top


def _run_own(loaded: Loaded, ids: list[int], position: bool, k: int
             ) -> tuple[np.ndarray, np.ndarray, list[list[Guess]]]:
    import torch

    from posviz.model import top_predictions

    model = loaded.model if position else loaded.no_position
    states = []
    with loaded.lock:  # the hooks are the model's, seen by every thread's run
        hooks = [block.register_forward_hook(lambda _, __, out: states.append(out[0][0]))
                 for block in model.encoder.blocks]
        try:
            with torch.no_grad():
                hidden, weights = model.encoder(torch.tensor([ids]))
                probs = model.head(hidden)[0].softmax(dim=-1).double().numpy()
        finally:
            for hook in hooks:
                hook.remove()
    best, chances = top_predictions(probs, k)
    words = loaded.tokenizer.tokens
    top = [[Guess(words[i], words[i].encode("utf-8"), float(p))
            for i, p in zip(row, ps, strict=True)]
           for row, ps in zip(best, chances, strict=True)]
    return (torch.stack([w[0] for w in weights]).double().numpy(),
            torch.stack(states).double().numpy(), top)


def outputs(hidden_states, n_tokens: int) -> np.ndarray:
    """Each layer's output as (layers, T, D): a layer whose output is several streams per token
    (hyper-connections, AltUp) flattened (per_token), and narrower layers padded with zeros to
    the widest (which changes no length and no difference of lengths)."""
    flat = [per_token(h, n_tokens).numpy() for h in hidden_states]
    width = max((f.shape[1] for f in flat), default=0)
    return np.stack([np.pad(f, ((0, 0), (0, width - f.shape[1]))) for f in flat]) if flat \
        else np.zeros((0, n_tokens, 0))


def ids_of(loaded: Loaded, text: str) -> list[int]:
    """The token ids the model reads for the sentence."""
    return encode(loaded, text)[0]


def moved(loaded: Loaded, text: str, order) -> list[int]:
    """The sentence's token ids in another order (checked: every position once)."""
    ids = ids_of(loaded, text)
    order = check_order(np.asarray(order), len(ids))
    return [ids[i] for i in order]


def compare(reading: Reading, weights: np.ndarray, states: np.ndarray, order) -> Twin:
    """The reordered run (its weights and states) compared token by token with the sentence's
    reading: attention put back in the sentence's order, and per layer the largest change of a
    token's output, |y_i - y'_i| / |y_i|. With position off, a change is what the causal mask
    alone tells apart: a token sees other tokens before it in the new order."""
    n = len(reading.pieces)
    order = check_order(np.asarray(order), n)
    back = np.argsort(order)  # back[i]: where the sentence's token i went
    aligned = states[:, back]  # (layers, T, D)
    sizes = np.linalg.norm(reading.states, axis=-1)  # (layers, T)
    change = np.linalg.norm(aligned - reading.states, axis=-1) / np.where(sizes > 0, sizes, 1)
    seen = np.tril(np.ones((n, n), dtype=bool))
    return Twin(order, weights[:, :, back][:, :, :, back], seen[back][:, back],
                change.max(axis=-1, initial=0.0),
                change[:, -1] if n else np.zeros(len(change)))


def twin(loaded: Loaded, text: str, order, position: bool = True) -> tuple[Reading, Twin]:
    """The sentence, and its tokens in another order read by the same model, compared token
    by token (compare)."""
    reading = read(loaded, text, position)
    weights, states, _ = run(loaded, moved(loaded, text, order), position, k=1)
    return reading, compare(reading, weights, states, order)


def attention(loaded: Loaded, text: str, position: bool = True
              ) -> tuple[list[Piece], np.ndarray]:
    """The model's attention on the sentence: its tokens, and the weights as an array shaped
    (attention layers, heads, T, T) (row: a query, column: a key; rows sum to 1 over the keys
    up to the query). An empty reading gives an array of shape (layers, heads, 0, 0)."""
    reading = read(loaded, text, position)
    return reading.pieces, reading.weights


def next_tokens(loaded: Loaded, text: str, position: bool = True, k: int = 5
                ) -> list[list[Guess]]:
    """At each position, the k tokens the model finds likeliest next (Guess)."""
    return read(loaded, text, position, k).top
