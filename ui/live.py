"""Each live chart's recipe: how the viewer draws it again, with the browser's engine, for a
sentence its reader types (the `live` field of a chart block, ui/blocks.py's `Live`).

The figure's layout, colours and words stay those the server decided; a recipe names which
engine functions fill which of its traces, with which sizes and switches, and sends any words
that change with the sentence (each as the figure shows text: escaped, powers raised). The
viewer (assets/viewer/src/viewer/live.js) has one function per recipe, of the same name, and
refuses, visibly, any other.

- fixed: the chart does not depend on the sentence (the same for every reader).
- embedding: E, P and E + P panels (params: d_model, panels "e p x", position, copied: the first
  token copied to the end, sizes: the layout for each row count, below); rows labelled with the
  tokens, repeated ones marked ◆; the colour scale symmetric about 0; words: the title with and
  without a marked row.
- frame: a table of positions whose first rows (the sentence's, at most `rows`) are framed.
- attention: the head-mean weights of one layer of the seeded stack (params: layers, heads,
  scheme, causal, layer, orders "same" or "same reversed"), each order a panel, its cells hidden
  by the mask grey; scale "top" (0 to the largest weight) or "fixed"; layout "heatmap" or
  "order_maps" (its panels, margins and height laid out for the typed sentence's labels).
- alibi: the causal ALiBi bias of the heads shown (params: heads, shown "1 2 ...", position);
  the colour scale from the lowest bias (-1 at least) to 0.
- change: how far each token's output moved when the sentence is reversed, its largest change
  over every layer and channel of the seeded stack (params: layers, heads, schemes "none ...",
  causal, digits: the significant digits written on each bar), a bar per token for each scheme.
- plane: one channel pair of each token's query in the seeded single head, before and after
  RoPE turns it (params: d_model, pair, position, and posviz.figures.rope.plane_style: what
  plane_view decides for any sentence); words: the names of the arrows before and after, and
  of the arcs.

A figure whose layout depends on the sentence's length alone is sent that layout for every
length (`sizes`): what differs between them, so that a typed sentence's chart is as tall, and
its rows as labelled, as the server's figure for that sentence would be.
"""

from __future__ import annotations

import json

from posviz.figures.attention import BAR_DIGITS
from posviz.figures.common import plain
from posviz.figures.rope import plane_style
from ui.blocks import Live


def fixed() -> Live:
    return Live(recipe="fixed", params={}, words={})


def embedding(d_model: int, panels: tuple[str, ...], position: bool, copied: bool,
              title_marked: str, title_plain: str, layouts: str) -> Live:
    """panels: of "panel_e", "panel_p", "panel_x" (ui.cached.lesson's names); titles as the
    figure's layout holds them (posviz.figures.common.layout); layouts: the figure's for 1,
    2, ... rows, as `sizes` writes them."""
    names = {"panel_e": "e", "panel_p": "p", "panel_x": "x"}
    return Live(recipe="embedding",
                params={"d_model": d_model, "panels": " ".join(names[p] for p in panels),
                        "position": position, "copied": copied, "sizes": layouts},
                words={"title_marked": title_marked, "title_plain": title_plain})


def frame(rows: int) -> Live:
    return Live(recipe="frame", params={"rows": rows}, words={})


def attention(layers: int, heads: int, scheme: str, causal: bool, layer: int,
              orders: tuple[str, ...] = ("same",), scale: str = "top",
              layout: str = "heatmap") -> Live:
    """layout: how the figure lays itself out, "heatmap" (posviz.figures.common.token_heatmap:
    plotly sizes its margins) or "order_maps" (posviz.figures.attention.order_maps: its panels
    laid out from the labels, as the viewer's panels.js does with the rule the page is sent)."""
    return Live(recipe="attention",
                params={"layers": layers, "heads": heads, "scheme": scheme, "causal": causal,
                        "layer": layer, "orders": " ".join(orders), "scale": scale,
                        "layout": layout},
                words={})


def change(layers: int, heads: int, schemes: tuple[str, ...], causal: bool) -> Live:
    """posviz.figures.attention.change_bars' recipe, the sentence against its reversal."""
    return Live(recipe="change", params={"layers": layers, "heads": heads,
                                         "schemes": " ".join(schemes), "causal": causal,
                                         "digits": BAR_DIGITS}, words={})


def alibi(heads: int, shown: list[int], position: bool) -> Live:
    return Live(recipe="alibi", params={"heads": heads, "shown": " ".join(map(str, shown)),
                                        "position": position}, words={})


def plane(d_model: int, pair: int, position: bool, before_name: str, after_name: str,
          arc_name: str) -> Live:
    """posviz.figures.rope.plane_view's recipe: the names as its legend shows them."""
    return Live(recipe="plane",
                params={"d_model": d_model, "pair": pair, "position": position} | plane_style(),
                words={"before_name": plain(before_name), "after_name": plain(after_name),
                       "arc_name": plain(arc_name)})


def _leaves(node: object, path: tuple = ()) -> dict[tuple, object]:
    """A layout's leaves by path (keys and list indices); a list of numbers is one leaf; the
    theme's template is the same for every figure."""
    if isinstance(node, dict):
        return {found: value for key, child in node.items() if path or key != "template"
                for found, value in _leaves(child, (*path, key)).items()}
    if isinstance(node, list | tuple) and any(isinstance(v, dict | list | tuple) for v in node):
        return {found: value for i, child in enumerate(node)
                for found, value in _leaves(child, (*path, i)).items()}
    return {path: list(node) if isinstance(node, tuple) else node}


def sizes(layouts: list[dict]) -> str:
    """The leaves that differ between the layouts of one figure for 1, 2, ... tokens, as JSON:
    {"paths": [[key or index, ...], ...], "rows": [[value or null (absent), ...], ...]}, row
    n - 1 the layout for n tokens (assets/viewer/src/viewer/live.js's resize)."""
    found = [_leaves(layout) for layout in layouts]
    every = {path for leaves in found for path in leaves}
    paths = sorted((path for path in every
                    if any(each.get(path) != found[0].get(path) or (path in each) != (
                        path in found[0]) for each in found)), key=str)
    return json.dumps({"paths": [list(p) for p in paths],
                       "rows": [[each.get(p) for p in paths] for each in found]},
                      separators=(",", ":"))
