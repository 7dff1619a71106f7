// The follower's screen and the offline file: draws a page's document (ui/doc.py's blocks)
// with the app's own chart module, KaTeX for formulas and markdown-it for text.
//
// In a room (window.posvizRoom, set by the page the server sends), it waits on the room's
// route (the long poll of rooms/routes/hub.py): each answer is the lecturer's current view,
// already drawn as a document in this reader's language, with the state of the room's
// questions; a student answers with large buttons and sees the reveal. In a downloaded file
// (#posviz-file), it draws the file's documents once, with the answers behind buttons.

import { drawChart, fitFormulas } from "../chart/chart.js";

const LETTERS = "ABCDEF";
const md = window.markdownit({ html: false, linkify: false });
const fileData = document.getElementById("posviz-file");
const room = window.posvizRoom;
const root = document.getElementById("posviz-viewer");
let strings = fileData ? JSON.parse(fileData.textContent).strings : room.strings[room.lang];

const say = (key, values = {}) => Object.entries(values)
  .reduce((s, [name, value]) => s.replaceAll(`{${name}}`, value), strings[key] || key);

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function inline(tag, className, text) {  // Markdown in one line, as Streamlit shows a caption
  const node = el(tag, className);
  node.innerHTML = md.renderInline(text);
  return node;
}

// Each part braced, one unbreakable group as the app sets it (ui.doc.formula_markdown): a
// narrow line breaks between parts, never inside one (a part too wide is set smaller).
function formula(parts) {
  const line = el("div", "posviz-formula");
  for (const part of parts) {
    const piece = el("span", "posviz-formula-part");
    piece.innerHTML = window.katex.renderToString(`\\displaystyle {${part}}`,
                                                  { throwOnError: false });
    line.appendChild(piece);
  }
  return line;
}

function table(block) {
  const wrap = el("div", "posviz-table-wrap");
  wrap.tabIndex = 0;  // a wide table scrolls sideways, from the keyboard too
  const grid = el("table", "posviz-table");
  const head = grid.createTHead().insertRow();
  block.head.forEach((name) => head.appendChild(el("th", "", name)));
  const body = grid.createTBody();
  block.rows.forEach((cells) => {
    const row = body.insertRow();
    cells.forEach((cell) => row.appendChild(el("td", /^-?[\d.]+(e[-+]?\d+)?$/i.test(cell)
      ? "number" : "", cell)));
  });
  wrap.appendChild(grid);
  return wrap;
}

function chips(block) {
  const line = el("div", "posviz-chips");
  block.tokens.forEach((token, i) => {
    const chip = el("span", "posviz-chip");
    chip.appendChild(el("sub", "", block.labels[i]));
    chip.appendChild(document.createTextNode(`\u00a0${token}`));
    line.appendChild(chip);
  });
  return line;
}

// ---- questions ------------------------------------------------------------------------------

// What this browser answered, per question and round, and how sure it said it was.
const mineKey = (poll, round = 1) => `posviz-vote-${room ? room.code : "file"}-${poll}`
  + (round === 2 ? "-2" : "");
const sureKey = (poll, round = 1) => `posviz-sure-${room ? room.code : "file"}-${poll}`
  + (round === 2 ? "-2" : "");

function results(options, state, head = "results") {
  const total = state.counts.reduce((a, b) => a + b, 0);
  const list = el("ol", "posviz-results");
  list.setAttribute("aria-label", say(head, { n: total }));
  options.forEach((option, i) => {
    const count = state.counts[i] || 0;
    const share = total ? Math.round((100 * count) / total) : 0;
    const item = el("li", i === state.correct ? "right" : "");
    const label = el("span", "posviz-result-label",
                     `${LETTERS[i]}. ${option}${i === state.correct ? " ✓" : ""}`);
    const bar = el("span", "posviz-result-bar");
    bar.style.width = `${share}%`;
    item.append(label, el("span", "posviz-result-count", `${count} · ${share}%`), bar);
    list.appendChild(item);
  });
  const box = el("div", "posviz-results-box");
  box.append(el("p", "posviz-results-head", say(head, { n: total })), list);
  return box;
}

