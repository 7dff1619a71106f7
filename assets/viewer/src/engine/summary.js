// What a chart shows, in a few sentences for a reader who cannot see it: ui/summary.py's
// summary(), sentence for sentence and character for character, for a figure the browser drew
// for a typed sentence. Its words, the counts it names one by one and the gap between sentences
// are Python's, sent (ui.summary.browser_words: the viewer's configuration); none is written here.

// ---- numbers and text, as Python writes them ------------------------------------------------

// The characters Python's str.split() splits on (str.isspace), which JavaScript's \s is not.
const SPACE = "[\\t\\n\\v\\f\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]";
const SPACES = new RegExp(`${SPACE}+`, "g");
const TAG = /<[^>]+>/g;
// html.unescape's character references: each is decoded alone, as an HTML parser reads it
const REFERENCE = /&(#[0-9]+;?|#[xX][0-9a-fA-F]+;?|[^\t\n\f <&#;]{1,32};?)/g;
const decoded = (reference) => new DOMParser().parseFromString(
  `<p>${reference}</p>`, "text/html").body.textContent;

// Python's str() of a label: a float as repr writes it ("1.0", "1e-05"), anything else as is.
function pyString(value, isFloat) {
  if (typeof value !== "number") return String(value);
  if (Number.isNaN(value)) return "nan";
  if (!Number.isFinite(value)) return value < 0 ? "-inf" : "inf";
  if (!isFloat) return String(value);
  const sign = value < 0 || Object.is(value, -0) ? "-" : "";
  const [mantissa, exponent] = Math.abs(value).toExponential().split("e");
  const digits = mantissa.replace(".", "");
  const e = Number(exponent);
  if (e < -4 || e >= 16) {
    return `${sign}${mantissa}e${e < 0 ? "-" : "+"}${String(Math.abs(e)).padStart(2, "0")}`;
  }
  if (e < 0) return `${sign}0.${"0".repeat(-e - 1)}${digits}`;
  const whole = digits.slice(0, e + 1).padEnd(e + 1, "0");
  return `${sign}${whole}.${digits.slice(e + 1) || "0"}`;
}

// ui.summary.plain: plotly's markup (<br>, <sup>) gone, character references decoded.
export function plain(label, isFloat = false) {
  const text = pyString(label, isFloat).replace(TAG, " ").replace(REFERENCE, decoded);
  return text.split(SPACES).filter(Boolean).join(" ");
}

// Python's f"{value:.{digits}f}" of a finite value's size, |value| < 1e21: the exact decimal
// expansion (toFixed(100) is exact for the sizes it is asked here), rounded half to even.
function fixed(size, digits) {
  const [whole, fraction] = size.toFixed(100).split(".");
  const kept = BigInt(whole + fraction.slice(0, digits));
  const rest = fraction.slice(digits);
  const tie = rest[0] === "5" && !/[1-9]/.test(rest.slice(1));
  const up = rest[0] > "5" || (rest[0] === "5" && (!tie || kept % 2n === 1n));
  const text = String(kept + (up ? 1n : 0n)).padStart(digits + 1, "0");
  return digits ? `${text.slice(0, -digits)}.${text.slice(-digits)}` : text;
}

// ui.summary.number: three significant digits, as a lecturer reads them out.
export function number(value) {
  if (!Number.isFinite(value)) return pyString(value, true);
  if (value === 0) return "0";
  const sign = value < 0 ? "-" : "";
  const size = Math.abs(value);
  if (size >= 100) {
    const whole = size >= 1e21 ? BigInt(size).toString() : fixed(size, 0);
    return sign + whole.replace(/\B(?=(\d{3})+$)/g, ",");
  }
  if (size < 1e-3) {  // no tie to break: a double this small has more than 3 significant digits
    const [mantissa, exponent] = value.toExponential(2).split("e");
    const e = Number(exponent);
    return `${mantissa}e${e < 0 ? "-" : "+"}${String(Math.abs(e)).padStart(2, "0")}`;
  }
  const digits = 2 - Math.floor(Math.log10(size));
  return sign + fixed(size, digits).replace(/0+$/, "").replace(/\.$/, "");
}

// ---- a figure's arrays, as ui/summary.py reads them (posviz.figures.common.as_array) ----------

const TYPED = { f4: Float32Array, f8: Float64Array, i1: Int8Array, u1: Uint8Array,
                i2: Int16Array, u2: Uint16Array, i4: Int32Array, u4: Uint32Array };

// An array's values, flat, its shape, and whether numpy reads it as floats.
function array(value) {
  if (value && value.bdata !== undefined) {
    const bytes = Uint8Array.from(atob(value.bdata), (c) => c.charCodeAt(0));
    const flat = Array.from(new TYPED[value.dtype](bytes.buffer));
    const shape = value.shape === undefined ? [flat.length]
      : String(value.shape).split(",").map(Number);
    return { flat, shape, isFloat: value.dtype[0] === "f" };
  }
  const list = Array.from(value || []);
  if (list.length && Array.isArray(list[0])) {
    const flat = list.flatMap((row) => Array.from(row));
    return { flat, shape: [list.length, list[0].length], isFloat: numbersFloat(flat) };
  }
  return { flat: list, shape: [list.length], isFloat: numbersFloat(list) };
}

const numbersFloat = (values) => values.some((v) => v === null
  || (typeof v === "number" && !Number.isInteger(v)));
const floats = (values) => values.map((v) => (v === null ? NaN : Number(v)));

// ---- the summary ----------------------------------------------------------------------------

// words: ui.summary.browser_words(lang), as sent
function say(words, key, values = {}) {
  return words.words[key].replace(/\{(\w+)\}/g, (whole, name) => (
    name in values ? String(values[name]) : whole));
}

function names(template) {  // what a trace's hover text calls its x, y and z
  const found = {};
  const line = new RegExp(`^${SPACE}*([^%<]+?)${SPACE}*[:=]${SPACE}*%\\{([xyz])`);
  String(template || "").split("<br>").forEach((part) => {
    const match = line.exec(part);
    if (match) found[match[2]] = plain(match[1]);
  });
  return found;
}

function title(part) {
  const t = (part || {}).title;
  return plain((t && typeof t === "object" ? t.text : t) || "");
}

const axis = (layout, name) => layout[`${name[0]}axis${name.slice(1)}`] || {};

function panelTitles(figure) {
  const layout = figure.layout || {};
  const notes = (layout.annotations || []).filter((note) => note.xref === "paper"
    && note.yref === "paper" && note.text);
  const titles = {};
  figure.data.forEach((trace) => {
    const [xaxis, yaxis] = [trace.xaxis || "x", trace.yaxis || "y"];
    const [xDomain, yDomain] = [axis(layout, xaxis).domain, axis(layout, yaxis).domain];
    if (xDomain === undefined || xDomain === null || yDomain === undefined || yDomain === null) {
      return;
    }
    const [x0, x1] = xDomain;
    const near = notes.filter((note) => x0 - 1e-6 <= note.x && note.x <= x1 + 1e-6
      && Math.abs(note.y - yDomain[1]) < 0.02);
    if (near.length) titles[xaxis] = plain(near[0].text);
  });
  return titles;
}

function labels(values, n) {
  if (values === undefined || values === null) return Array.from({ length: n }, (_, i) => `${i}`);
  const { flat, isFloat } = array(values);
  return flat.map((v) => plain(v, isFloat));
}

const first = (values, better) => values.reduce((best, v, i) => (
  better(v, values[best]) ? i : best), 0);

function heatmap(trace, panel, layout, words) {
  const { flat, shape } = array(trace.z === undefined ? [] : trace.z);
  if (shape.length !== 2 || flat.length === 0) return "";
  const z = floats(flat);
  const [nRows, nCols] = shape;
  const cell = (r, c) => z[r * nCols + c];
  const rows = labels(trace.y, nRows);
  const cols = labels(trace.x, nCols);
  const named = names(trace.hovertemplate);
  const rowName = named.y || title(axis(layout, trace.yaxis || "y"));
  const colName = named.x || title(axis(layout, trace.xaxis || "x"));
  const value = named.z || say(words, "values");
  const one = named.z || say(words, "value");
  const said = [say(words, rowName && colName ? "map" : "map_bare",
                    { rows: nRows, row: rowName, cols: nCols, col: colName })];
  const seen = z.map(Number.isFinite);
  if (!seen.some(Boolean)) return join(panel, said, words);
  const full = z.map((v, i) => (seen[i] ? v : 0));
  const rowOf = (r) => Array.from({ length: nCols }, (_, c) => r * nCols + c);
  const weights = full.every((v) => v >= 0) && Array.from({ length: nRows }, (_, r) => r)
    .filter((r) => rowOf(r).some((i) => seen[i]))
    .every((r) => Math.abs(rowOf(r).reduce((s, i) => s + full[i], 0) - 1) <= 1e-3 + 1e-5);
  if (weights) {
    const pairs = [];
    for (let r = 0; r < Math.min(words.rows, nRows); r += 1) {
      if (rowOf(r).some((i) => seen[i])) {
        const c = first(rowOf(r).map((i) => (seen[i] ? z[i] : -Infinity)), (a, b) => a > b);
        pairs.push(say(words, "pair", { row: rows[r], col: cols[c], v: number(cell(r, c)) }));
      }
    }
    said.push(say(words, "most", { value: one, pairs: pairs.join(say(words, "list_sep")) }));
    if (nRows > words.rows) said.push(say(words, "more_rows", { k: nRows - words.rows }));
  } else {
    const shown = z.filter((_, i) => seen[i]);
    const largest = shown.reduce((a, b) => Math.max(a, b));
    if (largest - shown.reduce((a, b) => Math.min(a, b)) === 0) {
      said.push(say(words, "constant", { value, v: number(shown[0]) }));
    } else {
      const low = first(z.map((v, i) => (seen[i] ? v : Infinity)), (a, b) => a < b);
      const high = first(z.map((v, i) => (seen[i] ? v : -Infinity)), (a, b) => a > b);
      const at = (i) => say(words, "cell", { row: rows[Math.floor(i / nCols)],
                                             col: cols[i % nCols] });
      said.push(say(words, "range", { value, low: number(z[low]), low_at: at(low),
                                      high: number(z[high]), high_at: at(high) }));
    }
  }
  const hidden = seen.filter((s) => !s).length;
  if (hidden) said.push(say(words, "hidden", { k: hidden, n: z.length }));
  return join(panel, said, words);
}

function join(panel, said, words) {
  const body = said.join(say(words, "clause_sep"));
  return panel ? say(words, "panel", { panel, body }) : body + say(words, "stop");
}

function line(trace, words) {
  const ys = floats(array(trace.y === undefined ? [] : trace.y).flat);
  let xs;
  if (trace.x === undefined || trace.x === null) xs = ys.map((_, i) => i);
  else {
    const { flat, isFloat } = array(trace.x);
    const strings = flat.some((v) => typeof v === "string");
    xs = flat.map((v) => (typeof v === "string" ? plain(v) : strings ? plain(v, isFloat) : v));
  }
  const keep = ys.map(Number.isFinite);
  if (!keep.some(Boolean) || xs.length !== ys.length) return "";
  const x = xs.filter((_, i) => keep[i]);
  const y = ys.filter((_, i) => keep[i]);
  const at = (v) => (typeof v === "string" ? v : number(v === null ? NaN : Number(v)));
  const name = plain(trace.name || "");
  if (!x.some((v) => typeof v === "string")) {
    const steps = x.slice(1).map((v, i) => Number(v === null ? NaN : v) - Number(
      x[i] === null ? NaN : x[i]));
    if (steps.length && !(steps.every((s) => s >= 0) || steps.every((s) => s <= 0))) {
      return say(words, "path", { name, n: y.length, start: `(${at(x[0])}, ${number(y[0])})`,
                                  end: `(${at(x.at(-1))}, ${number(y.at(-1))})` });
    }
  }
  const top = first(y, (a, b) => a > b);
  return say(words, "line", { name, first: number(y[0]), first_at: at(x[0]),
                              last: number(y.at(-1)), last_at: at(x.at(-1)),
                              high: number(y[top]), high_at: at(x[top]) });
}

function bars(trace, words) {
  const across = trace.orientation === "h";
  const given = trace[across ? "x" : "y"];
  let values = floats(array(given === undefined ? [] : given).flat);
  let names = labels(trace[across ? "y" : "x"], values.length);
  if (trace.base !== undefined && trace.base !== null) {
    const counts = new Map();
    names.forEach((label) => counts.set(label, (counts.get(label) || 0) + 1));
    names = [...counts.keys()];
    values = [...counts.values()];
  }
  const count = Math.min(words.bars, names.length, values.length);
  const shown = Array.from({ length: count }, (_, i) => say(words, "bar", {
    label: names[i], v: number(values[i]) }));
  const name = plain(trace.name || "");
  let body = shown.join(say(words, "list_sep"));
  if (values.length > words.bars) {
    body += say(words, "list_sep") + say(words, "more_bars", { k: values.length - words.bars });
  }
  return (name ? say(words, "named", { name, body }) : body) + say(words, "stop");
}

// The figure's title and what its maps, lines or bars show, as sentences in the words' language.
// figure: as plotly's JSON holds it.
export function summary(figure, words) {
  const layout = figure.layout || {};
  const heading = title(layout);
  const said = heading ? [heading + say(words, "stop")] : [];
  const shown = figure.data.filter((t) => t.hoverinfo !== "skip" && t.visible !== false);
  const maps = shown.filter((t) => t.type === "heatmap");
  if (maps.length) {
    const panels = panelTitles(figure);
    if (maps.length > 1) said.push(say(words, "panels", { n: maps.length }));
    maps.slice(0, words.panels).forEach((t) => said.push(heatmap(
      t, panels[t.xaxis || "x"] || plain(t.name || ""), layout, words)));
    if (maps.length > words.panels) {
      said.push(say(words, "more_panels", { k: maps.length - words.panels }));
    }
  }
  const lines = shown.filter((t) => t.type === "scatter" && t.y !== undefined && t.y !== null
    && floats(array(t.y).flat).some(Number.isFinite));
  if (lines.length && !maps.length) {
    const xTitle = title(axis(layout, lines[0].xaxis || "x"));
    const count = lines.length === 1 ? "one" : "many";
    said.push(say(words, `lines_${count}${xTitle ? "" : "_bare"}`, { n: lines.length,
                                                                   x: xTitle }));
    lines.slice(0, words.lines).forEach((t) => said.push(line(t, words)));
    if (lines.length > words.lines) {
      said.push(say(words, "more_lines", { k: lines.length - words.lines }));
    }
  }
  shown.filter((t) => t.type === "bar").forEach((t) => said.push(bars(t, words)));
  return said.filter(Boolean).join(words.gap);
}
