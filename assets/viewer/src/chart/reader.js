// For a reader who cannot see the chart: a name, a description and a data table.

import { drawPending } from "./pending.js";
import { cell, grids, heard } from "./numbers.js";

// The chart's box is a figure named by its title and described by its summary (sentences made
// from its numbers on the server: ui/summary.py); the drawing itself (plotly's SVG, a jumble of
// tick labels read aloud) is hidden from screen readers, its toolbar's buttons are not. Its
// numbers, the same as its CSV file's, are tables behind a "Data table" disclosure, built when
// it is opened, with the CSV download beside them for the keyboard. Every button is at least
// 24 by 24 px (WCAG 2.2's target size; plotly draws its toolbar's 22 px high); the toolbar,
// shown on hover, shows too while one of its buttons has the keyboard's focus, outlined.

export function hideDrawing(div) {
  div.querySelectorAll("svg.main-svg").forEach((svg) => svg.setAttribute("aria-hidden", "true"));
}

const TABLE_ROWS = 100;  // rows of each table shown; the CSV file has them all
const DIGITS = 4;  // significant digits of a number shown; the CSV file has them all
const shortly = (v) => (typeof v === "number" && Number.isFinite(v)
  ? String(Number(v.toPrecision(DIGITS))) : cell(v));
let described = 0;

const DESCRIBED_CSS = `
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

export function describe(data, host, div, figure) {
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

export function fillTable(div) {
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
      scroll.tabIndex = 0;  // a wide table scrolls sideways from the keyboard too
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