// A revealed question's answers: its one round, or both rounds side by side with how many
// changed their answer.
function allResults(options, state) {
  if (!state.rounds || state.rounds.length < 2) return results(options, state);
  const box = el("div", "posviz-rounds");
  state.rounds.forEach((counts, i) => {
    box.appendChild(results(options, { counts, correct: state.correct }, `round_${i + 1}`));
  });
  box.appendChild(el("p", "posviz-results-head", say("changed", { n: state.changed || 0 })));
  return box;
}

const pause = (ms) => new Promise((resolve) => { setTimeout(resolve, ms); });

// What the room said when it refused an answer, in the reader's words, with what to do.
const REFUSED = { poll_closed: "poll_closed", no_poll: "not_open", room_full: "room_full",
                  set_aside: "set_aside", room_closed: "ended", store_down: "down",
                  busy: "busy", gone: "ended", no_room: "ended", need_word: "need_word",
                  too_many: "too_many", bad_voter: "bad_voter" };

// Send an answer: once more after a dropped connection (a server that went away behind a
// proxy, whose next try goes to another one); the reply, or null when it never came.
async function send(path, body) {
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      const response = await fetch(`_posviz/room/${room.code}/${path}?j=${room.proof}`, {
        method: "POST", headers: { "Content-Type": "application/json" },
        body: JSON.stringify(body), cache: "no-store" });
      if (![502, 503, 504].includes(response.status) || attempt) return response;
    } catch {
      if (attempt) return null;
    }
    await pause(700);
  }
  return null;
}

async function refusal(response) {
  const { error } = await response.json().catch(() => ({}));
  const seconds = Number(response.headers.get("Retry-After")) || 0;
  return { error, seconds };
}

// The projector's word, asked for in the question's box: a browser with only the room's code
// (or none) types it to answer; then the answer it tapped is sent again.
function askWord(box, note, retry) {
  if (box.querySelector(".posviz-word")) return;
  const form = el("form", "posviz-word");
  const label = el("label", "", say("word_label"));
  const input = el("input");
  Object.assign(input, { type: "text", autocomplete: "off", spellcheck: false,
                         maxLength: 40, required: true });
  input.setAttribute("autocapitalize", "none");
  label.appendChild(input);
  const go = el("button", "posviz-reveal", say("word_submit"));
  go.type = "submit";
  form.append(label, go);
  form.onsubmit = async (event) => {
    event.preventDefault();
    const response = await send("word", { word: input.value });
    if (response && response.ok) {
      room.voter = "present";
      form.remove();
      retry();
      return;
    }
    const { error, seconds } = response ? await refusal(response) : { error: "" };
    note.textContent = say(error === "wrong_word" ? "word_wrong"
      : error === "too_many" ? "too_many" : "vote_failed", { seconds });
    input.focus();
  };
  note.after(form);
  input.focus();
}

async function vote(poll, round, option, note, box, redraw, sure = null) {
  const response = await send("vote", { poll, option, sure });
  if (response && response.ok) {
    localStorage.setItem(mineKey(poll, round), String(option));
    if (sure === null) localStorage.removeItem(sureKey(poll, round));
    else localStorage.setItem(sureKey(poll, round), String(sure));
    return true;
  }
  const { error, seconds } = response ? await refusal(response) : { error: "" };
  if (error === "need_word") {
    note.textContent = say("need_word");
    askWord(box, note, () => vote(poll, round, option, note, box, redraw, sure)
      .then((done) => done && redraw()));
    return false;
  }
  note.textContent = say(REFUSED[error] || "vote_failed", { seconds });
  if (error === "gone" || error === "no_room" || error === "room_closed") ended();
  return false;
}

