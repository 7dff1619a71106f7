// A sentence its reader types, drawn into the page's live charts by the browser's engine
// (../engine/, the Python engine's twin: docs/engines.md). Each chart block names its recipe
// (ui/live.py, ui/blocks.py's Live); one function per recipe below, of the same name, fills the
// figure the server sent with the engine's arrays for the typed tokens: its layout, colours and
// words stay the server's, but for the token labels (fewer of them, and more room for them, on a
// longer sentence than the server's), the colour scale and the words the recipe was sent. A chart
// with no recipe says, beside it, that it still shows the page's sentence; a recipe this screen
// does not know is refused, said, and the chart left as sent.

import * as alibi from "../engine/alibi.js";
import * as attention from "../engine/attention.js";
import * as emb from "../engine/embedding.js";
import * as panels from "../engine/panels.js";
import * as permutation from "../engine/permutation.js";
import * as rope from "../engine/rope.js";
import { summary } from "../engine/summary.js";
import * as sn from "../engine/sinusoidal.js";
import * as tk from "../engine/tokens.js";
import { redrawChart } from "./blocks.js";
import { planeView } from "./plane.js";
import { el, say, screen } from "./screen.js";

const DEBOUNCE = 250;  // ms after the last keystroke: typing never waits on a drawing

// ---- the figure's text, as ui's figures write it --------------------------------------------

// posviz.figures.common.plain: text shown as typed (plotly reads <b>, &amp; ... as markup)
const plain = (text) => text.replaceAll("&", "&amp;").replaceAll("<", "&lt;")
  .replaceAll(">", "&gt;");
const rows = (a) => {  // an engine matrix (T, C) as plotly's rows
  const [t, c] = a.shape.slice(-2);
  return Array.from({ length: t }, (_, i) => Array.from(a.data.subarray(i * c, (i + 1) * c)));
};
const masked = (z) => z.map((row) => row.map((v) => (Number.isNaN(v) ? 1 : 0)));
const layouts = (layout) => [layout, ...["narrow", "short"].map((k) => layout.meta && layout.meta[k])
  .filter(Boolean)];

// a label's width as posviz.figures.attention reckons it
const widest = (labels) => Math.max(0, ...labels.map((l) => panels.label_width(
  l.replace(/<br>/g, " "))));

// A longer sentence than the layout was made for: every step-th label, the least nice step
// (posviz.figures.common.NICE_STEPS, sent) that labels no more of them than the layout labelled
// (so that they stand no closer together).
const thinned = (labels, room) => {
  const steps = screen.steps;
  const step = steps.find((s) => labels.length / s <= room) || steps.at(-1);
  return labels.filter((_, i) => i % step === 0);
};

// Query labels written left of panels whose margin the server sized for its own labels
// (automargin off): the margin grows by as much as the typed sentence's widest label is wider.
function widen(shape, before, after) {
  const drawn = Object.keys(shape).filter((key) => /^yaxis\d*$/.test(key)).some((key) =>
    shape[key].automargin === false && shape[key].showticklabels !== false
    && shape[key].side !== "right");
  const more = widest(after) - widest(before);
  if (drawn && more > 0 && shape.margin && typeof shape.margin.l === "number") {
    shape.margin.l = Math.ceil(shape.margin.l + more);
  }
}

