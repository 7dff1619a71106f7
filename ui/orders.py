"""Picking another order for a sentence's tokens: the controls and messages the attention page
and the real-model page share (their texts are the attention page's, `attention.*`)."""

from __future__ import annotations

import numpy as np

from posviz.permutation import (
    OrderError,
    is_identity,
    parse_order,
    reads_the_same,
    reordered,
    reversal,
    shuffle,
)
from ui.doc import Doc
from ui.shared import Settings

KINDS = ("reverse", "shuffle", "typed")


def picked(d: Doc, s: Settings, tokens: list[str], key: str,
           fixed: frozenset[int] = frozenset()) -> tuple[int, ...] | None:
    """The order the reader picks for tokens, reversed, shuffled or typed (controls keyed
    `{key}_order`, `{key}_keep_last`, `{key}_seed`, `{key}_typed`), with the reordered
    sentence shown; None, with a message, while there is nothing to compare. Positions in fixed
    (a start-of-text token) stay in place when reversing or shuffling."""
    movable = [i for i in range(len(tokens)) if i not in fixed]
    order_col, extra_col = d.columns(2)
    kind = order_col.coded_radio(s.t("attention.order"), list(KINDS), key=f"{key}_order",
                                 format_func=lambda name: s.t(f"attention.orders.{name}"),
                                 horizontal=True, help=s.t("attention.order_help"))
    can_keep = kind != "typed" and len(movable) >= 3  # with two, keeping the last moves none
    keep_last = order_col.toggle(s.t("attention.keep_last"), False, key=f"{key}_keep_last",
                                 help=s.t("attention.keep_last_help"),
                                 disabled=not can_keep) and can_keep
    if kind == "shuffle":
        seed = extra_col.number_input(s.t("attention.shuffle_seed"), 0, 9999, 0,
                                      key=f"{key}_seed")
    if kind == "typed":
        typed = extra_col.text_input(s.t("attention.typed_order"), key=f"{key}_typed",
                                     help=s.t("attention.typed_help")).strip()

    if len(movable) < 2:
        d.info(s.t("attention.one_token"))
        return None
    if kind == "typed" and not typed:
        d.info(s.t("attention.typed_prompt", last=len(tokens) - 1,
                   example=" ".join(map(str, reversal(len(tokens))))))
        return None
    if kind == "typed":
        try:
            order = parse_order(typed, len(tokens))
        except OrderError as err:  # said in the UI language, with the numbers that matter
            d.error(s.t(f"attention.order_errors.{err.reason}", **err.values))
            return None
    else:
        inner = (reversal(len(movable), keep_last) if kind == "reverse"
                 else shuffle(len(movable), seed, keep_last))
        order = np.arange(len(tokens))
        order[movable] = np.array(movable)[inner]
    d.caption(s.t("attention.reordered"))
    d.chips(reordered(tokens, order), [str(k) for k in order])
    if is_identity(order):
        d.info(s.t("attention.nothing_moved"))
        return None
    if reads_the_same(tokens, order):  # 我我我 reversed
        d.info(s.t("attention.reads_same"))
        return None
    return tuple(order.tolist())