// A question: its text, its options as large buttons (each with its text), and, once the
// room reveals it, the right answer, whether this reader's was right, and the class's answers.
// state: the room's {revealed, correct, counts} for it (null in a file or before it opens).
function question(block, state, answerBlocks) {
  const box = el("section", "posviz-question");
  box.dataset.poll = block.poll;
  box.id = `posviz-question-${block.poll}`;
  box.tabIndex = -1;  // the jump at the top of a room's screen moves the focus here
  const head = el("p", "posviz-question-text");
  if (block.typed) {  // the lecturer's own: shown exactly as typed, under its heading
    box.appendChild(el("p", "posviz-question-lead", block.lead));
    head.textContent = block.text;
  } else {  // a lesson's: the catalog's Markdown, after its lead
    head.append(inline("strong", "", block.lead), " ", inline("span", "", block.text));
  }
  box.appendChild(head);
  const round = (state && state.round) || 1;
  const mine = localStorage.getItem(mineKey(block.poll, round));
  const chosen = mine === null ? null : Number(mine);
  const note = el("p", "posviz-question-note");
  note.setAttribute("role", "status");
  const revealed = state && state.revealed;
  if (room && round === 2 && !revealed) {
    const first = localStorage.getItem(mineKey(block.poll.replace(/\.2$/, "")));
    box.appendChild(el("p", "posviz-round", say("round_two") + (first === null ? ""
      : ` ${say("first_answer", { mine: LETTERS[Number(first)] })}`)));
  }
  const buttons = el("div", "posviz-options");
  block.options.forEach((option, i) => {
    if (!room) {  // a file: the options to read, nothing to tap
      const item = el("div", "posviz-option posviz-option-text");
      item.append(el("span", "posviz-letter", LETTERS[i]), el("span", "", option));
      buttons.appendChild(item);
      return;
    }
    const button = el("button", "posviz-option");
    button.type = "button";
    button.append(el("span", "posviz-letter", LETTERS[i]), el("span", "", option));
    if (i === chosen) button.classList.add("chosen");
    button.setAttribute("aria-pressed", String(i === chosen));
    if (revealed) button.disabled = true;
    if (revealed && i === state.correct) button.classList.add("right");
    const redraw = () => {
      const fresh = question(block, state, answerBlocks);
      box.replaceWith(fresh);
      placeJump(fresh.closest(".posviz-document"));
      const chosenNow = fresh.querySelector(".posviz-option.chosen");
      if (chosenNow) chosenNow.focus();  // the keyboard stays on the answer it gave
    };
    button.onclick = async () => {
      if (await vote(block.poll, round, i, note, box, redraw)) redraw();
    };
    buttons.appendChild(button);
  });
  if (room && !revealed) box.appendChild(el("p", "posviz-tap", say("tap")));
  box.appendChild(buttons);
  if (room && !revealed && chosen !== null) {  // how sure: one tap, optional
    const said = localStorage.getItem(sureKey(block.poll, round));
    const sure = el("div", "posviz-sure");
    sure.setAttribute("role", "group");
    sure.setAttribute("aria-label", say("how_sure"));
    sure.appendChild(el("span", "", say("how_sure")));
    [[true, "sure"], [false, "guessing"]].forEach(([value, key]) => {
      const button = el("button", "posviz-sure-option", say(key));
      button.type = "button";
      button.setAttribute("aria-pressed", String(said === String(value)));
      button.onclick = async () => {
        const redraw = () => {
          const fresh = question(block, state, answerBlocks);
          box.replaceWith(fresh);
          placeJump(fresh.closest(".posviz-document"));
          const pressed = fresh.querySelector('.posviz-sure-option[aria-pressed="true"]');
          if (pressed) pressed.focus();
        };
        if (await vote(block.poll, round, chosen, note, box, redraw, value)) redraw();
      };
      sure.appendChild(button);
    });
    box.appendChild(sure);
  }
  if (revealed && state.correct !== null && state.correct !== undefined) {
    const right = LETTERS[state.correct];
    const first = localStorage.getItem(mineKey(block.poll.replace(/\.2$/, "")));  // silent
    // in round 2: the answer it gave in round 1
    const last = chosen !== null ? chosen : first === null ? null : Number(first);
    note.textContent = last === null ? say("answer_is", { right })
      : say(last === state.correct ? "right" : "wrong", { right, mine: LETTERS[last] });
    if (last !== null) note.classList.add(last === state.correct ? "right" : "wrong");
  } else if (room && chosen !== null && !revealed) {
    note.textContent = say(block.check ? "voted_check" : "voted", { mine: LETTERS[chosen] });
  }
  box.appendChild(note);
  if (revealed && state.counts) box.appendChild(allResults(block.options, state));
  else if (revealed && room && state.correct === null) {
    note.textContent = say(chosen === null ? "closed" : "closed_mine",
                           { mine: chosen === null ? "" : LETTERS[chosen] });
  }
  if (answerBlocks.length) {
    const answer = el("div", "posviz-answer");
    draw(answerBlocks, answer);
    if (block.hidden) {  // a file: the reader reveals it
      const toggle = el("button", "posviz-reveal", say("show_answer"));
      toggle.type = "button";
      toggle.setAttribute("aria-expanded", "false");
      answer.hidden = true;
      toggle.onclick = () => {
        answer.hidden = !answer.hidden;
        toggle.setAttribute("aria-expanded", String(!answer.hidden));
        toggle.textContent = say(answer.hidden ? "show_answer" : "hide_answer");
      };
      box.appendChild(toggle);
    }
    box.appendChild(answer);
  }
  return box;
}

