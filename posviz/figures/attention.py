"""Figures of the attention lesson: attention maps per head, per scheme, and for two word orders.

Rows are queries, columns keys, both labelled by position and token; cells a query may not see
(causal mask) are grey, apart from a real weight of 0. Every figure is built in one go from
plain dicts, each panel on its own pair of axes with an explicit domain, so the gaps between
panel rows are sized in pixels for the key labels and the panel titles they must not touch.
"""

from __future__ import annotations

import functools
import unicodedata

import numpy as np
import plotly.graph_objects as go

from posviz.figures.common import (
    MASKED_COLOR,
    MIN_WIDTH,
    axis,
    figure,
    layout,
    masked_layer,
    plain,
    raised,
)

WEIGHT_COLORS = "Blues"
DIFFERENCE_COLORS = "RdBu_r"
DIFFERENCE_FLOOR = 1e-6
"""The difference scale never shrinks below this, so float rounding (~1e-16) is drawn white."""
FLAT_NOTE_COLOUR = "#333333"  # on the white of a difference of 0, in either theme
UPRIGHT_KEYS = 12
"""Up to this many keys, labels stand upright (position over token), so Chinese reads normally."""
NARROWEST_ROW = 690
"""Pixels the panels of one row share at the least: the figure is never drawn narrower (a
phone scrolls it sideways), so upright labels that fit in them always fit."""
STACKED_WIDTH, STACKED_ROW, STACKED_TALL = 350, 140, (200, 360)
"""The figure's stacked layout, one panel per row (meta.narrow: static/chart.js draws it in a
column too narrow for the panels side by side, a phone's) fits this many pixels, its panel
never narrower than STACKED_ROW, and from STACKED_TALL[0] to STACKED_TALL[1] pixels tall."""
PANEL_TALL = (280, 560)  # pixels: a panel's least and most height, as it grows with the sentence
COLOUR_BAR_ROOM = 110  # pixels beside the panels for a colour bar and its title
TICK_SIZE = 11
NARROW_EM = 0.62  # the width of a character that is not wide, in ems (a wide one's is 1)
LABEL_PAD = 6  # pixels beside each upright key label
ROOM_PAD = 8  # pixels beside the query labels' room, and between panel rows
PANEL_BASE, PANEL_PER_TOKEN = 140, 7  # pixels of a panel's height: base + per token (clipped)
ORDER_GAP, ORDER_GAP_PAD = (0.08, 0.3), 16  # order_maps' gap: its least and most, its padding
LINE, LABEL_OFFSET = 1.3, 24  # line height in font sizes; pixels from a panel to its labels
TITLE_ROOM, PANEL_TITLE_ROOM, AXIS_TITLE_ROOM = 52, 28, 30  # pixels
AXIS_TITLE_STANDOFF = 10
"""Pixels between the key labels as drawn (two lines upright, or turned) and the key axis's
title: plotly otherwise sets the title a fixed distance under the axis, on the labels' second
line."""


def _label_width(label: str, size: float = TICK_SIZE) -> float:
    """Rough width in pixels of one line of tick text in a font of `size` pixels: a wide (CJK)
    character is a full em."""
    return size * sum(1.0 if unicodedata.east_asian_width(c) in "WF" else NARROW_EM
                           for c in label)


def _key_room(labels: list[str], row: float) -> tuple[bool, int]:
    """Whether key labels stand upright in a panel `row` pixels wide at the least, and the
    pixels they take below it.

    Labels stand upright on two lines ("3" over "dog") when there are at most UPRIGHT_KEYS and
    they fit side by side in the panel; otherwise they are turned on their side (-90 degrees),
    and plotly labels as many keys as the panel's width has room for (every n-th on a long
    sentence).
    """
    widths = [max(map(_label_width, label.split(" ", 1))) + LABEL_PAD for label in labels]
    if len(labels) <= UPRIGHT_KEYS and sum(widths) <= row:
        return True, int(2 * LINE * TICK_SIZE) + LABEL_OFFSET
    return False, int(max(map(_label_width, labels))) + LABEL_OFFSET


