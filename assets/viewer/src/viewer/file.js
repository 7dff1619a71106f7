// A downloaded file (ui.documents.offline_html): its documents drawn once, with a list of
// contents when it holds more than one, every answer behind a button.

import { draw, drawCharts } from "./blocks.js";
import { el, file, inline, root, say } from "./screen.js";

export function drawFile() {
  const data = file;
  if (data.heading) root.appendChild(inline("h1", "", data.heading));
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
  data.documents.forEach((doc, i) => {
    const section = el("section", "posviz-document");
    section.id = `scene-${i + 1}`;
    draw(doc.blocks, section);
    root.appendChild(section);
  });
  drawCharts(root);
}
