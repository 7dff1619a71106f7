// The sidebar's tools: a link to this view, and every chart of the page in one zip.

import { drawPending } from "./pending.js";
import { chartFiles, save, zip } from "./files.js";

export function drawTools(data, parentElement) {
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
    } catch {  // no clipboard over plain http: show the link to copy by hand
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