// ---- a document -----------------------------------------------------------------------------

let polls = {};  // the room's questions' states, from its last answer

function drawBlock(block) {
  switch (block.t) {
    case "heading": return inline(`h${block.level}`, "", block.text);
    case "markdown": {
      const node = el("div", "posviz-markdown");
      node.innerHTML = md.render(block.text);
      return node;
    }
    case "caption": return inline("p", "posviz-caption", block.text);
    case "note": {
      const node = el("div", `posviz-note ${block.kind}`);
      node.innerHTML = md.render(block.text);
      return node;
    }
    case "formula": return formula(block.parts);
    case "chart": {
      const host = el("div", "posviz-chart-host");
      host.dataset.figure = block.figure;
      host.dataset.name = block.name;
      host.dataset.toolbar = String(block.toolbar);
      host.dataset.summary = block.summary || "";
      return host;
    }
    case "metric": {
      const node = el("div", "posviz-metric");
      node.append(inline("div", "posviz-metric-label", block.label),
                  el("div", "posviz-metric-value", block.value));
      if (block.delta) node.appendChild(el("div", "posviz-metric-delta", block.delta));
      return node;
    }
    case "table": return table(block);
    case "chips": return chips(block);
    case "setting": {
      const node = el("p", "posviz-setting");
      node.append(inline("span", "posviz-setting-label", block.label),
                  el("span", "posviz-setting-value", block.value));
      return node;
    }
    case "link": return inline("p", "posviz-link", block.text);
    case "columns": {
      // Streamlit's names for a row of columns: chart.js lines up the titles of charts that
      // stand side by side in one
      const row = el("div", "posviz-columns");
      row.dataset.testid = "stHorizontalBlock";
      block.columns.forEach((blocks) => {
        const column = el("div", "posviz-column");
        column.dataset.testid = "stColumn";
        draw(blocks, column);
        row.appendChild(column);
      });
      return row;
    }
    case "box": {
      const node = el("div", block.border ? "posviz-box bordered" : "posviz-box");
      draw(block.blocks, node);
      return node;
    }
    case "expander": {
      const node = el("details", "posviz-expander");
      node.appendChild(inline("summary", "", block.label));
      draw(block.blocks, node);
      return node;
    }
    case "question": return question(block, polls[block.poll] || null, block.answer);
    default: {  // a kind this screen does not know (ui/blocks.py declares them): said, never blank
      console.error(`posviz: a block of unknown kind ${JSON.stringify(block.t)}`);
      const node = el("div", "posviz-note warning posviz-unknown");
      node.textContent = say("unknown_block", { kind: String(block.t) });
      return node;
    }
  }
}

function draw(blocks, into) {
  blocks.forEach((block) => into.appendChild(drawBlock(block)));
}

