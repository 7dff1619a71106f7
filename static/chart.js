// posviz's chart element, bundled from assets/viewer/chart/ (sources sha256 081498b35f3398b6e67aa70a42c51b0e0ad09bedab9db810670043a1749e21a8) by `npm run build`: edit those.
// chart/numbers.js
var shown = (trace) => trace.hoverinfo !== "skip";
var plain = (text) => new DOMParser().parseFromString(String(text), "text/html").documentElement.textContent;
var heard = (title) => plain(String(title).replace(/<br\s*\/?>/gi, " "));
var TYPED = {
  f4: Float32Array,
  f8: Float64Array,
  i1: Int8Array,
  u1: Uint8Array,
  i2: Int16Array,
  u2: Uint16Array,
  i4: Int32Array,
  u4: Uint32Array
};
function flat(v) {
  if (v === void 0 || v === null) return [];
  if (v.bdata === void 0) return Array.from(v);
  const bytes = Uint8Array.from(atob(v.bdata), (c) => c.charCodeAt(0));
  return Array.from(new TYPED[v.dtype](bytes.buffer));
}
function matrix(trace) {
  const z = trace.z;
  if (z.bdata !== void 0) {
    const cols = Number(String(z.shape).split(",")[1]);
    const all = flat(z);
    return Array.from({ length: all.length / cols }, (_, r) => all.slice(r * cols, (r + 1) * cols));
  }
  return Array.from(z, (row) => Array.from(row, (v) => v === null ? NaN : Number(v)));
}
var values = (trace) => flat(trace.y).map((v) => v === null ? NaN : Number(v));
function panelTitle(gd, trace) {
  const layout = gd.layout || {};
  const xaxis = layout[`xaxis${(trace.xaxis || "x").slice(1)}`] || {};
  const yaxis = layout[`yaxis${(trace.yaxis || "y").slice(1)}`] || {};
  if (!xaxis.domain || !yaxis.domain) return "";
  const [x0, x1] = xaxis.domain;
  const note = (layout.annotations || []).find((a) => a.xref === "paper" && a.yref === "paper" && a.text && a.x >= x0 - 1e-6 && a.x <= x1 + 1e-6 && Math.abs(a.y - yaxis.domain[1]) < 0.02);
  return note ? heard(note.text) : "";
}
var quoted = (cell2) => /[",\n]/.test(cell2) ? `"${cell2.replaceAll('"', '""')}"` : cell2;
var csvLine = (cells) => cells.map((c) => quoted(String(c))).join(",");
var number = (v) => Number.isNaN(v) ? "" : String(v);
function grids(gd) {
  const maps = gd.data.filter((t) => t.type === "heatmap" && shown(t));
  if (maps.length) {
    return maps.map((t) => {
      const z = matrix(t);
      const cols = t.x ? flat(t.x).map(plain) : z[0].map((_, c) => c);
      const rows2 = t.y ? flat(t.y).map(plain) : z.map((_, r) => r);
      return {
        name: panelTitle(gd, t) || plain(t.name ?? ""),
        head: ["", ...cols],
        rows: z.map((row, r) => [rows2[r], ...row])
      };
    });
  }
  const lines = gd.data.filter((t) => (t.type === "scatter" || t.type === "bar") && shown(t));
  const layout = gd.layout || {};
  const axisTitle = (key, fallback) => {
    const title = (layout[key] || {}).title;
    return title && heard(title.text ?? title) || fallback;
  };
  const first = lines[0] || {};
  const head = [
    (gd.posvizLabels || {}).series || "series",
    // the reader's word for a line
    axisTitle(`xaxis${(first.xaxis || "x").slice(1)}`, "x"),
    axisTitle(`yaxis${(first.yaxis || "y").slice(1)}`, "y")
  ];
  const rows = [];
  lines.forEach((t, i) => {
    const xs = flat(t.x);
    values(t).forEach((y, j) => {
      const x = xs[j] ?? j;
      if (!Number.isNaN(y)) rows.push([plain(t.name ?? `trace ${i}`), typeof x === "number" ? x : plain(x), y]);
    });
  });
  return [{ name: "", head, rows }];
}
var cell = (v) => typeof v === "number" ? number(v) : String(v);
function tables(gd) {
  return grids(gd).map(({ head, rows }) => [csvLine(head), ...rows.map(
    (row) => csvLine(row.map(cell))
  )].join("\n") + "\n");
}
function npy(matrices) {
  const shape = matrices.length === 1 ? [matrices[0].length, matrices[0][0].length] : [matrices.length, matrices[0].length, matrices[0][0].length];
  let header = `{'descr': '<f4', 'fortran_order': False, 'shape': (${shape.join(", ")}${shape.length === 1 ? "," : ""}), }`;
  header += " ".repeat(63 - (10 + header.length) % 64) + "\n";
  const data = new Float32Array(matrices.flat(2));
  const out = new Uint8Array(10 + header.length + data.byteLength);
  out.set([147, ..."NUMPY"].map((c) => typeof c === "string" ? c.charCodeAt(0) : c), 0);
  out.set([1, 0, header.length & 255, header.length >> 8], 6);
  out.set(new TextEncoder().encode(header), 10);
  out.set(new Uint8Array(data.buffer), 10 + header.length);
  return out;
}
function arrays(gd) {
  const maps = gd.data.filter((t) => t.type === "heatmap" && shown(t)).map(matrix);
  if (!maps.length) return [];
  const same = maps.every((m) => m.length === maps[0].length && m[0].length === maps[0][0].length);
  return same ? [npy(maps)] : maps.map((m) => npy([m]));
}

// chart/words.js
var TERMS = `
\u5934 \u5C42 \u6876 \u8868 \u952E \u4E0A\u754C \u4E2A\u6570 \u4EE3\u7801 \u4F4D\u7F6E \u4F59\u5F26 \u4FE1\u606F \u5012\u5E8F \u504F\u79FB \u504F\u7F6E \u516C\u5F0F \u5206\u6570 \u53D8\u4F53
\u53E5\u5B50 \u540D\u6B21 \u56E0\u5B50 \u56E0\u679C \u5750\u6807 \u5BBD\u5EA6 \u5BF9\u6570 \u5BF9\u79F0 \u5C0F\u5757 \u5E38\u6570 \u5E95\u6570 \u5F27\u5EA6 \u6240\u5F97 \u635F\u5931 \u63A9\u7801
\u6570\u503C \u6587\u672C \u659C\u7387 \u65B9\u6848 \u65CB\u8F6C \u6743\u91CD \u67E5\u8BE2 \u6A21\u578B \u6B63\u5F26 \u6CE2\u957F \u6E29\u5EA6 \u7070\u8272 \u70B9\u79EF \u76F8\u5BF9 \u793A\u610F
\u7CFB\u6570 \u7EDD\u5BF9 \u7EF4\u5EA6 \u7F16\u53F7 \u7F16\u7801 \u8870\u51CF \u8BAD\u7EC3 \u8BBA\u6587 \u8BCD\u5143 \u8DDD\u79BB \u8F93\u5165 \u8F93\u51FA \u8FDC\u7A0B \u901A\u9053 \u987A\u5E8F
\u9AD8\u5EA6 \u4F4D\u7F6E\u6570 \u53EF\u5B66\u4E60 \u56FE\u50CF\u5757 \u5E73\u79FB\u91CF \u6CE8\u610F\u529B \u76F8\u4F3C\u5EA6 \u8BCD\u5D4C\u5165 \u901A\u9053\u5BF9 \u901A\u9053\u6570 \u9A8C\u8BC1\u96C6
\u8F74 \u589E\u76CA \u7EA7\u6570 \u9891\u7387 \u957F\u5EA6`;
var AROUND = `
\u4E0A \u4E0D \u4E0E \u4E2A \u4E2D \u4E58 \u4E86 \u500D \u505A \u5176 \u51FA \u5217 \u521A \u5230 \u524D \u52A0 \u539F \u5404 \u540E \u548C \u5728 \u5916 \u5BF9
\u5DF2 \u5FEB \u60F3 \u6162 \u6240 \u628A \u6309 \u6570 \u65B0 \u65E0 \u65F6 \u662F \u6700 \u6709 \u6B64 \u6BCF \u7531 \u7684 \u770B \u7B2C \u80FD \u884C \u88AB
\u8F6C \u9664 \u968F \u4E00\u4E2A \u4E00\u5708 \u4E0D\u52A8 \u4E0D\u542B \u4E24\u4E2A \u4E24\u79CD \u4E4B\u540E \u4E4B\u95F4 \u4EC0\u4E48 \u4EE5\u53CA \u4EFB\u4F55 \u4F7F\u7528 \u4F9D\u6B21
\u4FDD\u6301 \u5168\u90E8 \u5173\u6389 \u5173\u95ED \u51FA\u73B0 \u524D\u9762 \u52A0\u4E0A \u52A0\u6743 \u5355\u4E2A \u53C2\u8003 \u53D8\u4E86 \u53D8\u5316 \u53E5\u672B \u53EF\u80FD \u5404\u79CD
\u5404\u81EA \u540C\u65F6 \u540E\u79FB \u54EA\u4E9B \u56DB\u4E2A \u56DB\u79CD \u590D\u5236 \u591A\u5C11 \u591A\u8FDC \u5BF9\u9F50 \u5C1A\u672A \u5C55\u793A \u5E73\u5747 \u5F80\u56DE \u6240\u5728
\u6240\u6709 \u6240\u9009 \u6240\u9700 \u62C9\u4F38 \u6392\u5217 \u641C\u7D22 \u643A\u5E26 \u653E\u5728 \u6700\u5927 \u6BCF\u4E2A \u6BCF\u5217 \u6BCF\u5C42 \u6BCF\u884C \u6BD4\u8F83 \u76F8\u5DEE
\u76F8\u9694 \u770B\u5230 \u7B97\u51FA \u7F13\u5B58 \u8868\u793A \u8F6C\u6EE1 \u91CD\u590D \u9664\u4EE5 \u4E0B\u4E00\u4E2A \u5012\u8FC7\u6765 \u540C\u4E00\u7EC4 \u6BCF\u4E00\u5C42 \u6BCF\u4E00\u884C
\u770B\u4E0D\u5230 \u7B2C\u4E00\u4E2A \u6700\u540E\u4E00\u4E2A
\u5185 \u54EA \u5B83 \u4F60 \u4ECE \u591A \u5F97 \u52A8 \u8BA9 \u8FD9 \u9010 \u90A3 \u7EBF \u4E3A\u6B62 \u4E00\u6BB5 \u5173\u6CE8 \u54EA\u91CC \u8303\u56F4 \u5F00\u59CB \u600E\u6837 \u4FDD\u7559
\u5206 \u5F97\u5206 \u504F\u79BB \u6CA1\u6709 \u8F6C\u52A8 \u914D\u5BF9 \u9519\u8BEF \u8FD9\u4E2A \u6700\u591A \u9010\u5BF9 \u6BCF\u4E00\u5BF9 \u8D77\u4F5C\u7528`;
var WORDS = new Set(`${TERMS} ${AROUND}`.split(/\s+/).filter(Boolean));
var LONGEST = Math.max(...[...WORDS].map((word) => word.length));
function words(run) {
  const n = run.length;
  const fewest = Array(n + 1).fill(Infinity);
  const next = Array(n + 1);
  fewest[n] = 0;
  for (let i = n - 1; i >= 0; i -= 1) {
    for (let j = Math.min(n, i + LONGEST); j > i; j -= 1) {
      if ((j - i === 1 || WORDS.has(run.slice(i, j))) && 1 + fewest[j] < fewest[i]) {
        fewest[i] = 1 + fewest[j];
        next[i] = j;
      }
    }
  }
  const found = [];
  for (let i = 0; i < n; i = next[i]) found.push(run.slice(i, next[i]));
  return found;
}

// chart/fitting.js
var TOUCH_BAR = 32;
var HOVER_BAR = { width: 250, height: 38 };
var SLIGHT = 24;
var TITLE_SIDE_ROOM = 24;
var LINE_HEIGHT = 1.3;
var CAP_SHIFT = 0.7;
var touchScreen = () => window.matchMedia("(hover: none)").matches;
var ruler = document.createElement("canvas").getContext("2d");
var WIDE = "\u2E80-\u9FFF\uAC00-\uD7AF\uF900-\uFAFF\uFE30-\uFE4F\uFF00-\uFFEF";
var OPENING = "(\\[{\u3008\u300A\u300C\u300E\u3010\u3014\u2018\u201C\uFF08\uFF3B\uFF5B";
var CLOSING = ")\\]},.:;!?\u3001\u3002\u3009\u300B\u300D\u300F\u3011\u3015\u2019\u201D\u2026\uFF09\uFF3D\uFF5D\uFF0C\uFF0E\uFF1A\uFF1B\uFF01\uFF1F";
var SPACE = "[^\\S\\u00a0]";
var CLOSERS = ")\\]}\u3009\u300B\u300D\u300F\u3011\u3015\u2019\u201D\uFF09\uFF3D\uFF5D";
var GROUP = `[${OPENING}][^\\s${OPENING}${CLOSERS}]{1,6}[${CLOSERS}][${CLOSING}]*`;
var PIECES = new RegExp(`${GROUP}${SPACE}*|[${OPENING}]*(?:[${WIDE}]|(?:[^\\s${WIDE}]|\\u00a0)+)[${CLOSING}]*${SPACE}*|${SPACE}+`, "g");
var EQUATION = /(\S) = (?=\S)/g;
var HAN = /[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]{2,}/g;
function insideWords(text) {
  const inside = /* @__PURE__ */ new Set();
  for (const { 0: run, index } of text.matchAll(HAN)) {
    let at = index;
    for (const word of words(run)) {
      for (let k = 1; k < word.length; k += 1) inside.add(at + k);
      at += word.length;
    }
  }
  return inside;
}
function pieces(part) {
  const inside = insideWords(part);
  const found = [];
  for (const { 0: piece, index } of part.matchAll(PIECES)) {
    if (found.length && inside.has(index)) found[found.length - 1] += piece;
    else found.push(piece);
  }
  return found;
}
function wrapped(text, font, room) {
  ruler.font = font;
  const width = (line) => ruler.measureText(plain(line)).width;
  const kept = String(text).replace(EQUATION, "$1\xA0=\xA0");
  return kept.split(/<br\s*\/?>/i).flatMap((part) => {
    const lines = [""];
    for (const piece of pieces(part)) {
      const last = lines[lines.length - 1];
      if (last.trim() && width(last + piece.trimEnd()) > room) lines.push(piece.trimStart());
      else lines[lines.length - 1] = last + piece;
    }
    return lines.map((line) => line.trimEnd());
  });
}
function legendHeight(data, layout, width) {
  const entries = data.filter((t) => (t.showlegend === void 0 ? t.type !== "heatmap" : t.showlegend) && t.name);
  if (layout.showlegend === false || entries.length < (layout.showlegend ? 1 : 2)) return 0;
  const size = layout.legend.font && layout.legend.font.size || layout.font.size;
  ruler.font = `${size}px ${layout.font.family}`;
  const margin = layout.margin || {};
  const room = width - (margin.l || 0) - (margin.r || 0) - 60;
  const widths = entries.map((t) => 45 + ruler.measureText(plain(t.name)).width);
  const perRow = widths.reduce((a, b) => a + b, 0) < room ? entries.length : Math.max(1, Math.floor(room / Math.max(...widths)));
  return Math.ceil(Math.ceil(entries.length / perRow) * (size * LINE_HEIGHT + 3) + 10);
}
function axisTitles(layout, width) {
  const margin = layout.margin || {};
  const plot = {
    x: width - (margin.l || 0) - (margin.r || 0) - 60,
    y: (layout.height || 450) - (margin.t || 0) - (margin.b || 0) - 60
  };
  const size = Math.round(1.2 * layout.font.size);
  return Object.fromEntries(Object.keys(layout).filter((key) => /^[xy]axis\d*$/.test(key) && layout[key].title && layout[key].title.text).map((key) => {
    const axis = layout[key];
    const [from, to] = axis.domain || [0, 1];
    const font = `${axis.title.font && axis.title.font.size || size}px ${layout.font.family}`;
    const lines = wrapped(axis.title.text, font, Math.max(plot[key[0]] * (to - from), 60));
    return [key, { ...axis, title: { ...axis.title, text: lines.join("<br>") } }];
  }));
}
function titleLines(layout, width, view) {
  const title = layout.title || {};
  const size = title.font && title.font.size || Math.round(1.4 * layout.font.size);
  const font = `${size}px ${layout.font.family}`;
  const lines = title.text ? wrapped(title.text, font, Math.min(width, view) - 2 * TITLE_SIDE_ROOM) : [];
  ruler.font = font;
  const widest = Math.max(0, ...lines.map((line) => ruler.measureText(plain(line)).width));
  return {
    lines,
    size,
    widest,
    left: title.xanchor === "left",
    extra: Math.ceil(Math.max(lines.length - 1, 0) * size * LINE_HEIGHT)
  };
}
function barStrip(width, view, toolbar, { widest, left }) {
  if (!toolbar) return 0;
  if (touchScreen()) return TOUCH_BAR;
  const reach = width > view + 1 || left ? TITLE_SIDE_ROOM + widest : (width + widest) / 2;
  return reach > width - HOVER_BAR.width ? HOVER_BAR.height : 0;
}
function fitted(data, layout, width, view, toolbar, wrappedTitle, titleRoom) {
  const title = layout.title || {};
  const below = layout.legend && layout.legend.yref === "container" ? legendHeight(
    data,
    layout,
    width
  ) : 0;
  const { lines, size, extra } = wrappedTitle;
  const side = width > view + 1 ? { x: 0, xref: "container", xanchor: "left" } : {};
  const bar = barStrip(width, view, toolbar, wrappedTitle);
  const above = Math.max(extra + bar, titleRoom);
  const lower = lines.length > 1 ? Math.round(CAP_SHIFT * size) : 0;
  const pad = title.pad || {};
  const margin = layout.margin || {};
  return {
    ...layout,
    ...axisTitles(layout, width),
    title: {
      ...title,
      ...side,
      text: lines.join("<br>"),
      pad: { ...pad, t: (pad.t || 0) + bar + lower, l: TITLE_SIDE_ROOM }
    },
    ...below ? { legend: { ...layout.legend, maxheight: 1 } } : {},
    // never scrolls
    margin: {
      ...margin,
      t: (margin.t === void 0 ? 100 : margin.t) + above,
      b: (margin.b === void 0 ? 80 : margin.b) + below
    },
    width,
    height: (layout.height || 450) + above + below
  };
}

// chart/labels.js
var GAP = 4;
var TURNS = [0, 25, -25, 50, -50, 75, -75, 100, -100, 130, -130, 155, -155, 180];
var STEPS = 8;
var MARKER = 8;
var overlap = (a, b, gap = 0) => a.left < b.right + gap && b.left < a.right + gap && a.top < b.bottom + gap && b.top < a.bottom + gap;
var area = (a, b) => Math.max(0, Math.min(a.right, b.right) - Math.max(a.left, b.left)) * Math.max(0, Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top));
function crosses([px, py], [qx, qy], box) {
  let [t0, t1] = [0, 1];
  const dx = qx - px, dy = qy - py;
  for (const [p, q] of [
    [-dx, px - box.left],
    [dx, box.right - px],
    [-dy, py - box.top],
    [dy, box.bottom - py]
  ]) {
    if (p === 0) {
      if (q < 0) return false;
    } else if (p < 0) t0 = Math.max(t0, q / p);
    else t1 = Math.min(t1, q / p);
  }
  return t0 < t1;
}
function markers(div, at) {
  return [...div.querySelectorAll(".scatterlayer path.point")].map((el) => el.getBoundingClientRect()).filter((r) => Math.max(r.width, r.height) >= MARKER).map((r) => ({
    left: r.left - at.left,
    right: r.right - at.left,
    top: r.top - at.top,
    bottom: r.bottom - at.top
  }));
}
function spread(div) {
  const layout = div.layout || {};
  const notes = layout.annotations || [];
  if (!(layout.meta && layout.meta.spread) || !notes.length) return Promise.resolve();
  const full = div._fullLayout;
  const [xa, ya] = [full.xaxis, full.yaxis];
  const px = (x) => xa._offset + xa.l2p(x);
  const py = (y) => ya._offset + ya.l2p(y);
  const at = div.querySelector(".main-svg").getBoundingClientRect();
  const plot = {
    left: xa._offset,
    right: xa._offset + xa._length,
    top: ya._offset,
    bottom: ya._offset + ya._length
  };
  const heads = markers(div, at);
  const shafts = (layout.shapes || []).filter((s) => s.type === "line").map((s) => [[px(s.x0), py(s.y0)], [px(s.x1), py(s.y1)]]);
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
        const a = turn * Math.PI / 180;
        const [dx, dy] = [ux * Math.cos(a) - uy * Math.sin(a), ux * Math.sin(a) + uy * Math.cos(a)];
        const reach = MARKER + GAP + step * h / 2 + Math.abs(dx) * (w / 2) + Math.abs(dy) * (h / 2);
        const [cx, cy] = [x + dx * reach, y + dy * reach];
        const box = { left: cx - w / 2, right: cx + w / 2, top: cy - h / 2, bottom: cy + h / 2 };
        const outside = box.left < plot.left || box.right > plot.right || box.top < plot.top || box.bottom > plot.bottom;
        const met = [...placed, ...heads].filter((other) => overlap(box, other, GAP));
        const clear = !outside && !met.length;
        const cost = step + Math.abs(turn) / 40 + 1.5 * shafts.filter(([p, q]) => crosses(p, q, box)).length + (clear ? 0 : 1e3 + (outside ? 1e3 : 0) + met.reduce((sum, other) => sum + area(box, other), 0));
        if (!best || cost < best.cost) best = { cost, box, cx, cy };
      }
      if (best && best.cost < 1e3 && best.cost <= step + 1) break;
    }
    placed.push(best.box);
    update[`annotations[${i}].ax`] = best.cx - x;
    update[`annotations[${i}].ay`] = best.cy - y;
  });
  return window.Plotly.relayout(div, update);
}

