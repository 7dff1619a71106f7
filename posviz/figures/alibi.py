"""Figures of the ALiBi lesson: slopes per head, bias grids, extrapolation, T5 buckets.

Every figure is built in one go from plain dicts; panels sit on axes with explicit domains.
"""

from __future__ import annotations

import json

import numpy as np
import plotly.graph_objects as go

from posviz.figures.common import (
    COLORWAY,
    LINE_GREY,
    MASKED_COLOR,
    axis,
    figure,
    layout,
    masked_layer,
    plain,
    raised,
)

GRID_COLUMNS = 4
GRID_PANEL_WIDTH = 190  # the narrowest a panel of the bias grid is drawn, in pixels
GRID_GAP = 0.05  # between panels, as a fraction of the width
PANEL_HEIGHT = 280  # pixels per row of the bias grid, its panel title included
NARROW_COLUMNS, NARROW_PANEL_WIDTH, NARROW_PANEL_HEIGHT = 2, 115, 220  # in a phone's column
NARROW_GAP = 16  # pixels under each row of a phone's grid
SHORT_PANEL_HEIGHT = 150  # pixels per row of the grid fitted in a projector's window, of which
SHORT_TITLE_LINE, SHORT_GAP = 28, 12  # a line of its panel's title (enlarged) and the row's gap
BAR_BELOW = 70  # pixels under a phone's grid for its colour bar, laid across
SHORT_KEY_LABELS = 8  # more keys than this: the fitted grid leaves the keys' labels to the queries'
BASE_COLOR, EXTRA_COLOR = "#1f77b4", "#ff7f0e"
BIAS_SCALE = "Blues_r"  # 0 (no penalty) white, strong penalties dark blue
HEAD_COLORS = ("#636EFA", "#EF553B", "#008965", "#AB63FA", "#C95600", "#08859A", "#F10045",
               "#528618", "#D500D5", "#9F7001")
"""The n-th head drawn as a line keeps its colour in every chart: plotly's own ten hues, each
made dark or light enough to read 3:1 on both themes' backgrounds (see COLORWAY)."""
T5_COLORS = tuple(COLORWAY[:2])
TRAINED_COLOR = "rgba(0, 158, 115, 0.25)"  # green that shows on light and dark pages
HIDDEN_COLOR = "rgba(128, 128, 128, 0.2)"
TITLED_MARGIN = 90  # room for a figure title above panel titles


def slope_text(exponent: float, sep: str = " ") -> str:
    """A slope 2^e by its exact name: "2^−5 = 0.03125" (2^-k has exactly k decimals), or
    "2^−0.5 ≈ 0.7071" when e is not a whole number; sep goes before the "=" or "≈"."""
    power = f"2^{exponent:g}".replace("-", "−")
    if float(exponent).is_integer():
        return f"{power}{sep}= {2.0 ** exponent:.{max(0, -int(exponent))}f}"
    return f"{power}{sep}≈ {2.0 ** exponent:.4g}"


def _panel_title(text: str, domain: tuple[float, float], top: float) -> dict:
    """A panel's title, centred above it (paper coordinates); a newline in text starts a line."""
    return dict(text="<br>".join(raised(plain(line)) for line in text.split("\n")),
                x=sum(domain) / 2,
                y=top, xref="paper", yref="paper", xanchor="center", yanchor="bottom",
                showarrow=False)


def _legend_swatch(name: str, color: str, **placement: object) -> dict:
    """A legend entry for a shaded area: a square of its colour, no data of its own."""
    return dict(type="scatter", x=[None], y=[None], mode="markers", name=plain(name),
                marker=dict(symbol="square", size=14, color=color), **placement)