// Charts are drawn once their hosts are in the page (they size to their column); their words
// are among the viewer's (ui.documents.viewer_strings holds ui.chart.chart_labels).
function drawCharts(scope) {
  scope.querySelectorAll(".posviz-chart-host").forEach((host) => {
    if (host.querySelector(".posviz-chart")) return;
    drawChart({ figure: host.dataset.figure, name: host.dataset.name, labels: strings,
                summary: host.dataset.summary,
                modebar: host.dataset.toolbar !== "false" }, host);
  });
  fitFormulas(scope, ".posviz-formula-part");
}

// ---- the file -------------------------------------------------------------------------------

function drawFile() {
  const data = JSON.parse(fileData.textContent);
  if (data.heading) root.appendChild(inline("h1", "", data.heading));
  if (data.documents.length > 1) {
    const contents = el("nav", "posviz-contents");
    contents.setAttribute("aria-label", say("contents"));
    data.documents.forEach((doc, i) => {
      const named = doc.title && !/^\d+$/.test(doc.title);
      const link = named ? inline("a", "", doc.title) : el("a", "", say("scene", { n: i + 1 }));
      link.href = `#scene-${i + 1}`;
      contents.appendChild(link);
    });
    root.appendChild(contents);
  }
  data.documents.forEach((doc, i) => {
    const section = el("section", "posviz-document");
    section.id = `scene-${i + 1}`;
    draw(doc.blocks, section);
    root.appendChild(section);
  });
  drawCharts(root);
}

// ---- the room -------------------------------------------------------------------------------

// The view's own question that the room has open (a scene's poll: below its figure, a
// thousand pixels down on a phone), or null: not the lecturer's own question nor the concept
// check, which stand at the top of the screen already.
function openQuestion(main) {
  return [...main.querySelectorAll(".posviz-question[data-poll]")].find((box) => {
    const state = polls[box.dataset.poll];
    return !box.closest(".posviz-live") && state && !state.revealed;
  }) || null;
}

// A line at the top of a room's screen while the view's question is open: it says so (and
// what this reader answered) and jumps to the question, the focus with it. Its words are its
// name for a screen reader.
function placeJump(main) {
  if (!main) return;
  const old = main.querySelector(":scope > .posviz-jump");
  if (old) old.remove();
  const box = openQuestion(main);
  if (!box) return;
  const round = polls[box.dataset.poll].round || 1;
  const mine = localStorage.getItem(mineKey(box.dataset.poll, round));
  const link = el("a", "posviz-jump", mine !== null
    ? say("jump_answered", { mine: LETTERS[Number(mine)] })
    : say(round === 2 ? "jump_round_two" : "jump_open"));
  const arrow = el("span", "", " \u2193");
  arrow.setAttribute("aria-hidden", "true");
  link.appendChild(arrow);
  link.href = `#${box.id}`;
  link.onclick = (event) => {
    event.preventDefault();
    const target = document.getElementById(box.id);  // a vote may have drawn it anew
    target.scrollIntoView({ block: "start" });
    target.focus({ preventScroll: true });
  };
  main.prepend(link);
}

const MAX_WAIT = 5000;
const SHORT = { en: "EN", zh: "中文" };  // the language buttons' labels (their names: aria)
let shown = { version: -1, view: null, doc: null, live: null, revealed: [], open: null };
let asking = null;  // the request waiting on the room, aborted on a language switch

