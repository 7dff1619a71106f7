// The room's screen: it waits on the room's route (the long poll of rooms/http.py); each answer
// is the lecturer's current view, already drawn as a document in this reader's language, with
// the state of the room's questions and the room's own question or concept check, drawn here;
// the reader switches language, explores on their own (a sentence of their own here, or the app
// when the lecturer lets students in: the answer's "app"), and is told the room's news.

import { plotly } from "../chart/chart.js";
import { draw, drawCharts } from "./blocks.js";
import { drawTokens, sentenceBox, warmLayers } from "./live.js";
import { openQuestion, placeJump } from "./question.js";
import { el, pause, room, root, say, screen, wordForm } from "./screen.js";

const MAX_WAIT = 5000;
const SHORT = { en: "EN", zh: "中文" };  // the language buttons' labels (their names: aria)
let shown = { version: -1, view: null, live: null, revealed: [], open: null };
let asking = null;  // the request waiting on the room, aborted on a language switch
let trying = null;  // the reader's own sentence box, once opened (kept across the room's views)

// The reader tries a sentence of their own on the scene the lecturer shows: the box under the
// bar, the live charts drawn for it (live.js) on this view and the next, until "Back to
// following" empties it, closes it and draws the lecturer's again. The reader follows the
// lecturer's moves all along: the bar says so, and whose sentence the figures show.
const current = () => root.querySelector(":scope > .posviz-document");
const followingLine = () => say(tryingOwn() && trying.tokens() ? "following_own" : "following");

function sayFollowing() {
  const top = root.querySelector(":scope > .posviz-bar .posviz-following");
  if (top) top.textContent = followingLine();
}

function openTry() {
  if (!trying || trying.lang !== room.lang) {
    const made = sentenceBox((tokens) => {
      if (current()) drawTokens(current(), tokens);
      sayFollowing();
    }, say("try_back"), closeTry);
    if (trying) trying.box.remove();
    trying = { ...made, lang: room.lang };
  }
  if (!trying.box.isConnected) {
    const top = root.querySelector(":scope > .posviz-bar");
    if (top) top.after(trying.box);
    else root.prepend(trying.box);
  }
  root.classList.add("posviz-trying-own");
  if (current()) warmLayers(current());
  sayFollowing();
  trying.input.focus();
}

function closeTry() {
  if (trying) trying.box.remove();
  root.classList.remove("posviz-trying-own");
  sayFollowing();
}

const tryingOwn = () => Boolean(trying && trying.box.isConnected);

function bar(payload) {
  const top = el("header", "posviz-bar");
  if (room.spaced) top.appendChild(el("span", "posviz-room", say("room", { code: room.spaced })));
  top.appendChild(el("span", "posviz-following", payload ? followingLine() : ""));
  const langs = el("span", "posviz-langs");
  langs.setAttribute("role", "group");
  langs.setAttribute("aria-label", say("language"));
  Object.entries(room.langs).forEach(([code, name]) => {
    const button = el("button", "posviz-lang", SHORT[code] || name);
    button.type = "button";
    button.lang = room.tags[code];
    button.setAttribute("aria-label", `${SHORT[code] || name} · ${name}`);  // what it shows first
    button.setAttribute("aria-pressed", String(code === room.lang));
    button.onclick = () => switchLang(code);
    langs.appendChild(button);
  });
  top.appendChild(langs);
  if (payload && payload.app) {  // the lecturer let students into the app: both ways
    const own = el("button", "posviz-explore posviz-try-open", say("try_open"));
    own.type = "button";
    own.onclick = openTry;
    top.append(own, exploreApp(payload));
  } else if (payload) {  // the room's screen is where a student explores: its own sentence box
    const own = el("button", "posviz-explore posviz-try-open", say("explore"));
    own.type = "button";
    own.onclick = openTry;
    top.append(own);
  }
  return top;
}

// "Explore on my own" in the app, at the lecturer's view, not following.
function exploreApp(payload) {
  const explore = el("a", "posviz-explore", say("explore"));
  const query = new URLSearchParams(payload.query);
  query.set("room", room.code);
  query.set("follow", "false");
  if (room.lang !== "en") query.set("lang", room.lang);
  explore.href = `${payload.page}?${query}`;
  return explore;
}

function status(text) {
  let line = document.getElementById("posviz-status");
  if (!line && !text) return;
  if (!line) {
    line = el("p", "posviz-status");
    line.id = "posviz-status";
    line.setAttribute("role", "status");
    root.prepend(line);
  }
  line.textContent = text;
}

// One live region for the room's news, outside the content that each version redraws: a screen
// reader hears a followed move, a new question and a revealed answer once each, and nothing on
// a redraw that changes none of them (a language switch, a vote count).
function announce(text) {
  let region = document.getElementById("posviz-announce");
  if (!region) {
    region = el("p", "posviz-sr");
    region.id = "posviz-announce";
    region.setAttribute("aria-live", "polite");
    document.body.appendChild(region);
  }
  region.textContent = text;
}

const revealedPolls = (payload) => Object.keys(payload.polls || {})
  .filter((id) => payload.polls[id].revealed);

