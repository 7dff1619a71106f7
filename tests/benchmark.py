"""posviz's speed, measured: `python -m tests.benchmark [--runs N] [--json PATH]`.

Prints one table (measure, page, median, p95, target, ok) of:
1. server-side time of one full script run of every page, at default and at maximum settings
   (a 64-token sentence, every numeric control at its top, found as tests/controls.py finds
   them): with AppTest after a warm-up, rerunning unchanged settings ("same") and with a new
   sentence each run ("new sentence": nothing cached for it); and, as a cross-check, seen from
   a real browser: from the rerun request leaving the websocket to the script-finished message;
2. bytes the browser receives per page at maximum settings, a full load through a deep link:
   websocket frames, and static assets (HTTP) separately;
3. in headless Chromium, from pressing Enter on a new sentence to every chart on the attention
   page showing its tokens;
4. cold start (server start to home fully drawn) against a one-line Streamlit app, alternating,
   and every page's open (to all charts drawn) against the bare app's page.

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

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from tests.conftest import ROOT
from tests.controls import LONGEST, ROUTES, at_extreme, maximum_query, opened
from tests.figure_data import chart_specs
from tests.load_fixtures import (
    DRAWN_JS,
    FINISHED,
    LAUNCH_ARGS,
    page_url,
    route_name,
    sentence,
    serving,
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


def frames(page, sent: list, received: list) -> None:
    """Record (time, message kind, bytes) of every websocket frame the page sends and gets."""
    def kind(message, payload) -> str:
        if isinstance(payload, str):
            return "text"
        message.ParseFromString(payload)
        return message.WhichOneof("type") or ""

    def watch(ws) -> None:
        ws.on("framesent", lambda payload: sent.append(
            (time.perf_counter(), kind(BackMsg(), payload), len(payload))))
        ws.on("framereceived", lambda payload: received.append(
            (time.perf_counter(), kind(ForwardMsg(), payload), len(payload))))
    page.on("websocket", watch)


def sidebar_box(page):
    return page.locator("[data-testid=stSidebar] input[type=text]").first


def rerun_time(page, sent: list, received: list) -> float:
    """Seconds from the rerun request leaving the page to the script-finished message."""
    deadline = time.perf_counter() + WAIT_MS / 1e3
    while time.perf_counter() < deadline:
        page.wait_for_timeout(10)  # lets Playwright deliver the frame events
        start = next((t for t, k, _ in sent if k == "rerun_script"), None)
        end = next((t for t, k, _ in received if k == "script_finished"
                    and start is not None and t > start), None)
        if end is not None:
            return end - start
    raise TimeoutError("no script_finished message after the rerun request")


def server_runs(table: Table, browser, url: str, runs: int, queries: dict, counts: dict):
    """Measure 1 seen from a browser: rerun request sent to script finished, a new sentence
    typed each time."""
    for level in ("default", "max"):
        n_tokens = 64 if level == "max" else len(DEFAULT_TEXT)
        for route in ROUTES:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            sent, received = [], []
            frames(page, sent, received)
            title = text(f"{route_name(route)}.title", "en")
            page.goto(page_url(url, route, queries[level][route]), wait_until="commit")
            page.wait_for_function(DRAWN_JS, arg=[title, counts[level][route], ""],
                                   timeout=WAIT_MS)
            times = []
            for salt in range(runs):
                typed = sentence(n_tokens, 20_000 + salt)
                sent.clear()
                received.clear()
                sidebar_box(page).fill(typed)
                sidebar_box(page).press("Enter")
                times.append(rerun_time(page, sent, received))
            page.close()
            table.add(f"run {level}, server via websocket, new sentence", route_name(route),
                      times, run_target(route, level), "ms", MS)


def page_bytes(table: Table, browser, url: str, runs: int, queries: dict, counts: dict):
    """Measure 2: a full load at maximum settings through a deep link, in a fresh context."""
    for route in ROUTES:
        socket, static = [], []
        for _ in range(runs):
            context = browser.new_context(viewport={"width": 1400, "height": 1000})
            page = context.new_page()
            sent, received = [], []
            frames(page, sent, received)
            loaded = []
            page.on("requestfinished", lambda request, loaded=loaded: loaded.append(
                request.sizes()["responseBodySize"]))
            page.goto(page_url(url, route, queries["max"][route]), wait_until="commit")
            page.wait_for_function(DRAWN_JS, arg=[text(f"{route_name(route)}.title", "en"),
                                                  counts["max"][route], ""], timeout=WAIT_MS)
            page.wait_for_load_state("networkidle")
            page.wait_for_timeout(300)
            dropped = [key for key in queries["max"][route] if f"{key}=" not in page.url]
            if dropped:
                print(f"  note: {route_name(route)} left {dropped} out of its URL (a value equal "
                      "to its default, or refused)", file=sys.stderr)
            socket.append(sum(size for _, _, size in received))
            static.append(sum(loaded))
            context.close()
        table.add("bytes at max, websocket", route_name(route), socket, BYTES_TARGET, "MB", MB)
        table.add("bytes at max, static assets (HTTP)", route_name(route), static, float("inf"),
                  "MB", MB, ok=True)


def enter_to_charts(table: Table, browser, url: str, runs: int) -> None:
    """Measure 3: Enter on a new sentence to every attention chart showing its tokens."""
    route = next(r for r in ROUTES if r and route_name(r) == "attention")
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
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


def drawn(page, title: str | None, count: int = 0) -> None:
    """Wait for a posviz page (its title, count charts) or, title None, the one-line app."""
    if title is None:
        page.wait_for_function(BARE_DRAWN_JS, timeout=WAIT_MS, polling=10)
    else:
        page.wait_for_function(DRAWN_JS, arg=[title, count, ""], timeout=WAIT_MS, polling=10)


def open_time(browser, url: str, title: str | None, count: int = 0) -> float:
    """A new tab: navigation to the page drawn (see drawn)."""
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    start = time.perf_counter()
    page.goto(url, wait_until="commit")
    drawn(page, title, count)
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
        for name, (where, title) in {"posviz": ((ROOT, "app.py"), text("home.title", "en")),
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


def page_opens(table: Table, browser, url: str, runs: int, counts: dict, folder: Path):
    """Measure 4b: every page's open to all charts drawn, against the bare app's page."""
    with serving(bare_app(folder).name, folder) as (_, bare_url):
        open_time(browser, bare_url, None)  # warm-up
        bare = [open_time(browser, bare_url, None) for _ in range(runs)]
    table.add("page open to charts drawn, one-line app", "bare", bare, float("inf"), "ms", MS,
              ok=True)
    for route in ROUTES:
        title = text(f"{route_name(route)}.title", "en")
        open_time(browser, page_url(url, route), title, counts["default"][route])  # warm-up
        times = [open_time(browser, page_url(url, route), title, counts["default"][route])
                 for _ in range(runs)]
        ratio = statistics.median(times) / statistics.median(bare)
        table.add("page open to charts drawn", route_name(route), times, float("inf"), "ms", MS,
                  ok=ratio <= RATIO_TARGET)
        table.add("page open, ratio of medians to one-line app", route_name(route), [ratio],
                  RATIO_TARGET, "x")


def settings() -> tuple[dict, dict]:
    """Per level and page: the deep-link query and how many charts the page draws."""
    queries: dict = {"default": {}, "max": {}}
    counts: dict = {"default": {}, "max": {}}
    for route in ROUTES:
        for level in ("default", "max"):
            at = at_level(route, level)
            counts[level][route] = len(chart_specs(at))
            queries[level][route] = ({} if level == "default"
                                     else {**maximum_query(at), "text": LONGEST})
    return queries, counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=15, help="AppTest runs per page and level")
    parser.add_argument("--browser-runs", type=int, default=7,
                        help="runs of each browser measure (page, level)")
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

        queries, counts = settings()
        with (tempfile.TemporaryDirectory() as folder, sync_playwright() as p,
              serving() as (_, url)):
            browser = p.chromium.launch(executable_path=shutil.which("chromium"), args=LAUNCH_ARGS)
            server_runs(table, browser, url, args.browser_runs, queries, counts)
            page_bytes(table, browser, url, args.bytes_runs, queries, counts)
            enter_to_charts(table, browser, url, args.browser_runs)
            page_opens(table, browser, url, args.browser_runs, counts, Path(folder))
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