// The labels of the page's sentence, wherever an axis names them (key ticks, upright on two
// lines), become the typed sentence's: the same place for the same position.
function relabel(layout, before, after) {
  layouts(layout).forEach((shape) => widen(shape, before, after));
  layouts(layout).forEach((shape) => Object.keys(shape).filter((key) => /^[xy]axis\d*$/.test(key))
    .forEach((key) => {
      const axis = shape[key];
      const [low, high] = Array.isArray(axis.range) ? axis.range : [];
      if (Math.min(low, high) === -0.5 && Math.max(low, high) === before.length - 0.5) {
        axis.range = low < high ? [-0.5, after.length - 0.5] : [after.length - 0.5, -0.5];
      }  // a token axis spans the typed sentence's positions
      if (!Array.isArray(axis.tickvals) || !axis.tickvals.every((v) => before.includes(v))) return;
      if (before.length !== after.length) {  // every label when the page's were all shown
        if (axis.tickvals.length === before.length) axis.tickvals = before;
        else {
          delete axis.tickvals;
          delete axis.ticktext;
          return;
        }
      }
      const upright = Array.isArray(axis.ticktext) && axis.ticktext.some((t) => t.includes("<br>"));
      axis.tickvals = before.length === after.length
        ? axis.tickvals.map((v) => after[before.indexOf(v)])
        : after.length > before.length ? thinned(after, before.length) : [...after];
      if (axis.ticktext) {
        axis.ticktext = axis.tickvals.map((v) => (upright ? v.replace(" ", "<br>") : v));
      }
    }));
}

// The layout the server draws for a sentence of n tokens, where it differs from one length to
// another (ui/live.py's sizes: the paths, and each length's values, null where it has none).
function resize(layout, sizes, n) {
  const { paths, rows: values } = JSON.parse(sizes);
  const row = values[Math.min(n, values.length) - 1];
  paths.forEach((path, i) => {
    let node = layout;
    path.slice(0, -1).forEach((key, depth) => {
      if (node[key] === undefined || node[key] === null) {
        node[key] = typeof path[depth + 1] === "number" ? [] : {};
      }
      node = node[key];
    });
    if (row[i] === null) delete node[path.at(-1)];
    else node[path.at(-1)] = row[i];
  });
}

function retitle(layout, text) {
  layouts(layout).forEach((shape) => { if (shape.title) shape.title.text = text; });
}

// The value traces of a figure of maps, each with the grey layer painted under its hidden cells
// (posviz.figures.common.masked_layer: hoverinfo "skip") when it has one.
function maps(figure) {
  const out = [];
  let grey = null;
  figure.data.forEach((trace) => {
    if (trace.type !== "heatmap") return;
    if (trace.hoverinfo === "skip") grey = trace;
    else {
      out.push({ trace, grey });
      grey = null;
    }
  });
  return out;
}

// posviz.figures.attention.order_maps' layout for the label sets (each order's, as the figure
// writes them), side by side and stacked (meta.narrow): each panel's place, its key labels
// upright or turned, the margins, height and least width, as panel_geometry lays them out.
function orderLayout(layout, labelSets) {
  const rule = panels.panel_rule();
  const [labels] = labelSets;
  const n = labelSets.length;
  place(layout, labelSets, panels.columns(n, panels.order_gap(labelSets)),
        panels.panel_geometry(labels, n, n, rule.narrowest_row, rule.panel_tall));
  place(layout.meta.narrow, labelSets, [[0.0, 1.0]],
        panels.panel_geometry(labels, n, 1, panels.stacked_row(labels), rule.stacked_tall));
}

function place(shape, labelSets, columns, geometry) {
  const edge = labelSets[0].length - 0.5;  // ranges end at the outer cells
  shape.height = geometry.height;
  Object.assign(shape.margin, { l: geometry.left, t: geometry.top, b: geometry.bottom });
  shape.meta.min_width = geometry.min_width;
  labelSets.forEach((labels, p) => {
    const [row, col] = [Math.floor(p / columns.length), p % columns.length];
    const [x, y] = ["xaxis", "yaxis"].map((axis) => shape[`${axis}${p ? p + 1 : ""}`]);
    Object.assign(x, { domain: columns[col], range: [-0.5, edge] });
    Object.assign(y, { domain: geometry.rows[row], range: [edge, -0.5] });
    delete x.tickvals;
    delete x.ticktext;
    if (geometry.upright) {  // each panel's keys its own order's, on two lines
      Object.assign(x, { tickvals: labels, ticktext: labels.map((l) => l.replace(" ", "<br>")),
                         tickangle: 0 });
    } else x.tickangle = -90;
    Object.assign(shape.annotations[p], { x: (columns[col][0] + columns[col][1]) / 2,
                                          y: geometry.rows[row][1] });
  });
}

