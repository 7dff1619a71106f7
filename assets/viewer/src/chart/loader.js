// The plotly.js bundle, loaded once per tab, and a layout in the page's own colours.

export const BUNDLE = "app/static/plotly-posviz.min.js";  // the app's (a room's screen: its own)
let loading = null;

// src: the bundle's address, named by its content hash (?v=...) so that a proxy may let browsers
// keep it for a year. A page that holds it already (an offline file inlines it) is not asked
// again; a room's screen asks for it early (a preload), and here for that same address.
export function plotly(src) {
  if (!loading) {
    loading = window.Plotly ? Promise.resolve(window.Plotly) : new Promise((resolve, reject) => {
      const script = document.createElement("script");
      script.src = new URL(src, document.baseURI).href;
      script.onload = () => resolve(window.Plotly);
      script.onerror = () => reject(new Error(`posviz could not load ${src.split("?")[0]}`));
      document.head.appendChild(script);
    });
  }
  return loading;
}

// The page's own text colour and font, so a chart reads the same in light and dark themes.
export function themed(layout, host) {
  const style = getComputedStyle(host);
  const font = { ...layout.font, color: style.color, family: style.fontFamily };
  const grid = { gridcolor: "rgba(128, 128, 128, 0.25)", linecolor: style.color };
  const axes = Object.fromEntries(Object.keys(layout)
    .filter((key) => /^[xy]axis\d*$/.test(key))
    .map((key) => [key, { ...grid, ...layout[key] }]));
  return { ...layout, ...axes, font, paper_bgcolor: "rgba(0,0,0,0)",
           plot_bgcolor: "rgba(0,0,0,0)" };
}
