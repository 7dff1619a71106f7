// The plotly.js bundle, loaded once per tab, and a layout in the page's own colours.

const BUNDLE = "app/static/plotly-posviz.min.js";

// version: the bundle's content hash, so that a proxy may let browsers keep it for a year
export function plotly(version) {
  if (!window.posvizPlotly) {
    window.posvizPlotly = new Promise((resolve, reject) => {
      const script = document.createElement("script");
      script.src = new URL(`${BUNDLE}?v=${version}`, document.baseURI).href;
      script.onload = () => resolve(window.Plotly);
      script.onerror = () => reject(new Error(`posviz could not load ${BUNDLE}`));
      document.head.appendChild(script);
    });
  }
  return window.posvizPlotly;
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
