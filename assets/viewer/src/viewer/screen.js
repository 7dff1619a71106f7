// What every part of the room's screen and of an offline file shares: where it draws, the room
// it follows (null in a file) or the file's data, the reader's words, the room's questions'
// states, and the few ways it makes elements.

import { use_panel_rule } from "../engine/panels.js";
import { use_schemes } from "../engine/schemes.js";

export const md = window.markdownit({ html: false, linkify: false });
const read = (id) => {  // the page's data: a file's documents, or the room the page shows
  const data = document.getElementById(id);
  return data ? JSON.parse(data.textContent) : null;
};
export const file = read("posviz-file");
export const room = read("posviz-room");
export const root = document.getElementById("posviz-viewer");
export const LETTERS = (file || room).letters;  // a question's options, as lettered (rooms.LETTERS)
use_schemes((file || room).schemes);  // the stand-in stack's schemes (posviz.schemes)
use_panel_rule((file || room).panels);  // how maps of panels are laid out (their figures')
export const screen = {
  strings: file ? file.strings : room.strings[room.lang],  // the reader's words
  kinds: (file || room).kinds,
  steps: (file || room).steps,
  summary: file ? file.summary : room.summary[room.lang],  // a chart's summary's words (ui.summary)  // the steps a long axis labels by (posviz.figures.common.NICE_STEPS)  // the fields of every kind of block (ui/blocks.py's)
  polls: {},  // the room's questions' states, from its last answer
  ended: () => {},  // what the room's screen shows once a question finds the room gone
};

export const say = (key, values = {}) => Object.entries(values)
  .reduce((s, [name, value]) => s.replaceAll(`{${name}}`, value), screen.strings[key] || key);

export function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

// The form that asks for the projector's word: its field (no capitals, no corrections) under its
// label, and a button saying submit (a word of the viewer's).
export function wordForm(submit) {
  const form = el("form", "posviz-word");
  const label = el("label", "", say("word_label"));
  const input = el("input");
  Object.assign(input, { type: "text", autocomplete: "off", spellcheck: false,
                         maxLength: 40, required: true });
  input.setAttribute("autocapitalize", "none");
  label.appendChild(input);
  const go = el("button", "posviz-reveal", say(submit));
  go.type = "submit";
  form.append(label, go);
  return { form, input };
}

export function inline(tag, className, text) {  // Markdown in one line, as Streamlit shows a caption
  const node = el(tag, className);
  node.innerHTML = md.renderInline(text);
  return node;
}

// Each part braced, one unbreakable group as the app sets it (ui.doc.formula_markdown): a

export const pause = (ms) => new Promise((resolve) => { setTimeout(resolve, ms); });
