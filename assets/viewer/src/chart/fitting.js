// Fitting a figure to the width it is drawn at: its title wrapped, and room made for its
// legend, its axis titles and its tool bar.

import { plain } from "./numbers.js";
import { words } from "./words.js";

// A touch screen shows each chart's tool bar at all times (there is no hover to call it up):
// the title then starts below a strip of this many pixels, which the bar has to itself.
const TOUCH_BAR = 32;
// Elsewhere the bar shows over the chart's top right corner while the pointer is on the chart
// (plotly's nine buttons take 248 px by 28 px, 37 px from the top in presentation mode): a
// title that reaches under it starts below a strip of its own.
const HOVER_BAR = { width: 250, height: 38 };
export const SLIGHT = 24;  // pixels a chart may be wider than its column with no cue that it scrolls
const TITLE_SIDE_ROOM = 24;  // pixels kept free on either side of a wrapped title
const LINE_HEIGHT = 1.3;  // plotly's line spacing in multi-line text, in font sizes
const CAP_SHIFT = 0.7;  // plotly's shift of a top-anchored text, in font sizes
const touchScreen = () => window.matchMedia("(hover: none)").matches;  // as plotly decides

const ruler = document.createElement("canvas").getContext("2d");
const WIDE = "\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef";
const OPENING = "(\\[{\u3008\u300a\u300c\u300e\u3010\u3014\u2018\u201c\uff08\uff3b\uff5b";
const CLOSING = ")\\]},.:;!?\u3001\u3002\u3009\u300b\u300d\u300f\u3011\u3015\u2019\u201d"
  + "\u2026\uff09\uff3d\uff5d\uff0c\uff0e\uff1a\uff1b\uff01\uff1f";
const SPACE = "[^\\S\\u00a0]";  // a space a line may break at: any but a no-break space
// A few characters in brackets stay on one line: 查询（位置） breaks before the bracket, not
// inside it.
const CLOSERS = ")\\]}\u3009\u300b\u300d\u300f\u3011\u3015\u2019\u201d\uff09\uff3d\uff5d";
const GROUP = `[${OPENING}][^\\s${OPENING}${CLOSERS}]{1,6}[${CLOSERS}][${CLOSING}]*`;
const PIECES = new RegExp(`${GROUP}${SPACE}*|[${OPENING}]*(?:[${WIDE}]|(?:[^\\s${WIDE}]|\\u00a0)+)`
  + `[${CLOSING}]*${SPACE}*|${SPACE}+`, "g");
const EQUATION = /(\S) = (?=\S)/g;  // "d = 16" stays on one line, in Chinese too
const HAN = /[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]{2,}/g;  // runs of Chinese characters

// Where the text's Chinese words continue: the offsets of their characters but the first.
function insideWords(text) {
  const inside = new Set();
  for (const { 0: run, index } of text.matchAll(HAN)) {
    let at = index;
    for (const word of words(run)) {
      for (let k = 1; k < word.length; k += 1) inside.add(at + k);
      at += word.length;
    }
  }
  return inside;
}

// The text's pieces, each kept on one line: a word, a few bracketed characters, a CJK
// character with the brackets and punctuation that hold on to it; a Chinese word's
// characters are one piece (words.js), as a word of letters is.
function pieces(part) {
  const inside = insideWords(part);
  const found = [];
  for (const { 0: piece, index } of part.matchAll(PIECES)) {
    if (found.length && inside.has(index)) found[found.length - 1] += piece;
    else found.push(piece);
  }
  return found;
}

// Text (plotly's markup: escaped characters, <br> between lines) broken into lines no wider
// than room pixels in font: at spaces, and between CJK characters where no Chinese word goes
// on, never after an opening bracket or before a closing one or a comma, nor inside an
// equation ("d = 16") or a few bracketed characters.
function wrapped(text, font, room) {
  ruler.font = font;
  const width = (line) => ruler.measureText(plain(line)).width;
  const kept = String(text).replace(EQUATION, "$1\u00a0=\u00a0");
  return kept.split(/<br\s*\/?>/i).flatMap((part) => {
    const lines = [""];
    for (const piece of pieces(part)) {
      const last = lines[lines.length - 1];
      if (last.trim() && width(last + piece.trimEnd()) > room) lines.push(piece.trimStart());
      else lines[lines.length - 1] = last + piece;
    }
    return lines.map((line) => line.trimEnd());
  });
}

const BREAK = /<br\s*\/?>/i;
const inLegend = (t) => (t.showlegend === undefined ? t.type !== "heatmap" : t.showlegend)
  && t.name;
const legendFont = (layout) => `${(layout.legend.font && layout.legend.font.size)
  || layout.font.size}px ${layout.font.family}`;

// The traces as drawn width pixels wide: under the chart (layout.legend: a horizontal band on
// the figure's frame), a legend entry too long for the band (its 40 px key, the chart's side
// margins and a few pixels to spare aside) breaks into lines as a title does, rather than run
// past the chart's edge.
export function legendNames(data, layout, width) {
  if (!layout.legend || layout.legend.yref !== "container") return data;
  const font = legendFont(layout);
  const room = width - 70;
  ruler.font = font;
  return data.map((t) => (inLegend(t) && String(t.name).split(BREAK)
    .some((line) => ruler.measureText(plain(line)).width > room)
    ? { ...t, name: wrapped(t.name, font, room).join("<br>") } : t));
}