// chart/loader.js
var BUNDLE = "app/static/plotly-posviz.min.js";
function plotly(version) {
  if (!window.posvizPlotly) {
    window.posvizPlotly = new Promise((resolve, reject) => {
      const script = document.createElement("script");
      script.src = new URL(`${BUNDLE}?v=${version}`, document.baseURI).href;
      script.onload = () => resolve(window.Plotly);
      script.onerror = () => reject(new Error(`posviz could not load ${BUNDLE}`));
      document.head.appendChild(script);
    });
  }
  return window.posvizPlotly;
}
function themed(layout, host) {
  const style = getComputedStyle(host);
  const font = { ...layout.font, color: style.color, family: style.fontFamily };
  const grid = { gridcolor: "rgba(128, 128, 128, 0.25)", linecolor: style.color };
  const axes = Object.fromEntries(Object.keys(layout).filter((key) => /^[xy]axis\d*$/.test(key)).map((key) => [key, { ...grid, ...layout[key] }]));
  return {
    ...layout,
    ...axes,
    font,
    paper_bgcolor: "rgba(0,0,0,0)",
    plot_bgcolor: "rgba(0,0,0,0)"
  };
}

// chart/reader.js
function hideDrawing(div) {
  div.querySelectorAll("svg.main-svg").forEach((svg) => svg.setAttribute("aria-hidden", "true"));
}
var TABLE_ROWS = 100;
var DIGITS = 4;
var shortly = (v) => typeof v === "number" && Number.isFinite(v) ? String(Number(v.toPrecision(DIGITS))) : cell(v);
var described = 0;
var DESCRIBED_CSS = `
.posviz-chart .modebar-btn {min-width: 24px; min-height: 24px}
.posviz-chart .modebar-btn:focus-visible {outline: 2px solid currentColor !important;
  outline-offset: 1px}
.posviz-chart:focus-within .modebar {opacity: 1 !important}
.posviz-summary {position: absolute; width: 1px; height: 1px; margin: -1px; padding: 0;
  overflow: hidden; clip-path: inset(50%); white-space: nowrap; border: 0}
.posviz-data {font-size: .8rem; margin: .1rem 0 .5rem}
.posviz-data > summary {cursor: pointer; min-height: 24px; line-height: 24px; width: max-content}
.posviz-table-scroll {overflow: auto; max-width: 100%; max-height: 24rem; margin: .3rem 0}
.posviz-data table {border-collapse: collapse; font-variant-numeric: tabular-nums}
.posviz-data caption {text-align: left; font-weight: 600}
.posviz-data th, .posviz-data td {border: 1px solid rgba(128, 128, 128, .45);
  padding: .1rem .4rem; text-align: right; white-space: nowrap}
.posviz-data button {min-height: 24px; padding: .2rem .75rem; font: inherit; color: inherit;
  background: transparent; cursor: pointer; border: 1px solid rgba(128, 128, 128, .6);
  border-radius: .5rem}`;
