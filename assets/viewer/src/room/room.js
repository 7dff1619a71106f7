// Keeps a browser tab in its lecture room (see ui/room.py and rooms/routes/).
//
// A student's tab that follows the lecturer goes to the room's follower screen (served by
// rooms/routes/follow.py, drawn by static/viewer.js), which shows the lecturer's view without
// running the page for each student. A student exploring on their own stays in the app: the
// tab waits on the room's route (the server holds the request until the room changes, 25 s at
// most) and reruns its page only when the lecturer puts up or takes away a question of their own.
//
// A lecturer's tab publishes its own page and query string once a run has finished and the
// address has stayed the same for a moment, so a dragged slider is sent once, where it stops.
//
// The server keeps who this browser is in HttpOnly cookies, which no script reads: its voter id
// and the proof that it was in its room (set by the room's screen), and, for a lecturer, the
// room's key, which the tab of a room it started hands the server once (then tells its page it
// is done, so that no later run sends the key again, and forgets it); Leave and Close have the
// server delete it.
//
// On errors every request backs off (at most one every few seconds; a 429 or 503 says how long
// to wait); a tab whose room store is down asks the server's health route until it answers,
// then reruns its page, which finds the room again.

const SETTLE_MS = 300;  // how long an address must stay put to be published, or undone
const TICK_MS = 150;
const GONE_MS = 3000;   // a follower whose element is gone this long stops following
const MOST_MS = 5000;   // the longest back-off between two failed requests
const RERUN_MS = 30000; // a follower told the store is down reruns its page at most this often

const tab = {};  // what the element keeps for the tab
const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

// The app's root path ("/" when served at the top of a host), from the address and the page
// the server drew there ("" for home, "rope", ...): read as the element is drawn, when the two
// agree, and kept for the tab's life.
function root(page) {
  const path = location.pathname;
  const base = page && path.endsWith(`/${page}`) ? path.slice(0, -page.length) : path;
  return base.endsWith("/") ? base : `${base}/`;
}

const route = (code) => `${location.origin}${tab.root}_posviz/room/${code}`;

// How long to wait after the nth failure in a row: what the server asked for (Retry-After),
// else a back-off that doubles up to MOST_MS.
function backoff(failures, reply) {
  const asked = reply && Number(reply.headers.get("Retry-After"));
  if (asked > 0) return asked * 1000;
  return Math.min(MOST_MS, 250 * 2 ** Math.min(failures, 5));
}

// A small JSON POST to one of the room's routes (credentials: the key's cookie goes with it).
const post = (url, body) => fetch(url, {
  method: "POST", cache: "no-store", credentials: "same-origin",
  headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });

// Whether the address shows the page the server drew (not yet, while a page switch runs).
const settled = () => location.pathname === `${tab.root}${tab.data.page}`;

// The address's query string without the parameters that belong to one reader (the element's
// data names them: ui.state.PERSONAL).
function shared(search) {
  const query = new URLSearchParams(search);
  tab.data.personal.forEach((name) => query.delete(name));
  return query.toString();
}

// Rerun this tab's page on its own address.
function rerun() {
  window.dispatchEvent(new PopStateEvent("popstate"));
}

// Whether this tab's script has finished its run and the address shows the page it drew.
function idle() {
  const app = document.querySelector("[data-testid=stApp]");
  return Boolean(app && app.dataset.testScriptState === "notRunning" && settled());
}

async function present() {
  for (let waited = 0; waited < GONE_MS; waited += 250) {
    if (tab.host && tab.host.isConnected) return true;
    await sleep(250);
  }
  return false;
}

// A student exploring on their own: rerun the page when the lecturer's own question comes or
// goes, or when the room is gone (the page then says so).
async function watchRoom(code, token) {
  let version = -1;
  let live;
  let failures = 0;
  while (tab.follower === token) {
    if (!(await present()) || tab.follower !== token) break;
    const proof = encodeURIComponent(tab.data.joined);
    let answer;
    try {
      tab.abort = new AbortController();
      const reply = await fetch(`${route(code)}?v=${version}&lang=${tab.data.lang}&j=${proof}`,
                                { cache: "no-store", signal: tab.abort.signal });
      if ([400, 404, 410].includes(reply.status)) {  // the room is gone: the page says so
        tab.follower = null;
        rerun();
        break;
      }
      if (reply.status === 503 && Date.now() - (tab.reran || 0) > RERUN_MS) {
        tab.reran = Date.now();  // the store is down: the page says so, and waits for it
        tab.follower = null;
        rerun();
        break;
      }
      if (!reply.ok) {  // too many requests, the store down: wait as long as the server says
        failures += 1;
        await sleep(backoff(failures, reply));
        continue;
      }
      answer = await reply.json();
      failures = 0;
    } catch {
      if (tab.follower !== token) break;
      failures += 1;  // the server is restarting, or the network dropped: try again soon
      await sleep(backoff(failures, null));
      continue;
    }
    if (tab.follower !== token) break;
    const question = answer.live && answer.live.id;
    if (answer.closed || (live !== undefined && question !== live)) {
      tab.follower = null;
      rerun();
      break;
    }
    version = answer.version;
    live = question;
  }
}

