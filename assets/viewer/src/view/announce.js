// The announce element: a sentence said to a screen reader, once.

import { tab } from "./tab.js";

// One live region per tab, outside Streamlit's elements: a revealed answer is said to a screen
// reader once; a rerun that says the same again says nothing, a new view forgets what was said.
function say(said) {
  if (tab.announced === said) return;
  tab.announced = said;
  let region = document.getElementById("posviz-announce");
  if (!region) {
    region = document.createElement("p");
    region.id = "posviz-announce";
    region.setAttribute("aria-live", "polite");
    region.style.cssText = "position:absolute;width:1px;height:1px;margin:-1px;overflow:hidden;"
      + "clip-path:inset(50%);white-space:nowrap";
    document.body.appendChild(region);
  }
  region.textContent = said;
}

export function announce({ data }) {
  say(data.announce);
}
