// The app's pages, once per tab: formulas fitted and a room's join field given the number pad;
// and the sidebar's tools (a link to this view, every chart in one zip).

import { drawPending } from "./draw.js";
import { chartFiles, save, zip } from "./files.js";
import { fitFormulas } from "./formulas.js";

// What the app's pages need once per tab, for every element drawn later: formulas fitted to
// their lines, and a phone's number pad in a room's join field (ui.room.join_box: the app
// draws a text field, which Streamlit gives no inputmode). Started by the first of the page's
// charts or the sidebar's tools to be drawn (a phone's sidebar may be drawn late).
export function watchPage() {
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