function styled() {
  if (document.getElementById("posviz-described-css")) return;
  const style = document.createElement("style");
  style.id = "posviz-described-css";
  style.textContent = DESCRIBED_CSS;
  document.head.append(style);
}
function describe(data, host, div, figure) {
  let said = host.querySelector(":scope > .posviz-summary");
  if (!said) {
    styled();
    said = document.createElement("p");
    said.className = "posviz-summary";
    said.id = `posviz-summary-${++described}`;
    const details = document.createElement("details");
    details.className = "posviz-data";
    details.append(document.createElement("summary"), document.createElement("div"));
    details.addEventListener("toggle", () => details.open && fillTable(div));
    host.insertBefore(said, div);
    host.append(details);
    host.setAttribute("role", "figure");
    host.setAttribute("aria-describedby", said.id);
  }
  const title = figure.layout.title && figure.layout.title.text;
  host.setAttribute("aria-label", title ? heard(title) : data.name);
  said.textContent = data.summary || "";
  host.querySelector(":scope > .posviz-data > summary").textContent = data.labels.table || "";
  div.posvizLabels = data.labels;
}
function fillTable(div) {
  const details = div.posvizSource.host.querySelector(":scope > .posviz-data");
  if (!details || !details.open) return Promise.resolve();
  return drawPending(div).then(() => {
    const labels = div.posvizLabels;
    const box = details.querySelector(":scope > div");
    const maps = div.data.some((t) => t.type === "heatmap");
    box.replaceChildren(...grids(div).flatMap(({ name, head, rows }) => {
      const table = document.createElement("table");
      if (name) table.createCaption().textContent = name;
      const top = table.createTHead().insertRow();
      head.forEach((label) => {
        const th = document.createElement("th");
        th.scope = "col";
        th.textContent = String(label);
        top.append(th);
      });
      const body = table.createTBody();
      rows.slice(0, TABLE_ROWS).forEach((row) => {
        const tr = body.insertRow();
        row.forEach((v, i) => {
          const td = document.createElement(i === 0 ? "th" : "td");
          if (i === 0) td.scope = "row";
          td.textContent = maps && Number.isNaN(v) ? labels.hidden_cell : shortly(v);
          tr.append(td);
        });
      });
      const scroll = document.createElement("div");
      scroll.className = "posviz-table-scroll";
      scroll.tabIndex = 0;
      scroll.setAttribute("role", "region");
      scroll.setAttribute("aria-label", name || labels.table);
      scroll.append(table);
      if (rows.length <= TABLE_ROWS) return [scroll];
      const note = document.createElement("p");
      note.textContent = labels.table_rows.replace("{k}", TABLE_ROWS).replace("{n}", rows.length);
      return [scroll, note];
    }), Object.assign(document.createElement("p"), { textContent: labels.table_note }));
    const csv = document.createElement("button");
    csv.type = "button";
    csv.textContent = labels.csv;
    csv.addEventListener("click", () => div.posvizCsv());
    box.append(csv);
  });
}

