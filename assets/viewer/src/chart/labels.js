// Labels of points, placed where they can be read: clear of each other and of the points'
// markers. A figure asks for it with layout.meta.spread: its annotations with a leader line
// label points (the RoPE plane's arrow tips). Each comes set a few pixels outward from its
// point; where it would meet a label placed before it or a marker (on a projector's enlarged
// text, with tips close together), it turns round its point, then moves further out, to the
// clear place nearest the one it was given, preferring one that crosses no shaft.

const GAP = 4;  // pixels kept between a label and what it clears
const TURNS = [0, 25, -25, 50, -50, 75, -75, 100, -100, 130, -130, 155, -155, 180];  // degrees
const STEPS = 8;  // distances tried, each half a label's height further out
const MARKER = 8;  // pixels: a marker at least this large marks a point (not an arc's dot)

const overlap = (a, b, gap = 0) => a.left < b.right + gap && b.left < a.right + gap
  && a.top < b.bottom + gap && b.top < a.bottom + gap;
const area = (a, b) => Math.max(0, Math.min(a.right, b.right) - Math.max(a.left, b.left))
  * Math.max(0, Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top));

// Whether the segment p-q crosses the box (a shaft drawn under a label).
function crosses([px, py], [qx, qy], box) {
  let [t0, t1] = [0, 1];
  const dx = qx - px, dy = qy - py;
  for (const [p, q] of [[-dx, px - box.left], [dx, box.right - px],
                        [-dy, py - box.top], [dy, box.bottom - py]]) {
    if (p === 0) {
      if (q < 0) return false;
    } else if (p < 0) t0 = Math.max(t0, q / p);
    else t1 = Math.min(t1, q / p);
  }
  return t0 < t1;
}

// Every drawn marker of a point, as a box in the chart's own pixels.
function markers(div, at) {
  return [...div.querySelectorAll(".scatterlayer path.point")]
    .map((el) => el.getBoundingClientRect())
    .filter((r) => Math.max(r.width, r.height) >= MARKER)
    .map((r) => ({ left: r.left - at.left, right: r.right - at.left, top: r.top - at.top,
                   bottom: r.bottom - at.top }));
}

export function spread(div) {
  const layout = div.layout || {};
  const notes = layout.annotations || [];
  if (!(layout.meta && layout.meta.spread) || !notes.length) return Promise.resolve();
  const full = div._fullLayout;
  const [xa, ya] = [full.xaxis, full.yaxis];
  const px = (x) => xa._offset + xa.l2p(x);
  const py = (y) => ya._offset + ya.l2p(y);
  const at = div.querySelector(".main-svg").getBoundingClientRect();
  const plot = { left: xa._offset, right: xa._offset + xa._length, top: ya._offset,
                 bottom: ya._offset + ya._length };
  const heads = markers(div, at);
  const shafts = (layout.shapes || []).filter((s) => s.type === "line")
    .map((s) => [[px(s.x0), py(s.y0)], [px(s.x1), py(s.y1)]]);
  const placed = [];
  const update = {};
  notes.forEach((note, i) => {
    const drawn = div.querySelector(`.annotation[data-index="${i}"] .bg`);
    if (!note.showarrow || !drawn) return;
    const { width: w, height: h } = drawn.getBoundingClientRect();
    const [x, y] = [px(note.x), py(note.y)];
    const given = Math.hypot(note.ax, note.ay) || 1;
    const [ux, uy] = [note.ax / given, note.ay / given];
    let best = null;
    for (let step = 0; step < STEPS; step += 1) {
      for (const turn of TURNS) {
        const a = (turn * Math.PI) / 180;
        const [dx, dy] = [ux * Math.cos(a) - uy * Math.sin(a), ux * Math.sin(a) + uy * Math.cos(a)];
        // the box's near edge MARKER + GAP pixels from the point, then further out
        const reach = MARKER + GAP + (step * h) / 2 + Math.abs(dx) * (w / 2)
          + Math.abs(dy) * (h / 2);
        const [cx, cy] = [x + dx * reach, y + dy * reach];
        const box = { left: cx - w / 2, right: cx + w / 2, top: cy - h / 2, bottom: cy + h / 2 };
        const outside = box.left < plot.left || box.right > plot.right || box.top < plot.top
          || box.bottom > plot.bottom;
        const met = [...placed, ...heads].filter((other) => overlap(box, other, GAP));
        const clear = !outside && !met.length;
        const cost = step + Math.abs(turn) / 40
          + 1.5 * shafts.filter(([p, q]) => crosses(p, q, box)).length
          + (clear ? 0 : 1000 + (outside ? 1000 : 0)
             + met.reduce((sum, other) => sum + area(box, other), 0));
        if (!best || cost < best.cost) best = { cost, box, cx, cy };
      }
      if (best && best.cost < 1000 && best.cost <= step + 1) break;  // nothing nearer is clear
    }
    placed.push(best.box);
    update[`annotations[${i}].ax`] = best.cx - x;
    update[`annotations[${i}].ay`] = best.cy - y;
  });
  return window.Plotly.relayout(div, update);
}
