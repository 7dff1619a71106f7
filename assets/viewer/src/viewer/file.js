// A downloaded file (ui.documents.offline_html): its documents drawn once, with a list of
// contents when it holds more than one, every answer behind a button. A file with live charts
// is a handout: a sentence box at its top (reached from each scene that has a chart) draws them
// again for the sentence its reader types, in this browser, with no network (live.js).

import { draw, drawCharts } from "./blocks.js";
import { drawTokens, sentenceBox, warmLayers } from "./live.js";
import { el, file, inline, root, say } from "./screen.js";

export function drawFile() {
  const data = file;
  if (data.heading) root.appendChild(inline("h1", "", data.heading));
  const sections = data.documents.map((doc, i) => {
    const section = el("section", "posviz-document");
    section.id = `scene-${i + 1}`;
    draw(doc.blocks, section);
    return section;
  });
  const live = sections.some((section) => section.querySelector("[data-live]"));
  if (live) {
    const { box, input } = sentenceBox((tokens) => drawTokens(root, tokens), say("try_reset"));
    root.appendChild(box);
    warmLayers(root);
    sections.filter((section) => section.querySelector(".posviz-chart-host")).forEach((section) => {
      const to = el("a", "posviz-try-link", `${say("try_open")} ↑`);
      to.href = "#posviz-try";
      to.onclick = () => { input.focus({ preventScroll: true }); };
      const heading = section.querySelector("h2, h1");
      if (heading) heading.after(to);
      else section.prepend(to);
    });
  }
  if (data.documents.length > 1) {
    const contents = el("nav", "posviz-contents");
    contents.setAttribute("aria-label", say("contents"));
    data.documents.forEach((doc, i) => {
      const named = doc.title && !/^\d+$/.test(doc.title);
      const link = named ? inline("a", "", doc.title) : el("a", "", say("scene", { n: i + 1 }));
      link.href = `#scene-${i + 1}`;
      contents.appendChild(link);
    });
    root.appendChild(contents);
  }
  root.append(...sections);
  drawCharts(root);
}
