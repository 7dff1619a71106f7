// Draws one posviz figure with the small plotly.js bundle served from static/.
// The bundle loads once per browser tab; later figures, page switches and reruns reuse it, and
// a rerun updates the chart in place (Plotly.react) instead of drawing it anew.

const BUNDLE = "app/static/plotly-posviz.min.js";

function plotly() {
  if (!window.posvizPlotly) {
    window.posvizPlotly = new Promise((resolve, reject) => {
      const script = document.createElement("script");
      script.src = new URL(BUNDLE, document.baseURI).href;
      script.onload = () => resolve(window.Plotly);
      script.onerror = () => reject(new Error(`posviz could not load ${BUNDLE}`));
      document.head.appendChild(script);
    });
  }
  return window.posvizPlotly;
}

// The page's own text colour and font, so a chart reads the same in light and dark themes.
function themed(layout, host) {
  const style = getComputedStyle(host);
  const font = { ...layout.font, color: style.color, family: style.fontFamily };
  const grid = { gridcolor: "rgba(128, 128, 128, 0.25)", linecolor: style.color };
  const axes = Object.fromEntries(Object.keys(layout)
    .filter((key) => /^[xy]axis\d*$/.test(key))
    .map((key) => [key, { ...grid, ...layout[key] }]));
  return { ...layout, ...axes, font, paper_bgcolor: "rgba(0,0,0,0)",
           plot_bgcolor: "rgba(0,0,0,0)" };
}

export default function (component) {
  const { data, parentElement } = component;
  let div = parentElement.querySelector(".posviz-chart");
  if (!div) {
    div = document.createElement("div");
    div.className = "posviz-chart";
    parentElement.appendChild(div);
  }
  const figure = JSON.parse(data.figure);
  div.style.height = `${figure.layout.height || 450}px`;
  div.dataset.name = data.name;
  plotly().then((Plotly) => {
    const config = {
      responsive: true, displaylogo: false,
      modeBarButtonsToRemove: ["select2d", "lasso2d", "autoScale2d"],
      toImageButtonOptions: { filename: `posviz-${data.name}`, scale: 2 },
    };
    Plotly.react(div, figure.data, themed(figure.layout, parentElement), config);
    if (!div.posvizResize) {  // the sidebar opening changes the width without a window resize
      div.posvizResize = new ResizeObserver(() => Plotly.Plots.resize(div));
      div.posvizResize.observe(div);
    }
  });
}
