"""Which option of each guided-lesson question is right, decided from the live numbers.

Each scene of the guided lesson asks the room a question with lettered options (their texts
are in the app's catalog). The right one is not written down anywhere: it follows from the
numbers the scene computes for the sentence on screen, as the revealed answer does, so that a
difference the mathematics says is zero (and the computer leaves at 1e-16) reads as "no change".
Every function returns the index of the right option (0 for A).
"""

from __future__ import annotations

from posviz.rope import same_up_to_rounding
from ui.i18n import text

OPTIONS = dict(meaning=2, position=3, sum=2, order=2, sinusoidal=2, rope=4, alibi=4, causal=3,
               leak=4, today=2, port=2)
"""How many options each scene's question has (A, B, ...)."""
CHECK = (1, 2, 2, 1, 0, 3)
"""The right option of each question of the concept check (assets/i18n/check.toml): the
lesson's facts, argued in its scenes (order without position, E + P, RoPE's offset, ALiBi past
its length, the causal mask's leak, today's models)."""


def check_questions(lang: str) -> list[tuple[str, list[str], int]]:
    """The concept check's questions in lang: (text, options, the right option)."""
    return [(text(f"check.q{n}.text", lang),
             [text(f"check.q{n}.options.{letter}", lang) for letter in "abcd"], right)
            for n, right in enumerate(CHECK, start=1)]


def changed(before: float, after: float) -> bool:
    """Whether after differs from before by more than float rounding (the RoPE page's test)."""
    return not same_up_to_rounding(before, after)


def _pair(first_changed: bool, second_changed: bool) -> int:
    """Options in the order: neither changes, only the second, only the first, both."""
    return 2 * first_changed + second_changed


def copy_row(rows: list[dict[str, object]], n_tokens: int) -> dict[str, object]:
    """Among repeat_distances rows of a sentence with its first token copied to the end, the
    row comparing position 0 with the copy at position n_tokens."""
    return next(r for r in rows if r["first"] == 0 and r["second"] == n_tokens)


def meaning(embedding_distance: float) -> int:
    """A: the copy gets another embedding; B: exactly the same one."""
    return 0 if changed(0.0, embedding_distance) else 1


def position(near_dot: float, far_dot: float) -> int:
    """A: the near row is more alike; B: the far row; C: both alike."""
    if not changed(near_dot, far_dot):
        return 2
    return 0 if near_dot > far_dot else 1


def total(input_distance: float) -> int:
    """A: the two input rows are still equal; B: they now differ."""
    return 1 if changed(0.0, input_distance) else 0


def order(largest_gap: float) -> int:
    """A: some token's output changes on reversal; B: none does."""
    return 0 if changed(0.0, largest_gap) else 1


def sinusoidal(after: float, before: float) -> int:
    """A: the dot product tells after from before; B: it gives the same number for both."""
    return 0 if changed(after, before) else 1


def rope(rope_before: float, rope_after: float, added_before: float,
         added_after: float) -> int:
    """A: both scores unchanged; B: only the added encoding's changes; C: only RoPE's; D: both."""
    return _pair(changed(rope_before, rope_after), changed(added_before, added_after))


def alibi(first_with: float, first_without: float, last_with: float,
          last_without: float) -> int:
    """A: both heads look less far back, head 1 by more; B: both, the last head by more;
    C: neither changes; D: some head looks further back."""
    first_changed = changed(first_with, first_without)
    last_changed = changed(last_with, last_without)
    if not first_changed and not last_changed:
        return 2
    first_drop, last_drop = first_without - first_with, last_without - last_with
    if (first_changed and first_drop < 0) or (last_changed and last_drop < 0):
        return 3
    return 0 if first_drop >= last_drop else 1


def causal(first_weight: float, n_tokens: int) -> int:
    """A: all of its attention; B: some other share; C: an equal share, 1/n."""
    if not changed(first_weight, 1.0):
        return 0
    return 2 if not changed(first_weight, 1.0 / n_tokens) else 1


def first_hidden(row) -> int:
    """The first key a query gives no attention at all (a weight of exactly 0: the causal
    mask's -inf before the softmax), in one row of attention weights."""
    hidden = [key for key, weight in enumerate(row) if weight == 0.0]
    if not hidden:
        raise ValueError("every key of the row gets some attention: no key is masked")
    return hidden[0]


def most_attended(row) -> int:
    """The key that gets the most of a query's attention, in one row of attention weights."""
    return max(range(len(row)), key=lambda key: row[key])


def leak(after_first_layer: float, after_second_layer: float) -> int:
    """A: no change after either layer; B: only after layer 2; C: only after layer 1; D: both."""
    return _pair(changed(0.0, after_first_layer), changed(0.0, after_second_layer))


def today(top_layer_gap: float) -> int:
    """A: a layer without position on top of a RoPE layer gives the same outputs for the
    reversed sentence; B: they change."""
    return 1 if changed(0.0, top_layer_gap) else 0


def port(port_side: int) -> int:
    """A: map A is the buggy port's; B: map B is (posviz.ports.port_side, where the scene
    draws it)."""
    if port_side not in (0, 1):
        raise ValueError(f"the port's map is drawn at 0 or 1, got {port_side}")
    return port_side
