"""The records posviz.pretrained takes and gives (a model found, its card, its scheme, a
reading of a sentence, ...), and its refusal of a model, Refused."""

from __future__ import annotations

import threading
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import numpy as np

TOKEN_WISE = ("mlp", "moe", "ffn", "dense", "sparse", "feed_forward")
"""Kinds of layer that change each token on its own (a feed-forward layer): no order in them."""


class Refused(ValueError):
    """A model posviz will not load, with why: `reason` is one of REASONS, `detail` names it."""

    REASONS = ("unknown", "not_a_model", "pickle_only", "own_code", "not_causal", "too_large",
               "broken", "outside", "no_attention", "unread", "keys", "heads", "ids", "fails")

    def __init__(self, reason: str, detail: str) -> None:
        assert reason in self.REASONS, reason
        super().__init__(f"{reason}: {detail}")
        self.reason, self.detail = reason, detail


def error_line(err: BaseException) -> str:
    """An error in one line, as a refusal names it: its type and its message's first line."""
    return f"{type(err).__name__}: {(str(err).strip().splitlines() or [''])[0][:200]}"


@dataclass(frozen=True)
class Found:
    """A model on this machine: its name (a cache id or a folder's name) and its folder."""

    name: str
    path: Path
    source: str  # "cache", "folder", "path" or "posviz"


@dataclass(frozen=True)
class Card:
    """What a model is, read from its files before loading it."""

    path: Path
    model_type: str
    parameters: int  # from the safetensors headers
    needed: int  # bytes of memory to load and run it (float32, with OVERHEAD)
    available: int | None  # bytes of memory this machine has free, if it says


@dataclass(frozen=True)
class Rotary:
    """One kind of rotary position in a model: the attention layers that turn their queries and
    keys by it, and its numbers as transformers computed them."""

    layers: tuple[int, ...]  # the model's layers (from 0)
    layer_type: str | None  # transformers' name for those layers ("sliding_attention"), if any
    base: float | None  # rope_theta
    fraction: float  # the share of each head's channels turned
    rope_type: str  # "default", or its scaling: "linear", "yarn", "llama3", ...
    factor: float | None  # the scaling's factor
    frequencies: tuple[float, ...]  # each turned pair's angle per position (inv_freq)
    pairing: str = "halves"  # lane i with i + r/2 (rotate_half), or "neighbours": 2i, 2i + 1


@dataclass(frozen=True)
class Scheme:
    """How a model carries position, with its numbers, and what switching it off does.
    attention: the model's layers (from 0) that are attention; layers: all of its layers;
    other: the kinds of its other layers (a recurrent or convolution layer), which carry order of
    their own that position off leaves as it is. For RoPE, rotary lists each kind and unturned
    the attention layers that turn nothing (NoPE)."""

    kind: str  # "rope", "learned", "alibi", "sinusoidal" or "none"
    numbers: dict = field(default_factory=dict)
    rotary: tuple[Rotary, ...] = ()
    unturned: tuple[int, ...] = ()
    attention: tuple[int, ...] = ()
    layers: int = 0
    other: tuple[str, ...] = ()
    beside: tuple[int, ...] = ()  # attention layers with a Mamba branch beside it (Falcon-H1)

    @property
    def ordered(self) -> tuple[str, ...]:
        """The other layers that mix the tokens (a recurrent, linear-attention or convolution
        layer), and so carry their order of their own, one per such layer."""
        return tuple(k for k in self.other if not any(w in k.lower() for w in TOKEN_WISE))

    @property
    def off(self) -> str:
        return {"rope": "position ids all 0", "learned": "position table rows zeroed",
                "alibi": "every slope 0", "sinusoidal": "sinusoidal table rows zeroed",
                "none": "nothing to switch off"}[self.kind]


@dataclass(frozen=True)
class Piece:
    """One token as the model reads it: its text in the sentence (characters start:end) and
    whether a character of it is split over several tokens."""

    position: int
    token: str  # the tokenizer's own spelling (byte-level pieces look garbled)
    text: str  # the characters of the sentence it covers, whole
    start: int
    end: int
    split: bool  # one of its characters is spread over this token and a neighbour
    special: bool  # a token the tokenizer adds (start of text), covering no characters


@dataclass(frozen=True)
class Guess:
    """A likely next token: its text as the tokenizer decodes it alone, its bytes, and its
    probability. whole: its text is its bytes as characters a reader can see (no piece of a
    character, no control, unassigned or separator character but the plain space), so it can
    be shown as text."""

    text: str
    raw: bytes
    p: float

    @property
    def whole(self) -> bool:
        return bool(self.text) and self.text.encode("utf-8") == self.raw and \
            self.text.isprintable()


@dataclass
class Loaded:
    """A model and its tokenizer; runs are serialized (position off changes the model for the
    length of a run). posviz's own models have a vocabulary for a tokenizer, and the same
    weights without position (no_position)."""

    card: Card
    model: object
    tokenizer: object
    scheme: Scheme
    no_position: object = None  # posviz's own: the same weights, scheme "none"
    tables: tuple = ()  # the tables of absolute positions that position off zeroes
    drawn: tuple[int, ...] | None = None  # which of transformers' attentions are (T, T) maps
    lock: threading.Lock = field(default_factory=threading.Lock)


@dataclass(frozen=True)
class Reading:
    """One run of the model on a sentence: its tokens (the first MAX_TOKENS of total), its
    attention (attention layers, heads, T, T), each layer's output (layers, T, D) and the top
    next tokens at each position."""

    pieces: list[Piece]
    total: int
    weights: np.ndarray
    states: np.ndarray
    top: list[list[Guess]]


@dataclass(frozen=True)
class Twin:
    """The sentence's tokens in another order, read by the same model and compared token by
    token with the sentence as typed (posviz.permutation's convention: position k of the new
    order holds token order[k])."""

    order: np.ndarray  # (T,)
    weights: np.ndarray  # (layers, heads, T, T): the new order's attention, put back by token
    mask: np.ndarray  # (T, T): where, in the new order, token i could see token j
    gaps: np.ndarray  # (layers,): the largest change of a token's output, relative to its size
    last_gaps: np.ndarray  # (layers,): the same for the token that ends the sentence as typed


class RunChange(Protocol):
    """A change to a model for the length of one run, put back after: a buggy port of it
    (posviz.ported.Port)."""

    def applied(self) -> AbstractContextManager[None]: ...