// chart/draw.js
var ICON = (path) => ({ width: 24, height: 24, path });
var FRAME = "M3 3h18v18H3zM5 5v14h14V5z";
var ICONS = {
  svg: ICON(`${FRAME}M6 17l4-6 3 4 2-3 3 5zM15.5 6.5a1.5 1.5 0 1 0 .01 0z`),
  // a picture
  csv: ICON(`${FRAME}M5 9h14v1.6H5zM5 13.4h14V15H5zM10.2 5h1.6v14h-1.6z`),
  // a table
  npy: ICON("M3 5h5v2H5v10h3v2H3zM21 5h-5v2h3v10h-3v2h5zM8.5 11h2v2h-2zM13.5 11h2v2h-2z")
  // [··]
};
var watcher;
function whenNear(div, draw) {
  div.posvizPending = draw;
  if (!watcher) {
    watcher = new IntersectionObserver((entries) => entries.forEach(({ target, isIntersecting }) => {
      if (isIntersecting) drawPending(target);
    }), { rootMargin: "100% 0px" });
  }
  watcher.unobserve(div);
  watcher.observe(div);
}
function drawPending(div) {
  const draw = div.posvizPending;
  div.posvizPending = null;
  return draw ? draw() : Promise.resolve();
}
var COLUMN = '[data-testid="stColumn"]';
var ROW = '[data-testid="stHorizontalBlock"]';
var chartsOf = (column) => [...column.querySelectorAll(".posviz-chart")].filter((chart) => chart.closest(COLUMN) === column);
function rowMates(div) {
  const column = div.closest(COLUMN);
  const row = column && column.closest(ROW);
  if (!row) return [];
  const nth = chartsOf(column).indexOf(div);
  const left = div.getBoundingClientRect().left;
  return [...row.querySelectorAll(COLUMN)].filter((other) => other !== column && other.closest(ROW) === row).map((other) => chartsOf(other)[nth]).filter((other) => other && other.posvizTitle !== void 0 && Math.abs(other.getBoundingClientRect().left - left) > 1);
}
function forColumn(layout, view) {
  const meta = layout.meta || {};
  return meta.narrow && view < meta.min_width ? { ...layout, ...meta.narrow } : layout;
}
function sized(div) {
  const { figure, host, toolbar } = div.posvizSource;
  const base = forColumn(figure.layout, host.clientWidth);
  div.style.minWidth = `${base.meta.min_width || 0}px`;
  div.posvizWidth = div.clientWidth;
  div.posvizView = host.clientWidth;
  const wide = div.posvizWidth > div.posvizView + SLIGHT;
  host.classList.toggle("posviz-wide", wide);
  if (wide) host.tabIndex = 0;
  else host.removeAttribute("tabindex");
  let layout = themed(base, host);
  let title = titleLines(layout, div.posvizWidth, div.posvizView);
  div.posvizTitle = title.extra + barStrip(div.posvizWidth, div.posvizView, toolbar, title);
  const mates = rowMates(div);
  div.posvizTitleRoom = Math.max(title.extra, ...mates.map((other) => other.posvizTitle));
  const fit2 = (shape) => fitted(
    figure.data,
    shape,
    div.posvizWidth,
    div.posvizView,
    toolbar,
    title,
    div.posvizTitleRoom
  );
  let drawn = fit2(layout);
  const room = windowRoom(div);
  if (drawn.height > room && base.meta.short) {
    const { short } = base.meta;
    layout = themed({ ...base, ...short, title: { ...base.title, ...short.title } }, host);
    title = titleLines(layout, div.posvizWidth, div.posvizView);
    drawn = fit2(layout);
  }
  if (drawn.height > room) {
    const height = (layout.height || 450) - drawn.height + room;
    drawn = fit2(shortened(layout, Math.max(LEAST_PLOT, layout.meta.least || 0, height)));
  }
  div.style.height = `${drawn.height}px`;
  return { drawn, mates };
}
var WINDOW_GAP = 40;
var LEAST_PLOT = 240;
var TICK_ROOM = 45;
function shortened(layout, height) {
  const margin = { ...layout.margin, b: WINDOW_GAP };
  const plot = height - (margin.t || 0) - margin.b;
  const bars = Object.keys(layout).filter((key) => /^coloraxis\d*$/.test(key)).map((key) => {
    const bar = layout[key].colorbar || {};
    const nticks = Math.max(3, Math.floor(plot * (bar.len || 1) / TICK_ROOM));
    return [key, { ...layout[key], colorbar: { ...bar, nticks } }];
  });
  return { ...layout, ...Object.fromEntries(bars), margin, height };
}
function windowRoom(div) {
  if (!div.posvizSource.fit) return Infinity;
  const main = div.closest('[data-testid="stMain"]');
  const top = div.getBoundingClientRect().top + (main ? main.scrollTop : window.scrollY);
  return innerHeight - (top < innerHeight ? top : 0) - WINDOW_GAP;
}
function render(div, asMate = false) {
  const { drawn, mates } = sized(div);
  const drawable = div.posvizConfig && !div.posvizPending;
  const done = drawable ? window.Plotly.react(
    div,
    div.posvizSource.figure.data,
    drawn,
    div.posvizConfig
  ).then(() => spread(div)).then(() => hideDrawing(div)) : Promise.resolve();
  if (!asMate) {
    mates.filter((other) => other.posvizTitleRoom !== div.posvizTitleRoom).forEach((other) => render(other, true));
  }
  return done;
}

