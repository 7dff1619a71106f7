// Keeps a browser tab in its lecture room (see ui/room.py and posviz/rooms/http.py).
//
// A follower's tab asks the room's route for any version but the one it has; the server holds
// the request until the room changes (25 s at most), so an idle follower costs one request every
// 25 s and no script run. When the room moves on, the tab goes to the lecturer's view the way
// the Back button goes to a page: the view's URL carries every control of the page, and
// Streamlit reruns the page taking every value from the URL. The reader's own settings
// (language, presentation mode, room, following) stay as they are.
//
// While it follows, a tab that leaves the lecturer's view on its own (the Back button, a scene
// picked, a control moved) is brought back to it once its run has finished: following means
// showing what the lecturer shows; the Follow switch is there to explore.
//
// A lecturer's tab publishes its own page and query string once a run has finished and the
// address has stayed the same for a moment, so a dragged slider is sent once, where it stops.
//
// Cookies remember who this browser is across reloads and server restarts: its anonymous voter
// id (issued and signed by the server), the signed proof that it was in its room (so a room the
// server lost is named as such), and, for a lecturer, the room's key: the server sets that one
// HttpOnly when the tab hands it the key once (which never stays in the address bar), and
// deletes it on Leave and Close.
//
// On errors every request backs off (at most one every few seconds; a 429 or 503 says how long
// to wait); a tab whose room store is down asks the server's health route until it answers,
// then reruns its page, which finds the room again.

const PERSONAL = ["lang", "present", "room", "key", "follow", "t"];
const SETTLE_MS = 300;  // how long an address must stay put to be published, or undone
const TICK_MS = 150;
const GONE_MS = 3000;   // a follower whose element is gone this long stops following
const MOST_MS = 5000;   // the longest back-off between two failed requests
const RERUN_MS = 30000; // a follower told the store is down reruns its page at most this often

const tab = window.posvizRoom || (window.posvizRoom = {});
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

function shared(search) {
  const query = new URLSearchParams(search);
  PERSONAL.forEach((name) => query.delete(name));
  return query.toString();
}

// The shared part of a query string in one order, to compare two views by.
const canonical = (search) => [...new URLSearchParams(shared(search))]
  .map(([name, value]) => `${name}=${value}`).sort().join("&");

// Whether this tab shows a view of the room ({page, query}).
const shows = (view) => tab.data.page === view.page
  && canonical(location.search) === canonical(view.query);

// Rerun this tab on a view of the room ({page, query}), or on its own address (null).
function go(view) {
  const here = location.pathname + location.search;
  let target = here;
  if (view) {
    const query = new URLSearchParams(view.query);
    for (const [name, value] of new URLSearchParams(location.search)) {
      if (PERSONAL.includes(name) && name !== "key") query.append(name, value);
    }
    target = `${tab.root}${view.page}?${query}`.replace(/\?$/, "");
  }
  if (target !== here) history.pushState(null, "", target);
  window.dispatchEvent(new PopStateEvent("popstate"));
}

// Whether this tab's script has finished its run and the address shows the page it drew.
function idle() {
  const app = document.querySelector("[data-testid=stApp]");
  return Boolean(app && app.dataset.testScriptState === "notRunning" && settled());
}

// A follower's watch on its own address: one that shows another view than the lecturer's for
// SETTLE_MS after a run, while the switch is on, goes back to the lecturer's (at most SNAPS
// times in a row without getting there, so that a view this tab cannot show as sent is never
// asked for again and again).
const SNAPS = 3;

function keepUp(token) {
  let since = 0;
  const watch = setInterval(() => {
    if (tab.follower !== token) {
      clearInterval(watch);
      return;
    }
    const view = tab.view;
    const showing = view && shows(view);
    if (showing) tab.snaps = 0;
    if (showing || !tab.data.follow || !idle()) {
      since = 0;
    } else if (!since) {
      since = Date.now();
    } else if (Date.now() - since >= SETTLE_MS && tab.snaps < SNAPS) {
      since = 0;
      tab.snaps += 1;
      go(view);
    }
  }, TICK_MS);
}

async function present() {
  for (let waited = 0; waited < GONE_MS; waited += 250) {
    if (tab.host && tab.host.isConnected) return true;
    await sleep(250);
  }
  return false;
}

async function follow(code, token) {
  let version = -1;
  let live = null;
  let failures = 0;
  tab.view = null;
  keepUp(token);
  while (tab.follower === token) {
    if (!(await present()) || tab.follower !== token) break;
    const me = encodeURIComponent(tab.data.me);
    const proof = encodeURIComponent(tab.data.joined);
    let answer;
    try {
      tab.abort = new AbortController();
      const reply = await fetch(`${route(code)}?v=${version}&me=${me}&j=${proof}`,
                                { cache: "no-store", signal: tab.abort.signal });
      if ([400, 404, 410].includes(reply.status)) {  // the room is gone: the page says so
        tab.follower = null;
        go(null);
        break;
      }
      if (reply.status === 503 && Date.now() - (tab.reran || 0) > RERUN_MS) {
        tab.reran = Date.now();  // the store is down: the page says so, and waits for it
        tab.follower = null;
        go(null);
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
    if (answer.closed) {
      tab.follower = null;
      go(null);
      break;
    }
    const first = version === -1;
    if (answer.version === version) continue;  // held for the whole wait, nothing new
    version = answer.version;
    tab.version = version;  // the newest version of the room this tab has heard of
    if (tab.data.follow) {
      tab.view = { page: answer.page, query: answer.query };
      const showing = shows(tab.view);
      tab.snaps = 0;
      if (!first || !showing) go(answer);
    } else if (!first && answer.live !== live) {
      go(null);  // exploring alone: only a new question from the lecturer is shown at once
    }
    live = answer.live;
  }
}

// Hand the room's key to the server once, which keeps it in an HttpOnly cookie: true once the
// browser holds that cookie, else the server's refusal.
async function grant(data) {
  tab.granted = tab.granted || {};
  if (!data.grant || tab.granted[data.code] === data.grant) return true;
  const reply = await post(`${route(data.code)}/lead`, { key: data.grant });
  if (!reply.ok) return reply;
  tab.granted[data.code] = data.grant;
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
        go(null);
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
        go(null);
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

function remember(name, value, seconds) {
  document.cookie = `${name}=${encodeURIComponent(value)}; path=/; max-age=${seconds}; samesite=lax`;
}

function cookie(name) {
  const found = document.cookie.split("; ").find((c) => c.startsWith(`${name}=`));
  return found && decodeURIComponent(found.slice(name.length + 1));
}

export default function (component) {
  const { data, parentElement } = component;
  const before = tab.data;
  tab.host = parentElement;
  if (data.forget) {  // Leave or Close: the server deletes the key's cookie
    stop();
    tab.data = null;
    tab.root = tab.root || root(data.page);
    post(`${route(data.forget)}/forget`, {}).catch(() => {});
    return;
  }
  tab.root = tab.root || root(data.page);
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
  if (cookie(data.meCookie) !== data.me) remember(data.meCookie, data.me, 30 * 86400);
  if (cookie(data.joinedCookie) !== data.joined) {
    remember(data.joinedCookie, data.joined, data.seconds);
  }
  if (data.lead) {
    stop();
    lead();
    return;
  }
  if (!tab.follower || !before || before.code !== data.code || before.lead
      || (!before.follow && data.follow)) {
    if (tab.abort) tab.abort.abort();
    const token = {};
    tab.follower = token;
    follow(data.code, token);
  }
}
