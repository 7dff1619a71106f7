"""What a drawn chart shows a reader, read from its SVG: every text box, and what is wrong with
them. The screen sweep (tests/browser/test_browser_screens.py) runs these checks on every chart of
every page; tests/browser/test_drawn.py shows that they catch each defect on a page made to have it.

A chart is legible when
- no title, axis title, tick label, legend entry, colour-bar label, annotation, label a trace
  writes by its point or value written in a cell overlaps another text box of the same chart
  (values on bars included), nor the chart's tool bar where it is always shown (touch screens),
  nor a marker that marks a point (an arrow's head: not an arc's small dots); two tick labels
  of one axis stand TICK_GAP apart at the least along their lines (closer, "english" and
  "phone" read as "englishphone", and positions 12 and 13 as 1213);
- every text box lies inside the chart, no legend scrolls its entries out of sight, and the
  chart itself is not cut off by the page (a chart wider than its column scrolls inside it);
- no text, superscripts included, is drawn smaller than the screen's minimum;
- charts side by side in a row of columns start their plots at one height (one long title
  does not push its plot below its neighbour's);
- every line and marker (a trace's lines and markers, shapes' lines, annotations' arrows) has
  a contrast of CONTRAST or more against the page behind the chart (WCAG 1.4.11, non-text
  contrast), its colour composited with its opacities over that background; a heatmap's cells
  and a bar are areas read by their colour bar or axis, and are not held to it.

A text box is the text's own box, turned with it (tick labels at 30 degrees have boxes at 30
degrees), less a share of its line height above and below: lines of text touch where their
letters do not.
"""

from __future__ import annotations

SHRINK = 0.2
"""Share of a text box's height left out above and below its letters (and a pixel at each end)."""
MARKER = 8
"""Pixels: a marker this large or larger marks a point; its box, less a sixth on each side (an
arrow head's corners are empty), is in a label's way."""
CONTRAST = 3.0
"""The least contrast of a line or a marker against its background (WCAG 2.1 1.4.11)."""
TICK_GAP = 3
"""Pixels between two tick labels of one axis along their lines at the least: about a space at
the smallest font, so that "english" and "phone" never read as "englishphone", nor 12 and 13
as 1213."""

