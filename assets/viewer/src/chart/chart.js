// Draws one posviz figure with the small plotly.js bundle served from static/, and exports it.
// The bundle loads once per browser tab; later figures, page switches and reruns reuse it, and
// a rerun updates the chart in place (Plotly.react) instead of drawing it anew.
// The module is two elements of the app (ui.chart): a chart (`chart`), and the sidebar's tools
// (`tools`: copy a link to this view, and export every chart on the page as one zip of PNG,
// SVG, CSV and .npy files); the room's screen and the offline files draw with drawChart. Its
// parts are the modules beside it; `npm run build` bundles them into static/chart.js.

import { ICONS, render } from "./draw.js";
import { numbered, save } from "./files.js";
import { BUNDLE, plotly } from "./loader.js";
import { arrays, tables } from "./numbers.js";
import { whenNear } from "./pending.js";
import { describe, fillTable } from "./reader.js";
import { drawTools } from "./tools.js";

export { fitFormulas } from "./formulas.js";
export { plotly } from "./loader.js";

// A chart takes its colours from the page when it is drawn: when the reader's system turns dark
// or light, every chart is drawn again (the room's screen and the offline files follow the
// system's theme by their style alone; the app's own theme reruns its elements too).
let followingTheme = false;

function followTheme() {
  if (followingTheme || !window.matchMedia) return;
  followingTheme = true;
  window.matchMedia("(prefers-color-scheme: dark)").addEventListener("change", () => {
    document.querySelectorAll(".posviz-chart").forEach((div) => {
      if (div.posvizSource && div.isConnected && div.offsetParent !== null) render(div);
    });
  });
}

// The language of the chart's tool bar and plotly's own messages: the reader's (the app says
// it in data.lang; on a room's screen and in a file, it is the language the chart's place is
// declared in). plotly.js knows Chinese as zh-CN, in posviz's build; any other reads English.
function chartLocale(lang, element) {
  const tag = (lang || (element.closest("[lang]") || document.documentElement).lang || "")
    .toLowerCase();
  return tag.startsWith("zh") ? "zh-CN" : "en";
}

export function drawChart(data, parentElement) {
  followTheme();
  let div = parentElement.querySelector(".posviz-chart");
  if (!div) {
    const cue = document.createElement("div");  // shown while the chart is wider than its column
    cue.className = "posviz-scroll-cue";
    cue.setAttribute("aria-hidden", "true");
    div = document.createElement("div");
    div.className = "posviz-chart";
    parentElement.append(cue, div);
    parentElement.style.overflowX = "auto";  // a chart wider than its column scrolls in it
  }
  parentElement.querySelector(".posviz-scroll-cue").textContent = data.labels.scroll || "";
  const figure = JSON.parse(data.figure);
  figure.layout.meta = figure.layout.meta || {};
  div.dataset.name = data.name;
  div.posvizSource = { figure, host: parentElement, toolbar: data.modebar !== false,
                       fit: !!data.fit };
  describe(data, parentElement, div, figure);
  if (!div.posvizResize) {  // a new width (window, sidebar, phone turned) refits the chart
    div.posvizResize = new ResizeObserver(() => {  // not for a chart a page switch hid
      if (div.isConnected && div.offsetParent !== null && (div.posvizPending
          || div.classList.contains("js-plotly-plot"))
          && (div.clientWidth !== div.posvizWidth
              || parentElement.clientWidth !== div.posvizView)) render(div);
    });
    div.posvizResize.observe(parentElement);
  }
  const bundle = data.plotly || `${BUNDLE}?v=${data.bundle}`;  // the room's own, or the app's
  whenNear(div, () => plotly(bundle).then((Plotly) => {
    const file = `posviz-${data.name}`;
    const button = (name, click) => ({ name, title: data.labels[name], icon: ICONS[name], click });
    div.posvizCsv = () => tables(div).forEach((csv, i, all) => save(
      numbered(div, file, i, all.length, "csv"), "\ufeff" + csv, "text/csv"));
    div.posvizConfig = {
      locale: chartLocale(data.lang, parentElement),
      displaylogo: false, displayModeBar: data.modebar === false ? false : "hover",
      modeBarButtonsToRemove: ["select2d", "lasso2d", "autoScale2d", "sendChartToCloud"],
      toImageButtonOptions: { filename: file, scale: 2 },
      modeBarButtonsToAdd: [
        button("svg", (gd) => Plotly.downloadImage(gd, { format: "svg", filename: file })),
        button("csv", () => div.posvizCsv()),
        ...(figure.data.some((t) => t.type === "heatmap") ? [button("npy", (gd) => arrays(gd)
          .forEach((bytes, i, all) => save(numbered(gd, file, i, all.length, "npy"), bytes,
                                           "application/octet-stream")))] : []),
      ],
    };
    return render(div).then(() => fillTable(div));
  }).catch((err) => { div.textContent = err.message; }));
  if (div.offsetParent !== null) render(div);  // its place, at its drawn height
}

export function chart({ data, parentElement }) {
  drawChart(data, parentElement);
}

export function tools({ data, parentElement }) {
  drawTools(data, parentElement);
}
