// Drawing a chart at its column's width, the titles of charts side by side given the same room.

import { SLIGHT, barStrip, fitted, legendNames, titleLines } from "./fitting.js";
import { spread } from "./labels.js";
import { themed } from "./loader.js";
import { hideDrawing } from "./reader.js";

const ICON = (path) => ({ width: 24, height: 24, path });
// Filled shapes (plotly fills an icon's path, nonzero rule): a frame is an outline drawn
// clockwise with its inside counter-clockwise, so that the inside stays empty.
const FRAME = "M3 3h18v18H3zM5 5v14h14V5z";
export const ICONS = {
  svg: ICON(`${FRAME}M6 17l4-6 3 4 2-3 3 5zM15.5 6.5a1.5 1.5 0 1 0 .01 0z`),  // a picture
  csv: ICON(`${FRAME}M5 9h14v1.6H5zM5 13.4h14V15H5zM10.2 5h1.6v14h-1.6z`),  // a table
  npy: ICON("M3 5h5v2H5v10h3v2H3zM21 5h-5v2h3v10h-3v2h5zM8.5 11h2v2h-2zM13.5 11h2v2h-2z"),  // [··]
};

// The drawn charts beside this one: in the other columns of its row of columns, each the same
// n-th chart of its column (not those stacked under it, as columns are on a phone).
const COLUMN = '[data-testid="stColumn"]';
const ROW = '[data-testid="stHorizontalBlock"]';
const chartsOf = (column) => [...column.querySelectorAll(".posviz-chart")]
  .filter((chart) => chart.closest(COLUMN) === column);

function rowMates(div) {
  const column = div.closest(COLUMN);
  const row = column && column.closest(ROW);
  if (!row) return [];
  const nth = chartsOf(column).indexOf(div);
  const left = div.getBoundingClientRect().left;
  return [...row.querySelectorAll(COLUMN)]
    .filter((other) => other !== column && other.closest(ROW) === row)
    .map((other) => chartsOf(other)[nth])
    .filter((other) => other && other.posvizTitle !== undefined
            && Math.abs(other.getBoundingClientRect().left - left) > 1);
}

// A figure of panels side by side may carry the layout of the same panels stacked
// (meta.narrow, legible in a narrower column: a phone's): drawn with it in a column narrower
// than the side-by-side layout needs.
function forColumn(layout, view) {
  const meta = layout.meta || {};
  return meta.narrow && view < meta.min_width ? { ...layout, ...meta.narrow } : layout;
}

// The layout the chart's figure is drawn with at the width it now has, and its height, which
// the chart's element takes at once: a chart keeps its place at its drawn height before it is
// drawn, so that nothing under it moves when it draws (a tap on a button below would land
// elsewhere). Charts side by side keep the room of the longest title above their plots, so
// that the plots line up when only one title wraps. Returns the layout and those row mates.
function sized(div) {
  const { figure, host, toolbar } = div.posvizSource;
  const base = forColumn(figure.layout, host.clientWidth);
  div.style.minWidth = `${base.meta.min_width || 0}px`;  // narrower, it would be illegible
  div.posvizWidth = div.clientWidth;
  div.posvizView = host.clientWidth;
  // the cue says a chart scrolls sideways, unless by a few pixels only (three charts of 320 px
  // side by side on a desk's 940)
  const wide = div.posvizWidth > div.posvizView + SLIGHT;
  host.classList.toggle("posviz-wide", wide);
  if (wide) host.tabIndex = 0;  // the keyboard scrolls it sideways too
  else host.removeAttribute("tabindex");
  let layout = themed(base, host);
  let title = titleLines(layout, div.posvizWidth, div.posvizView);
  div.posvizTitle = title.extra + barStrip(div.posvizWidth, div.posvizView, toolbar, title);
  const mates = rowMates(div);
  div.posvizTitleRoom = Math.max(title.extra, ...mates.map((other) => other.posvizTitle));
  div.posvizData = legendNames(figure.data, layout, div.posvizWidth);
  const fit = (shape) => fitted(div.posvizData, shape, div.posvizWidth, div.posvizView, toolbar,
                                title, div.posvizTitleRoom);
  let drawn = fit(layout);
  const room = windowRoom(div);
  if (drawn.height > room && base.meta.short) {  // the figure's own shorter layout first
    const { short } = base.meta;  // its title's keys refine the title (alignment)
    layout = themed({ ...base, ...short, title: { ...base.title, ...short.title } }, host);
    title = titleLines(layout, div.posvizWidth, div.posvizView);  // it may set its title apart
    drawn = fit(layout);
  }
  if (drawn.height > room) {  // the plot gives up the difference, down to its least
    const height = (layout.height || 450) - drawn.height + room;
    drawn = fit(shortened(layout, Math.max(LEAST_PLOT, layout.meta.least || 0, height)));
  }
  div.style.height = `${drawn.height}px`;
  return { drawn, mates };
}

// A chart asked to fit (a lesson scene's figure in presentation mode) is no taller than the
// window, and when its top is in the window as the page opens, it fits between that top and
// the window's bottom: a projector shows the scene's figure whole, without scrolling. A
// figure may carry a shorter layout of its own for this (meta.short: a grid's rows with room
// kept for their titles, a legend beside the plot); the plot then gives up what is still
// missing, down to the least height its layout allows (meta.least: below, a grid's panel
// titles would meet the panels).
const WINDOW_GAP = 40;   // pixels kept under a fitted chart: its data table's line shows
const LEAST_PLOT = 240;  // the least layout height a fitted chart is given

// A shortened plot keeps what it can: its bottom margin only as deep as its axes' labels
// need (the enlargement's axes grow their margins to fit them), and colour bars ticked no
// closer than a label's room, so that their labels never meet.
const TICK_ROOM = 45;  // pixels of colour bar per tick

function shortened(layout, height) {
  const margin = { ...layout.margin, b: WINDOW_GAP };
  const plot = height - (margin.t || 0) - margin.b;
  const bars = Object.keys(layout).filter((key) => /^coloraxis\d*$/.test(key))
    .map((key) => {
      const bar = layout[key].colorbar || {};
      const nticks = Math.max(3, Math.floor((plot * (bar.len || 1)) / TICK_ROOM));
      return [key, { ...layout[key], colorbar: { ...bar, nticks } }];
    });
  return { ...layout, ...Object.fromEntries(bars), margin, height };
}

function windowRoom(div) {
  if (!div.posvizSource.fit) return Infinity;
  const main = div.closest('[data-testid="stMain"]');
  const top = div.getBoundingClientRect().top + (main ? main.scrollTop : window.scrollY);
  return innerHeight - (top < innerHeight ? top : 0) - WINDOW_GAP;
}

// Size the chart and draw it (or update it in place) unless it waits to come near the view;
// a row mate whose title room that changed is sized, and drawn, again (once: its mates are
// this chart's).
export function render(div, asMate = false) {
  const { drawn, mates } = sized(div);
  const drawable = div.posvizConfig && !div.posvizPending;  // drawn before, or being drawn
  const done = drawable ? window.Plotly.react(div, div.posvizData, drawn, div.posvizConfig)
    .then(() => spread(div)).then(() => hideDrawing(div))
    : Promise.resolve();
  if (!asMate) {
    mates.filter((other) => other.posvizTitleRoom !== div.posvizTitleRoom)
      .forEach((other) => render(other, true));
  }
  return done;
}
