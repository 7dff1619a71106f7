// posviz's chart element, bundled from assets/viewer/chart/ (sources sha256 32d91669abb3b9e039478961140bd4f7ffc6323e94487a5a273e4cca63caa864) by `npm run build`: edit those.
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
function values(trace, axis) {
  const base = flat(trace.base);
  return flat(trace[axis]).map((v, j) => v === null ? NaN : Number(v) + Number(base[j] ?? 0));
}
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
        name: panelTitle(gd, t) || heard(t.name ?? ""),
        head: ["", ...cols],
        rows: z.map((row, r) => [rows2[r], ...row])
      };
    });
  }
  const lines = gd.data.filter((t) => (t.type === "scatter" || t.type === "bar") && shown(t));
  const layout = gd.layout || {};
  const axisTitle = (key, fallback) => {
    const title2 = (layout[key] || {}).title;
    return title2 && heard(title2.text ?? title2) || fallback;
  };
  const first = lines[0] || {};
  const [at, value] = first.type === "bar" && first.orientation === "h" ? ["y", "x"] : ["x", "y"];
  const title = (axis, fallback) => axisTitle(
    `${axis}axis${(first[`${axis}axis`] || axis).slice(1)}`,
    fallback
  );
  const head = [
    (gd.posvizLabels || {}).series || "series",
    // the reader's word for a line
    title(at, at === "y" ? "" : "x"),
    title(value, value)
  ];
  const rows = [];
  lines.forEach((t, i) => {
    const places = flat(t[at]);
    values(t, value).forEach((v, j) => {
      const place = places[j] ?? j;
      if (!Number.isNaN(v)) rows.push([heard(t.name ?? `trace ${i}`), typeof place === "number" ? place : plain(place), v]);
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
function wrapped(text, font, room) {
  ruler.font = font;
  const width = (line) => ruler.measureText(plain(line)).width;
  const kept = String(text).replace(EQUATION, "$1\xA0=\xA0");
  return kept.split(/<br\s*\/?>/i).flatMap((part) => {
    const lines = [""];
    for (const piece of part.match(PIECES) || []) {
      const last = lines[lines.length - 1];
      if (last.trim() && width(last + piece.trimEnd()) > room) lines.push(piece.trimStart());
      else lines[lines.length - 1] = last + piece;
    }
    return lines.map((line) => line.trimEnd());
  });
}
var BREAK = /<br\s*\/?>/i;
var inLegend = (t) => (t.showlegend === void 0 ? t.type !== "heatmap" : t.showlegend) && t.name;
var legendFont = (layout) => `${layout.legend.font && layout.legend.font.size || layout.font.size}px ${layout.font.family}`;
function legendNames(data, layout, width) {
  if (!layout.legend || layout.legend.yref !== "container") return data;
  const font = legendFont(layout);
  const room = width - 70;
  ruler.font = font;
  return data.map((t) => inLegend(t) && String(t.name).split(BREAK).some((line) => ruler.measureText(plain(line)).width > room) ? { ...t, name: wrapped(t.name, font, room).join("<br>") } : t);
}
function legendHeight(data, layout, width) {
  const entries = data.filter(inLegend);
  if (layout.showlegend === false || entries.length < (layout.showlegend ? 1 : 2)) return 0;
  const size = layout.legend.font && layout.legend.font.size || layout.font.size;
  ruler.font = legendFont(layout);
  const margin = layout.margin || {};
  const room = width - (margin.l || 0) - (margin.r || 0) - 60;
  const lines = entries.map((t) => String(t.name).split(BREAK));
  const widths = lines.map((name) => 45 + Math.max(
    ...name.map((line) => ruler.measureText(plain(line)).width)
  ));
  const perRow = widths.reduce((a, b) => a + b, 0) < room ? entries.length : Math.max(1, Math.floor(room / Math.max(...widths)));
  let height = 10;
  for (let first = 0; first < entries.length; first += perRow) {
    const tallest = Math.max(...lines.slice(first, first + perRow).map((name) => name.length));
    height += tallest * size * LINE_HEIGHT + 3;
  }
  return Math.ceil(height);
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
    extra: Math.ceil(Math.max(lines.length - 1, 0) * size * LINE_HEIGHT)
  };
}
function barStrip(width, view, toolbar, { widest }) {
  if (!toolbar) return 0;
  if (touchScreen()) return TOUCH_BAR;
  const reach = width > view + 1 ? TITLE_SIDE_ROOM + widest : (width + widest) / 2;
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
  const title = titleLines(layout, div.posvizWidth, div.posvizView);
  div.posvizTitle = title.extra + barStrip(div.posvizWidth, div.posvizView, toolbar, title);
  const mates = rowMates(div);
  div.posvizTitleRoom = Math.max(title.extra, ...mates.map((other) => other.posvizTitle));
  div.posvizData = legendNames(figure.data, layout, div.posvizWidth);
  const fit2 = (shape) => fitted(
    div.posvizData,
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
    layout = themed({ ...base, ...base.meta.short }, host);
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
    div.posvizData,
    drawn,
    div.posvizConfig
  ).then(() => hideDrawing(div)) : Promise.resolve();
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
