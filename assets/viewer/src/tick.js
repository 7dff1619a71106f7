// A fragment's clock (ui.room._every): asks for the fragment's next run every `every` seconds,
// but only while the page is idle (no run going, none asked for) and the reader has not just
// clicked or typed. Streamlit's own `run_every` timer asks whatever the page is doing: a tick
// right after a click sent the address from before the click with the fragment's run, and the
// page went back to it (the lecturer pressed Next, their page showed the next scene, and the
// address, and so the class, stayed on the scene before). Ticks of a page's fragments go
// one at a time (Streamlit runs one fragment per request: two asked at once warn): after a
// tick, the next waits until the run it asked for has started (a busy server may take longer
// than APART_MS to start it), or ASKED_MS have passed.
//
// A click or a key counts as a run asked for too: no tick goes until a run has started after
// it (or ASKED_MS have passed, for one that asks none). On a busy machine a click made while
// a fragment ran was sent to the server only when that run had ended, 0.97 s after the
// pointer went down: past QUIET_MS, and with the page idle (its run asked for, not started),
// the next tick went 0.26 s later with the old address, and the page went back a scene.
//
// Streamlit sends the triggers and values set in one turn of the page's tasks together, in one
// request under the first one's fragment (its widget manager's flush, a timer of 0 ms): a click
// that came between a tick and that flush (a busy page handles input before timers) went to
// the server as part of the fragment's run, which ran its callback (Next moved the address on)
// but not the page (the scene stayed). A click in that gap is held, and clicked again once
// the tick's request has gone, in a request of its own.

const IDLE = "[data-testid=stApp][data-test-script-state=notRunning]";
const QUIET_MS = 600;  // after a click or a key, no tick for this long
const APART_MS = 400;  // two fragments' ticks at least this far apart: one run at a time
const ASKED_MS = 5000;  // a tick whose run never starts holds the next no longer than this

// What the tab's fragments share: the reader's last click or key, the last tick, when a run
// was last asked for (by a tick, a click or a key; 0 once a run started), and the app whose
// runs are watched.
const tab = { input: 0, ticked: 0, asked: 0, watched: null, sending: false, held: [] };
for (const kind of ["pointerdown", "keydown"]) {
  document.addEventListener(kind, () => { tab.input = tab.asked = Date.now(); }, true);
}
document.addEventListener("click", (event) => {  // the reader's click while a tick is being sent
  if (!tab.sending || !event.isTrusted || !(event.target instanceof Element)) return;
  event.preventDefault();
  event.stopImmediatePropagation();
  tab.held.push(event.target);
}, true);

function watchRuns() {  // a run that starts answers what asked for it (a tick, a click)
  const app = document.querySelector("[data-testid=stApp]");
  if (!app || tab.watched === app) return;
  tab.watched = app;
  new MutationObserver(() => { if (app.dataset.testScriptState === "running") tab.asked = 0; })
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
      tab.sending = true;
      setTriggerValue("tick", now);
      setTimeout(() => {  // queued after Streamlit's flush of this turn: the request has gone
        tab.sending = false;
        for (const target of tab.held.splice(0)) target.click();
      }, 0);
    } else {
      later = setTimeout(attempt, APART_MS);
    }
  };
  const timer = setInterval(() => { if (later === null) attempt(); }, data.every * 1000);
  return () => { clearInterval(timer); clearTimeout(later); };
}