def _key_ticks(upright: bool, labels: list[str]) -> dict:
    """The key axis's ticks: upright on two lines, or turned on their side."""
    return _upright(labels) if upright else dict(tickangle=-90)


def _upright(labels: list[str]) -> dict:
    """Key ticks standing upright: each token_labels label ("3 dog") on two lines."""
    return dict(tickvals=labels, ticktext=["<br>".join(label.split(" ", 1)) for label in labels],
                tickangle=0)


def _suffix(n: int) -> str:
    """Plotly names the first axes x and y, the n-th ones xn and yn."""
    return "" if n == 1 else str(n)


def _map_traces(z: np.ndarray, mask: np.ndarray, labels: list[str], n: int, coloraxis: str,
                hover: str, file: str = "") -> list[dict]:
    """One map on axes number n: the grey layer under its masked cells, then its values
    (named file, if given, in exported files)."""
    z = np.where(mask, z, np.nan).astype(np.float32)  # (T, T)
    place = dict(xaxis=f"x{_suffix(n)}", yaxis=f"y{_suffix(n)}")
    grey = [masked_layer(z, labels, labels, **place)] if not mask.all() else []
    return [*grey, dict(type="heatmap", z=z, x=labels, y=labels, coloraxis=coloraxis,
                        hoverongaps=False, hovertemplate=hover, **place,
                        **({"name": file} if file else {}))]


def _hover(x_title: str, y_title: str, value_name: str) -> str:
    return (f"{plain(y_title)}: %{{y}}<br>{plain(x_title)}: %{{x}}<br>"
            f"{plain(value_name)}: %{{z:.4f}}<extra></extra>")


def _panels(labels: list[str], panel_titles: list[str], columns: list[tuple[float, float]],
            *, title: str, x_title: str, y_title: str, row_width: int = NARROWEST_ROW,
            tall: tuple[int, int] = PANEL_TALL, **extra: object) -> dict:
    """The layout of panels filling rows left to right over the given column domains.

    Each panel gets its own axes (x1/y1, x2/y2, ...), row 0 on top; query labels and the query
    axis title on the first column only, the key axis title under each column's lowest panel.
    Rows are as tall as the token count asks, and the gap between rows holds the key labels of
    the row above plus the next row's panel titles. Margins are sized here rather than by
    plotly's automargin, which redraws every axis until the margins settle (half the drawing
    time of a nine-panel grid). row_width: the pixels a row of panels is never drawn narrower than;
    tall: the least and most pixels of a panel's height (it grows with the sentence).
    """
    shape = panel_geometry(labels, len(panel_titles), len(columns), row_width, tall)
    n_cols, edge = len(columns), len(labels) - 0.5  # ranges end at the outer cells
    keys = _key_ticks(shape["upright"], labels)
    axes, notes = {}, []
    for p, name in enumerate(panel_titles):
        row, col = divmod(p, n_cols)
        n = _suffix(p + 1)
        y0, y1 = shape["rows"][row]
        lowest = p + n_cols >= len(panel_titles)
        axes[f"xaxis{n}"] = axis(x_title if lowest else "", type="category", anchor=f"y{n}",
                                 domain=columns[col], range=[-0.5, edge], automargin=False,
                                 ticks="", tickfont=dict(size=TICK_SIZE), **keys)
        axes[f"xaxis{n}"]["title"]["standoff"] = AXIS_TITLE_STANDOFF  # under the labels drawn
        axes[f"yaxis{n}"] = axis(y_title if col == 0 else "", type="category", anchor=f"x{n}",
                                 domain=[y0, y1], range=[edge, -0.5],
                                 automargin=False, showticklabels=col == 0,
                                 ticks="", tickfont=dict(size=TICK_SIZE))
        notes.append(dict(text=plain(name), x=sum(columns[col]) / 2, y=y1, xref="paper",
                          yref="paper", xanchor="center", yanchor="bottom", yshift=4,
                          showarrow=False, font=dict(size=15)))
    return layout(title, shape["height"], min_width=shape["min_width"],
                  margin=dict(l=shape["left"], r=10, t=shape["top"], b=shape["bottom"]),
                  annotations=notes, **axes, **extra)


