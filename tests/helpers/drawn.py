"""What a drawn chart shows a reader, read from its SVG: every text box, and what is wrong with
them. The screen sweep (tests/browser/test_browser_screens.py) runs these checks on every chart of
every page; tests/browser/test_drawn.py shows that they catch each defect on a page made to have it.

A chart is legible when
- no title, axis title, tick label, legend entry, colour-bar label, annotation, label a trace
  writes by its point or value written in a cell overlaps another text box of the same chart
  (values on bars included), nor the chart's tool bar where it is always shown (touch screens),
  nor a marker that marks a point (an arrow's head: not an arc's small dots);
- every text box lies inside the chart, no legend scrolls its entries out of sight, and the
  chart itself is not cut off by the page (a chart wider than its column scrolls inside it);
- no text, superscripts included, is drawn smaller than the screen's minimum;
- charts side by side in a row of columns start their plots at one height (one long title
  does not push its plot below its neighbour's).

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

PROBLEMS_JS = """([minFont, shrink, marker]) => {
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

  // The corners of a text's own box on the page, less SHRINK of its height above and below.
  function corners(el) {
    const box = el.getBBox(), m = el.getScreenCTM();
    const by = shrink * box.height, bx = Math.min(1, box.width / 4);
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
      .map((el) => ({ el, kind: kindOf(el), text: el.textContent.trim(), poly: corners(el) }))
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
    texts.forEach((a, i) => {
      if (a.kind === 'value') return;  // values may crowd each other, never a label
      obstacles.forEach((b, j) => {
        if (i === j || (j < i && b.kind !== 'value')) return;  // each pair of labels once
        if (overlap(a.poly, b.poly)) {
          say(`${describe(a)} overlaps ${b.kind === 'tool bar' ? 'the tool bar'
            : b.kind === 'marker' ? "a point's marker" : describe(b)}`);
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
    return page.evaluate(PROBLEMS_JS, [min_font, SHRINK, MARKER])