function fillMaps(figure, matrices, labelSets, laidOut = false) {
  if (laidOut) orderLayout(figure.layout, labelSets);
  maps(figure).forEach(({ trace, grey }, i) => {
    if (!laidOut) relabel(figure.layout, Array.from(trace.y || []), labelSets[i]);
    const z = rows(matrices[i]);
    const labels = labelSets[i];
    Object.assign(trace, { z, x: labels, y: labels });
    if (grey) Object.assign(grey, { z: masked(z), x: labels, y: labels });
  });
}

// The colour scale set in every layout that carries one (a phone's narrow layout has its own).
const scale = (layout, ends) => layouts(layout).forEach((shape) => {
  if (shape.coloraxis) Object.assign(shape.coloraxis, ends);
});

const finite = (matrices) => matrices.flatMap((m) => Array.from(m.data))
  .filter((v) => !Number.isNaN(v));

// ---- one function per recipe, in ui/live.py's order -----------------------------------------

function fixed() {
  return {};
}

function embedding(figure, tokens, params, words) {
  const seq = params.copied ? [...tokens, tokens[0]] : tokens;
  const e = emb.token_embeddings(seq, params.d_model);
  const p = params.position ? sn.sinusoidal(seq.length, params.d_model)
    : { shape: e.shape, data: new Float64Array(e.data.length) };
  const x = { shape: e.shape, data: e.data.map((v, i) => v + p.data[i]) };
  const named = { e, p, x };
  const matrices = params.panels.split(" ").map((name) => named[name]);
  const counts = new Map();
  seq.forEach((token) => counts.set(token, (counts.get(token) || 0) + 1));
  const marked = seq.map((token) => counts.get(token) > 1);
  const labels = tk.token_labels(seq).map((label, t) => plain((marked[t] ? "◆ " : "") + label));
  figure.data.filter((trace) => trace.type === "heatmap").forEach((trace, i) => {
    Object.assign(trace, { z: rows(matrices[i]), y: labels });
  });
  resize(figure.layout, params.sizes, seq.length);
  const left = panels.left_margin(labels, figure.layout.font.size);  // the rows' labels' room
  layouts(figure.layout).forEach((shape) => { if (shape.margin) shape.margin.l = left; });
  const bound = Math.max(...finite(matrices).map(Math.abs), 0) || 1;
  scale(figure.layout, { cmin: -bound, cmax: bound });
  retitle(figure.layout, marked.some(Boolean) ? words.title_marked : words.title_plain);
  return Object.fromEntries(params.panels.split(" ").map((name, i) => [name, matrices[i]]));
}

function frame(figure, tokens, params) {
  const shown = Math.min(tokens.length, params.rows);
  layouts(figure.layout).forEach((shape) => (shape.shapes || [])
    .filter((s) => s.type === "rect").forEach((s) => { s.y1 = shown - 0.5; }));
  return { rows: shown };
}

// The stand-in stack's run (attention.js's attention_stack) over a sequence, kept for the
// sentence being drawn: charts of one scene that run the same stack on the same tokens (scene 4's
// maps and its answer's bars) compute it once. A new sentence starts afresh.
const RUNS = new Map();
let runsFor = null;

function stackRun(tokens, seq, layers, heads, scheme, causal) {
  if (runsFor !== tokens) {
    RUNS.clear();
    runsFor = tokens;
  }
  const key = JSON.stringify([seq, layers, heads, scheme, causal]);
  if (!RUNS.has(key)) {
    const x = emb.token_embeddings(seq, attention.HEAD_DIM * heads);
    RUNS.set(key, attention.attention_stack(x, layers, heads, scheme, causal));
  }
  return RUNS.get(key);
}