// chart/files.js
function save(name, bytes, type) {
  const link = document.createElement("a");
  link.href = URL.createObjectURL(new Blob([bytes], { type }));
  link.download = name;
  document.body.appendChild(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 1e4);
}
var encode = (text) => new TextEncoder().encode(text);
function numbered(gd, name, i, n, ext) {
  if (n === 1) return `${name}.${ext}`;
  const parts = gd.data.filter((t) => t.type === "heatmap" && shown(t)).map((t) => t.name);
  const named = parts.length === n && parts.every(Boolean) && new Set(parts).size === n;
  return `${name}-${named ? parts[i] : i + 1}.${ext}`;
}
async function image(gd, format) {
  const url = await window.Plotly.toImage(gd, { format, scale: format === "png" ? 2 : 1 });
  if (format === "svg") return encode(decodeURIComponent(url.slice(url.indexOf(",") + 1)));
  return Uint8Array.from(atob(url.slice(url.indexOf(",") + 1)), (c) => c.charCodeAt(0));
}
var CRC = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k += 1) c = c & 1 ? 3988292384 ^ c >>> 1 : c >>> 1;
  return c >>> 0;
});
function crc32(bytes) {
  let c = 4294967295;
  for (const b of bytes) c = CRC[(c ^ b) & 255] ^ c >>> 8;
  return (c ^ 4294967295) >>> 0;
}
function record(length, fields) {
  const view = new DataView(new ArrayBuffer(length));
  fields.forEach(([at, value, size]) => size === 2 ? view.setUint16(at, value, true) : view.setUint32(at, value, true));
  return new Uint8Array(view.buffer);
}
function zip(files) {
  const parts = [], central = [];
  let offset = 0;
  for (const [name, data] of files) {
    const path = encode(name), crc = crc32(data);
    const common = [
      [2048, 2],
      [0, 2],
      [0, 2],
      [33, 2],
      [crc, 4],
      [data.length, 4],
      [data.length, 4],
      [path.length, 2],
      [0, 2]
    ];
    parts.push(
      record(30, [
        [0, 67324752, 4],
        [4, 20, 2],
        ...common.map(([v, size2], i) => [6 + offsetOf(common, i), v, size2])
      ]),
      path,
      data
    );
    central.push(record(46, [
      [0, 33639248, 4],
      [4, 20, 2],
      [6, 20, 2],
      ...common.map(([v, size2], i) => [8 + offsetOf(common, i), v, size2]),
      [42, offset, 4]
    ]), path);
    offset += 30 + path.length + data.length;
  }
  const size = central.reduce((n, part) => n + part.length, 0);
  const end = record(22, [
    [0, 101010256, 4],
    [8, files.length, 2],
    [10, files.length, 2],
    [12, size, 4],
    [16, offset, 4]
  ]);
  return new Blob([...parts, ...central, end], { type: "application/zip" });
}
var offsetOf = (fields, i) => fields.slice(0, i).reduce((n, [, size]) => n + size, 0);
async function chartFiles(gd) {
  const name = gd.dataset.name;
  const csvs = tables(gd), npys = arrays(gd);
  return [
    [`${name}.png`, await image(gd, "png")],
    [`${name}.svg`, await image(gd, "svg")],
    ...csvs.map((csv, i) => [numbered(gd, name, i, csvs.length, "csv"), encode(csv)]),
    ...npys.map((bytes, i) => [numbered(gd, name, i, npys.length, "npy"), bytes])
  ];
}