def slopes_bar(exponents: np.ndarray, n_base: int, *, title: str, x_title: str, y_title: str,
               base_name: str, extra_name: str) -> go.Figure:
    """One bar per head in head order, log scale, slope 2^exponent: heads 1 .. n_base (the
    power-of-two list) in one colour, the heads filled in from the doubled list in another.
    Up to 16 heads each bar names its slope exactly (`slope_text`)."""
    heads = np.arange(1, len(exponents) + 1)
    labelled = len(exponents) <= 16
    traces = [dict(
        type="bar", x=heads[part], y=(2.0 ** exponents[part]).astype(np.float32),
        name=raised(plain(name)), marker_color=color, textposition="outside",
        text=[raised(slope_text(e, "<br>")) for e in exponents[part]] if labelled else None,
        customdata=[raised(slope_text(e)) for e in exponents[part]],
        hovertemplate=f"{plain(x_title)} %{{x}}<br>m = %{{customdata}}<extra></extra>")
        for name, part, color in ((base_name, slice(0, n_base), BASE_COLOR),
                                  (extra_name, slice(n_base, None), EXTRA_COLOR))
        if len(heads[part])]
    # a decade of headroom above the tallest bar for its label
    top = np.log10(2.0 ** float(exponents.max())) + (0.6 if labelled else 0.15)
    bottom = np.log10(2.0 ** float(exponents.min())) - 0.3
    return figure(traces, layout(
        title, 400 if labelled else 380, bargap=0.15,
        xaxis=axis(x_title, dtick=1 if len(heads) <= 32 else 4),
        # a label per decade, written out: no small superscripts or in-between digits
        yaxis=axis(y_title, type="log", dtick=1, showgrid=True, range=[bottom, top])))