function news(payload, main, moved) {
  if (shown.view === null) return "";  // the first view: the reader reads the page itself
  const said = [];
  if (moved) {
    // a scene's heading, or the page's
    const heading = main.querySelector("h2") || main.querySelector("h1");
    if (heading) said.push(say("now_showing", { title: heading.textContent.trim() }));
  }
  if (payload.live && payload.live.id !== shown.live) {
    said.push(payload.live.check ? say("check_head")
      : say("asked", { question: payload.live.question }));
  } else if (!payload.live && shown.live && shown.live.startsWith("check-")) {
    said.push(say("check_over"));
  }
  const open = openQuestion(main);
  if (open && `${open.dataset.poll}/${screen.polls[open.dataset.poll].round || 1}` !== shown.open) {
    said.push(say("question_open"));
  }
  revealedPolls(payload).filter((id) => !shown.revealed.includes(id)).forEach((id) => {
    const note = main.querySelector(`[data-poll="${CSS.escape(id)}"] .posviz-question-note`);
    if (note && note.textContent) said.push(note.textContent);
  });
  return said.join(" ");
}

function showRoom(payload) {
  screen.polls = payload.polls || {};
  const view = `${payload.page}?${payload.query}`;
  const moved = view !== shown.view;
  const main = el("div", "posviz-document");
  main.lang = room.tags[room.lang];
  if (!payload.live && shown.live && shown.live.startsWith("check-")) {  // it just ended
    const over = el("div", "posviz-note success posviz-check-over");
    over.appendChild(el("p", "", say("check_over")));
    main.appendChild(over);
  }
  draw(payload.doc, main);  // the room's own question or concept check first, then the view
  placeJump(main);
  if (tryingOwn()) {  // the box stays where it is (a reader typing keeps the focus)
    [...root.children].filter((node) => node !== trying.box).forEach((node) => node.remove());
    trying.box.before(bar(payload));
    trying.box.after(main);
  } else {
    root.replaceChildren(bar(payload), main);
  }
  document.documentElement.lang = main.lang;
  document.title = `${say("room", { code: room.spaced })} · posviz`;
  drawCharts(main);
  if (tryingOwn()) drawTokens(main, trying.tokens());
  if (moved) window.scrollTo(0, 0);
  const told = news(payload, main, moved);
  if (told) announce(told);
  const open = openQuestion(main);
  shown = { version: payload.version, view, live: payload.live ? payload.live.id : null,
            revealed: revealedPolls(payload),
            open: open ? `${open.dataset.poll}/${screen.polls[open.dataset.poll].round || 1}` : null };
}

function ended(unknown = false) {
  const box = el("div", "posviz-ended");
  if (unknown) box.append(el("h1", "", say("no_room")));
  else box.append(el("h1", "", say("ended")), el("p", "", say("ended_body")));
  const home = el("a", "posviz-explore", say("home"));
  home.href = "./";
  box.appendChild(home);
  root.replaceChildren(bar(null), box);
}

function switchLang(code) {
  room.lang = code;
  screen.strings = room.strings[code];
  localStorage.setItem("posviz-lang", code);
  shown.version = -1;
  if (asking) asking.abort();  // the room's view again, at once, in this language
  if (room.state === "too_many") refusedPage();
  else if (room.state !== "open") ended(room.state === "unknown");
}

async function follow() {
  let backoff = 500;
  for (;;) {
    asking = new AbortController();
    try {
      const response = await fetch(
        `_posviz/room/${room.code}?v=${shown.version}&lang=${room.lang}&j=${room.proof}`,
        { cache: "no-store", signal: asking.signal });
      if (response.status === 404 || response.status === 410) return ended();
      if (response.ok) {
        const payload = await response.json();
        if (payload.closed) return ended();
        if (payload.version !== shown.version) showRoom(payload);
        else status("");
        backoff = 500;
        continue;
      }
      if (response.status === 503) {  // the rooms' store, or a server at its bound: back by itself
        const { error } = await response.clone().json().catch(() => ({}));
        status(say(error === "busy" ? "busy" : "down"));
      }
      const after = Number(response.headers.get("Retry-After"));
      await pause(after ? Math.min(after * 1000, MAX_WAIT) : backoff);
    } catch (error) {
      if (error.name === "AbortError") continue;  // a language switch: ask again at once
      status(say("offline"));
      await pause(backoff);
    }
    backoff = Math.min(backoff * 2, MAX_WAIT);
  }
}

// Past a limit (too many wrong codes from this network): say so, and try again once it has passed.
// Past a limit (too many wrong codes from this network): say so, and try again once it has
// passed; the projector's word lets a student in at once (it proves the hall, not the code).
function refusedPage() {
  const box = el("div", "posviz-ended");
  box.append(el("h1", "", say("too_many", { seconds: room.wait })));
  const { form, input } = wordForm("word_join");
  form.onsubmit = (event) => {
    event.preventDefault();
    const address = new URL(location.href);
    address.searchParams.set("w", input.value);
    location.replace(address);
  };
  box.appendChild(form);
  root.replaceChildren(bar(null), box);
  setTimeout(() => { if (!input.value) location.reload(); }, room.wait * 1000);
}

export function start() {
  screen.ended = ended;
  plotly(room.plotly).catch(() => {});  // asked for early (a chart says if it never came)
  const address = new URL(location.href);
  if (address.searchParams.has("t") || address.searchParams.has("w")) {  // the ticket or the
    address.searchParams.delete("t");                                      // word did its work:
    address.searchParams.delete("w");                                      // not in history
    history.replaceState(null, "", address);
  }
  const kept = localStorage.getItem("posviz-lang");
  if (!room.chosen && kept && room.langs[kept]) switchLang(kept);
  if (room.state === "open") {
    root.replaceChildren(bar(null));
    status(say("connecting"));
    follow();
  } else if (room.state === "too_many") {
    refusedPage();
  } else {
    ended(room.state === "unknown");
  }
}
