"""The live handout on a slow phone, measured: a 32-token sentence typed into its box, with
Chromium's CPU throttled (CDP Emulation.setCPUThrottlingRate), on a 390 x 844 touch screen,
the file opened from disk with the network cut.

    python -m tests.benchmarks.live_benchmark [--runs 5] [--throttle 4] [--delay 100]

Each run opens the file afresh (`python -m ui.handout`), taps the box and types the sentence a
key every --delay ms (no Enter), then prints, median and worst over the runs, with its target:

1. the engine's time for each scene's live figures (live.js's "posviz-engine" measures, one a
   chart, summed by scene) for the sentence, and for the whole file, which one draw computes;
2. from the last keystroke to the scene under the box redrawn for the sentence, and from a
   scroll to each other live scene to its charts redrawn (charts draw as they near the screen);
3. typing's fluency: the longest main-thread task (PerformanceObserver "longtask") while keys
   are typed, the longest from the first key to the redraw, and the slowest key's event
   (Event Timing: from the key to the next paint);
4. requests made from the first key to the redraw (target 0);
5. the engine's size gzipped (static/engine.js: what the file's viewer holds of it), beside the
   viewer module's and the whole file's.

Not a test (pytest does not collect it): the figures depend on the machine.
"""

from __future__ import annotations

import argparse
import gzip
import json
import shutil
import statistics
import tempfile
from pathlib import Path

from posviz.tokens import tokenize
from tests.helpers.load_fixtures import ROOT
from tests.helpers.viewer import file_only
from ui import handout

SENTENCE = ("The cat sat on the warm mat while the old dog slept by the door, and the cold "
            "rain fell softly on the red old roof all the night long.")
