// Formulas fitted to their line.

// A formula wider than its line is set smaller until it fits, down to SMALLEST of its size
// (narrower still, it scrolls in its line): a phone shows a formula's end. Fitted when it is
// first seen, again when its line's width changes (its height follows its size: not on every
// size change), when fonts arrive (KaTeX's change its width), and whenever the page changes
// and it overflows its line at a size it could still shrink from (its content redrawn in place
// changes no width an observer sees).
const SMALLEST = 0.6;
let fontsWatched = false;
const fitter = new ResizeObserver((entries) => entries.forEach(({ target }) => {
  if (target.clientWidth !== target.posvizFitWidth) fit(target);
}));

function fit(box) {
  box.posvizFitWidth = box.clientWidth;
  box.style.fontSize = "";
  const over = box.scrollWidth / box.clientWidth;
  if (over > 1.005) box.style.fontSize = `${Math.max(SMALLEST, 1 / over) * 100}%`;
}

// Fits the formulas under scope that selector finds (the app's page: its element's data,
// ui.blocks_streamlit.FORMULAS; the viewer: its own formulas' parts).
export function fitFormulas(scope, selector) {
  if (!fontsWatched) {  // a formula set before its fonts came is measured again
    fontsWatched = true;
    document.fonts.addEventListener("loadingdone", () => document.querySelectorAll(selector)
      .forEach((box) => box.posvizFitted && fit(box)));
  }
  scope.querySelectorAll(selector).forEach((box) => {
    if (!box.posvizFitted) {
      box.posvizFitted = true;
      fitter.observe(box);
    } else if (box.scrollWidth > box.clientWidth + 1
               && box.style.fontSize !== `${SMALLEST * 100}%`) {
      fit(box);
    }
  });
}
