// posviz/figures/rope.py's plane_view for a typed sentence: one channel pair of every token,
// (T, 2) before and after rotation, as arrows from the origin. The figure the server sent keeps
// its title, axes' words, legend keys and colour scale; what depends on the sentence (the arrows,
// their colours, labels, arcs and the axes' ranges) is drawn again here, by the rule the server
// sent (ui/live.py's plane, posviz.figures.rope.plane_style), in plane_view's order: legend keys
// (before, after, and arc for short sentences), the heads before, the heads after, then for short
// sentences the arcs; shafts before rotation first, labels after rotation first.

// numpy's linspace(0, 1, n): i * step, the last exactly 1
function linspace(n) {
  const step = 1 / (n - 1);
  return Array.from({ length: n }, (_, i) => (n > 1 && i === n - 1 ? 1 : i * step));
}

// Python's round half to even of a double (plotly.colors.convert_to_RGB_255)
const halfEven = (v) => {
  const low = Math.floor(v);
  return v - low === 0.5 ? low + (low % 2) : Math.round(v);
};

// plotly.colors.sample_colorscale(stops, linspace(0, 1, n)) as "rgb(r, g, b)": stops are the
// sent "stop colour stop colour ..." (posviz.figures.rope.token_colors).
export function token_colors(n, stops) {
  const words = stops.split(" ");
  const scale = [], colors = [];
  for (let i = 0; i < words.length; i += 2) {
    scale.push(Number(words[i]));
    colors.push([1, 3, 5].map((at) => parseInt(words[i + 1].slice(at, at + 2), 16) / 255));
  }
  return linspace(n).map((point) => {
    let high = 0;
    while (high < scale.length && scale[high] < point) high += 1;  // bisect_left
    const low = (high - 1 + scale.length) % scale.length;  // -1: Python's last
    const t = (point - scale[low]) / (scale[high] - scale[low]);
    const rgb = colors[low].map((c, i) => c + t * (colors[high][i] - c));
    return `rgb(${rgb.map((c) => halfEven(c * 255)).join(", ")})`;
  });
}

const point = (a, t) => [a.data[2 * t], a.data[2 * t + 1]];
const points = (a) => Array.from({ length: a.data.length / 2 }, (_, t) => point(a, t));
const isClose = (a, b) => Math.abs(a - b) <= 1e-8 + 1e-5 * Math.abs(b);  // numpy's isclose
const turnOf = (x, m) => ((x % m) + m) % m;  // numpy's mod: the sign of m

// Dotted arcs along which each tip turned, counter-clockwise, the net turn (float32, as sent).
function turnArcs(before, after, n, style) {
  const steps = linspace(style.arc_points);
  const x = [], y = [], color = [];
  before.forEach(([bx, by], t) => {
    const start = Math.atan2(by, bx);
    const turn = turnOf(Math.atan2(after[t][1], after[t][0]) - start, 2 * Math.PI);
    const radius = Math.hypot(bx, by);
    steps.forEach((s) => {
      const angle = start + turn * s;
      x.push(Math.fround(radius * Math.cos(angle)));
      y.push(Math.fround(radius * Math.sin(angle)));
      color.push(t);
    });
  });
  return { type: "scatter", x, y, mode: "markers",
           marker: { size: style.arc_dot, ...byPosition(color, n, style) }, showlegend: false,
           hoverinfo: "skip" };
}

function byPosition(positions, n, style) {
  const words = style.colors.split(" ");
  const colorscale = [];
  for (let i = 0; i < words.length; i += 2) colorscale.push([Number(words[i]), words[i + 1]]);
  return { color: positions, colorscale, cmin: 0, cmax: Math.max(n - 1, 1) };
}

function heads(trace, tips, labels, n, style) {
  return { ...trace, x: tips.map((p) => p[0]), y: tips.map((p) => p[1]),
           customdata: labels,
           marker: { ...trace.marker,
                     angle: tips.map(([x, y]) => 90 - (Math.atan2(y, x) * 180) / Math.PI),
                     ...byPosition(tips.map((_, t) => t), n, style) } };
}

const shafts = (tips, colors, line) => tips.map(([x, y], t) => ({
  type: "line", x0: 0, y0: 0, x1: x, y1: y, layer: "below", line: { color: colors[t], ...line } }));

function tipNotes(tips, labels, colors, style) {
  return tips.map(([x, y], t) => {
    const length = Math.hypot(x, y);
    const [dx, dy] = length > 0 ? [x / length, y / length] : [0, 1];  // at the origin: above
    return { x, y, xref: "x", yref: "y", text: labels[t], showarrow: true, arrowhead: 0,
             arrowwidth: style.leader_width, arrowcolor: colors[t], standoff: style.standoff,
             ax: style.label_offset * dx, ay: -style.label_offset * dy,
             font: { size: style.label_size } };
  });
}

function tight(values, pad) {
  return [Math.min(0, ...values) - pad, Math.max(0, ...values) + pad];
}

// The figure drawn again for before and after ({shape: [T, 2], data}) and labels (as the
// figure shows text); words: the legend's names.
export function planeView(figure, beforeArray, afterArray, labels, style, words) {
  const before = points(beforeArray), after = points(afterArray);
  const n = labels.length;
  const colors = token_colors(n, style.colors);
  const short = n <= style.tip_labels;
  const keys = figure.data.filter((trace) => trace.showlegend !== false);
  const [beforeHeads, afterHeads] = figure.data.filter((trace) => trace.showlegend === false
    && trace.marker && trace.marker.symbol === "arrow");
  const arcKey = { ...keys[0], name: words.arc_name, line: { ...keys[0].line, dash: "dot" } };
  const data = [keys[0], keys[1], ...(short ? [arcKey] : []),
                heads(beforeHeads, before, labels, n, style),
                heads(afterHeads, after, labels, n, style)];
  const reach = Math.max(...before.map(([x, y]) => Math.hypot(x, y)),
                         ...after.map(([x, y]) => Math.hypot(x, y)), 1e-9);
  let notes = [];
  const all = [...before, ...after];
  if (short) {
    const arcs = turnArcs(before, after, n, style);
    data.push(arcs);
    all.push(...arcs.x.map((x, i) => [x, arcs.y[i]]));
    notes = tipNotes(after, labels, colors, style);
    if (n <= style.before_labels) {  // a token that did not turn: one label
      const moved = before.map((_, t) => t).filter((t) => !(isClose(before[t][0], after[t][0])
        && isClose(before[t][1], after[t][1])));
      notes.push(...tipNotes(moved.map((t) => before[t]), moved.map((t) => labels[t]),
                             moved.map((t) => colors[t]), style));
    }
  }
  const pad = (short ? style.label_room : style.plain_room) * reach;
  const xRange = tight(all.map((p) => p[0]), pad);
  const yRange = tight(all.map((p) => p[1]), pad);
  const layout = figure.layout;
  layout.shapes = [...shafts(before, colors, { width: style.shaft_before, dash: "dash" }),
                   ...shafts(after, colors, { width: style.shaft_after })];
  layout.annotations = notes;
  layout.xaxis.range = xRange;
  layout.yaxis.range = yRange;
  layout.meta.spread = short;
  if (layout.meta.short && layout.meta.short.xaxis) layout.meta.short.xaxis.range = xRange;
  figure.data = data;
}