TOKENS = 32
PHONE = dict(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
TARGETS = {"engine": 20.0, "redraw": 400.0, "engine_kb": 60.0, "requests": 0}

# In the page before its scripts: every input's time, the long tasks and the slow events.
WATCH_JS = """
window.posvizBench = { inputs: [], long: [], events: [] };
document.addEventListener('input', () => posvizBench.inputs.push(performance.now()), true);
new PerformanceObserver((list) => list.getEntries().forEach((e) =>
  posvizBench.long.push([e.startTime, e.duration]))).observe({ type: 'longtask' });
new PerformanceObserver((list) => list.getEntries().forEach((e) =>
  posvizBench.events.push([e.name, e.startTime, e.duration]))).observe(
  { type: 'event', durationThreshold: 16 });
"""

# The live charts (not "fixed") of a scene, as [host, chart] pairs.
SCENE_JS = """(id) => Array.from(document.querySelectorAll(`#${id} .posviz-chart-host[data-live]`))
  .filter((host) => JSON.parse(host.dataset.live).recipe !== 'fixed')"""

# True (and the time kept) once every live chart of the scene shown within a screen of the view
# (those a scroll draws; the page draws the others as they come near, and an answer's once it is
# revealed) is drawn for n tokens: not waiting to be drawn, its value maps labelled with n tokens
# or its frame over min(n, rows) rows.
DRAWN_JS = f"""([id, n]) => {{
  const near = (host) => {{
    const box = host.getBoundingClientRect();
    return box.height > 0 && box.top < 2 * window.innerHeight && box.bottom > -window.innerHeight;
  }};
  const done = ({SCENE_JS})(id).filter(near).every((host) => {{
    const gd = host.querySelector('.posviz-chart');
    if (!gd || gd.posvizPending || !gd.data || !host.posvizLive) return false;
    const live = JSON.parse(host.dataset.live);
    if (live.recipe === 'frame') {{
      const rect = (gd.layout.shapes || []).find((s) => s.type === 'rect');
      return !!rect && rect.y1 === Math.min(n, live.params.rows) - 0.5;
    }}
    return gd.data.filter((t) => t.type === 'heatmap' && t.hoverinfo !== 'skip')
      .every((t) => t.y && t.y.length >= n);
  }});
  if (done && !window.posvizBench.done) window.posvizBench.done = performance.now();
  return done;
}}"""

# The engine's measures after the last key, summed by the scene each chart is in.
ENGINE_JS = """(after) => {
  const scene = {};
  document.querySelectorAll('.posviz-chart-host[data-name]').forEach((host) => {
    scene[host.dataset.name] = host.closest('section.posviz-document').id;
  });
  const by = {};
  performance.getEntriesByName('posviz-engine').filter((m) => m.startTime >= after)
    .forEach((m) => { by[scene[m.detail]] = (by[scene[m.detail]] || 0) + m.duration; });
  return by;
}"""


def live_scenes(page) -> list[str]:
    """The ids of the scenes with a live chart, in the file's order."""
    return page.evaluate(f"""() => Array.from(document.querySelectorAll('section.posviz-document'))
      .map((s) => s.id).filter((id) => ({SCENE_JS})(id).length)""")


def one_run(browser, path: Path, throttle: float, delay: float) -> dict:
    context = browser.new_context(**PHONE)
    file_only(context, [])
    page = context.new_page()
    page.add_init_script(WATCH_JS)
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(path.as_uri())
    box = page.locator("#posviz-try-input")
    box.wait_for()
    scenes = live_scenes(page)
    cdp = context.new_cdp_session(page)
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": throttle})
    box.tap()
    before = len(requests)
    page.keyboard.type(SENTENCE, delay=delay)
    first = scenes[0]
    page.wait_for_function(DRAWN_JS, arg=[first, TOKENS], polling="raf", timeout=60_000)
    bench = page.evaluate("window.posvizBench")
    typed = len(requests) - before
    start, last = bench["inputs"][0], bench["inputs"][-1]
    scrolled = {}
    for scene in scenes[1:]:
        page.evaluate("() => { window.posvizBench.done = 0; }")
        at = page.evaluate("""(id) => { document.getElementById(id).scrollIntoView();
                                          return performance.now(); }""", scene)
        page.wait_for_function(DRAWN_JS, arg=[scene, TOKENS], polling="raf", timeout=60_000)
        scrolled[scene] = page.evaluate("window.posvizBench.done") - at
    engine = page.evaluate(ENGINE_JS, last)
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": 1})
    context.close()
    return {
        "engine": engine,
        "redraw": bench["done"] - last,
        "scrolled": scrolled,
        "long_typing": max((d for s, d in bench["long"] if start <= s <= last), default=0.0),
        "long_all": max((d for s, d in bench["long"] if s >= start), default=0.0),
        "slowest_key": max((d for name, s, d in bench["events"]
                            if s >= start and name in ("keydown", "keypress", "keyup",
                                                       "beforeinput", "input")), default=0.0),
        "requests": typed,
    }


def sizes(path: Path) -> dict[str, float]:
    """Gzipped kilobytes (level 9) of the engine, the viewer module holding it, and the file."""
    def kb(data: bytes) -> float:
        return len(gzip.compress(data, 9)) / 1024
    return {"engine": kb((ROOT / "static" / "engine.js").read_bytes()),
            "viewer": kb((ROOT / "static" / "viewer.js").read_bytes()),
            "file": kb(path.read_bytes()), "file_raw": path.stat().st_size / 1024}


def main() -> None:
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--throttle", type=float, default=4.0, help="CPU slowdown, 1 = none")
    parser.add_argument("--delay", type=float, default=100.0, help="ms between keys")
    parser.add_argument("--lang", default="en")
    parser.add_argument("--json", type=Path, default=None, help="keep the figures here")
    args = parser.parse_args()
    assert len(tokenize(SENTENCE)) == TOKENS
    with tempfile.TemporaryDirectory() as folder, sync_playwright() as p:
        path = handout.main(["--lang", args.lang, "--out", str(Path(folder) / "lesson.html")])
        browser = p.chromium.launch(executable_path=shutil.which("chromium"), args=[
            "--no-sandbox", "--disable-gpu", "--disable-background-networking"])
        runs = [one_run(browser, path, args.throttle, args.delay) for _ in range(args.runs)]
        browser.close()
        size = sizes(path)

    def line(label: str, values: list[float], target: str = "", unit: str = "ms") -> None:
        print(f"  {label:44} median {statistics.median(values):7.1f} {unit}, "
              f"worst {max(values):7.1f} {unit}  {target}")

    print(f"Live handout, {TOKENS} tokens typed a key every {args.delay:.0f} ms, CPU throttled "
          f"{args.throttle:g}x, 390 x 844 phone, {args.runs} runs, each a fresh page:")
    print("The engine, for the sentence:")
    for scene in runs[0]["engine"]:
        line(f"{scene}'s live figures", [r["engine"].get(scene, 0.0) for r in runs])
    line("the largest scene", [max(r["engine"].values()) for r in runs],
         f"(target <= {TARGETS['engine']:.0f} ms)")
    line("the whole file (one draw computes every scene)",
         [sum(r["engine"].values()) for r in runs])
    print("Redrawn:")
    line("last key to the scene under the box drawn", [r["redraw"] for r in runs],
         f"(target <= {TARGETS['redraw']:.0f} ms)")
    for scene in runs[0]["scrolled"]:
        line(f"scrolled to {scene}, its charts drawn", [r["scrolled"][scene] for r in runs])
    print("Typing (long tasks are those over 50 ms; 0: none):")
    line("longest task while keys are typed", [r["long_typing"] for r in runs])
    line("longest task, first key to redrawn", [r["long_all"] for r in runs])
    line("slowest key event (to next paint; 0: < 16)", [r["slowest_key"] for r in runs])
    print(f"Requests from the first key to redrawn: {max(r['requests'] for r in runs)} "
          f"(target {TARGETS['requests']})")
    print(f"Gzipped: the engine {size['engine']:.1f} KB (target <= {TARGETS['engine_kb']:.0f} KB),"
          f" the viewer module holding it {size['viewer']:.1f} KB, the whole file "
          f"{size['file']:.0f} KB ({size['file_raw']:.0f} KB unzipped)")
    if args.json:
        args.json.write_text(json.dumps({"runs": runs, "sizes": size}, indent=1))


if __name__ == "__main__":
    main()
