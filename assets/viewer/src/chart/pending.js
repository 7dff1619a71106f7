// A chart's draw kept pending until the chart comes near the view (or something needs it drawn).

// Charts draw when they come near the view (one screen above or below it): a page opens with
// the charts in sight drawn first, and a tab nobody scrolls never pays for the rest. A rerun's
// update to a chart out of sight waits the same way; export draws whatever is still waiting.
let watcher;

export function whenNear(div, draw) {
  div.posvizPending = draw;
  if (!watcher) {
    watcher = new IntersectionObserver((entries) => entries.forEach(({ target, isIntersecting }) => {
      if (isIntersecting) drawPending(target);
    }), { rootMargin: "100% 0px" });
  }
  watcher.unobserve(div);  // observing anew reports the chart's position at once
  watcher.observe(div);
}

export function drawPending(div) {
  const draw = div.posvizPending;
  div.posvizPending = null;
  return draw ? draw() : Promise.resolve();
}
