// A question on the room's screen and in a file: its options (large buttons in a room), how
// sure the reader is, a second round, the reveal with the class's answers; the answer sent to the
// room (with the projector's word, when the room asks for it); and the line at the top of a
// room's screen that jumps to the view's open question.

import { el, inline, LETTERS, pause, room, say, screen, wordForm } from "./screen.js";


// What this browser answered, per question and round, and how sure it said it was.
export const mineKey = (poll, round = 1) => `posviz-vote-${room ? room.code : "file"}-${poll}`
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


// What the room said when it refused an answer, in the reader's words, with what to do.
const REFUSED = { poll_closed: "poll_closed", no_poll: "not_open", room_full: "room_full",
                  set_aside: "set_aside", room_closed: "ended", store_down: "down",
                  busy: "busy", gone: "ended", no_room: "ended", need_word: "need_word",
                  too_many: "too_many" };

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
  const { form, input } = wordForm("word_submit");
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
    note.textContent = say("need_word", { mine: LETTERS[option] });
    askWord(box, note, () => vote(poll, round, option, note, box, redraw, sure)
      .then((done) => done && redraw()));
    return false;
  }
  note.textContent = say(REFUSED[error] || "vote_failed", { seconds });
  if (error === "gone" || error === "no_room" || error === "room_closed") screen.ended();
  return false;
}

// A question: its text, its options as large buttons (each with its text), and, once the
// room reveals it, the right answer, whether this reader's was right, and the class's answers.
// block: a question, or a question the lecturer asked (typed: its text shown exactly as typed;
// check: one of the concept check's); state: the room's {revealed, correct, counts} for it
// (null in a file or before it opens); drawAnswer: draws the answer's blocks into a node (null
// when there is none), passed in by the blocks' renderer, which draws questions in turn.
export function questionBox(block, state, drawAnswer,
                            { typed = false, check = false } = {}) {
  const box = el("section", "posviz-question");
  box.dataset.poll = block.poll;
  box.id = `posviz-question-${block.poll}`;
  box.tabIndex = -1;  // the jump at the top of a room's screen moves the focus here
  const head = el("p", "posviz-question-text");
  if (typed) {  // the lecturer's own: shown exactly as typed, under its heading
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
      const fresh = questionBox(block, state, drawAnswer, { typed, check });
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
          const fresh = questionBox(block, state, drawAnswer, { typed, check });
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
    note.textContent = say(check ? "voted_check" : "voted", { mine: LETTERS[chosen] });
  }
  box.appendChild(note);
  if (revealed && state.counts) box.appendChild(allResults(block.options, state));
  else if (revealed && room && state.correct === null) {
    note.textContent = say(chosen === null ? "closed" : "closed_mine",
                           { mine: chosen === null ? "" : LETTERS[chosen] });
  }
  if (drawAnswer) {
    const answer = el("div", "posviz-answer");
    drawAnswer(answer);
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

// The view's own question that the room has open (a scene's poll: below its figure, a
// thousand pixels down on a phone), or null: not the lecturer's own question nor the concept
// check, which stand at the top of the screen already.
export function openQuestion(main) {
  return [...main.querySelectorAll(".posviz-question[data-poll]")].find((box) => {
    const state = screen.polls[box.dataset.poll];
    return !box.closest(".posviz-live") && state && !state.revealed;
  }) || null;
}

// A line at the top of a room's screen while the view's question is open: it says so (and
// what this reader answered) and jumps to the question, the focus with it. Its words are its
// name for a screen reader.
export function placeJump(main) {
  if (!main) return;
  const old = main.querySelector(":scope > .posviz-jump");
  if (old) old.remove();
  const box = openQuestion(main);
  if (!box) return;
  const round = screen.polls[box.dataset.poll].round || 1;
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