// The element's box in the page (the element draws in a shadow root of its own).
const inPage = (element) => element.getRootNode().host || element;

// Hand the room's key to the server once, which keeps it in an HttpOnly cookie: true once the
// browser holds that cookie (the page is told, and the key forgotten), else the server's
// refusal.
async function grant(data) {
  if (!data.grant || tab.granted === data.code) return true;
  const reply = await post(`${route(data.code)}/lead`, { key: data.grant });
  if (!reply.ok) return reply;
  tab.granted = data.code;  // the next run sends no key (the trigger reruns the page)
  inPage(tab.host).dataset.granted = data.code;  // the page says so (a test waits for it)
  tab.component.setTriggerValue("granted", data.code);
  return true;
}

function lead() {
  if (tab.leader) return;
  let candidate = null;
  let since = 0;
  let published = null;
  let busy = false;
  let failures = 0;
  let next = 0;  // no request before this time (a back-off after a failure)
  tab.leader = setInterval(async () => {
    const data = tab.data;
    if (!data || !data.lead || !(tab.host && tab.host.isConnected)) {
      clearInterval(tab.leader);
      tab.leader = null;
      return;
    }
    if (busy || !idle()) {
      candidate = null;
      return;
    }
    const view = { page: data.page, query: shared(location.search) };
    const signature = `${data.code} ${view.page}?${view.query}`;
    if (signature === published || Date.now() < next) return;
    if (signature !== candidate) {
      candidate = signature;
      since = Date.now();
      return;
    }
    if (Date.now() - since < SETTLE_MS) return;
    busy = true;
    let reply = null;
    try {
      const granted = await grant(data);
      reply = granted === true ? await post(`${route(data.code)}/view`, view) : granted;
      if (reply.ok || reply.status === 400) {
        published = signature;  // a refused view (too long) is not sent again; the page says so
        failures = 0;
      } else if (reply.status === 403 || reply.status === 409) {
        clearInterval(tab.leader);  // no longer leading (the room closed): the page says why
        tab.leader = null;
        rerun();
      } else {
        throw new Error(`the view route answered ${reply.status}`);
      }
    } catch {
      failures += 1;  // the server is restarting, or its store is down: wait, then again
      next = Date.now() + backoff(failures, reply);
    } finally {
      busy = false;
    }
  }, TICK_MS);
}

// A tab whose room store is down: ask the health route now and then; once it answers, rerun
// the page, which finds the room again.
async function recover(token) {
  for (let failures = 1; tab.recovering === token; failures += 1) {
    let reply = null;
    try {
      reply = await fetch(`${location.origin}${tab.root}_posviz/health`, { cache: "no-store" });
      if (reply.ok && tab.recovering === token) {
        tab.recovering = null;
        rerun();
        return;
      }
    } catch {
      // the server itself is away: the same wait
    }
    await sleep(Math.max(backoff(failures, reply), 2000));
    if (!(tab.host && tab.host.isConnected)) tab.recovering = null;
  }
}

function stop() {
  tab.follower = null;
  tab.recovering = null;
  if (tab.abort) tab.abort.abort();
}

export default function (component) {
  const { data, parentElement } = component;
  const before = tab.data;
  tab.host = parentElement;
  tab.component = component;
  if (data.forget) {  // Leave or Close: the server deletes the key's cookie
    stop();
    tab.data = null;
    tab.granted = null;
    delete inPage(parentElement).dataset.granted;
    tab.root = tab.root || root(data.page);
    post(`${route(data.forget)}/forget`, {}).catch(() => {});
    return;
  }
  tab.root = tab.root || root(data.page);
  if (tab.granted) inPage(parentElement).dataset.granted = tab.granted;
  if (data.down) {
    stop();
    tab.data = null;
    const token = {};
    tab.recovering = token;
    recover(token);
    return;
  }
  tab.data = data;
  tab.recovering = null;
  if (data.lead) {
    stop();
    lead();
    return;
  }
  if (data.follow) {  // the follower's screen takes over this tab
    stop();
    const asked = data.lang === "en" ? "" : `?lang=${data.lang}`;  // else the browser's own
    location.replace(`${location.origin}${tab.root}_posviz/follow/${data.code}${asked}`);
    return;
  }
  if (!tab.follower || !before || before.code !== data.code || before.lead) {
    if (tab.abort) tab.abort.abort();
    const token = {};
    tab.follower = token;
    watchRoom(data.code, token);
  }
}