// chart/formulas.js
var SMALLEST = 0.6;
var FORMULAS = "[data-testid=stMarkdownContainer]:has(> p > .katex:only-child)";
var fitter = new ResizeObserver((entries) => entries.forEach(({ target }) => {
  if (target.clientWidth !== target.posvizFitWidth) fit(target);
}));
function fit(box) {
  box.posvizFitWidth = box.clientWidth;
  box.style.fontSize = "";
  const over = box.scrollWidth / box.clientWidth;
  if (over > 1.005) box.style.fontSize = `${Math.max(SMALLEST, 1 / over) * 100}%`;
}
function fitFormulas(scope, selector = FORMULAS) {
  if (!window.posvizFontsWatched) {
    window.posvizFontsWatched = true;
    document.fonts.addEventListener("loadingdone", () => document.querySelectorAll(selector).forEach((box) => box.posvizFitted && fit(box)));
  }
  scope.querySelectorAll(selector).forEach((box) => {
    if (!box.posvizFitted) {
      box.posvizFitted = true;
      fitter.observe(box);
    } else if (box.scrollWidth > box.clientWidth + 1 && box.style.fontSize !== `${SMALLEST * 100}%`) {
      fit(box);
    }
  });
}

// chart/page.js
function watchPage() {
  if (window.posvizWatch) return;
  let queued = false;
  const touch = () => {
    queued = false;
    fitFormulas(document);
    document.querySelectorAll('[class*="st-key-room_join"] input').forEach((input) => {
      if (input.inputMode !== "numeric") input.inputMode = "numeric";
    });
  };
  window.posvizWatch = new MutationObserver(() => {
    if (!queued) queued = Boolean(requestAnimationFrame(touch));
  });
  window.posvizWatch.observe(document.body, { childList: true, subtree: true });
  touch();
}
function drawTools(data, parentElement) {
  let box = parentElement.querySelector(".posviz-tools");
  if (!box) {
    box = document.createElement("div");
    box.className = "posviz-tools";
    box.innerHTML = `<button type="button" data-tool="link"></button>
      <button type="button" data-tool="zip"></button><div class="posviz-tools-note"></div>`;
    parentElement.appendChild(box);
  }
  const [link, pack] = box.querySelectorAll("button");
  const note = box.querySelector(".posviz-tools-note");
  link.textContent = data.labels.link;
  pack.textContent = data.labels.zip;
  link.onclick = async () => {
    const url = window.location.href;
    try {
      await navigator.clipboard.writeText(url);
      note.textContent = data.labels.copied;
    } catch {
      note.textContent = url;
    }
  };
  pack.onclick = async () => {
    note.textContent = data.labels.packing;
    const waiting = [...document.querySelectorAll(".posviz-chart")];
    await Promise.all(waiting.map(drawPending));
    const charts = [...document.querySelectorAll(".posviz-chart.js-plotly-plot")];
    const files = (await Promise.all(charts.map(chartFiles))).flat();
    save(`posviz-${data.page}.zip`, zip(files), "application/zip");
    note.textContent = data.labels.packed.replace("{n}", charts.length);
  };
}

