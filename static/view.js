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
const QUIET_FRAMES = 3;  // frames with the run finished before the page is left alone

function holdAtTop(main) {
  const token = {};
  tab.holding = token;
  const release = () => { if (tab.holding === token) tab.holding = null; };
  for (const kind of ["wheel", "touchstart", "keydown"]) {
    main.addEventListener(kind, release, { once: true, passive: true });
  }
  let quiet = 0;
  const step = () => {
    if (tab.holding !== token) return;
    main.scrollTo({ top: 0, left: 0 });
    const app = document.querySelector("[data-testid=stApp]");
    quiet = app && app.dataset.testScriptState === "notRunning" ? quiet + 1 : 0;
    if (quiet < QUIET_FRAMES) requestAnimationFrame(step);
    else release();
  };
  requestAnimationFrame(step);
}

export default function (component) {
  const { view } = component.data;
  if (tab.view !== undefined && tab.view !== view) {
    const main = document.querySelector("[data-testid=stMain]");
    if (main) holdAtTop(main);
  }
  tab.view = view;
}