def panel_geometry(labels: list[str], n_panels: int, n_cols: int, row_width: float,
                   tall: tuple[int, int]) -> dict:
    """What `_panels` lays out from the labels (as the figure writes them) and the panel count:
    whether the key labels stand upright, the margins (left, top, bottom), the height, the least
    width, and each row of panels' vertical domain [y0, y1] (row 0 on top). The viewer lays a
    typed sentence's maps out with its twin (assets/viewer/src/engine/panels.js), from the
    constants `panel_rule` sends.
    """
    seq_len, n_rows = len(labels), -(-n_panels // n_cols)
    upright, key_room = _key_room(labels, row_width / n_cols)
    panel = int(np.clip(PANEL_BASE + PANEL_PER_TOKEN * seq_len, *tall))
    gap = key_room + PANEL_TITLE_ROOM + ROOM_PAD
    top, bottom = TITLE_ROOM + PANEL_TITLE_ROOM, key_room + AXIS_TITLE_ROOM
    left = left_margin(labels)
    plot = n_rows * panel + (n_rows - 1) * gap  # pixels between the margins
    rows = []
    for row in range(n_rows):
        y1 = 1 - row * (panel + gap) / plot
        rows.append([max(y1 - panel / plot, 0.0), y1])
    return dict(upright=upright, left=left, top=top, bottom=bottom, height=top + plot + bottom,
                min_width=max(left + row_width + COLOUR_BAR_ROOM, MIN_WIDTH), rows=rows)


def _stacked(side_by_side: dict, labels: list[str], panel_titles: list[str], *, title: str,
             x_title: str, y_title: str, **extra: object) -> dict:
    """A layout of panels side by side, carrying in its meta (narrow) the layout of the same
    panels one under the other, for a column narrower than the side-by-side layout's least
    width (static/chart.js picks it)."""
    narrow = _panels(labels, panel_titles, [(0.0, 1.0)], title=title, x_title=x_title,
                     y_title=y_title, row_width=_stacked_row(labels), tall=STACKED_TALL, **extra)
    side_by_side["meta"]["narrow"] = narrow
    return side_by_side


def _stacked_row(labels: list[str]) -> int:
    """Pixels of the stacked layout's one panel a row at the least."""
    return max(STACKED_ROW, STACKED_WIDTH - left_margin(labels) - COLOUR_BAR_ROOM)


def left_margin(labels: list[str], size: float = TICK_SIZE) -> int:
    """Pixels left of the panels: the row labels (in a font of `size` pixels) and the row axis's
    title. Charts of token rows are given it rather than plotly's automargin, which draws a
    chart twice whenever its labels' widest changes (a sentence typed in the viewer)."""
    return int(max(_label_width(label, size) for label in labels)) + AXIS_TITLE_ROOM + ROOM_PAD


def _columns(n_cols: int, gap: float) -> list[tuple[float, float]]:
    """n_cols equal column domains separated by gap (fractions of the plot width)."""
    width = (1 - (n_cols - 1) * gap) / n_cols
    return [(c * (width + gap), c * (width + gap) + width) for c in range(n_cols)]


def map_grid(maps: np.ndarray, masks: np.ndarray, labels: list[str], panel_titles: list[str],
             *, title: str, x_title: str, y_title: str, value_name: str,
             n_cols: int = 3) -> go.Figure:
    """Attention maps (P, T, T) in a grid, sharing one colour scale from 0 to the largest weight.

    masks broadcasts to (P, T, T): True where the query may see the key; other cells are NaN and
    show grey. labels are unique, as `token_labels` makes them ("3 dog"). Panels fill rows left
    to right; values go out as float32.
    """
    maps = np.asarray(maps, dtype=float)
    masks = np.broadcast_to(masks, maps.shape)                          # (P, T, T)
    names = [plain(label) for label in labels]
    hover = _hover(x_title, y_title, value_name)
    traces = [trace for p, (z, mask) in enumerate(zip(maps, masks, strict=True))
              for trace in _map_traces(z, mask, names, p + 1, "coloraxis", hover)]
    top = float(maps[masks].max(initial=0.0)) or 1.0
    named = dict(title=title, x_title=x_title, y_title=y_title,
                 coloraxis=dict(colorscale=WEIGHT_COLORS, cmin=0.0, cmax=top,
                                colorbar=dict(title=dict(text=plain(value_name)))))
    return figure(traces, _stacked(
        _panels(names, panel_titles, _columns(min(n_cols, len(maps)), 0.06), **named),
        names, panel_titles, **named))


VISIBLE_COLOR = "#08306b"  # the darkest of WEIGHT_COLORS


def visibility_grid(masks: np.ndarray, labels: list[str], panel_titles: list[str], *,
                    title: str, x_title: str, y_title: str,
                    names: tuple[str, str]) -> go.Figure:
    """Which keys each query may see (P, T, T booleans), in a grid: two colours with a legend
    (names: visible, hidden), not a colour scale, since a cell is one or the other."""
    figure = map_grid(masks.astype(float), masks, labels, panel_titles, title=title,
                      x_title=x_title, y_title=y_title, value_name=names[0],
                      n_cols=len(masks))
    two = dict(coloraxis=dict(colorscale=[[0, VISIBLE_COLOR], [1, VISIBLE_COLOR]],
                              showscale=False), showlegend=True)
    figure.update_layout(**two)
    narrow = figure.layout.meta["narrow"]  # the stacked layout, for a narrow column: the same
    figure.update_layout(meta=figure.layout.meta | {"narrow": narrow | two})
    for trace in figure.data:  # each panel's cells, in their legend entry's group
        trace.legendgroup = "visible" if trace.coloraxis else "hidden"
    entries = zip(("visible", "hidden"), names, (VISIBLE_COLOR, MASKED_COLOR), strict=True)
    for group, name, colour in list(entries)[:1 if masks.all() else 2]:  # hidden: if any is
        figure.add_trace(go.Scatter(x=[None], y=[None], mode="markers", name=name,
                                    legendgroup=group, hoverinfo="skip",
                                    marker=dict(symbol="square", size=14, color=colour)))
    return figure


def twin_maps(original: np.ndarray, aligned: np.ndarray, original_mask: np.ndarray,
              aligned_mask: np.ndarray, difference: np.ndarray, labels: list[str],
              panel_titles: list[str], *, title: str, x_title: str, y_title: str,
              value_name: str, difference_name: str, flat_note: str = "") -> go.Figure:
    """Two attention maps (T, T) of the same tokens and their difference (T, T), side by side.

    The maps share a 0..max scale, the difference a scale symmetric about 0 (at least
    +-DIFFERENCE_FLOOR, so rounding noise is not blown up into colour). Cells hidden in
    both maps are grey in the difference; a cell seen in one order only keeps its weight there.
    A difference below DIFFERENCE_FLOOR everywhere is drawn all white: flat_note, written in
    the middle of its panel, says so (the panel would pass for an empty one).
    """
    seen = original_mask | aligned_mask  # (T, T)
    names = [plain(label) for label in labels]
    hover = _hover(x_title, y_title, value_name)
    traces = [*_map_traces(original, original_mask, names, 1, "coloraxis", hover, "original"),
              *_map_traces(aligned, aligned_mask, names, 2, "coloraxis", hover, "reordered"),
              *_map_traces(difference, seen, names, 3, "coloraxis2",
                           _hover(x_title, y_title, difference_name), "difference")]
    top = max(original[original_mask].max(initial=0.0), aligned[aligned_mask].max(initial=0.0))
    bound = max(float(np.abs(difference[seen]).max(initial=0.0)), DIFFERENCE_FLOOR)
    # side by side, the weight colour bar stands in the wide gap between the second and third
    # panel; stacked, beside the first two panels, the difference's beside the third
    columns = [(0.0, 0.27), (0.32, 0.59), (0.73, 1.0)]
    named = dict(title=title, x_title=x_title, y_title=y_title)

    def scales(weights: dict, differences: dict, side: str = "top") -> dict:
        return dict(
            coloraxis=dict(colorscale=WEIGHT_COLORS, cmin=0.0, cmax=float(top) or 1.0,
                           colorbar=dict(title=dict(text=plain(value_name), side=side),
                                         xanchor="left", **weights)),
            coloraxis2=dict(colorscale=DIFFERENCE_COLORS, cmin=-bound, cmax=bound,
                            colorbar=dict(title=dict(text=plain(difference_name), side=side),
                                          xanchor="left", exponentformat="e", **differences)))

    # stacked, a colour bar's title runs down its side: on top it would meet the title of the
    # panel beside it (a phone: "difference" over "difference (new − yours)")
    shape = _stacked(
        _panels(names, panel_titles, columns, **named,
                **scales(dict(x=0.6, len=0.9), dict(x=1.01, len=0.9))),
        names, panel_titles, **named,
        **scales(dict(x=1.01, y=1, yanchor="top"), dict(x=1.01, y=0, yanchor="bottom"),
                 side="right"))
    narrow = shape["meta"]["narrow"]  # each bar as tall as its panels, under their titles
    narrow["coloraxis"]["colorbar"]["len"] = 1 - narrow["yaxis2"]["domain"][0]
    narrow["coloraxis2"]["colorbar"]["len"] = narrow["yaxis3"]["domain"][1]
    if flat_note and np.abs(difference[seen]).max(initial=0.0) < DIFFERENCE_FLOOR:
        note = dict(text=raised(plain(flat_note)), xref="x3 domain", yref="y3 domain", x=0.5,
                    y=0.5, showarrow=False, font=dict(color=FLAT_NOTE_COLOUR))
        for each in (shape, shape["meta"]["narrow"]):
            each["annotations"] = [*each.get("annotations", ()), note]
    return figure(traces, shape)


def order_maps(maps: list[np.ndarray], label_sets: list[list[str]], panel_titles: list[str], *,
               title: str, x_title: str, y_title: str, value_name: str) -> go.Figure:
    """Attention maps (T, T) of the same tokens in different orders, side by side, each with its
    own order's labels (the rows a reader sees are that order's tokens), sharing one scale from
    0 to the largest weight. No mask: every cell is a weight."""
    hover = _hover(x_title, y_title, value_name)
    traces = [trace for p, (z, labels) in enumerate(zip(maps, label_sets, strict=True))
              for trace in _map_traces(np.asarray(z, dtype=float), np.ones_like(z, dtype=bool),
                                       [plain(label) for label in labels], p + 1, "coloraxis",
                                       hover)]
    top = max(float(np.max(z)) for z in maps) or 1.0
    names = [plain(label) for label in label_sets[0]]
    named = dict(title=title, x_title=x_title, y_title=y_title,
                 coloraxis=dict(colorscale=WEIGHT_COLORS, cmin=0.0, cmax=top,
                                colorbar=dict(title=dict(text=plain(value_name)))))
    gap = order_gap([[plain(label) for label in labels] for labels in label_sets])
    drawn = _stacked(_panels(names, panel_titles, _columns(len(maps), gap), **named), names,
                     panel_titles, **named)
    for shape in (drawn, drawn["meta"]["narrow"]):  # each panel's rows and keys its own order's
        for p, labels in enumerate(label_sets):
            shape[f"yaxis{_suffix(p + 1)}"]["showticklabels"] = True
            if "tickvals" in shape[f"xaxis{_suffix(p + 1)}"]:
                shape[f"xaxis{_suffix(p + 1)}"].update(_upright([plain(k) for k in labels]))
    return figure(traces, drawn)


def order_gap(label_sets: list[list[str]]) -> float:
    """The gap between order_maps' panels (a fraction of the plot's width): room for a panel's
    own rows' labels, the widest of every order's (as the figure writes them)."""
    widest = max(_label_width(label) for labels in label_sets for label in labels)
    return min(ORDER_GAP[1], max(ORDER_GAP[0], (widest + ORDER_GAP_PAD) / NARROWEST_ROW))


@functools.cache
def _wide_ranges() -> str:
    """The code points unicodedata reads as wide or full width (east_asian_width "W" or "F"),
    as runs: for each, its distance from the end of the run before it and its length less one,
    in base 36, all space-separated."""
    runs, start, last = [], None, -1
    for point in range(0x110001):
        wide = point < 0x110000 and unicodedata.east_asian_width(chr(point)) in "WF"
        if wide and start is None:
            start = point
        elif not wide and start is not None:
            runs += [np.base_repr(n, 36).lower() for n in (start - last - 1, point - 1 - start)]
            start, last = None, point - 1
    return " ".join(runs)


def panel_rule() -> dict:
    """Every constant of panel_geometry, order_gap and _label_width, and the wide characters
    (_wide_ranges) of this Python's Unicode tables, as the viewer's twin of them reads them
    (assets/viewer/src/engine/panels.js: a typed sentence's maps laid out as here)."""
    return dict(tick_size=TICK_SIZE, narrow_em=NARROW_EM, label_pad=LABEL_PAD, room_pad=ROOM_PAD,
                upright_keys=UPRIGHT_KEYS, line=LINE, label_offset=LABEL_OFFSET,
                panel_base=PANEL_BASE, panel_per_token=PANEL_PER_TOKEN,
                title_room=TITLE_ROOM, panel_title_room=PANEL_TITLE_ROOM,
                axis_title_room=AXIS_TITLE_ROOM, colour_bar_room=COLOUR_BAR_ROOM,
                min_width=MIN_WIDTH, narrowest_row=NARROWEST_ROW, panel_tall=list(PANEL_TALL),
                stacked_width=STACKED_WIDTH, stacked_row=STACKED_ROW,
                stacked_tall=list(STACKED_TALL), order_gap=list(ORDER_GAP),
                order_gap_pad=ORDER_GAP_PAD, wide=_wide_ranges())


BAR_DIGITS = 2
"""Significant digits of the value written on each of change_bars' bars (Python's "g" format:
0.29, 2, 1.1e-16)."""


def change_bars(labels: list[str], changes: dict[str, np.ndarray], *, title: str, x_title: str,
                y_title: str) -> go.Figure:
    """How far each token's output moved (one bar per token for each named case), each bar
    labelled with its value, so that a change of 1e-15 reads as such beside one of 2."""
    colors = ["#999", "#2563eb", "#d97706"]
    names = [plain(label) for label in labels]
    return figure([
        dict(type="bar", x=names, y=np.asarray(values, dtype=np.float32), name=plain(name),
             marker_color=colors[n % len(colors)],
             text=[f"{v:.{BAR_DIGITS}g}" for v in values],
             textposition="outside", cliponaxis=False)
        for n, (name, values) in enumerate(changes.items())],
        layout(title, 360, barmode="group", xaxis=axis(x_title, type="category"),
               yaxis=axis(y_title, rangemode="tozero", showgrid=True)))
