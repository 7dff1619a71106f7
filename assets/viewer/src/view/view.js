// The view element (ui.open_at_top), with the page and announce elements one module
// (static/view.js). It opens a new view of a page at its top: the lesson's Next sits at the foot
// of a scene, and without this the next scene opened as far down as the last one was read (on
// a projector, with its title and figure out of sight). Next, Back, the scene picker, the
// browser's own buttons and a followed move all change the view; a control moved on the same
// view does not, and leaves the reader where they are.
//
// The element is drawn early in the run, while the last view's content is still on the page:
// the main column is held at its top on every frame until the run has finished (and the new
// content is laid out), unless the reader scrolls meanwhile.

import { tab } from "./tab.js";
import { namePager } from "./page.js";

export { announce } from "./announce.js";
export { page } from "./page.js";

const QUIET_FRAMES = 6;  // frames with the run finished and the page's height still, before
                         // the page is left alone

// Once the new view is laid out, the keyboard's focus goes to its heading (the scene's, else the
// page's): Next's own button would otherwise keep it, at the foot of the new scene, where a
// second Enter turns a scene nobody has seen; a screen reader reads the new heading out.
function focusHeading(main) {
  const heading = main.querySelector("h2") || main.querySelector("h1");
  if (!heading) return;
  heading.tabIndex = -1;
  heading.focus({ preventScroll: true });
}

// While it is held, the main column says so (data-posviz-held): a test waits for the hold to end
// before it clicks, which could land on whatever the hold scrolled under the pointer.
function holdAtTop(main) {
  const token = {};
  tab.holding = token;
  main.dataset.posvizHeld = "";
  const release = () => {
    if (tab.holding !== token) return;
    tab.holding = null;
    delete main.dataset.posvizHeld;
  };
  for (const kind of ["wheel", "touchstart", "keydown"]) {
    main.addEventListener(kind, release, { once: true, passive: true });
  }
  let quiet = 0;
  let height = -1;
  const step = () => {
    if (tab.holding !== token) return;
    main.scrollTo({ top: 0, left: 0 });
    const app = document.querySelector("[data-testid=stApp]");
    const settled = app && app.dataset.testScriptState === "notRunning"
      && main.scrollHeight === height;  // the run finished and its content laid out
    height = main.scrollHeight;
    quiet = settled ? quiet + 1 : 0;
    if (quiet < QUIET_FRAMES) requestAnimationFrame(step);
    else {
      release();
      focusHeading(main);
    }
  };
  requestAnimationFrame(step);
}

// A presentation clicker sends Page Down and Page Up; a keyboard has the arrows too. While focus
// is on the page itself, a button or a switch (a question's reveal: neither uses these keys),
// not in a field, a slider, a radio group or a menu, they press the view's next and previous
// buttons, and R its question's reveal (`keys`: their CSS selectors).
const EDITING = "input:not([type=checkbox]), textarea, select, [contenteditable], [role=slider], "
  + "[role=radio], [role=tab], [role=listbox], [role=option], [role=menu], [role=menuitem], "
  + ".posviz-data, [role=figure], [data-testid=stTable]";  // the arrows scroll a table, a chart
const STEPS = { PageDown: "next", ArrowRight: "next", PageUp: "back", ArrowLeft: "back",
  r: "reveal", R: "reveal" };
const QUESTION = "[class*=st-key-question_]";  // a question's box (ui.doc.StreamlitDoc.question)
const ANSWERED = "[data-testid=stAlertContentSuccess], .posviz-chart";  // its answer, shown
const ANSWER_FRAMES = 600;  // frames to wait for the answer (about ten seconds)

let listening = false;

function onKey(event) {
  const step = STEPS[event.key];
  const target = event.target instanceof Element ? event.target : null;
  if (!step || !tab.keys || !tab.keys[step] || event.altKey || event.ctrlKey || event.metaKey
      || event.shiftKey || (target && target.closest(EDITING))) return;
  const button = document.querySelector(tab.keys[step]);
  if (!button || button.disabled) return;
  event.preventDefault();
  if (event.posvizPressed) return;  // pressed already, by this module of another version
  event.posvizPressed = true;
  const box = button.closest(QUESTION);
  button.click();
  if (step === "reveal" && box) focusAnswer([...box.classList].find((c) => c.startsWith(
    "st-key-question_")));
}

// After a reveal the focus goes to the question's box once its answer shows (the control that
// revealed it may be gone: a room's Reveal gives way to the class's answers), not to the page's
// body; placed there, not Tabbed to, it draws no ring. An answer that ends below the window (a
// projector shows the scene's figure first) is scrolled up to its top, under the page's bar,
// with what follows it (a chart of the numbers behind it): a key that seemed to do nothing
// would be pressed again, hiding the answer.
function focusAnswer(name) {
  let frames = 0;
  const look = () => {
    const box = document.querySelector(`.${name}`);
    const answer = box && box.querySelector(ANSWERED);
    if (answer) {
      box.tabIndex = -1;
      box.focus({ preventScroll: true });
      bringUp(box, answer.closest("[data-testid=stAlert]") || answer);
    } else if ((frames += 1) < ANSWER_FRAMES) requestAnimationFrame(look);
  };
  requestAnimationFrame(look);
}

// While the question's box ends below the window, its answer is scrolled to the window's top,
// frame by frame for a second (the chart under it may take its height after the answer shows).
function bringUp(box, top) {
  top.style.scrollMarginTop = "5rem";  // under the page's top bar
  let frames = 0;
  const step = () => {
    if (box.getBoundingClientRect().bottom > innerHeight) top.scrollIntoView({ block: "start" });
    if ((frames += 1) < 60) requestAnimationFrame(step);
  };
  step();
}

export function view({ data }) {
  const { view: shown, keys, pager } = data;
  tab.keys = keys || null;
  tab.pager = pager || null;
  namePager();
  if (!listening) {
    document.addEventListener("keydown", onKey);
    listening = true;
  }
  if (tab.view !== undefined && tab.view !== shown) {
    const main = document.querySelector("[data-testid=stMain]");
    if (main) holdAtTop(main);
    tab.announced = null;
  }
  tab.view = shown;
}