function bar(payload) {
  const top = el("header", "posviz-bar");
  if (room.spaced) top.appendChild(el("span", "posviz-room", say("room", { code: room.spaced })));
  top.appendChild(el("span", "posviz-following", payload ? say("following") : ""));
  const langs = el("span", "posviz-langs");
  langs.setAttribute("role", "group");
  langs.setAttribute("aria-label", say("language"));
  Object.entries(room.langs).forEach(([code, name]) => {
    const button = el("button", "posviz-lang", SHORT[code] || name);
    button.type = "button";
    button.lang = code === "zh" ? "zh-Hans" : "en";
    button.setAttribute("aria-label", `${SHORT[code] || name} · ${name}`);  // what it shows first
    button.setAttribute("aria-pressed", String(code === room.lang));
    button.onclick = () => switchLang(code);
    langs.appendChild(button);
  });
  top.appendChild(langs);
  if (payload) {
    const explore = el("a", "posviz-explore", say("explore"));
    const query = new URLSearchParams(payload.query);
    query.set("room", room.code);
    query.set("follow", "false");
    if (room.lang !== "en") query.set("lang", room.lang);
    explore.href = `${payload.page}?${query}`;
    top.appendChild(explore);
  }
  return top;
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
  if (open && `${open.dataset.poll}/${polls[open.dataset.poll].round || 1}` !== shown.open) {
    said.push(say("question_open"));
  }
  revealedPolls(payload).filter((id) => !shown.revealed.includes(id)).forEach((id) => {
    const note = main.querySelector(`[data-poll="${CSS.escape(id)}"] .posviz-question-note`);
    if (note && note.textContent) said.push(note.textContent);
  });
  return said.join(" ");
}

function showRoom(payload) {
  polls = payload.polls || {};
  const view = `${payload.page}?${payload.query}`;
  const moved = view !== shown.view;
  const main = el("div", "posviz-document");
  main.lang = room.lang === "zh" ? "zh-Hans" : "en";
  if (payload.live && payload.live.check) {  // the concept check: every question at once
    const sitting = el("section", "posviz-check");
    sitting.append(el("h2", "", say("check_head")), el("p", "", say("check_body")));
    payload.live.check.forEach((asked, i) => {
      // the reader's language: the room keeps the lecturer's words (the CSV's)
      const n = asked.id.split("-").pop();
      const own = (key, kept) => (strings[key] !== undefined ? strings[key] : kept);
      sitting.appendChild(question({
        poll: asked.id, text: own(`check_${n}`, asked.question),
        options: asked.options.map((kept, k) => own(`check_${n}_${k}`, kept)),
        lead: say("check_lead", { n: i + 1, total: payload.live.check.length }),
        hidden: false, typed: true, check: true }, polls[asked.id] || null, []));
    });
    main.appendChild(sitting);
  } else if (payload.live) {
    const live = question({ poll: payload.live.id, lead: say("question"),
                            text: payload.live.question, options: payload.live.options,
                            hidden: false, typed: true }, polls[payload.live.id] || null, []);
    live.classList.add("posviz-live");
    main.appendChild(live);
  }
  if (!payload.live && shown.live && shown.live.startsWith("check-")) {  // it just ended
    const over = el("div", "posviz-note success posviz-check-over");
    over.appendChild(el("p", "", say("check_over")));
    main.appendChild(over);
  }
  draw(payload.doc, main);
  placeJump(main);
  root.replaceChildren(bar(payload), main);
  document.documentElement.lang = main.lang;
  document.title = `${say("room", { code: room.spaced })} · posviz`;
  drawCharts(main);
  if (moved) window.scrollTo(0, 0);
  const told = news(payload, main, moved);
  if (told) announce(told);
  const open = openQuestion(main);
  shown = { version: payload.version, view, doc: payload.doc,
            live: payload.live ? payload.live.id : null, revealed: revealedPolls(payload),
            open: open ? `${open.dataset.poll}/${polls[open.dataset.poll].round || 1}` : null };
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
  strings = room.strings[code];
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

// Past a limit (too many wrong codes from this network): say so, and try again once it has
// passed; the projector's word lets a student in at once (it proves the hall, not the code).
function refusedPage() {
  const box = el("div", "posviz-ended");
  box.append(el("h1", "", say("too_many", { seconds: room.wait })));
  const form = el("form", "posviz-word");
  const label = el("label", "", say("word_label"));
  const input = el("input");
  Object.assign(input, { type: "text", autocomplete: "off", spellcheck: false,
                         maxLength: 40, required: true });
  input.setAttribute("autocapitalize", "none");
  label.appendChild(input);
  const go = el("button", "posviz-reveal", say("word_join"));
  go.type = "submit";
  form.append(label, go);
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

if (fileData) {
  drawFile();
} else {
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