function attentionMaps(figure, tokens, params) {
  const seqs = params.orders.split(" ").map((order) => (order === "reversed"
    ? [...tokens].reverse() : tokens));
  const layer = params.layer < 0 ? params.layers + params.layer : params.layer;
  const matrices = seqs.map((seq) => {
    const run = stackRun(tokens, seq, params.layers, params.heads, params.scheme, params.causal);
    const mean = attention.mean_weights(run, layer);
    return params.causal ? alibi.hide_masked(mean) : mean;
  });
  fillMaps(figure, matrices, seqs.map((seq) => tk.token_labels(seq).map(plain)),
           params.layout === "order_maps");
  if (params.scale === "top") scale(figure.layout, { cmax: Math.max(...finite(matrices)) || 1 });
  return Object.fromEntries(params.orders.split(" ").map((order, i) => [order, matrices[i]]));
}

function alibiBias(figure, tokens, params) {
  const shown = params.shown.split(" ").map(Number);
  const bias = alibi.causal_alibi_bias(params.heads, tokens.length, params.position);
  const t = tokens.length;
  const heads = shown.map((h) => ({ shape: [t, t],
                                    data: bias.data.subarray((h - 1) * t * t, h * t * t) }));
  const labels = tk.token_labels(tokens).map(plain);
  fillMaps(figure, heads, heads.map(() => labels));
  scale(figure.layout, { cmin: Math.min(...finite(heads), -1) });
  delete figure.layout.meta.room;  // the projector's own grid is the page's sentence's
  return Object.fromEntries(shown.map((h, i) => [`head ${h}`, heads[i]]));
}

function plane(figure, tokens, params, words) {
  const [, q] = attention.one_head(tokens, params.d_model);
  const positions = params.position ? tokens.map((_, t) => t) : tokens.map(() => 0);
  const before = rope.pair_coordinates(q, params.pair);
  const after = rope.pair_coordinates(rope.apply_rope(q, positions), params.pair);
  planeView(figure, before, after, tk.token_labels(tokens).map(plain), params, words);
  return { before, after };
}

// Python's format(value, f".{digits}g") of a finite value: fixed notation for exponents from -4
// to digits - 1, else scientific with a signed two-digit exponent; no trailing zeros.
function general(value, digits) {
  if (value === 0) return "0";
  const trim = (text) => (text.includes(".") ? text.replace(/0+$/, "").replace(/\.$/, "") : text);
  const [mantissa, exponent] = value.toExponential(digits - 1).split("e");
  const e = Number(exponent);
  if (e >= -4 && e < digits) return trim(value.toFixed(digits - 1 - e));
  return `${trim(mantissa)}e${e < 0 ? "-" : "+"}${String(Math.abs(e)).padStart(2, "0")}`;
}

function change(figure, tokens, params) {
  const order = permutation.reversal(tokens.length);
  const seqs = [tokens, permutation.reordered(tokens, order)];
  const schemes = params.schemes.split(" ");
  const gaps = schemes.map((scheme) => {
    const [run, moved] = seqs.map((seq) => stackRun(tokens, seq, params.layers, params.heads,
                                                    scheme, params.causal));
    return permutation.token_gaps(run, moved, order);
  });
  const labels = tk.token_labels(tokens).map(plain);
  figure.data.filter((trace) => trace.type === "bar").forEach((trace, i) => Object.assign(trace, {
    x: labels, y: Array.from(gaps[i]), text: Array.from(gaps[i], (v) => general(v, params.digits)),
  }));
  return Object.fromEntries(schemes.map((scheme, i) => [scheme, gaps[i]]));
}

const RECIPES = { fixed, embedding, frame, attention: attentionMaps, alibi: alibiBias, plane,
                  change };

// ---- the page's charts, for a typed sentence ------------------------------------------------

function note(host, kind, text) {
  let line = host.previousElementSibling;
  if (!line || !line.classList.contains("posviz-live-note")) {
    line = el("p", "posviz-live-note");
    host.before(line);
  }
  line.className = `posviz-live-note ${kind}`;
  line.textContent = text;
}

