"""posviz's speed, measured: `python -m tests.benchmarks.benchmark [--runs N] [--json PATH]`.

Prints one table (measure, page, median, p95, target, ok) of:
1. server-side time of one full script run of every page, at default and at maximum settings
   (a 64-token sentence, every numeric control at its top, found as tests/helpers/controls.py finds
   them): with AppTest after a warm-up, rerunning unchanged settings ("same") and with a new
   sentence each run ("new sentence": nothing cached for it); and on the real server, spoken to
   over its websocket as a browser does but without one (a browser would share the 2 cores):
   a new session opening the page from a link with a new sentence, then a rerun of it;
2. bytes the browser receives per page at maximum settings, a full load through a deep link:
   websocket frames, and static assets (HTTP) separately;
3. in headless Chromium, from pressing Enter on a new sentence to every chart on the attention
   page showing its tokens;
4. cold start (server start to home fully drawn) against a one-line Streamlit app, alternating,
   and every page's open (to the charts in a 1400 x 1000 window drawn: charts below draw as
   the page is scrolled to them) against the bare app's page.

Not a test (pytest does not collect it): the figures depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from tests.conftest import ROOT
from tests.helpers.controls import LONGEST, ROUTES, at_extreme, maximum_query, opened
from tests.helpers.figure_data import chart_specs
from tests.helpers.load_fixtures import (
    DRAWN_JS,
    FINISHED,
    IN_VIEW_JS,
    LAUNCH_ARGS,
    SENTENCE_BOX,
    page_url,
    route_name,
    run_apart,
    sentence,
    serving,
    session,
    start_server,
    stop_server,
    wait_healthy,
)
from ui import DEFAULT_TEXT
from ui.i18n import text

MS, MB = 1e3, 1e-6
RUN_TARGET = {"default": 0.200, "max": 0.600}
SLOW_PAGE = "models"  # the trained-model page: its default target is RUN_SLOW
RUN_SLOW = 0.500
BYTES_TARGET = 2_000_000
ENTER_TARGET = 1.5
RATIO_TARGET = 1.5
BARE = 'import streamlit as st\n\nst.write("hi")\n'
BARE_DRAWN_JS = """() => !!document.querySelector('FINISHED')
  && document.querySelector('[data-testid=stMain]').innerText.includes('hi')""".replace(
    "FINISHED", FINISHED)
WAIT_MS = 120_000


class Table:
    """The rows printed at the end, and the figures for --json."""

    def __init__(self) -> None:
        self.rows: list[dict] = []

    def add(self, measure: str, page: str, values: list[float], target: float, unit: str,
            scale: float = 1.0, ok: bool | None = None) -> None:
        median, p95 = statistics.median(values), percentile95(values)
        self.rows.append(dict(
            measure=measure, page=page, unit=unit, median=median * scale, p95=p95 * scale,
            target=target * scale, ok=median <= target if ok is None else ok, n=len(values),
            values=[v * scale for v in values]))
        row = self.rows[-1]
        print(f"  {measure:50} {page:10} {row['median']:9.3f} {row['p95']:9.3f} {unit}",
              file=sys.stderr, flush=True)

    def print(self) -> None:
        print(f"{'measure':50} {'page':10} {'median':>11} {'p95':>11} {'target':>12}  ok")
        for r in self.rows:
            unit, digits = r["unit"], {"ms": 0, "MB": 3, "x": 2}[r["unit"]]
            target = "-" if r["target"] == float("inf") else f"<= {r['target']:g} {unit}"
            print(f"{r['measure']:50} {r['page']:10} {r['median']:8.{digits}f} {unit:2} "
                  f"{r['p95']:8.{digits}f} {unit:2} {target:>12}  {'yes' if r['ok'] else 'NO'}")


def percentile95(values: list[float]) -> float:
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=20, method="inclusive")[-1]


def timed(action: Callable[[], object]) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def run_target(route: str | None, level: str) -> float:
    return RUN_SLOW if level == "default" and route_name(route) == SLOW_PAGE else RUN_TARGET[level]


def at_level(route: str | None, level: str):
    """An AppTest of the page at default or maximum settings, after its warm-up run."""
    at = opened(route, LONGEST if level == "max" else None)
    if level == "max":
        at_extreme(at, "high")
    at.run()
    assert not at.exception, f"{route_name(route)} at {level}: {at.exception}"
    return at


def apptest_runs(table: Table, runs: int) -> None:
    """Measure 1 with AppTest: same settings, and a new sentence every run."""
    for level in ("default", "max"):
        n_tokens = 64 if level == "max" else len(DEFAULT_TEXT)
        for route in ROUTES:
            at = at_level(route, level)
            same = [timed(at.run) for _ in range(runs)]
            fresh = []
            for salt in range(runs):
                at.text_input(key="text").set_value(sentence(n_tokens, 10_000 + salt))
                fresh.append(timed(at.run))
                assert not at.exception, f"{route_name(route)}: {at.exception}"
            target = run_target(route, level)
            table.add(f"run {level}, AppTest, same settings", route_name(route), same, target,
                      "ms", MS)
            table.add(f"run {level}, AppTest, new sentence", route_name(route), fresh, target,
                      "ms", MS)


def frames(page, received: list) -> None:
    """Record the size of every websocket frame the page receives."""
    page.on("websocket", lambda ws: ws.on("framereceived", lambda payload: received.append(
        len(payload))))


def sidebar_box(page):
    return page.locator(SENTENCE_BOX)


async def session_times(url: str, route: str | None, query: dict, n_tokens: int, salt: int,
                        runs: int) -> tuple[list[float], list[float]]:
    """Seconds for a page's first run in a new session opened from a link with a sentence
    nothing has cached, and for a rerun of it in the same session; runs sessions."""
    fresh, same = [], []
    for run in range(runs):
        shared = {**query, "text": sentence(n_tokens, salt + run)}
        async with session(url) as s:
            for times in (fresh, same):
                start = time.perf_counter()
                await s.run(route, shared)
                times.append(time.perf_counter() - start)
    return fresh, same


def server_runs(table: Table, url: str, runs: int, queries: dict) -> None:
    """Measure 1 on the real server, over its websocket without a browser: request sent to the
    script-finished message received."""
    for level in ("default", "max"):
        n_tokens = 64 if level == "max" else len(DEFAULT_TEXT)
        for route in ROUTES:
            run_apart(session_times(url, route, queries[level][route], n_tokens, 40_000, 1))
            fresh, same = run_apart(session_times(url, route, queries[level][route], n_tokens,
                                                    50_000, runs))
            target = run_target(route, level)
            table.add(f"run {level}, real server, new session + sentence", route_name(route),
                      fresh, target, "ms", MS)
            table.add(f"run {level}, real server, rerun", route_name(route), same, target,
                      "ms", MS)


def page_bytes(table: Table, browser, url: str, runs: int, queries: dict) -> None:
    """Measure 2: a full load at maximum settings through a deep link, in a fresh context."""
    for route in ROUTES:
        socket, static = [], []
        for _ in range(runs):
            context = browser.new_context(viewport={"width": 1400, "height": 1000})
            page = context.new_page()
            received, loaded = [], []
            frames(page, received)
            page.on("requestfinished", lambda request, loaded=loaded: loaded.append(
                request.sizes()["responseBodySize"]))
            page.goto(page_url(url, route, queries["max"][route]), wait_until="commit")
            page.wait_for_function(IN_VIEW_JS, arg=[text(f"{route_name(route)}.title", "en"), ""],
                                   timeout=WAIT_MS)
            page.wait_for_load_state("networkidle")
            page.wait_for_timeout(300)
            dropped = [key for key in queries["max"][route] if f"{key}=" not in page.url]
            if dropped:
                print(f"  note: {route_name(route)} left {dropped} out of its URL (a value equal "
                      "to its default, or refused)", file=sys.stderr)
            socket.append(sum(received))
            static.append(sum(loaded))
            context.close()
        table.add("bytes at max, websocket", route_name(route), socket, BYTES_TARGET, "MB", MB)
        table.add("bytes at max, static assets (HTTP)", route_name(route), static, float("inf"),
                  "MB", MB, ok=True)


def enter_to_charts(table: Table, browser, url: str, runs: int) -> None:
    """Measure 3: Enter on a new sentence to every attention chart showing its tokens; the
    window is tall enough for the whole page, so no chart waits to be scrolled to."""
    route = next(r for r in ROUTES if r and route_name(r) == "attention")
    page = browser.new_page(viewport={"width": 1400, "height": 4000})
    title = text("attention.title", "en")
    count = len(chart_specs(at_level(route, "default")))
    page.goto(page_url(url, route), wait_until="commit")
    page.wait_for_function(DRAWN_JS, arg=[title, count, ""], timeout=WAIT_MS)
    times = []
    for salt in range(runs):
        typed = sentence(len(DEFAULT_TEXT), 30_000 + salt, head="z")
        marker = typed.split()[-1]
        sidebar_box(page).fill(typed)
        start = time.perf_counter()
        sidebar_box(page).press("Enter")
        page.wait_for_function(DRAWN_JS, arg=[title, count, marker], timeout=WAIT_MS,
                               polling=10)
        times.append(time.perf_counter() - start)
    page.close()
    table.add("Enter to every chart showing the sentence", "attention", times, ENTER_TARGET,
              "ms", MS)


def drawn(page, title: str | None) -> None:
    """Wait for a posviz page (its title, the charts in the window) or, title None, the
    one-line app."""
    if title is None:
        page.wait_for_function(BARE_DRAWN_JS, timeout=WAIT_MS, polling=10)
    else:
        page.wait_for_function(IN_VIEW_JS, arg=[title, ""], timeout=WAIT_MS, polling=10)


def open_time(browser, url: str, title: str | None) -> float:
    """A new tab: navigation to the page drawn (see drawn)."""
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    start = time.perf_counter()
    page.goto(url, wait_until="commit")
    drawn(page, title)
    elapsed = time.perf_counter() - start
    page.close()
    return elapsed


def bare_app(folder: Path) -> Path:
    script = folder / "bare.py"
    script.write_text(BARE, "utf-8")
    return script


def cold_start(table: Table, browser, runs: int, folder: Path) -> None:
    """Measure 4a: process start to the home page fully drawn, posviz vs a one-line app."""
    script = bare_app(folder)
    times: dict[str, list[float]] = {"posviz": [], "bare": []}
    for _ in range(runs):
        for name, (where, title) in {"posviz": ((ROOT, "serve.py"), text("home.title", "en")),
                                     "bare": ((folder, script.name), None)}.items():
            start = time.perf_counter()
            proc, url = start_server(where[1], where[0])
            try:
                wait_healthy(proc, url, poll=0.02)
                open_time(browser, url, title)
                times[name].append(time.perf_counter() - start)
            finally:
                stop_server(proc)
    ratio = statistics.median(times["posviz"]) / statistics.median(times["bare"])
    table.add("cold start, posviz home", "home", times["posviz"], float("inf"), "ms", MS,
              ok=ratio <= RATIO_TARGET)
    table.add("cold start, one-line app", "bare", times["bare"], float("inf"), "ms", MS, ok=True)
    table.add("cold start, ratio of medians to one-line app", "home", [ratio], RATIO_TARGET, "x")


def page_opens(table: Table, browser, url: str, runs: int, folder: Path) -> None:
    """Measure 4b: every page's open to the charts in the window drawn, against the bare app's
    page."""
    with serving(bare_app(folder).name, folder) as (_, bare_url):
        open_time(browser, bare_url, None)  # warm-up
        bare = [open_time(browser, bare_url, None) for _ in range(runs)]
    table.add("page open, one-line app", "bare", bare, float("inf"), "ms", MS,
              ok=True)
    for route in ROUTES:
        title = text(f"{route_name(route)}.title", "en")
        open_time(browser, page_url(url, route), title)  # warm-up
        times = [open_time(browser, page_url(url, route), title)
                 for _ in range(runs)]
        ratio = statistics.median(times) / statistics.median(bare)
        table.add("page open to charts in the window drawn", route_name(route), times,
                  float("inf"), "ms", MS, ok=ratio <= RATIO_TARGET)
        table.add("page open, ratio of medians to one-line app", route_name(route), [ratio],
                  RATIO_TARGET, "x")


def settings() -> dict:
    """Per level and page: the deep-link query."""
    queries: dict = {"default": {}, "max": {}}
    for route in ROUTES:
        queries["default"][route] = {}
        queries["max"][route] = {**maximum_query(at_level(route, "max")), "text": LONGEST}
    return queries


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=15, help="AppTest runs per page and level")
    parser.add_argument("--browser-runs", type=int, default=7,
                        help="runs of each real-server and browser measure (page, level)")
    parser.add_argument("--bytes-runs", type=int, default=2, help="full loads per page")
    parser.add_argument("--cold-runs", type=int, default=5, help="cold starts of each app")
    parser.add_argument("--no-browser", action="store_true", help="AppTest measures only")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args()

    table = Table()
    print(f"posviz benchmark on {platform.node()}, {platform.processor() or platform.machine()}"
          f", Python {platform.python_version()}", file=sys.stderr)
    apptest_runs(table, args.runs)
    if not args.no_browser:
        from playwright.sync_api import sync_playwright

        queries = settings()
        with (tempfile.TemporaryDirectory() as folder, sync_playwright() as p,
              serving() as (_, url)):
            server_runs(table, url, args.browser_runs, queries)
            browser = p.chromium.launch(executable_path=shutil.which("chromium"), args=LAUNCH_ARGS)
            page_bytes(table, browser, url, args.bytes_runs, queries)
            enter_to_charts(table, browser, url, args.browser_runs)
            page_opens(table, browser, url, args.browser_runs, Path(folder))
            cold_start(table, browser, args.cold_runs, Path(folder))
            browser.close()
    table.print()
    if args.json:
        args.json.write_text(json.dumps(dict(
            machine=dict(node=platform.node(), cpus=len(os.sched_getaffinity(0)),
                         python=platform.python_version()),
            args={k: str(v) for k, v in vars(args).items()}, rows=table.rows), indent=1))


if __name__ == "__main__":
    main()
