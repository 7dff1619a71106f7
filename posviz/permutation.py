"""Reordering a sentence and asking whether attention noticed (MATH.md, "No position").

An order is an array of positions: the reordered sentence holds, at position k, the token that
stood at position order[k] (reversal of 4 tokens: [3, 2, 1, 0]). Outputs are compared token to
token, after undoing the reordering, never position to position.

Shapes: T = number of tokens, D = d_model, H = number of heads, L = number of layers.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import regex

from posviz.attention import AttentionRun, attention_stack
from posviz.tokens import repeated

_SEPARATORS = regex.compile(r"[\s,，、;；]+")
_FULL_WIDTH_DIGITS = str.maketrans("０１２３４５６７８９", "0123456789")


class OrderError(ValueError):
    """An order that is not each position exactly once, with the reason as a code and numbers.

    reason is one of "not_numbers", "count" (values: got), "range" (position), "repeated"
    (position, missing); values always hold last, the highest position. A page can turn the
    code into a message in its own language; str() is an English one.
    """

    MESSAGES = {
        "not_numbers": "type the positions 0 to {last} as whole numbers",
        "count": "the order lists {got} positions, the sentence has positions 0 to {last}",
        "range": "there is no position {position}: positions run from 0 to {last}",
        "repeated": "position {position} is listed twice and {missing} is missing",
    }

    def __init__(self, reason: str, **values: int | str) -> None:
        super().__init__(self.MESSAGES[reason].format(**values))
        self.reason, self.values = reason, values


def check_order(order: np.ndarray, seq_len: int) -> np.ndarray:
    """order as an int array; OrderError unless it holds each of 0 .. seq_len-1 exactly once."""
    last = seq_len - 1
    order, typed = np.asarray(order).astype(int), np.asarray(order)
    if not np.array_equal(order, typed):
        raise OrderError("not_numbers", last=last)
    if order.shape != (seq_len,):
        raise OrderError("count", got=order.size, last=last)
    outside = order[(order < 0) | (order > last)]
    if outside.size:
        raise OrderError("range", position=int(outside[0]), last=last)
    counts = np.bincount(order, minlength=seq_len)  # (T,)
    if (counts != 1).any():
        raise OrderError("repeated", position=int(np.argmax(counts > 1)),
                         missing=int(np.argmax(counts == 0)), last=last)
    return order


def is_identity(order: np.ndarray) -> bool:
    """Whether the order leaves every token where it was (nothing to compare)."""
    return bool(np.array_equal(order, np.arange(len(order))))


def is_reversal(order: np.ndarray) -> bool:
    """Whether the order is the whole sentence reversed, [T-1, ..., 1, 0]."""
    return bool(np.array_equal(order, np.arange(len(order))[::-1]))


def reversal(seq_len: int, keep_last: bool = False) -> np.ndarray:
    """[T-1, ..., 1, 0]; with keep_last, only the tokens before the last are reversed. (T,)."""
    moved = seq_len - 1 if keep_last and seq_len else seq_len
    return np.concatenate([np.arange(moved)[::-1], np.arange(moved, seq_len)])


def shuffle(seq_len: int, seed: int = 0, keep_last: bool = False) -> np.ndarray:
    """A seeded random order other than the identity (when one exists). (T,).

    Draws uniformly and redraws the identity, so a short sentence never "shuffles" into itself.
    With keep_last, the last token stays in place and only the tokens before it move.
    """
    moved = seq_len - 1 if keep_last and seq_len else seq_len
    rng = np.random.default_rng(seed)
    order = rng.permutation(moved)
    while moved > 1 and np.array_equal(order, np.arange(moved)):
        order = rng.permutation(moved)
    return np.concatenate([order, np.arange(moved, seq_len)])


LONGEST = 12  # digits of a number out of range that a message repeats


def parse_order(text: str, seq_len: int) -> np.ndarray:
    """An order typed as positions, "3 2 1 0", "3,2,1,0", "3，2，1，0" or in full-width digits
    "３　２　１　０" (as a Chinese input method types them). (T,).

    Raises OrderError for anything that is not each of 0 .. seq_len-1 exactly once.
    """
    fields = [f for f in _SEPARATORS.split(text.translate(_FULL_WIDTH_DIGITS).strip()) if f]
    if not all(f.isascii() and f.isdigit() for f in fields):
        raise OrderError("not_numbers", last=seq_len - 1)
    for field in fields:  # a number longer than any position, however long (9 x 5,000)
        digits = field.lstrip("0") or "0"
        if len(digits) > len(str(seq_len)):
            raise OrderError("range", position=digits if len(digits) <= LONGEST
                             else f"{digits[:LONGEST]}…", last=seq_len - 1)
    return check_order(np.array([int(f) for f in fields], dtype=int), seq_len)


def reordered(tokens: list[str], order: np.ndarray) -> list[str]:
    """The sentence in the new order: position k holds tokens[order[k]]."""
    return [tokens[k] for k in order]


def reads_the_same(tokens: list[str], order: np.ndarray) -> bool:
    """Whether the reordered sentence equals the sentence, token for token (我我我 or "a b a"
    reversed): each token then lands on a place that held the same token, both runs read the
    same input, and there is nothing to compare."""
    return reordered(tokens, order) == list(tokens)


def undo(run: AttentionRun, order: np.ndarray) -> AttentionRun:
    """The run of a reordered sentence, with every token moved back to its original position.

    Row i (and key column i) of the result belongs to the token at position i of the original
    sentence: if the reordering changed nothing but positions, this equals the original run.
    """
    back = np.argsort(order)  # back[i] = where the original token i went
    return AttentionRun(weights=[w[:, back][:, :, back] for w in run.weights],  # (H, T, T)
                        outputs=[y[back] for y in run.outputs],                 # (T, D)
                        mask=run.mask[back][:, back])                            # (T, T)


@dataclass(frozen=True)
class PermutationCheck:
    """A sentence and a reordering of it, run through the same stack and compared by token."""

    order: np.ndarray          # (T,) the reordered sentence's position k holds token order[k]
    original: AttentionRun     # the sentence as typed
    aligned: AttentionRun      # the reordered sentence's run, put back in the original order
    layer_gaps: np.ndarray     # (L,) largest |y - y'| over every token and channel, per layer
    last_gaps: np.ndarray      # (L,) the same for the token that ends the original sentence
    token_gaps: np.ndarray     # (T,) largest |y - y'| of each token over every layer and channel

    @property
    def gap(self) -> float:
        """The headline number: the largest output difference at any token, in any layer."""
        return float(self.layer_gaps.max())

    @property
    def keeps_last(self) -> bool:
        """Whether the token that ends the sentence still ends it after the reordering."""
        return bool(self.order[-1] == len(self.order) - 1)

    def weight_difference(self, layer: int) -> np.ndarray:
        """Head-mean weights of the reordered run minus the original's, by token. (T, T)."""
        return self.aligned.mean_weights(layer) - self.original.mean_weights(layer)