function unnote(host) {
  const line = host.previousElementSibling;
  if (line && line.classList.contains("posviz-live-note")) line.remove();
}

// Each chart of scope drawn for tokens (null: the page's own sentence again). The engine's
// arrays each recipe drew are kept on its host (posvizLive), by name. The charts within a screen
// of the view first, one a task, nearest first; the others when they come that near, or when
// the page is idle (one an idle moment). A newer call, or a key typed, drops what is left.
let pass = 0;
let nearing = null;  // the observer that draws a waiting chart as it comes near the view
const NEAR = "100% 0px";  // a screen above and below the view, as the charts' own drawing
const idle = (next) => (window.requestIdleCallback
  ? window.requestIdleCallback(next, { timeout: 2000 }) : setTimeout(next, 200));

export function drawTokens(scope, tokens) {
  const mine = ++pass;
  const hosts = [...scope.querySelectorAll(".posviz-chart-host")];
  const away = new Map(hosts.map((host) => [host, fromView(host)]));  // one layout, read once
  const waiting = hosts.sort((a, b) => away.get(a) - away.get(b));
  const screen = window.innerHeight;
  if (nearing) nearing.disconnect();
  const draw = (host) => {
    const at = waiting.indexOf(host);
    if (mine !== pass || at < 0) return;
    waiting.splice(at, 1);
    nearing.unobserve(host);
    drawOne(host, tokens);
  };
  nearing = new IntersectionObserver((entries) => entries.forEach(({ target, isIntersecting }) => {
    if (isIntersecting) setTimeout(() => draw(target), 0);
  }), { rootMargin: NEAR });
  const later = () => {
    if (mine === pass && waiting.length) {
      draw(waiting[0]);
      idle(later);
    }
  };
  const next = () => {
    if (mine !== pass) return;
    if (waiting.length && away.get(waiting[0]) <= screen) {
      draw(waiting[0]);
      setTimeout(next, 0);
    } else {
      waiting.forEach((host) => nearing.observe(host));
      idle(later);
    }
  };
  next();
}

// The seeded layers the live charts' recipes run, drawn while the page is idle (one layer an
// idle moment): a first sentence typed then waits on none of them (drawing a layer's weights is
// most of a first draw's engine time on a phone). They are kept (attention.js's init_layers).
export function warmLayers(scope) {
  const sizes = new Map();  // d_model -> layers
  const need = (layers, d_model) => sizes.set(d_model, Math.max(layers, sizes.get(d_model) || 0));
  scope.querySelectorAll(".posviz-chart-host[data-live]").forEach((host) => {
    const { recipe, params } = JSON.parse(host.dataset.live);
    if (recipe === "attention") need(params.layers, attention.HEAD_DIM * params.heads);
    if (recipe === "plane") need(1, params.d_model);  // one_head: the first layer
  });
  const steps = [...sizes].flatMap(([d_model, layers]) => Array.from({ length: layers },
    (_, index) => () => attention.init_layers(index + 1, d_model)));
  const next = () => {
    if (steps.length) steps.shift()();
    if (steps.length) idle(next);
  };
  idle(next);
}

function cancelDraws() {  // a key typed: the sentence drawn is no longer the one in the box
  pass += 1;
  if (nearing) nearing.disconnect();
}

// Pixels between a chart and the window (0 when it is in view); a chart not shown (an answer
// not yet revealed) is drawn last, or as soon as it is shown and near.
function fromView(host) {
  if (!host.getClientRects().length) return Infinity;
  const { top, bottom } = host.getBoundingClientRect();
  return Math.max(0, top - window.innerHeight, -bottom);
}