PROBLEMS_JS = """([minFont, shrink, marker, least, tickGap]) => {
  const problems = [];
  const describe = (box) => `${box.kind} "${box.text.slice(0, 40)}"`;
  const shown = (el) => el.checkVisibility({ opacityProperty: true, visibilityProperty: true });

  function kindOf(el) {
    const own = el.getAttribute('class') || '';
    if (own === 'gtitle') return 'title';
    if (/^[xy]\\d*title$/.test(own)) return 'axis title';
    if (el.closest('.colorbar')) return el.closest('.cbtitle') || own.includes('cbtitle')
      ? 'colour bar title' : 'colour bar label';
    if (el.closest('[class^=legend]')) return 'legend entry';
    if (el.closest('.annotation')) return 'annotation';
    const group = (el.parentElement && el.parentElement.getAttribute('class')) || '';
    if (/^[xy]\\d*tick$/.test(group)) return 'tick label';
    if (group === 'heatmap-label') return 'cell value';  // must fit its cell, as a label does
    if (el.closest('.textpoint')) return 'point label';  // a scatter trace's text by its point
    return 'value';  // a value a trace writes on a bar
  }

  // The corners of a text's own box on the page, less SHRINK of its height above and below, and
  // a pixel at each end (or, grown, that many pixels more at each end).
  function corners(el, grown = 0) {
    const box = el.getBBox(), m = el.getScreenCTM();
    const by = shrink * box.height, bx = grown ? -grown : Math.min(1, box.width / 4);
    return [[box.x + bx, box.y + by], [box.x + box.width - bx, box.y + by],
            [box.x + box.width - bx, box.y + box.height - by],
            [box.x + bx, box.y + box.height - by]]
      .map(([x, y]) => [m.a * x + m.c * y + m.e, m.b * x + m.d * y + m.f]);
  }

  // Two convex polygons overlap unless some edge's normal separates them.
  function overlap(p, q) {
    for (const poly of [p, q]) {
      for (let i = 0; i < poly.length; i += 1) {
        const [x1, y1] = poly[i], [x2, y2] = poly[(i + 1) % poly.length];
        const nx = y2 - y1, ny = x1 - x2;
        const span = (pts) => pts.map(([x, y]) => nx * x + ny * y);
        const a = span(p), b = span(q);
        if (Math.max(...a) <= Math.min(...b) + 1e-6 || Math.max(...b) <= Math.min(...a) + 1e-6) {
          return false;
        }
      }
    }
    return true;
  }

  const rectangle = (r) => [[r.left, r.top], [r.right, r.top], [r.right, r.bottom],
                            [r.left, r.bottom]];

  // The markers that mark a point, each its box less a sixth on every side.
  const markers = (chart) => [...chart.querySelectorAll('.scatterlayer path.point')]
    .filter(shown).map((el) => el.getBoundingClientRect())
    .filter((r) => Math.max(r.width, r.height) >= marker)
    .map((r) => ({ kind: 'marker', text: '', poly: rectangle({
      left: r.left + r.width / 6, right: r.right - r.width / 6,
      top: r.top + r.height / 6, bottom: r.bottom - r.height / 6 }) }));

  function boxes(chart) {
    return [...chart.querySelectorAll('.svg-container text')]
      .filter((el) => !el.closest('.hoverlayer') && el.textContent.trim() && shown(el))
      .map((el) => ({ el, kind: kindOf(el), text: el.textContent.trim(), poly: corners(el),
                      spaced: corners(el, tickGap / 2),
                      axis: el.parentElement.getAttribute('class') }))
      .filter(({ el }) => el.getBBox().width > 0);
  }

  // A chart wider than the page must sit in something that scrolls sideways.
  function clipped(chart) {
    const own = chart.getBoundingClientRect();
    for (let el = chart.parentElement; el && el !== document.body; el = el.parentElement) {
      const style = getComputedStyle(el);
      if (/auto|scroll/.test(style.overflowX)) return false;
      if (el.matches('[data-testid=stMain]')) break;
      const box = el.getBoundingClientRect();
      if (/hidden|clip/.test(style.overflowX)
          && (own.right > box.right + 1 || own.left < box.left - 1)) return true;
    }
    return own.right > document.documentElement.clientWidth + 1 || own.left < -1;
  }

  // WCAG's relative luminance and contrast ratio of sRGB colours [r, g, b] (0-255).
  const luminance = (rgb) => rgb.map((v) => v / 255)
    .map((v) => (v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4))
    .reduce((sum, v, i) => sum + [0.2126, 0.7152, 0.0722][i] * v, 0);
  const ratio = (a, b) => {
    const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
    return (hi + 0.05) / (lo + 0.05);
  };
  const rgba = (text) => {  // a computed colour: [r, g, b, alpha], or null for none
    const v = (text || '').match(/-?[\\d.]+/g);
    return !v || text === 'none' ? null : [...v.slice(0, 3).map(Number), v.length > 3 ? +v[3] : 1];
  };
  const opacity = (style, paint) => {
    const value = style.getPropertyValue(`${paint}-opacity`);
    return value === '' ? 1 : +value;
  };
  const over = ([r, g, b, a], back) => [r, g, b].map((v, i) => a * v + (1 - a) * back[i]);

  // What shows behind an element: every background under it, composited on the white canvas.
  function backdrop(el) {
    const layers = [];
    for (let at = el; at; at = at.parentElement) {
      layers.push(rgba(getComputedStyle(at).backgroundColor));
    }
    return layers.filter(Boolean).reverse().reduce((back, c) => over(c, back), [255, 255, 255]);
  }

  // Each line and marker drawn in the chart: what it is, and its colour as drawn on back.
  const INKS = [['.scatterlayer path.js-line', 'line', 'stroke'],
                ['.scatterlayer path.point', 'marker', 'fill'],
                ['.shapelayer path', "a shape's line", 'stroke'],
                ['.annotation-arrow-g path', "an annotation's arrow", 'stroke']];
  function inks(chart, back) {
    const out = [];
    for (const [selector, kind, paint] of INKS) {
      for (const el of chart.querySelectorAll(`.svg-container ${selector}`)) {
        const style = getComputedStyle(el);
        const box = el.getBBox();
        if (!shown(el) || (box.width === 0 && box.height === 0)) continue;
        let own = rgba(style[paint]), alpha = opacity(style, paint);
        if (paint === 'fill' && (!own || own[3] === 0)) {  // a marker drawn by its outline
          own = rgba(style.stroke); alpha = opacity(style, 'stroke');
        }
        if (!own || (paint === 'stroke' && parseFloat(style.strokeWidth) === 0)) continue;
        for (let at = el; at && at !== chart; at = at.parentElement) {
          alpha *= +getComputedStyle(at).opacity;
        }
        if (alpha * own[3] === 0) continue;
        const seen = over([own[0], own[1], own[2], own[3] * alpha], back);
        out.push({ kind, colour: style[paint], alpha: own[3] * alpha,
                   contrast: ratio(seen, back) });
      }
    }
    return out;
  }

  for (const chart of document.querySelectorAll('.posviz-chart.js-plotly-plot')) {
    const say = (text) => problems.push(`${chart.dataset.name}: ${text}`);
    const edge = chart.querySelector('.svg-container').getBoundingClientRect();
    const texts = boxes(chart);
    const obstacles = [...texts];
    const bar = chart.querySelector('.modebar');
    if (bar && !bar.classList.contains('modebar--hover')) {  // always shown: in the way
      obstacles.push({ kind: 'tool bar', text: '', poly: rectangle(bar.getBoundingClientRect()) });
    }
    obstacles.push(...markers(chart));

    if (clipped(chart)) say('the chart is wider than the page and does not scroll');
    const back = backdrop(chart), faint = new Set();
    for (const ink of inks(chart, back)) {
      if (ink.contrast >= least) continue;
      const line = `${ink.kind} in ${ink.colour}${ink.alpha < 1 ? ` at ${ink.alpha.toFixed(2)}`
        : ''} has a contrast of ${ink.contrast.toFixed(2)}:1 on rgb(${back.map(Math.round)}), `
        + `under ${least}:1`;
      if (!faint.has(line)) { faint.add(line); say(line); }
    }
    texts.forEach((a, i) => {
      if (a.kind === 'value') return;  // values may crowd each other, never a label
      obstacles.forEach((b, j) => {
        if (i === j || (j < i && b.kind !== 'value')) return;  // each pair of labels once
        if (overlap(a.poly, b.poly)) {
          say(`${describe(a)} overlaps ${b.kind === 'tool bar' ? 'the tool bar'
            : b.kind === 'marker' ? "a point's marker" : describe(b)}`);
        } else if (a.kind === 'tick label' && b.kind === 'tick label' && a.axis === b.axis
                   && overlap(a.spaced, b.spaced)) {
          say(`${describe(a)} runs into ${describe(b)} (under ${tickGap} px apart)`);
        }
      });
    });
    texts.forEach((box) => {
      if (box.poly.some(([x, y]) => x < edge.left - 1 || x > edge.right + 1
                                    || y < edge.top - 1 || y > edge.bottom + 1)) {
        say(`${describe(box)} is cut off at the chart's edge`);
      }
      const least = Math.min(...[box.el, ...box.el.querySelectorAll('tspan')]
        .map((el) => parseFloat(getComputedStyle(el).fontSize)));
      if (least < minFont - 0.01) {
        say(`${describe(box)} is ${least.toFixed(1)} px, under ${minFont} px`);
      }
    });
    chart.querySelectorAll('[class^=legend] > .scrollbar').forEach((scroll) => {
      if (scroll.getBoundingClientRect().height > 0) say('its legend scrolls entries out of sight');
    });
  }

  // Charts side by side (the n-th chart of each column in a row of columns, when the columns
  // stand beside each other) start their plots at one height, whatever their titles.
  const column = '[data-testid=stColumn]', row = '[data-testid=stHorizontalBlock]';
  const plotTop = (chart) => chart.querySelector('.nsewdrag').getBoundingClientRect().top;
  for (const block of document.querySelectorAll(row)) {
    const lists = [...block.querySelectorAll(column)].filter((c) => c.closest(row) === block)
      .map((c) => [...c.querySelectorAll('.posviz-chart.js-plotly-plot')]
        .filter((chart) => chart.closest(column) === c && chart.querySelector('.nsewdrag')));
    for (let n = 0; n < Math.max(0, ...lists.map((charts) => charts.length)); n += 1) {
      const [first, ...others] = lists.map((charts) => charts[n]).filter(Boolean);
      others.filter((chart) => Math.abs(chart.getBoundingClientRect().left
                                        - first.getBoundingClientRect().left) > 1)
        .forEach((chart) => {
          const apart = Math.abs(plotTop(chart) - plotTop(first));
          if (apart > 2) {
            problems.push(`${first.dataset.name} and ${chart.dataset.name}: side by side, their `
                          + `plots start ${apart.toFixed(0)} px apart`);
          }
        });
    }
  }
  return problems;
}"""


def problems(page, min_font: float) -> list[str]:
    """What is wrong with the charts drawn on the page: one line per defect, naming the chart."""
    return page.evaluate(PROBLEMS_JS, [min_font, SHRINK, MARKER, CONTRAST, TICK_GAP])