def bias_grid(biases: np.ndarray, exponents: np.ndarray, heads: list[int], labels: list[str], *,
              title: str, panel_format: str, x_title: str, y_title: str,
              value_name: str, room_heads: list[int] | None = None) -> go.Figure:
    """Small multiples: the (T, T) bias of each listed head (numbered from 1) of biases (H, T, T),
    row 0 on top, one shared colour scale, each panel titled
    panel_format.format(h=, m=slope_text(exponent)). NaN cells (hidden by the causal mask) are
    grey, apart from a zero bias (white). Up to GRID_COLUMNS panels to a row; the layout of
    NARROW_COLUMNS to a row rides along in meta.narrow for a phone's column (static/chart.js);
    with room_heads, the room's grid of those heads rides along in meta.room (room_bias_grid:
    what a projector in presentation mode draws instead)."""
    names = [plain(label) for label in labels]
    hover = (f"{plain(y_title)} %{{y}}<br>{plain(x_title)} %{{x}}<br>"
             f"{plain(value_name)} %{{z:.3f}}<extra></extra>")
    traces = []
    for n, h in enumerate(heads):
        place = dict(xaxis=f"x{'' if n == 0 else n + 1}", yaxis=f"y{'' if n == 0 else n + 1}")
        traces += [masked_layer(biases[h - 1], names, names, **place),
                   dict(type="heatmap", z=biases[h - 1].astype(np.float32), x=names, y=names,
                        coloraxis="coloraxis", hoverongaps=False, hovertemplate=hover, **place)]
    # zero (no penalty) stays white even when every bias is zero (position off)
    lowest = min(float(np.nanmin(biases[np.asarray(heads) - 1])), -1.0)

    def grid(cols: int, panel_width: int, panel_height: int, sep: str = " ", line: int = 25,
             gap: int | None = None, key_labels: bool = True, bar_below: bool = False) -> dict:
        """The layout of the panels cols to a row, each panel_width pixels wide at the least
        and panel_height high (its title included, line pixels a line, and a gap under it of
        gap pixels, as much as the title's if None; sep before the slope's value). The key
        axis is titled under each column's last panel, only the first column's when narrow,
        and labelled there unless key_labels is False. bar_below: the colour bar lies under
        the panels, leaving the width to them (a phone's column)."""
        panel_titles = [panel_format.format(h=h, m=slope_text(exponents[h - 1], sep))
                        for h in heads]
        lines = max(title.count("\n") + 1 for title in panel_titles)
        cols = min(cols, len(heads))
        rows = -(-len(heads) // cols)
        # each panel keeps room for its two-line title and its key labels; the bar beside them
        under = BAR_BELOW if bar_below else 0             # the colour bar's strip
        height = TITLED_MARGIN + 70 + under + panel_height * rows
        plot = height - TITLED_MARGIN - 70 - under        # pixels of the panels' paper area
        width, title_room = (1 - GRID_GAP * (cols - 1)) / cols, line * lines / plot
        below = title_room if gap is None else gap / plot
        axes, titles = {}, []
        for n in range(len(heads)):
            row, col = divmod(n, cols)
            left, top = col * (width + GRID_GAP), 1 - row / rows
            x_domain = (left, left + width)
            y_domain = (top - 1 / rows + below, top - title_room)
            suffix = "" if n == 0 else str(n + 1)
            bottom, first = n + cols >= len(heads), col == 0
            # ranges end at the outer cells: the grey layer shows in hidden cells only;
            # plotly labels as many categories as there is room for
            titled = bottom and (col == 0 or panel_width > NARROW_PANEL_WIDTH)
            axes[f"xaxis{suffix}"] = axis(x_title if titled else "", type="category",
                                          showticklabels=bottom and key_labels,
                                          range=[-0.5, len(names) - 0.5],
                                          domain=x_domain, anchor=f"y{suffix}")
            axes[f"yaxis{suffix}"] = axis(y_title if first else "", type="category",
                                          showticklabels=first, range=[len(names) - 0.5, -0.5],
                                          domain=y_domain, anchor=f"x{suffix}")
            titles.append(_panel_title(panel_titles[n], x_domain, y_domain[1]))
        bar = dict(title=dict(text=plain(value_name)))
        if bar_below:
            bar = dict(title=dict(text=plain(value_name), side="top"), orientation="h",
                       yref="container", y=0, yanchor="bottom", thickness=14, len=0.9)
        return layout(title, height, min_width=panel_width * cols + (40 if bar_below else 120),
                      annotations=titles, margin=dict(l=10, r=10, t=TITLED_MARGIN, b=10 + under),
                      coloraxis=dict(colorscale=BIAS_SCALE, cmin=lowest, cmax=0.0,
                                     colorbar=bar), **axes)

    drawn = grid(GRID_COLUMNS, GRID_PANEL_WIDTH, PANEL_HEIGHT)
    # fitted in a projector's window (static/chart.js), shorter rows with room for its titles
    short = grid(GRID_COLUMNS, GRID_PANEL_WIDTH, SHORT_PANEL_HEIGHT, line=SHORT_TITLE_LINE,
                 gap=SHORT_GAP, key_labels=len(names) <= SHORT_KEY_LABELS)
    drawn["meta"]["short"] = short | {"meta": {**short["meta"], "least": short["height"]}}
    if len(heads) > NARROW_COLUMNS:
        drawn["meta"]["narrow"] = grid(NARROW_COLUMNS, NARROW_PANEL_WIDTH, NARROW_PANEL_HEIGHT,
                                       "\n", gap=NARROW_GAP, bar_below=True)
    if room_heads:
        drawn["meta"]["room"] = room_bias_grid(
            biases, exponents, room_heads, labels, title=title, panel_format=panel_format,
            x_title=x_title, y_title=y_title, value_name=value_name)
    return figure(traces, drawn)


ROOM_FLOOR = 1e-3
"""The room's grid colours a penalty by its order of magnitude, from this up (a zero penalty,
the diagonal, is drawn as this)."""
ROOM_COLORS = [[0.0, "#C6DBEF"], [0.5, "#4292C6"], [1.0, "#08306B"]]
"""Blues from a light blue, not white: the faintest penalty still reads as a penalty."""
ROOM_PANEL_HEIGHT = 330  # pixels per panel of the room's grid, its title included
ROOM_ALL_LABELS = 12
"""Up to this many tokens the room's grid labels every query (their rows fit a projector's
window at its text size); beyond, as many as fit."""


def room_bias_grid(biases: np.ndarray, exponents: np.ndarray, heads: list[int],
                   labels: list[str], *, title: str, panel_format: str, x_title: str,
                   y_title: str, value_name: str) -> dict:
    """The bias grid for the back of a hall (a projector in presentation mode): the listed heads
    (a few: the first, a middle one, the last) in one row of large panels, every query
    labelled (up to ROOM_ALL_LABELS), and each cell coloured by the penalty's order of
    magnitude, log10(-bias), on one scale, so that a head of a small slope (1/256: penalties
    of hundredths) reads as lighter than the first head's, never as white; the hover and the
    colour bar's ticks give the bias itself. Returns the figure as a dict (for_the_room
    draws it in its figure's place: meta.room)."""
    names = [plain(label) for label in labels]
    penalties = -np.asarray(biases)[np.asarray(heads) - 1]                   # (P, T, T)
    magnitude = np.log10(np.maximum(penalties, ROOM_FLOOR))                  # NaN: hidden
    low, high = np.log10(ROOM_FLOOR), max(float(np.nanmax(magnitude, initial=0.0)), 0.0)
    decades = np.arange(np.ceil(low), np.floor(high) + 1)
    hover = (f"{plain(y_title)} %{{y}}<br>{plain(x_title)} %{{x}}<br>"
             f"{plain(value_name)} %{{customdata:.4f}}<extra></extra>")
    cols, gap = len(heads), GRID_GAP
    width = (1 - gap * (cols - 1)) / cols
    traces, axes, titles = [], {}, []
    for n, h in enumerate(heads):
        suffix = "" if n == 0 else str(n + 1)
        place = dict(xaxis=f"x{suffix}", yaxis=f"y{suffix}")
        traces += [masked_layer(magnitude[n], names, names, **place),
                   dict(type="heatmap", z=magnitude[n].astype(np.float32), x=names, y=names,
                        customdata=-penalties[n].astype(np.float32), coloraxis="coloraxis",
                        hoverongaps=False, hovertemplate=hover, **place)]
        x_domain = (n * (width + gap), n * (width + gap) + width)
        axes[f"xaxis{suffix}"] = axis(x_title, type="category", range=[-0.5, len(names) - 0.5],
                                      domain=x_domain, anchor=f"y{suffix}")
        axes[f"yaxis{suffix}"] = axis(y_title if n == 0 else "", type="category",
                                      showticklabels=n == 0, range=[len(names) - 0.5, -0.5],
                                      domain=(0, 0.88), anchor=f"x{suffix}",
                                      **(dict(tickmode="array", tickvals=names)
                                         if len(names) <= ROOM_ALL_LABELS else {}))
        titles.append(_panel_title(panel_format.format(h=h, m=slope_text(exponents[h - 1])),
                                   x_domain, 0.9))
    bar = dict(title=dict(text=plain(value_name)), tickmode="array", tickvals=decades,
               ticktext=[f"−{10.0 ** d:g}" for d in decades])
    spec = layout(title, TITLED_MARGIN + 70 + ROOM_PANEL_HEIGHT, annotations=titles,
                  margin=dict(l=10, r=10, t=TITLED_MARGIN, b=10),
                  coloraxis=dict(colorscale=ROOM_COLORS, cmin=low, cmax=max(high, low + 1),
                                 colorbar=bar), **axes)
    return json.loads(figure(traces, spec).to_json())


def distance_bars(with_bias: np.ndarray, without: np.ndarray, *, title: str, x_title: str,
                  y_title: str, names: tuple[str, str]) -> go.Figure:
    """Mean attention distance per head (numbered from 1): without any position, then with
    the ALiBi bias."""
    heads = np.arange(1, len(with_bias) + 1)
    return figure([
        dict(type="bar", x=heads, y=without.astype(np.float32), name=plain(names[0]),
             marker_color="#999"),
        dict(type="bar", x=heads, y=with_bias.astype(np.float32), name=plain(names[1]),
             marker_color=BASE_COLOR),
    ], layout(title, 340, barmode="group",
              xaxis=axis(x_title, dtick=1 if len(heads) <= 16 else None),
              yaxis=axis(y_title, rangemode="tozero", showgrid=True)))


def _head_lines(distances: np.ndarray, lines: np.ndarray, heads: list[int],
                line_name: str) -> list[dict]:
    """Each listed head's bias against distance, one line per head in its own colour."""
    return [dict(type="scatter", x=distances, y=lines[h - 1].astype(np.float32), mode="lines",
                 name=plain(line_name.format(h=h)),
                 line_color=HEAD_COLORS[n % len(HEAD_COLORS)])
            for n, h in enumerate(heads)]


def bias_lines(distances: np.ndarray, lines: np.ndarray, heads: list[int],
               shaded: tuple[float, float], *, title: str, line_name: str, shade_label: str,
               shade_color: str, x_title: str, y_title: str) -> go.Figure:
    """Each listed head's ALiBi bias against distance, lines (H, K), one line per head; the
    distances from shaded[0] to shaded[1] on a band of shade_color, named in the legend (where
    no line can cross its name)."""
    band = dict(type="rect", xref="x", yref="y domain", x0=shaded[0], x1=shaded[1], y0=0, y1=1,
                fillcolor=shade_color, line=dict(width=0), layer="below")
    return figure([*_head_lines(distances, lines, heads, line_name),
                   _legend_swatch(shade_label, shade_color)], layout(
        title, 460, shapes=[band], xaxis=axis(x_title, showgrid=True),
        yaxis=axis(y_title, showgrid=True)))


def extrapolation(distances: np.ndarray, lines: np.ndarray, heads: list[int], trained_len: int,
                  *, title: str, line_name: str, trained_label: str, x_title: str,
                  y_title: str) -> go.Figure:
    """Each listed head's bias against distance, lines (H, K), past the trained length: the
    distances seen in training are shaded. ALiBi trains nothing per distance, so the lines
    run on unchanged."""
    seen = min(trained_len, len(distances)) - 1
    return bias_lines(distances, lines, heads, (0, max(seen, 0)), title=title,
                      line_name=line_name, shade_label=trained_label, shade_color=TRAINED_COLOR,
                      x_title=x_title, y_title=y_title)


def learned_table(table: np.ndarray, trained_len: int, *, title: str, missing_label: str,
                  x_title: str, y_title: str) -> go.Figure:
    """A learned position table (T, D) looked up for positions 0 .. T-1: one column per
    position. The positions with no row (NaN, at and past trained_len) show grey behind a
    dashed line, named in the legend."""
    positions, dims = list(range(len(table))), list(range(table.shape[1]))
    z = table.T.astype(np.float32)                                         # (D, T)
    missing = trained_len < len(table)
    traces = [
        masked_layer(z, positions, dims),
        dict(type="heatmap", z=z, x=positions, y=dims, colorscale="RdBu_r", zmid=0.0,
             showscale=False, hoverongaps=False,
             hovertemplate=(f"{plain(x_title)} %{{x}}<br>{plain(y_title)} %{{y}}<br>"
                            "%{z:.3f}<extra></extra>")),
        *([_legend_swatch(missing_label, MASKED_COLOR)] if missing else []),
    ]
    edge = [dict(type="line", xref="x", yref="y domain", x0=trained_len - 0.5,
                 x1=trained_len - 0.5, y0=0, y1=1, line=dict(color=LINE_GREY, dash="dash"))]
    return figure(traces, layout(
        title, 460, shapes=edge if missing else [], showlegend=missing,  # its one entry
        xaxis=axis(x_title, range=[-0.5, len(table) - 0.5]),
        yaxis=axis(y_title, range=[-0.5, len(dims) - 0.5])))


def t5_buckets(distances: np.ndarray, bidirectional: np.ndarray, causal: np.ndarray,
               max_distance: int, *, title: str, names: tuple[str, str], x_title: str,
               y_title: str, max_label: str) -> go.Figure:
    """T5's bucket index against distance r = key - query, bidirectional and causal
    (staircases), dotted at r = ±max_distance; the dotted lines are named in the legend."""
    top = float(max(bidirectional.max(), causal.max()))
    return figure([
        *(dict(type="scatter", x=distances, y=buckets, mode="lines", line_shape="hv",
               name=plain(name), line_color=color)
          for name, buckets, color in zip(names, (bidirectional, causal), T5_COLORS,
                                          strict=True)),
        dict(type="scatter", x=[-max_distance, -max_distance, None, max_distance, max_distance],
             y=[0, top, None, 0, top], mode="lines", name=plain(max_label), hoverinfo="skip",
             line=dict(color=LINE_GREY, dash="dot")),
    ], layout(title, 460, xaxis=axis(x_title, showgrid=True),
              yaxis=axis(y_title, showgrid=True)))