def compare_runs(original: AttentionRun, reordered: AttentionRun,
                 order: np.ndarray) -> PermutationCheck:
    """Compare the run of a sentence with the run of its reordering, token by token.

    reordered is the same stack run on the tokens in the given order; its outputs are moved
    back with their tokens (`undo`) before the differences are taken.
    """
    order = check_order(order, len(original.mask))
    aligned = undo(reordered, order)
    diffs = [np.abs(y - y2) for y, y2 in zip(original.outputs, aligned.outputs, strict=True)]
    return PermutationCheck(order=order, original=original, aligned=aligned,
                            layer_gaps=np.array([d.max() for d in diffs]),   # (L,)
                            last_gaps=np.array([d[-1].max() for d in diffs]),  # (L,)
                            token_gaps=np.max(diffs, axis=(0, 2)))            # (T,)


def permutation_check(x: np.ndarray, order: np.ndarray, n_layers: int, n_heads: int,
                      scheme: str, causal: bool = True, seed: int = 0,
                      base: float = 10_000.0) -> PermutationCheck:
    """Run attention_stack on x (T, D) and on x[order], and compare the outputs token by token.

    Without position and without a causal mask the gaps are 0 up to float rounding at every
    depth (permutation equivariance). With one causal layer and no position, the last token's
    gap is 0 when the order keeps it last; with two or more causal layers earlier order leaks.
    """
    x = np.asarray(x, dtype=float)
    order = check_order(order, x.shape[0])
    return compare_runs(attention_stack(x, n_layers, n_heads, scheme, causal, seed, base),
                        attention_stack(x[order], n_layers, n_heads, scheme, causal, seed, base),
                        order)


def repeat_gap(tokens: list[str], output: np.ndarray) -> float | None:
    """Largest difference between the output rows (T, D) of two occurrences of one token.

    None when no token repeats. Without position and without a causal mask it is 0 up to
    float rounding: the occurrences see the same bag of tokens.
    """
    groups = repeated(tokens).values()
    if not groups:
        return None
    return max(float(np.abs(output[ts] - output[ts[0]]).max()) for ts in groups)


SCIENTIFIC_BELOW = 1e-3
"""Differences below this are written in scientific notation (1.1e-16), others as decimals."""


def readable(value: float) -> str:
    """A difference as the page writes it: 0.291 or 12.407 for sizes of order 1, 3.4e-05 or
    1.1e-16 below SCIENTIFIC_BELOW (where decimals would show a misleading 0.000), 0 for 0."""
    if value == 0:
        return "0"
    return f"{value:.3f}" if abs(value) >= SCIENTIFIC_BELOW else f"{value:.1e}"
