// How posviz/figures/attention.py lays out its maps of panels for a sentence's labels (as the
// figure writes them: escaped), so that a typed sentence's maps are laid out as the server's for
// that sentence: panel_geometry, order_gap, _columns, _stacked_row, left_margin and _label_width,
// line for line. Every constant and the table of wide characters are Python's (panel_rule(): the
// viewer's configuration, or the golden page), kept here by use_panel_rule; none is written here.

let RULE = null;
let WIDE = [];  // [first, last] code points of each run of wide characters, in order

// Keep the rule Python sent; its wide characters are runs, each its distance from the end of
// the run before it and its length less one, in base 36.
export function use_panel_rule(rule) {
  const parts = rule.wide.split(' ');
  const runs = [];
  let last = -1;
  for (let i = 0; i < parts.length; i += 2) {
    const first = last + 1 + parseInt(parts[i], 36);
    last = first + parseInt(parts[i + 1], 36);
    runs.push([first, last]);
  }
  RULE = Object.freeze({ ...rule });
  WIDE = runs;
  return RULE;
}

function wide(point) {  // unicodedata.east_asian_width(chr(point)) in "WF"
  let low = 0;
  let high = WIDE.length - 1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    if (point < WIDE[mid][0]) high = mid - 1;
    else if (point > WIDE[mid][1]) low = mid + 1;
    else return true;
  }
  return false;
}

// _label_width: rough pixels of one line of tick text in a font of `size` pixels, a wide
// character a full em.
export function label_width(label, size = RULE.tick_size) {
  let sum = 0;
  for (const c of label) sum += wide(c.codePointAt(0)) ? 1.0 : RULE.narrow_em;
  return size * sum;
}

const widest = (labels, size = RULE.tick_size) => Math.max(
  ...labels.map((label) => label_width(label, size)));

function split_once(label) {  // label.split(" ", 1)
  const at = label.indexOf(' ');
  return at < 0 ? [label] : [label.slice(0, at), label.slice(at + 1)];
}

// _key_room: whether key labels stand upright in a panel `row` pixels wide, and their pixels.
function key_room(labels, row) {
  const widths = labels.map((label) => widest(split_once(label)) + RULE.label_pad);
  if (labels.length <= RULE.upright_keys && widths.reduce((a, b) => a + b, 0) <= row) {
    return [true, Math.trunc(2 * RULE.line * RULE.tick_size) + RULE.label_offset];
  }
  return [false, Math.trunc(widest(labels)) + RULE.label_offset];
}

// left_margin: pixels left of the panels (the row labels, in a font of `size` pixels, and the
// row axis's title).
export const left_margin = (labels, size = RULE.tick_size) => Math.trunc(widest(labels, size))
  + RULE.axis_title_room + RULE.room_pad;

// _stacked_row: pixels of the stacked layout's one panel a row at the least.
export const stacked_row = (labels) => Math.max(
  RULE.stacked_row, RULE.stacked_width - left_margin(labels) - RULE.colour_bar_room);

// panel_geometry: { upright, left, top, bottom, height, min_width, rows: [[y0, y1], ...] }.
// tall: a panel's least and most pixels of height (the rule's panel_tall or stacked_tall).
export function panel_geometry(labels, n_panels, n_cols, row_width, tall) {
  const seq_len = labels.length;
  const n_rows = Math.ceil(n_panels / n_cols);
  const [upright, room] = key_room(labels, row_width / n_cols);
  const [least, most] = tall;
  const panel = Math.min(Math.max(RULE.panel_base + RULE.panel_per_token * seq_len, least), most);
  const gap = room + RULE.panel_title_room + RULE.room_pad;
  const top = RULE.title_room + RULE.panel_title_room;
  const bottom = room + RULE.axis_title_room;
  const left = left_margin(labels);
  const plot = n_rows * panel + (n_rows - 1) * gap;
  const rows = Array.from({ length: n_rows }, (_, row) => {
    const y1 = 1 - row * (panel + gap) / plot;
    return [Math.max(y1 - panel / plot, 0.0), y1];
  });
  return { upright, left, top, bottom, height: top + plot + bottom,
           min_width: Math.max(left + row_width + RULE.colour_bar_room, RULE.min_width), rows };
}

// order_gap: the gap between order_maps' panels, room for the widest label of every order's.
export function order_gap(label_sets) {
  const most = Math.max(...label_sets.map((labels) => widest(labels)));
  const [least, cap] = RULE.order_gap;
  return Math.min(cap, Math.max(least, (most + RULE.order_gap_pad) / RULE.narrowest_row));
}

// _columns: n_cols equal column domains separated by gap (fractions of the plot's width).
export function columns(n_cols, gap) {
  const width = (1 - (n_cols - 1) * gap) / n_cols;
  return Array.from({ length: n_cols }, (_, c) => [c * (width + gap),
                                                   c * (width + gap) + width]);
}

export const panel_rule = () => RULE;  // the rule kept: its row widths and heights