// How many pixels a legend under the chart takes (layout.legend: a horizontal band on the
// figure's frame), its entries laid out as plotly does: one row if all fit in the plot's
// width, else columns as wide as the widest entry (a 40 px key and a 5 px gap beside each
// name); rows of 1.3 lines a line of their tallest entry plus 3 px, and 10 px of padding.
function legendHeight(data, layout, width) {
  const entries = data.filter(inLegend);
  if (layout.showlegend === false || entries.length < (layout.showlegend ? 1 : 2)) return 0;
  const size = (layout.legend.font && layout.legend.font.size) || layout.font.size;
  ruler.font = legendFont(layout);
  const margin = layout.margin || {};
  const room = width - (margin.l || 0) - (margin.r || 0) - 60;  // less the axes' labels
  const lines = entries.map((t) => String(t.name).split(BREAK));
  const widths = lines.map((name) => 45 + Math.max(
    ...name.map((line) => ruler.measureText(plain(line)).width)));
  const perRow = widths.reduce((a, b) => a + b, 0) < room ? entries.length
    : Math.max(1, Math.floor(room / Math.max(...widths)));
  let height = 10;
  for (let first = 0; first < entries.length; first += perRow) {
    const tallest = Math.max(...lines.slice(first, first + perRow).map((name) => name.length));
    height += tallest * size * LINE_HEIGHT + 3;
  }
  return Math.ceil(height);
}

// Axis titles wrapped to the length of their axis (roughly: the plot is smaller than the
// figure by its margins and labels), so that none runs past the chart's edge.
function axisTitles(layout, width) {
  const margin = layout.margin || {};
  const plot = { x: width - (margin.l || 0) - (margin.r || 0) - 60,
                 y: (layout.height || 450) - (margin.t || 0) - (margin.b || 0) - 60 };
  const size = Math.round(1.2 * layout.font.size);  // plotly's default for an axis title
  return Object.fromEntries(Object.keys(layout)
    .filter((key) => /^[xy]axis\d*$/.test(key) && layout[key].title && layout[key].title.text)
    .map((key) => {
      const axis = layout[key];
      const [from, to] = axis.domain || [0, 1];
      const font = `${(axis.title.font && axis.title.font.size) || size}px ${layout.font.family}`;
      const lines = wrapped(axis.title.text, font, Math.max(plot[key[0]] * (to - from), 60));
      return [key, { ...axis, title: { ...axis.title, text: lines.join("<br>") } }];
    }));
}

// A chart's title wrapped to what is in view: its lines, their font size, the pixels its
// lines past the first take, and whether it starts at the chart's left (else it is centred).
export function titleLines(layout, width, view) {
  const title = layout.title || {};
  const size = (title.font && title.font.size) || Math.round(1.4 * layout.font.size);
  const font = `${size}px ${layout.font.family}`;
  const lines = title.text ? wrapped(title.text, font, Math.min(width, view) - 2 * TITLE_SIDE_ROOM)
    : [];
  ruler.font = font;
  const widest = Math.max(0, ...lines.map((line) => ruler.measureText(plain(line)).width));
  return { lines, size, widest, left: title.xanchor === "left",
           extra: Math.ceil(Math.max(lines.length - 1, 0) * size * LINE_HEIGHT) };
}

// The pixels kept above a chart's title for its tool bar: always on a touch screen, elsewhere
// when the title reaches under the bar.
export function barStrip(width, view, toolbar, { widest, left }) {
  if (!toolbar) return 0;
  if (touchScreen()) return TOUCH_BAR;
  const reach = width > view + 1 || left ? TITLE_SIDE_ROOM + widest : (width + widest) / 2;
  return reach > width - HOVER_BAR.width ? HOVER_BAR.height : 0;  // reach: the title's end
}

// The layout for a chart drawn width pixels wide in a column view pixels wide (the width set,
// so that an update in place follows a column that has since changed): the title wrapped to
// what is in view (wrappedTitle, from titleLines), with its extra lines and the tool bar's
// strip (barStrip; together at least titleRoom pixels) added above the plot, and a legend's
// rows added below its bottom margin (plotly keeps a legend's rows inside the margin, and sets
// the axis title above them, onto the tick labels, when the margin has no room for both), so
// that neither squeezes the plot or its axes' labels; axis titles wrapped to their axes. A
// chart wider than its column (it scrolls sideways) starts its title at its left edge, where
// the reader sees it.
export function fitted(data, layout, width, view, toolbar, wrappedTitle, titleRoom) {
  const title = layout.title || {};
  const below = layout.legend && layout.legend.yref === "container" ? legendHeight(data, layout,
                                                                                   width) : 0;
  const { lines, size, extra } = wrappedTitle;
  const side = width > view + 1 ? { x: 0, xref: "container", xanchor: "left" } : {};
  const bar = barStrip(width, view, toolbar, wrappedTitle);
  const above = Math.max(extra + bar, titleRoom);
  // plotly sets a title's first line a cap height lower when it has one line than when it has
  // several (plotly.js 4.1.1, titles without automargin): the same place for both
  const lower = lines.length > 1 ? Math.round(CAP_SHIFT * size) : 0;
  const pad = title.pad || {};
  const margin = layout.margin || {};
  return { ...layout, ...axisTitles(layout, width),
           title: { ...title, ...side, text: lines.join("<br>"),
                    pad: { ...pad, t: (pad.t || 0) + bar + lower, l: TITLE_SIDE_ROOM } },
           ...(below ? { legend: { ...layout.legend, maxheight: 1 } } : {}),  // never scrolls
           margin: { ...margin, t: (margin.t === undefined ? 100 : margin.t) + above,
                     b: (margin.b === undefined ? 80 : margin.b) + below },
           width, height: (layout.height || 450) + above + below };
}