function drawOne(host, tokens) {
  const live = host.dataset.live ? JSON.parse(host.dataset.live) : null;
  if (!tokens) {
    if (host.posvizLive) redrawChart(host, host.dataset.figure);
    host.posvizLive = null;
    unnote(host);
    return;
  }
  if (!live) {
    note(host, "stale", say("try_stale"));
    return;
  }
  const recipe = RECIPES[live.recipe];
  if (!recipe) {
    console.error(`posviz: a chart recipe ${JSON.stringify(live.recipe)} not known`);
    note(host, "warning", say("unknown_recipe", { recipe: String(live.recipe) }));
    return;
  }
  if (live.recipe === "fixed") {
    unnote(host);
    return;
  }
  const figure = JSON.parse(host.dataset.figure);
  const start = performance.now();
  const arrays = recipe(figure, tokens, live.params, live.words);
  // the engine's time for this chart, on the page's timeline (tests/benchmarks/live_benchmark.py)
  performance.measure("posviz-engine", { start, detail: host.dataset.name });
  host.posvizLive = { tokens, arrays };
  note(host, "live", say("try_live"));
  // what a screen reader is told of the figure: what it now shows, as ui/summary.py says it
  redrawChart(host, JSON.stringify(figure), summary(figure, screen.summary));
}

// The box a reader types a sentence in: its tokens as chips under it (the first MAX_TOKENS,
// each shortened as a chart's label is), and how many there are. onTokens(tokens or null) runs
// DEBOUNCE ms after the last keystroke. reset: the words of the button that empties it (and
// then runs onReset).
export function sentenceBox(onTokens, reset, onReset = () => {}) {
  const box = el("section", "posviz-try");
  box.id = "posviz-try";
  const label = el("label", "posviz-try-label", say("try_label"));
  const input = el("textarea", "posviz-try-input");
  Object.assign(input, { id: "posviz-try-input", rows: 2, spellcheck: false, dir: "auto",
                        placeholder: say("try_placeholder") });
  input.setAttribute("autocomplete", "off");
  label.htmlFor = input.id;
  const status = el("p", "posviz-try-status");
  status.setAttribute("role", "status");
  const chips = el("div", "posviz-chips posviz-try-chips");
  status.id = "posviz-try-status";  // the chips scroll when many: reached by the keyboard too
  chips.setAttribute("role", "group");
  chips.setAttribute("aria-labelledby", status.id);
  const more = el("p", "posviz-caption posviz-try-more", say("try_more"));  // the chips scroll
  more.hidden = true;
  const back = el("button", "posviz-reveal posviz-try-reset", reset);
  back.type = "button";
  back.hidden = true;
  box.append(label, input, status, chips, more, back,
             el("p", "posviz-caption", say("try_hint")));
  let timer = 0;
  const run = () => {
    const all = tk.tokenize(input.value);
    const [tokens, typed] = tk.clip_tokens(all, tk.MAX_TOKENS);
    status.textContent = !tokens.length ? (input.value ? say("try_empty") : "")
      : typed > tokens.length ? say("try_cut", { n: typed, max: tk.MAX_TOKENS })
        : say("try_tokens", { n: typed });
    chips.replaceChildren(...tokens.map((token, t) => {
      const chip = el("span", "posviz-chip");
      chip.append(el("sub", "", String(t)), ` ${tk.short(token)}`);
      return chip;
    }));
    chips.tabIndex = tokens.length ? 0 : -1;
    more.hidden = chips.scrollHeight <= chips.clientHeight + 1;
    back.hidden = !input.value;
    onTokens(tokens.length ? tokens : null);
  };
  input.addEventListener("input", () => {
    clearTimeout(timer);
    cancelDraws();  // a key never waits on more than the one chart being drawn
    timer = setTimeout(run, DEBOUNCE);
  });
  back.onclick = () => {
    clearTimeout(timer);
    input.value = "";
    run();
    onReset();
  };
  return { box, input, back, tokens: () => {
    const [tokens] = tk.clip_tokens(tk.tokenize(input.value), tk.MAX_TOKENS);
    return tokens.length ? tokens : null;
  } };
}
