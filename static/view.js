// Opens a new view of a page at its top (ui.open_at_top): the lesson's Next sits at the foot
// of a scene, and without this the next scene opened as far down as the last one was read (on
// a projector, with its title and figure out of sight). Next, Back, the scene picker, the
// browser's own buttons and a followed move all change the view; a control moved on the same
// view does not, and leaves the reader where they are.
//
// The element is drawn early in the run, while the last view's content is still on the page:
// the main column is held at its top on every frame until the run has finished (and the new
// content is laid out), unless the reader scrolls meanwhile.

const tab = window.posvizView || (window.posvizView = {});
const QUIET_FRAMES = 6;  // frames with the run finished and the page's height still, before
                         // the page is left alone

function holdAtTop(main) {
  const token = {};
  tab.holding = token;
  const release = () => { if (tab.holding === token) tab.holding = null; };
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
    else release();
  };
  requestAnimationFrame(step);
}

// A presentation clicker sends Page Down and Page Up; a keyboard has the arrows too. While focus
// is on the page itself, a button or a switch (a question's reveal: neither uses these keys),
// not in a field, a slider, a radio group or a menu, they press the view's next and previous
// buttons (`keys`: their CSS selectors).
const EDITING = "input:not([type=checkbox]), textarea, select, [contenteditable], [role=slider], "
  + "[role=radio], [role=tab], [role=listbox], [role=option], [role=menu], [role=menuitem]";
const STEPS = { PageDown: "next", ArrowRight: "next", PageUp: "back", ArrowLeft: "back" };

function onKey(event) {
  const step = STEPS[event.key];
  const target = event.target instanceof Element ? event.target : null;
  if (!step || !tab.keys || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey
      || (target && target.closest(EDITING))) return;
  const button = document.querySelector(tab.keys[step]);
  if (!button || button.disabled) return;
  event.preventDefault();
  button.click();
}

export default function (component) {
  const { view, keys } = component.data;
  tab.keys = keys || null;
  if (!tab.listening) {
    document.addEventListener("keydown", onKey);
    tab.listening = true;
  }
  if (tab.view !== undefined && tab.view !== view) {
    const main = document.querySelector("[data-testid=stMain]");
    if (main) holdAtTop(main);
  }
  tab.view = view;
}
