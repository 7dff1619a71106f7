// A document's blocks (ui/blocks.py declares them) drawn on the room's screen and in a file,
// one case per kind, with the app's own chart module, KaTeX for formulas and markdown-it for
// text.

import { drawChart, fitFormulas } from "../chart/chart.js";
import { question } from "./question.js";
import { el, inline, md, room, say, screen } from "./screen.js";


// Each part braced, one unbreakable group as the app sets it (ui.doc.formula_markdown): a
// narrow line breaks between parts, never inside one (a part too wide is set smaller).
function formula(parts) {
  const line = el("div", "posviz-formula");
  for (const part of parts) {
    const piece = el("span", "posviz-formula-part");
    piece.innerHTML = window.katex.renderToString(`\\displaystyle {${part}}`,
                                                  { throwOnError: false });
    line.appendChild(piece);
  }
  return line;
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
    cells.forEach((cell) => row.appendChild(el("td", /^-?[\d.]+(e[-+]?\d+)?$/i.test(cell)
      ? "number" : "", cell)));
  });
  wrap.appendChild(grid);
  return wrap;
}

function chips(block) {
  const line = el("div", "posviz-chips");
  block.tokens.forEach((token, i) => {
    const chip = el("span", "posviz-chip");
    chip.appendChild(el("sub", "", block.labels[i]));
    chip.appendChild(document.createTextNode(`\u00a0${token}`));
    line.appendChild(chip);
  });
  return line;
}

function drawBlock(block) {
  switch (block.t) {
    case "heading": return inline(`h${block.level}`, "", block.text);
    case "markdown": {
      const node = el("div", "posviz-markdown");
      node.innerHTML = md.render(block.text);
      return node;
    }
    case "caption": return inline("p", "posviz-caption", block.text);
    case "note": {
      const node = el("div", `posviz-note ${block.kind}`);
      node.innerHTML = md.render(block.text);
      return node;
    }
    case "formula": return formula(block.parts);
    case "chart": {
      const host = el("div", "posviz-chart-host");
      host.dataset.figure = block.figure;
      host.dataset.name = block.name;
      host.dataset.toolbar = String(block.toolbar);
      host.dataset.summary = block.summary || "";
      return host;
    }
    case "metric": {
      const node = el("div", "posviz-metric");
      node.append(inline("div", "posviz-metric-label", block.label),
                  el("div", "posviz-metric-value", block.value));
      if (block.delta) node.appendChild(el("div", "posviz-metric-delta", block.delta));
      return node;
    }
    case "table": return table(block);
    case "chips": return chips(block);
    case "setting": {
      const node = el("p", "posviz-setting");
      node.append(inline("span", "posviz-setting-label", block.label),
                  el("span", "posviz-setting-value", block.value));
      return node;
    }
    case "link": return inline("p", "posviz-link", block.text);
    case "columns": {
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
    case "box": {
      const node = el("div", block.border ? "posviz-box bordered" : "posviz-box");
      draw(block.blocks, node);
      return node;
    }
    case "expander": {
      const node = el("details", "posviz-expander");
      node.appendChild(inline("summary", "", block.label));
      draw(block.blocks, node);
      return node;
    }
    case "question": return question(block, screen.polls[block.poll] || null, block.answer);
    default: {  // a kind this screen does not know (ui/blocks.py declares them): said, never blank
      console.error(`posviz: a block of unknown kind ${JSON.stringify(block.t)}`);
      const node = el("div", "posviz-note warning posviz-unknown");
      node.textContent = say("unknown_block", { kind: String(block.t) });
      return node;
    }
  }
}

export function draw(blocks, into) {
  blocks.forEach((block) => into.appendChild(drawBlock(block)));
}

// Charts are drawn once their hosts are in the page (they size to their column); their words
// are among the viewer's (ui.documents.viewer_strings holds ui.chart.chart_labels).
export function drawCharts(scope) {
  scope.querySelectorAll(".posviz-chart-host").forEach((host) => {
    if (host.querySelector(".posviz-chart")) return;
    drawChart({ figure: host.dataset.figure, name: host.dataset.name, labels: screen.strings,
                plotly: room && room.plotly,
                summary: host.dataset.summary,
                modebar: host.dataset.toolbar !== "false" }, host);
  });
  fitFormulas(scope, ".posviz-formula-part");
}