// chart/chart.js
var followingTheme = false;
function followTheme() {
  if (followingTheme || !window.matchMedia) return;
  followingTheme = true;
  window.matchMedia("(prefers-color-scheme: dark)").addEventListener("change", () => {
    document.querySelectorAll(".posviz-chart").forEach((div) => {
      if (div.posvizSource && div.isConnected && div.offsetParent !== null) render(div);
    });
  });
}
function chartLocale(lang, element) {
  const tag = (lang || (element.closest("[lang]") || document.documentElement).lang || "").toLowerCase();
  return tag.startsWith("zh") ? "zh-CN" : "en";
}
function drawChart(data, parentElement) {
  followTheme();
  let div = parentElement.querySelector(".posviz-chart");
  if (!div) {
    const cue = document.createElement("div");
    cue.className = "posviz-scroll-cue";
    cue.setAttribute("aria-hidden", "true");
    div = document.createElement("div");
    div.className = "posviz-chart";
    parentElement.append(cue, div);
    parentElement.style.overflowX = "auto";
  }
  parentElement.querySelector(".posviz-scroll-cue").textContent = data.labels.scroll || "";
  const figure = JSON.parse(data.figure);
  figure.layout.meta = figure.layout.meta || {};
  div.dataset.name = data.name;
  div.posvizSource = {
    figure,
    host: parentElement,
    toolbar: data.modebar !== false,
    fit: !!data.fit
  };
  describe(data, parentElement, div, figure);
  if (!div.posvizResize) {
    div.posvizResize = new ResizeObserver(() => {
      if (div.isConnected && div.offsetParent !== null && (div.posvizPending || div.classList.contains("js-plotly-plot")) && (div.clientWidth !== div.posvizWidth || parentElement.clientWidth !== div.posvizView)) render(div);
    });
    div.posvizResize.observe(parentElement);
  }
  whenNear(div, () => plotly(data.bundle).then((Plotly) => {
    const file = `posviz-${data.name}`;
    const button = (name, click) => ({ name, title: data.labels[name], icon: ICONS[name], click });
    div.posvizCsv = () => tables(div).forEach((csv, i, all) => save(
      numbered(div, file, i, all.length, "csv"),
      "\uFEFF" + csv,
      "text/csv"
    ));
    div.posvizConfig = {
      locale: chartLocale(data.lang, parentElement),
      displaylogo: false,
      displayModeBar: data.modebar === false ? false : "hover",
      modeBarButtonsToRemove: ["select2d", "lasso2d", "autoScale2d", "sendChartToCloud"],
      toImageButtonOptions: { filename: file, scale: 2 },
      modeBarButtonsToAdd: [
        button("svg", (gd) => Plotly.downloadImage(gd, { format: "svg", filename: file })),
        button("csv", () => div.posvizCsv()),
        ...figure.data.some((t) => t.type === "heatmap") ? [button("npy", (gd) => arrays(gd).forEach((bytes, i, all) => save(
          numbered(gd, file, i, all.length, "npy"),
          bytes,
          "application/octet-stream"
        )))] : []
      ]
    };
    return render(div).then(() => fillTable(div));
  }).catch((err) => {
    div.textContent = err.message;
  }));
  if (div.offsetParent !== null) render(div);
}
function chart_default(component) {
  const { data, parentElement } = component;
  watchPage();
  (data.tools ? drawTools : drawChart)(data, parentElement);
}
export {
  chart_default as default,
  drawChart,
  fitFormulas
};
