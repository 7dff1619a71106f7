// The page element, drawn in the sidebar on every page: the page's language is the reader's
// (Streamlit's page says "en" whatever it shows: screen readers pick their voice, and browsers
// their glyphs, by it). It watches the page, once a frame however many changes the page made
// (a chart draws in many): tables that scroll get the keyboard, formulas are fitted to their
// lines, a room's join field gets the number pad and the lesson's pager its names; and it
// shades the header once the page scrolls.

import { fitFormulas } from "../chart/formulas.js";
import { numberPads } from "../room/join.js";
import { tab } from "./tab.js";

let watching = false;
let queued = false;

function touch() {
  queued = false;
  focusableTables();
  if (tab.formulas) fitFormulas(document, tab.formulas);
  numberPads(document);
  namePager();
}

function watchPage() {
  if (watching) return;
  watching = true;
  const changed = () => {
    if (!queued) queued = Boolean(requestAnimationFrame(touch));
  };
  new MutationObserver(changed).observe(document.body, { childList: true, subtree: true });
  window.addEventListener("resize", changed);
}

// A table wider than its column scrolls sideways inside Streamlit's box, which the keyboard
// cannot reach unless the box takes the focus: each such box is made focusable as it appears
// (looked for once a frame).
function focusableTables() {
  document.querySelectorAll("[data-testid=stTable] div").forEach((box) => {
    if (box.scrollWidth > box.clientWidth && /auto|scroll/.test(getComputedStyle(box).overflowX)) {
      box.tabIndex = 0;
    }
  });
}

// Streamlit's header is see-through at the page's top (the page starts under its empty bar);
// once the page scrolls, it takes the page's colour, so that the sidebar's button never sits on
// the text passing under it.
let shaded = null;  // the main column whose scrolling shades the header

function shadeHeader() {
  const main = document.querySelector("[data-testid=stMain]");
  if (!main || shaded === main) return;
  shaded = main;
  const shade = () => {
    const header = document.querySelector("[data-testid=stHeader]");
    const app = document.querySelector("[data-testid=stApp]");
    if (header && app) {
      header.style.background = main.scrollTop > 0 ? getComputedStyle(app).backgroundColor : "";
    }
  };
  main.addEventListener("scroll", shade, { passive: true });
  shade();
}

// What a screen reader hears for the page's st.pagination (ui.open_at_top's pager): the lesson's
// scenes by number and title, where Streamlit says "Pagination" and "Page 4". Applied again
// whenever the page changes (a new picker is new buttons).
export function namePager() {
  const pager = tab.pager;
  const nav = pager && document.querySelector("[data-testid=stPagination] [role=navigation]");
  if (!nav) return;
  const name = (element, label) => {
    if (element && element.getAttribute("aria-label") !== label) {
      element.setAttribute("aria-label", label);
    }
  };
  name(nav, pager.nav);
  name(nav.querySelector("[data-testid=stPaginationPrev]"), pager.previous);
  name(nav.querySelector("[data-testid=stPaginationNext]"), pager.next);
  for (const button of nav.querySelectorAll("button")) {
    const page = /^Page (\d+)$/.exec(button.dataset.page || button.getAttribute("aria-label"));
    if (page && pager.pages[page[1] - 1]) {
      button.dataset.page = `Page ${page[1]}`;
      name(button, pager.pages[page[1] - 1]);
    }
  }
}

export function page({ data }) {
  document.documentElement.lang = data.lang;
  tab.formulas = data.formulas;  // the app's formulas (ui.blocks_streamlit.FORMULAS)
  watchPage();
  touch();
  shadeHeader();
}
