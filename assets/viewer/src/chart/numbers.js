// The numbers behind a chart: its matrices and lines as tables, CSV and .npy, as the data
// table and the exports read them.

export const shown = (trace) => trace.hoverinfo !== "skip";  // grey layers under masked cells are not
export const plain = (text) => new DOMParser().parseFromString(String(text), "text/html")
  .documentElement.textContent;  // labels are HTML-escaped for plotly; files get the text
// A title as a screen reader hears it: its lines as one.
export const heard = (title) => plain(String(title).replace(/<br\s*\/?>/gi, " "));

// An array as plotly's JSON sends it: a base64 typed array ({dtype, bdata, shape}) or a list.
const TYPED = { f4: Float32Array, f8: Float64Array, i1: Int8Array, u1: Uint8Array,
                i2: Int16Array, u2: Uint16Array, i4: Int32Array, u4: Uint32Array };

function flat(v) {
  if (v === undefined || v === null) return [];
  if (v.bdata === undefined) return Array.from(v);
  const bytes = Uint8Array.from(atob(v.bdata), (c) => c.charCodeAt(0));
  return Array.from(new TYPED[v.dtype](bytes.buffer));
}

// A heatmap's values as rows of numbers (NaN for a masked cell), however plotly stores them.
function matrix(trace) {
  const z = trace.z;
  if (z.bdata !== undefined) {
    const cols = Number(String(z.shape).split(",")[1]);
    const all = flat(z);
    return Array.from({ length: all.length / cols }, (_, r) => all.slice(r * cols, (r + 1) * cols));
  }
  return Array.from(z, (row) => Array.from(row, (v) => (v === null ? NaN : Number(v))));
}

// A line's points (or bars) as numbers along the axis named (NaN where it has none: a legend's
// entry alone has one null); a bar laid on a base ends at the base and its length.
function values(trace, axis) {
  const base = flat(trace.base);
  return flat(trace[axis]).map((v, j) => (v === null ? NaN : Number(v) + Number(base[j] ?? 0)));
}

// The title of a subplot's panel: the annotation above its plot, as ui/summary.py reads it.
function panelTitle(gd, trace) {
  const layout = gd.layout || {};
  const xaxis = layout[`xaxis${(trace.xaxis || "x").slice(1)}`] || {};
  const yaxis = layout[`yaxis${(trace.yaxis || "y").slice(1)}`] || {};
  if (!xaxis.domain || !yaxis.domain) return "";
  const [x0, x1] = xaxis.domain;
  const note = (layout.annotations || []).find((a) => a.xref === "paper" && a.yref === "paper"
    && a.text && a.x >= x0 - 1e-6 && a.x <= x1 + 1e-6 && Math.abs(a.y - yaxis.domain[1]) < 0.02);
  return note ? heard(note.text) : "";
}

const quoted = (cell) => (/[",\n]/.test(cell) ? `"${cell.replaceAll('"', '""')}"` : cell);
const csvLine = (cells) => cells.map((c) => quoted(String(c))).join(",");
const number = (v) => (Number.isNaN(v) ? "" : String(v));

// The numbers of a chart as tables, each a header and rows of cells (a number is NaN where a
// cell is masked): one per matrix (row label, then one column per column label), or one of all
// lines (each point's line, then its x and y under the axes' titles). The CSV files and the
// data table under the chart are both made from these.
export function grids(gd) {
  const maps = gd.data.filter((t) => t.type === "heatmap" && shown(t));
  if (maps.length) {
    return maps.map((t) => {
      const z = matrix(t);
      const cols = t.x ? flat(t.x).map(plain) : z[0].map((_, c) => c);
      const rows = t.y ? flat(t.y).map(plain) : z.map((_, r) => r);
      return { name: panelTitle(gd, t) || heard(t.name ?? ""), head: ["", ...cols],
               rows: z.map((row, r) => [rows[r], ...row]) };
    });
  }
  const lines = gd.data.filter((t) => (t.type === "scatter" || t.type === "bar") && shown(t));
  const layout = gd.layout || {};
  const axisTitle = (key, fallback) => {
    const title = (layout[key] || {}).title;
    return (title && heard(title.text ?? title)) || fallback;
  };
  const first = lines[0] || {};
  // where each point stands, and its value: x and y, or y and x for bars laid across
  const [at, value] = first.type === "bar" && first.orientation === "h" ? ["y", "x"] : ["x", "y"];
  const title = (axis, fallback) => axisTitle(
    `${axis}axis${(first[`${axis}axis`] || axis).slice(1)}`, fallback);
  // an axis of named bars needs no title: their names say what they are
  const head = [(gd.posvizLabels || {}).series || "series",  // the reader's word for a line
                title(at, at === "y" ? "" : "x"), title(value, value)];
  const rows = [];
  lines.forEach((t, i) => {
    const places = flat(t[at]);
    values(t, value).forEach((v, j) => {
      const place = places[j] ?? j;  // a number stays one: the data table rounds it as v
      if (!Number.isNaN(v)) rows.push([heard(t.name ?? `trace ${i}`), typeof place === "number"
        ? place : plain(place), v]);
    });
  });
  return [{ name: "", head, rows }];
}

export const cell = (v) => (typeof v === "number" ? number(v) : String(v));

// One CSV per table of grids().
export function tables(gd) {
  return grids(gd).map(({ head, rows }) => [csvLine(head), ...rows.map(
    (row) => csvLine(row.map(cell)))].join("\n") + "\n");
}

// NumPy's .npy format (version 1.0): float32 little endian, C order; all matrices stacked when
// they share a shape.
function npy(matrices) {
  const shape = matrices.length === 1
    ? [matrices[0].length, matrices[0][0].length]
    : [matrices.length, matrices[0].length, matrices[0][0].length];
  let header = `{'descr': '<f4', 'fortran_order': False, 'shape': (${shape.join(", ")}${
    shape.length === 1 ? "," : ""}), }`;
  header += " ".repeat(63 - ((10 + header.length) % 64)) + "\n";
  const data = new Float32Array(matrices.flat(2));
  const out = new Uint8Array(10 + header.length + data.byteLength);
  out.set([0x93, ..."NUMPY"].map((c) => (typeof c === "string" ? c.charCodeAt(0) : c)), 0);
  out.set([1, 0, header.length & 0xff, header.length >> 8], 6);
  out.set(new TextEncoder().encode(header), 10);
  out.set(new Uint8Array(data.buffer), 10 + header.length);
  return out;
}

export function arrays(gd) {
  const maps = gd.data.filter((t) => t.type === "heatmap" && shown(t)).map(matrix);
  if (!maps.length) return [];
  const same = maps.every((m) => m.length === maps[0].length && m[0].length === maps[0][0].length);
  return same ? [npy(maps)] : maps.map((m) => npy([m]));
}
