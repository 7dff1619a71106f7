// A fragment's clock (ui.room._every): asks for the fragment's next run every `every` seconds,
// but only while the page is idle (no run going, none asked for) and the reader has not just
// clicked or typed. Streamlit's own `run_every` timer asks whatever the page is doing: a tick
// right after a click sent the address from before the click with the fragment's run, and the
// page went back to it (the lecturer pressed Next, their page showed the next scene, and the
// address, and so the class, stayed on the scene before). Ticks of a page's fragments go
// one at a time (Streamlit runs one fragment per request: two asked at once warn): after a
// tick, the next waits until the run it asked for has started (a busy server may take longer
// than APART_MS to start it), or ASKED_MS have passed.

const IDLE = "[data-testid=stApp][data-test-script-state=notRunning]";
const QUIET_MS = 600;  // after a click or a key, no tick for this long
const APART_MS = 400;  // two fragments' ticks at least this far apart: one run at a time
const ASKED_MS = 5000;  // a tick whose run never starts holds the next no longer than this

// What the tab's fragments share: the reader's last click or key, the last tick and when its
// run was asked for (0 once it started), and the app whose runs are watched.
const tab = { input: 0, ticked: 0, asked: 0, watched: null };
for (const kind of ["pointerdown", "keydown"]) {
  document.addEventListener(kind, () => { tab.input = Date.now(); }, true);
}

function watchRuns() {  // a run that starts (its state changes) answers the tick before it
  const app = document.querySelector("[data-testid=stApp]");
  if (!app || tab.watched === app) return;
  tab.watched = app;
  new MutationObserver(() => { tab.asked = 0; })
    .observe(app, { attributes: true, attributeFilter: ["data-test-script-state"] });
}

export default function (component) {
  const { data, setTriggerValue, parentElement } = component;
  parentElement.classList.add("posviz-tick");  // an element that draws nothing (no chart)
  watchRuns();
  let later = null;
  const attempt = () => {  // a tick that is due goes as soon as the page lets it
    later = null;
    const now = Date.now();
    if (document.querySelector(IDLE) && now - tab.input > QUIET_MS
        && now - tab.ticked >= APART_MS && now - tab.asked >= ASKED_MS) {
      tab.ticked = now;
      tab.asked = now;
      setTriggerValue("tick", now);
    } else {
      later = setTimeout(attempt, APART_MS);
    }
  };
  const timer = setInterval(() => { if (later === null) attempt(); }, data.every * 1000);
  return () => { clearInterval(timer); clearTimeout(later); };
}
