"""The class's picture: once a predicted picture is revealed on the app's page, the share of the
class that predicted each key, beside the model's attention row, and how many predicted the
model's key."""

from __future__ import annotations

from rooms import StoreDown
from ui.chart import chart
from ui.room.poll_bars import picture_rows
from ui.services import rooms


def class_picture(where, s, poll_id: str, tokens: tuple[str, ...], weights, query: int,
                  truth: int) -> None:
    """The class's predictions for poll poll_id beside the model's attention row of token
    query (weights, one per key of tokens); truth is the right key."""
    m = s.room
    if m is None:
        return
    try:
        split = rooms().split(m.code, poll_id)
    except StoreDown:
        where.warning(s.t("room.down"))
        return
    if split is None:
        return
    tally = split.rounds[-1]
    shares = [n / tally.total if tally.total else 0.0 for n in tally.counts]
    labels = [f"{key} {token}" for key, token in enumerate(tokens)]
    chart(picture_rows(labels, shares, [float(w) for w in weights], truth,
                       s.t("lesson.pick_title", n=query),
                       (s.t("lesson.pick_class"), s.t("lesson.pick_model")),
                       s.t("common.key_axis")), f"picture_{poll_id}", where=where,
          toolbar=False)
    where.caption(s.t("lesson.pick_right", k=tally.counts[truth] if truth < len(
        tally.counts) else 0, total=tally.total, cell=truth))
