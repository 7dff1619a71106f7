// A document's blocks (ui/blocks.py declares them) drawn on the room's screen, in the offline
// files and in the lecture's report, one function per kind, with the app's own chart module,
// KaTeX for formulas and markdown-it for text.

import { drawChart, fitFormulas } from "../chart/chart.js";
import { questionBox } from "./question.js";
import { el, inline, md, room, say, screen } from "./screen.js";

// ---- one function per kind, in ui/blocks.py's order (ui/blocks_streamlit.py: the app's) ----

function heading(block) {  // with its anchor as its id: a link (#anchor) scrolls to it
  const node = inline(`h${block.level}`, "", block.text);
  if (block.anchor) node.id = block.anchor;
  return node;
}

function markdown(block) {
  const node = el("div", "posviz-markdown");
  node.innerHTML = md.render(block.text);
  return node;
}

const caption = (block) => inline("p", "posviz-caption", block.text);

function note(block) {
  const node = el("div", `posviz-note ${block.kind}`);
  node.innerHTML = md.render(block.text);
  return node;
}

// Each part braced, one unbreakable group as the app sets it (ui.blocks_streamlit's
// formula_markdown): a narrow line breaks between parts, never inside one (a part too wide is
// set smaller).
function formula(block) {
  const line = el("div", "posviz-formula");
  for (const part of block.parts) {
    const piece = el("span", "posviz-formula-part");
    piece.innerHTML = window.katex.renderToString(`\\displaystyle {${part}}`,
                                                  { throwOnError: false });
    line.appendChild(piece);
  }
  return line;
}

function chart(block) {  // drawn once in the page (drawCharts): it sizes to its column
  const host = el("div", "posviz-chart-host");
  host.dataset.figure = block.figure;
  host.dataset.name = block.name;
  host.dataset.toolbar = String(block.toolbar);
  host.dataset.summary = block.summary;
  if (block.live) host.dataset.live = JSON.stringify(block.live);  // its recipe (live.js)
  return host;
}

function metric(block) {
  const node = el("div", "posviz-metric");
  node.append(inline("div", "posviz-metric-label", block.label),
              el("div", "posviz-metric-value", block.value));
  if (block.delta) node.appendChild(el("div", "posviz-metric-delta", block.delta));
  return node;
}

function table(block) {
  const wrap = el("div", "posviz-table-wrap");
  wrap.tabIndex = 0;  // a wide table scrolls sideways, from the keyboard too
  const grid = el("table", "posviz-table");
  const head = grid.createTHead().insertRow();
  block.head.forEach((name) => head.appendChild(el("th", "", name)));
  const body = grid.createTBody();
  block.rows.forEach((cells) => {
    const row = body.insertRow();
    cells.forEach((cell, i) => row.appendChild(el("td", block.holds[i] === "text" ? ""
      : "number", cell)));
  });
  wrap.appendChild(grid);
  return wrap;
}

function chips(block) {  // the markup the app shows too, every typed character an entity
  const line = el("div", "posviz-chips");
  line.innerHTML = block.html;
  return line;
}

const link = (block) => inline("p", "posviz-link", block.text);

function setting(block) {  // the app's control, read-only, with the value the view gives it
  const node = el("p", "posviz-setting");
  node.append(inline("span", "posviz-setting-label", block.label),
              el("span", "posviz-setting-value", block.value));
  return node;
}

function columns(block) {
  // Streamlit's names for a row of columns: chart.js lines up the titles of charts that
  // stand side by side in one
  const row = el("div", "posviz-columns");
  row.dataset.testid = "stHorizontalBlock";
  block.columns.forEach((blocks) => {
    const column = el("div", "posviz-column");
    column.dataset.testid = "stColumn";
    draw(blocks, column);
    row.appendChild(column);
  });
  return row;
}

function box(block) {
  const node = el("div", block.border ? "posviz-box bordered" : "posviz-box");
  draw(block.blocks, node);
  return node;
}

function slot(block) {
  const node = el("div", "posviz-box");
  draw(block.blocks, node);
  return node;
}

function expander(block) {
  const node = el("details", "posviz-expander");
  node.appendChild(inline("summary", "", block.label));
  draw(block.blocks, node);
  return node;
}

function question(block) {
  const answer = block.answer.length ? (into) => draw(block.answer, into) : null;
  return questionBox(block, screen.polls[block.poll] || null, answer);
}

function asked(block) {  // the lecturer's own question, at the top of the room's screen
  const node = questionBox(block, screen.polls[block.poll] || null, null, { typed: true });
  node.classList.add("posviz-live");
  return node;
}

function check(block) {  // the concept check: every question at once
  const sitting = el("section", "posviz-check");
  sitting.append(el("h2", "", block.head), el("p", "", block.body));
  block.questions.forEach((one) => sitting.appendChild(questionBox(
    one, screen.polls[one.poll] || null, null, { typed: true, check: true })));
  return sitting;
}

const DRAWN = { heading, markdown, caption, note, formula, chart, metric, table, chips, link,
                setting, columns, box, slot, expander, question, asked, check };

// ---- a block of any kind -------------------------------------------------------------------

// Why this screen cannot draw a block, or "": a kind it does not know, or a field its kind does
// not declare (ui/blocks.py's, sent in the page's data), is refused, said, never left blank.
function refusal(block) {
  const fields = screen.kinds[block.t];
  if (!fields || !DRAWN[block.t]) {
    console.error(`posviz: a block of unknown kind ${JSON.stringify(block.t)}`);
    return say("unknown_block", { kind: String(block.t) });
  }
  const field = Object.keys(block).find((name) => !fields.includes(name))
    || fields.find((name) => !(name in block));
  if (field === undefined) return "";
  console.error(`posviz: a ${block.t} block with a field ${JSON.stringify(field)} not declared`);
  return say("unknown_field", { kind: block.t, field });
}

function drawBlock(block) {
  const refused = refusal(block);
  if (!refused) return DRAWN[block.t](block);
  const node = el("div", "posviz-note warning posviz-unknown");
  node.textContent = refused;
  return node;
}

export function draw(blocks, into) {
  blocks.forEach((block) => into.appendChild(drawBlock(block)));
}

// Charts are drawn once their hosts are in the page (they size to their column); their words
// are among the viewer's (ui.documents.viewer_strings holds ui.chart.chart_labels).
export function drawCharts(scope) {
  scope.querySelectorAll(".posviz-chart-host").forEach((host) => {
    if (!host.querySelector(".posviz-chart")) redrawChart(host, host.dataset.figure);
  });
  fitFormulas(scope, ".posviz-formula-part");
}

// A chart's host drawn (again) with a figure (JSON): the block's own, or a typed sentence's.
export function redrawChart(host, figure, summary = host.dataset.summary) {
  drawChart({ figure, name: host.dataset.name, labels: screen.strings,
              plotly: room && room.plotly,
              summary,
              modebar: host.dataset.toolbar !== "false" }, host);
}
