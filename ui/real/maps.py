"""The real model's attention maps: two runs side by side at one layer and head, and the same
tokens in another order, with position on and off."""

import numpy as np

import ui
from posviz import pretrained
from posviz.figures.attention import map_grid, twin_maps
from ui import orders
from ui.cached import real
from ui.real.words import share, shown


def other_order(d: ui.Doc, s: ui.Settings, held: real.Models, loaded: pretrained.Loaded,
                pieces: list[pretrained.Piece], labels: list[str], layer: int, named: int,
                head: int) -> None:
    """The same tokens in another order, compared token by token with position on and off:
    what is left with position off is what the causal mask alone tells apart."""
    d.subheader(s.t("real.twin_head"))
    d.markdown(s.t("real.twin_intro"))
    order = orders.picked(d, s, [shown(p) for p in pieces], "real",
                          frozenset(p.position for p in pieces if p.special))
    if order is None:
        return
    on = held.twin(loaded, s.text, order)[1]
    reading, off = held.twin(loaded, s.text, order, position=False)
    d.caption(s.t("real.twin_changes"))
    c1, c2 = d.columns(2)
    c1.metric(s.t("real.twin_on"), share(on.gaps.max()), border=True)
    c2.metric(s.t("real.twin_off"), share(off.gaps.max()), border=True)
    d.warning(s.t("real.mask_leaks", off=share(off.gaps.max())))
    mine, moved = reading.weights[layer - 1, head - 1], off.weights[layer - 1, head - 1]
    seen = np.tril(np.ones(mine.shape, dtype=bool))
    panels = [s.t(f"attention.panel_{key}") for key in ("original", "aligned", "difference")]
    d.chart(twin_maps(mine, moved, seen, off.mask, moved - mine, labels, panels,
                      title=s.t("real.twin_title", layer=named, head=head),
                      x_title=s.t("real.key"), y_title=s.t("real.query"),
                      value_name=s.t("real.weight"),
                      difference_name=s.t("attention.difference"),
                      flat_note=s.t("attention.difference_flat")), "real_twin")
    d.caption(s.t("real.twin_caption"))
    d.markdown(f"**{s.t('real.gaps_head')}**")
    d.table({s.t("attention.col.layer"): range(1, len(on.gaps) + 1),
             s.t("real.with"): list(map(share, on.gaps)),
             s.t("real.without"): list(map(share, off.gaps)),
             s.t("real.without_last"): list(map(share, off.last_gaps))})
    d.caption(s.t("real.gaps_caption"))


def two_maps(d: ui.Doc, s: ui.Settings, runs: tuple[pretrained.Reading, pretrained.Reading],
             labels: list[str], layer: int, head: int, names: tuple[str, str], title: str,
             name: str) -> None:
    """Two runs' attention maps at one layer and head, side by side under the causal mask."""
    n = len(runs[0].pieces)
    maps = np.stack([run.weights[layer - 1, head - 1] for run in runs])
    d.chart(map_grid(maps, np.tril(np.ones((n, n), dtype=bool)), labels, list(names),
                     title=title, x_title=s.t("real.key"), y_title=s.t("real.query"),
                     value_name=s.t("real.weight"), n_cols=2), name)
