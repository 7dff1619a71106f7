// A fragment's clock (ui.state.tick): asks for the fragment's next run every `every` seconds,
// but only while the page is idle (no run going, none asked for) and the reader has not just
// clicked or typed. Streamlit's own `run_every` timer asks whatever the page is doing: a tick
// right after a click sent the address from before the click with the fragment's run, and the
// page went back to it (the lecturer pressed Next, their page showed the next scene, and the
// address, and so the class, stayed on the scene before).

const IDLE = "[data-testid=stApp][data-test-script-state=notRunning]";
const QUIET_MS = 600;  // after a click or a key, no tick for this long

const tab = window.posvizTick || (window.posvizTick = { input: 0 });
if (!tab.listening) {
  for (const kind of ["pointerdown", "keydown"]) {
    document.addEventListener(kind, () => { tab.input = Date.now(); }, true);
  }
  tab.listening = true;
}

export default function (component) {
  const { data, setTriggerValue, parentElement } = component;
  parentElement.classList.add("posviz-tick");  // an element that draws nothing (no chart)
  const timer = setInterval(() => {
    if (document.querySelector(IDLE) && Date.now() - tab.input > QUIET_MS) {
      setTriggerValue("tick", Date.now());
    }
  }, data.every * 1000);
  return () => clearInterval(timer);
}
