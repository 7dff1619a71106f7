"""A real server of our own, what a browser sees of it (and how a browser test waits for it), and
sessions without a browser: shared by the browser, load and room tests and by the benchmarks."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import resource
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
import weakref
from collections.abc import Coroutine, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TypeVar
from urllib.parse import urlencode

import websockets
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import expect
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from tests.conftest import ARRIVES_MS, ROOT
from ui import page_name

LAUNCH_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
               "--disable-component-update", "--disable-sync", "--no-first-run"]

T = TypeVar("T")

FINISHED = "[data-testid=stApp][data-test-script-state=notRunning]"

# The page's elements of posviz's own that draw a chart: each in its main column but a
# fragment's clock (static/tick.js), which draws nothing.
CHART_BOXES = "[data-testid=stMain] .stBidiComponent:not(:has(.posviz-tick))"

# The sidebar's sentence box, by its key (the sidebar holds other text boxes: a room's join box).
SENTENCE_BOX = "[data-testid=stSidebar] .st-key-text input"

# A page's charts left undrawn (add_init_script, for a test that looks at no chart): the chart
# element (static/chart.js) is given, instead of posviz's plotly.js, one that draws nothing, so
# that each chart still takes its place at the size it would be drawn at and follows its column
# as a drawn chart does.
UNDRAWN_JS = """window.Plotly = { version: 'undrawn', react: (div) => {
  div.classList.add('js-plotly-plot');
  return Promise.resolve(div);
} };
window.posvizPlotly = Promise.resolve(window.Plotly);"""

# True once the script is not running, the page has its title, no element is still loading or
# left over from the run before, and a new view is no longer held at its top (static/view.js
# scrolls it there on every frame until its layout is still: a click meanwhile, on a button
# scrolled into view, could land on whatever the hold scrolled under the pointer).
DRAWN_RUN_JS = """() => !!document.querySelector('FINISHED')
  && !!document.querySelector('[data-testid=stMain] h1')
  && !document.querySelector('[data-testid=stSkeleton], [data-stale=true]')
  && !document.querySelector('[data-posviz-held]')""".replace("FINISHED", FINISHED)


def settle(page) -> None:
    """Wait until a page just opened (goto, reload) has run its script to the end and drawn
    it."""
    page.wait_for_function(DRAWN_RUN_JS, timeout=ARRIVES_MS, polling=50)


def at_scene(page, scene: int) -> None:
    """Wait until the guided lesson shows this scene (in its address) and is drawn."""
    page.wait_for_function("([n]) => new URLSearchParams(location.search).get('scene') == n",
                           arg=[str(scene)], timeout=ARRIVES_MS)
    settle(page)


# Resolves once the page has drawn two frames: the tasks queued before (the server's message
# and the drawing it asks for) have run.
DRAWN_FRAMES_JS = """() => new Promise((done) => requestAnimationFrame(
  () => requestAnimationFrame(done)))"""

# Each page's connection to the server (its websocket), for `rerun`: kept by `Watched`.
_SOCKETS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _full_run_finished(payload: bytes | str) -> bool:
    """Whether a message from the server says a run of the whole page has finished (not one
    cut short by a rerun, nor a fragment's)."""
    if isinstance(payload, str):
        return False
    message = ForwardMsg.FromString(payload)
    return message.WhichOneof("type") == "script_finished" and message.script_finished in (
        ForwardMsg.FINISHED_SUCCESSFULLY, ForwardMsg.FINISHED_WITH_COMPILE_ERROR)


# What each page's connections carried, oldest first (for `rerun` to say on a time-out): the
# runs it asked for and the runs' ends the server sent, each with its socket's number.
_FRAMES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
FRAMES_SAID = 40  # a time-out says at most the last this many


def _said(payload: bytes | str, sent: bool) -> str | None:
    """A frame in a few words: a run asked for (the whole page's or a fragment's), or a run's
    end (how it ended); None for the rest."""
    if isinstance(payload, str):
        return None
    if sent:
        message = BackMsg.FromString(payload)
        if message.WhichOneof("type") != "rerun_script":
            return None
        return f"asked: {message.rerun_script.fragment_id or 'the whole page'}"
    message = ForwardMsg.FromString(payload)
    if message.WhichOneof("type") != "script_finished":
        return None
    return f"ended: {ForwardMsg.ScriptFinishedStatus.Name(message.script_finished)}"


def _watch(page) -> None:
    frames, opened = _FRAMES.setdefault(page, []), itertools.count(1)

    def connected(socket) -> None:
        if not socket.url.endswith("/_stcore/stream"):
            return
        number = next(opened)
        frames.append(f"socket {number} opened")

        def seen(payload, sent: bool) -> None:
            if (said := _said(payload, sent)) is not None:
                frames.append(f"{time.monotonic():.2f} socket {number} {said}")
        socket.on("framesent", lambda payload: seen(payload, True))
        socket.on("framereceived", lambda payload: seen(payload, False))
        socket.on("close", lambda _: frames.append(f"socket {number} closed"))
        _SOCKETS[page] = socket
    page.on("websocket", connected)


class Watched:
    """A browser (or one of its contexts) whose new pages keep their websocket for `rerun`: a
    run's end is read from the server's own message, which a page under load may never show in
    its markup (React can draw a whole quick run at once)."""

    def __init__(self, inner) -> None:
        self._inner = inner

    def new_page(self, **options):
        page = self._inner.new_page(**options)
        _watch(page)
        return page

    def new_context(self, **options) -> Watched:
        return Watched(self._inner.new_context(**options))

    def __getattr__(self, name: str):
        return getattr(self._inner, name)


@contextlib.contextmanager
def rerun(page) -> Iterator[None]:
    """Wait, after the block (a click, a key), until the run of the whole page it started has
    finished (the server's message) and the page is drawn. Only for pages made by a `Watched`
    browser."""
    socket = _SOCKETS.get(page)
    if socket is None:
        raise RuntimeError("rerun needs a page made by the browser fixture (Watched)")
    frames = _FRAMES[page]
    before = len(frames)

    def seen() -> str:  # what was asked and what ended since the block began
        return (f"the page's connections since: {frames[before:][-FRAMES_SAID:] or 'nothing'}, "
                f"script state {page.evaluate(SCRIPT_STATE_JS)}")
    try:
        with socket.expect_event("framereceived", predicate=_full_run_finished,
                                 timeout=ARRIVES_MS):
            try:
                yield
            except PlaywrightTimeout as error:  # the block's own wait (a click's), not the run's
                raise AssertionError(f"the block timed out before any run was awaited: "
                                     f"{error.message}; {seen()}") from None
    except PlaywrightTimeout:
        raise AssertionError(f"no run of the whole page ended within {ARRIVES_MS} ms; "
                             f"{seen()}") from None
    page.evaluate(DRAWN_FRAMES_JS)  # the page has handled the message and drawn what it said
    settle(page)


SCRIPT_STATE_JS = """() => (document.querySelector('[data-testid=stApp]') || {dataset: {}})
  .dataset.testScriptState || 'no app'"""


def nav_click(page, label: str) -> None:
    """Follow the sidebar's link to a page, and wait for its run."""
    with rerun(page):
        page.locator("[data-testid=stSidebar] [data-testid=stPageLink] a",
                     has_text=label).first.click()


# True once what `selector` finds has kept its place and size for a few frames (polled each
# animation frame): a chart's own redraws (margins that grow), a panel sliding in.
STILL_JS = """([selector]) => {
  const now = JSON.stringify([...document.querySelectorAll(selector)].map((e) => {
    const r = e.getBoundingClientRect();
    return [r.x, r.y, r.width, r.height];
  }));
  const last = window.posvizStill;
  if (last && last.selector === selector && last.now === now) return ++last.frames >= 3;
  window.posvizStill = { selector, now, frames: 0 };
  return false;
}"""


def still(page, selector: str) -> None:
    """Wait until what selector finds stays put (STILL_JS)."""
    page.evaluate("window.posvizStill = null")
    page.wait_for_function(STILL_JS, arg=[selector], timeout=10_000, polling="raf")


# Every chart the page holds, as the text it draws (titles, tick labels, legends). Plotly's
# root element; the one place that knows what a drawn chart looks like in the DOM.
CHARTS_JS = "() => [...document.querySelectorAll('.js-plotly-plot')].map(c => c.textContent)"

# True once the script has finished and the page title reads `title`: cheap enough to poll often.
TITLED_JS = """([title]) => !!document.querySelector('FINISHED') && [...document.querySelectorAll(
  '[data-testid=stMain] h1')].some(h => h.textContent.includes(title))""".replace(
    "FINISHED", FINISHED)

# True once the script has finished, the page title reads `title` (any title when empty), at
# least `count` charts are drawn, and each of them shows `marker` (any text when empty).
DRAWN_JS = """([title, count, marker]) => {
  if (!document.querySelector('FINISHED')) return false;
  const h1 = document.querySelector('[data-testid=stMain] h1');
  if (!h1 || (title && !h1.textContent.includes(title))) return false;
  const charts = (CHARTS)();
  return charts.length >= count && charts.every(t => t.length > 0 && t.includes(marker));
}""".replace("FINISHED", FINISHED).replace("CHARTS", CHARTS_JS)


# True once the script has finished, the page title reads `title`, and every chart in the
# window is drawn and shows `marker` (any text when empty). Charts out of sight draw when they
# come near it (static/chart.js), so a page is whole for its reader when those in sight are drawn.
IN_VIEW_JS = """([title, marker]) => {
  if (!document.querySelector('FINISHED')) return false;
  const h1 = document.querySelector('[data-testid=stMain] h1');
  if (!h1 || !h1.textContent.includes(title)) return false;
  return [...document.querySelectorAll('CHART_BOXES')].every((box) => {
    const { top, bottom } = box.getBoundingClientRect();
    if (bottom < 0 || top > innerHeight) return true;
    const chart = box.querySelector('.posviz-chart.js-plotly-plot');
    return !!chart && chart.textContent.includes(marker);
  });
}""".replace("FINISHED", FINISHED).replace("CHART_BOXES", CHART_BOXES)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


LOG_FORMAT = "%(levelname)s %(name)s: %(message)s"
"""How a server started with a log writes each record: its level first (Streamlit's own format
leaves the level out)."""


def start_server(script: str = "serve.py", cwd: Path = ROOT, env: dict[str, str] | None = None,
                 port: int | None = None, log: Path | None = None,
                 open_files: int | None = None) -> tuple[subprocess.Popen, str]:
    """Start the posviz server (`python serve.py`, as the README starts it), or
    `streamlit run script` for another script, on 127.0.0.1 (a free port unless given), with
    these environment variables added; return the process and URL.

    With a log, everything the server prints (stdout and stderr) goes to that file, unbuffered,
    each log record led by its level (LOG_FORMAT); without, it is discarded. open_files: the
    server's open-file limit, soft and hard (as a system that allows no more sets it).
    """
    port = port or free_port()
    start = [script] if script == "serve.py" else ["-m", "streamlit", "run", script]
    command = [sys.executable, *start, "--server.headless=true",
               "--server.address=127.0.0.1", f"--server.port={port}",
               "--browser.gatherUsageStats=false"]
    limited = None if open_files is None else lambda: resource.setrlimit(
        resource.RLIMIT_NOFILE, (open_files, open_files))
    environment = os.environ | (env or {})
    if log is None:
        proc = subprocess.Popen(command, cwd=cwd, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, env=environment,
                                preexec_fn=limited)
    else:
        with open(log, "wb") as out:  # the server keeps its own copy of the file
            proc = subprocess.Popen([*command, f"--logger.messageFormat={LOG_FORMAT}"], cwd=cwd,
                                    stdout=out, stderr=subprocess.STDOUT,
                                    env=environment | {"PYTHONUNBUFFERED": "1"},
                                    preexec_fn=limited)
    return proc, f"http://127.0.0.1:{port}"


def wait_healthy(proc: subprocess.Popen, url: str, timeout: float = 60, poll: float = 0.05):
    """Return once the server answers its health check."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as answer:
                if answer.read() == b"ok":
                    return
        except OSError:
            if time.monotonic() > deadline or proc.poll() is not None:
                raise RuntimeError(f"the server for {url} did not start") from None
            time.sleep(poll)


def stop_server(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@contextlib.contextmanager
def serving(script: str = "serve.py", cwd: Path = ROOT, env: dict[str, str] | None = None,
            log: Path | None = None, open_files: int | None = None
            ) -> Iterator[tuple[subprocess.Popen, str]]:
    """A server of our own for the duration of the block (its output in log, if given)."""
    proc, url = start_server(script, cwd, env, log=log, open_files=open_files)
    try:
        wait_healthy(proc, url)
        yield proc, url
    finally:
        stop_server(proc)


def redis_command() -> str:
    """Debian's redis-server; a missing one fails under CI and skips elsewhere."""
    import pytest

    path = shutil.which("redis-server")
    if path is None:
        if os.environ.get("CI") == "true":
            pytest.fail("redis-server is not installed, and room tests may not skip under CI")
        pytest.skip("no redis-server on this machine (apt-get install redis-server); CI runs "
                    "these tests")
    return path


@contextlib.contextmanager
def redis_serving(folder: Path, port: int | None = None) -> Iterator[str]:
    """A real redis-server of our own on 127.0.0.1 (append-only file in folder, so a restart
    of the server keeps what it held); yields its URL."""
    port = port or free_port()
    proc = subprocess.Popen(
        [redis_command(), "--bind", "127.0.0.1", "--port", str(port), "--dir", str(folder),
         "--appendonly", "yes", "--save", "", "--protected-mode", "yes"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 20
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1) as sock:
                sock.sendall(b"PING\r\n")
                if sock.recv(16).startswith(b"+PONG"):
                    break
        except OSError:
            pass
        if time.monotonic() > deadline or proc.poll() is not None:
            proc.kill()
            raise RuntimeError("redis-server did not start")
        time.sleep(0.05)
    try:
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        stop_server(proc)


def rss_mb(pid: int) -> float:
    """Resident memory of a process in MB (VmRSS)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for process {pid}")


def cpu_seconds(pid: int) -> float:
    """CPU time a process has used so far (user + system)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime


def lowly(executable: str, folder: Path) -> str:
    """A launcher in folder that runs executable at the lowest CPU priority (nice 19)."""
    launcher = folder / "lowly"
    launcher.write_text(f'#!/bin/sh\nexec nice -n 19 "{executable}" "$@"\n')
    launcher.chmod(0o755)
    return str(launcher)


class Session:
    """A Streamlit session spoken to over its websocket, without a browser: each `run` asks for
    one full run of a page, as the browser does, and waits for the script-finished message."""

    def __init__(self, socket, pages: dict[str, str] | None = None) -> None:
        self.socket = socket
        # a page's URL path -> its script hash, as the app told the tab (kept across the tab's
        # reconnections: a browser names its page by both when it runs it again)
        self.pages = {} if pages is None else pages

    async def run(self, route: str | None, query: dict[str, str] | None = None
                  ) -> list[ForwardMsg]:
        """The messages of one run of the page (home for None) with this query string, as a
        link or a sidebar click asks for it; raises if the page shows an exception."""
        return await self.open(route_name(route) if route else "", urlencode(query or {}))

    async def open(self, page: str, query: str, history: bool = False,
                   clicked: tuple[str, ...] = (), switched: dict[str, bool] | None = None
                   ) -> list[ForwardMsg]:
        """The messages of one run of a page by its URL path ("" for home) with a query string:
        as a history navigation (the Back button, a room follower's move) if history, with the
        buttons of widget ids `clicked` pressed and the switches `switched` set. Raises if the
        page shows an exception."""
        message = BackMsg()
        message.rerun_script.page_name = page
        if page in self.pages:  # as the browser sends it, once the server has named its pages
            message.rerun_script.page_script_hash = self.pages[page]
        message.rerun_script.query_string = query
        message.rerun_script.is_history_navigation = history
        for widget in clicked:
            message.rerun_script.widget_states.widgets.add(id=widget, trigger_value=True)
        for widget, value in (switched or {}).items():
            message.rerun_script.widget_states.widgets.add(id=widget, bool_value=value)
        await self.socket.send(message.SerializeToString())
        received = []
        while True:
            forward = ForwardMsg()
            forward.ParseFromString(await self.socket.recv())
            received.append(forward)
            if forward.WhichOneof("type") == "navigation":  # the app's pages, as a tab learns
                self.pages |= {"" if p.is_default else p.url_pathname: p.page_script_hash
                               for p in forward.navigation.app_pages}
            if forward.WhichOneof("type") == "script_finished" and (
                    forward.script_finished != forward.FINISHED_EARLY_FOR_RERUN):
                break
        if any(element(m) == "exception" for m in received):
            raise RuntimeError(f"{page or 'home'} showed an exception")
        return received


def element(message: ForwardMsg) -> str | None:
    """The kind of element a delta message adds (text_input, markdown, exception, ...)."""
    if message.WhichOneof("type") == "delta" and message.delta.WhichOneof("type") == "new_element":
        return message.delta.new_element.WhichOneof("type")
    return None


def run_apart(work: Coroutine[object, object, T]) -> T:
    """Run a coroutine to its end on a thread of its own: Playwright's sync API keeps an event
    loop running on the main thread, where asyncio.run is refused."""
    with ThreadPoolExecutor(1) as thread:
        return thread.submit(asyncio.run, work).result()


@contextlib.asynccontextmanager
async def session(url: str, cookies: dict[str, str] | None = None,
                  pages: dict[str, str] | None = None, headers: dict[str, str] | None = None,
                  source: str = ""):
    """A new session of the server at url (closed, and so ended, at the end of the block), sent
    these cookies as a browser sends its own (and these headers, e.g. a proxy's), from a source
    address of this machine's loopback network when given; pages: the app's pages as the tab
    knows them."""
    headers = dict(headers or {}) | (
        {"Cookie": "; ".join(f"{k}={v}" for k, v in cookies.items())} if cookies else {})
    async with websockets.connect(url.replace("http", "ws", 1) + "/_stcore/stream",
                                  subprotocols=["streamlit"], max_size=None,
                                  additional_headers=headers,
                                  local_addr=(source, 0) if source else None) as socket:
        yield Session(socket, pages)


async def sessions(url: str, visits: list[tuple[str | None, str]], at_once: int = 10) -> int:
    """Sessions that come and go, at_once of them together: each opens one page (route) with a
    sentence of its own (a deep link's ?text=) and closes. Returns how many of them finished
    with their sentence somewhere in what the page sent."""
    async def visit(route, sentence) -> int:
        async with session(url) as s:
            shown = await s.run(route, {"text": sentence})
        return any(sentence in str(m.delta) for m in shown)

    done = 0
    for first in range(0, len(visits), at_once):
        done += sum(await asyncio.gather(*(visit(*v) for v in visits[first:first + at_once])))
    return done


def charts(page) -> list[str]:
    """The text of every chart drawn on the page."""
    return page.evaluate(CHARTS_JS)


def route_name(route: str | None) -> str:
    """home, or a lesson's name as its URL path and catalog section use it."""
    return "home" if route is None else page_name(ROOT / route)


def page_url(base: str, route: str | None, query: dict[str, str] | None = None) -> str:
    path = "" if route is None else route_name(route)
    return f"{base}/{path}" + (f"?{urlencode(query)}" if query else "")


def letters(n: int) -> str:
    """n >= 0 as a word of lowercase letters (a, b, ..., z, ba, ...): one token, no digits."""
    word = ""
    while True:
        n, r = divmod(n, 26)
        word = chr(97 + r) + word
        if n == 0:
            return word


def sentence(n_tokens: int, salt: int, head: str = "q") -> str:
    """n_tokens distinct word tokens that no other salt produces."""
    return " ".join(f"{head}{letters(salt)}x{letters(i)}" for i in range(n_tokens))


FOCUSED_JS = "(sel) => !!document.activeElement && !!document.activeElement.closest(sel)"

# Whether the keyboard's focus shows: an outline of 2 px or more, or a ring (a box shadow), on
# the focused element or, for an input drawn hidden (a switch), on its label.
OUTLINED_JS = """() => {
  const shown = (e) => { const s = getComputedStyle(e);
    return (s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) >= 2)
      || s.boxShadow !== 'none'; };
  const a = document.activeElement;
  return shown(a) || (!!a.closest('label') && shown(a.closest('label')));
}"""


# Whether the focus is where the page put it, not where Tab goes: the page itself, or an element
# only a script focuses (tabindex -1: a new scene's heading, for a screen reader), which draws
# no ring for a focus the reader did not Tab to.
PLACED_JS = """() => document.activeElement === document.body
  || document.activeElement.getAttribute('tabindex') === '-1'"""


def tab_to(page, selector: str, limit: int = 120) -> None:
    """Press Tab until the focus is inside selector, seeing that it shows wherever Tab lands."""
    for _ in range(limit):
        try:  # the ring drawn once the focused element has handled its focus (a data grid's)
            page.wait_for_function(f"() => ({PLACED_JS})() || ({OUTLINED_JS})()",
                                   timeout=5_000, polling="raf")
        except PlaywrightTimeout:
            where = page.evaluate("() => document.activeElement.outerHTML.slice(0, 160)")
            raise AssertionError(f"focus unseen: {where}") from None
        if page.evaluate(FOCUSED_JS, selector):
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"{limit} presses of Tab never reached {selector}")


def charts_drawn(page) -> int:
    """Scroll down the page as a reader does until plotly has drawn every chart, and every
    update to one (a chart draws, and a chart out of sight takes a rerun's update, when it comes
    near the window); return how many there are."""
    page.wait_for_function("""() => {
        const boxes = [...document.querySelectorAll('CHART_BOXES')];
        if (boxes.some((box) => !box.querySelector('.posviz-chart'))) return false;  // loading
        const waiting = [...document.querySelectorAll('.posviz-chart')]
          .filter((chart) => !chart.querySelector('.main-svg') || chart.posvizPending);
        if (waiting.length) waiting[0].scrollIntoView();
        return !waiting.length;
    }""".replace("CHART_BOXES", CHART_BOXES), timeout=ARRIVES_MS, polling=100)
    return page.locator(".posviz-chart").count()


def shows(page, typed: str, position: bool, where: str) -> None:
    """The sidebar shows this sentence and switch (waiting a little for a redraw)."""
    box = page.locator(SENTENCE_BOX)
    switch = page.locator("[data-testid=stSidebar] input[type=checkbox]").first
    expect(box, f"sentence on {where}").to_have_value(typed, timeout=10_000)
    (expect(switch, f"switch on {where}").to_be_checked if position else
     expect(switch, f"switch on {where}").not_to_be_checked)(timeout=10_000)


def assert_healthy(page, where: str) -> None:
    assert page.locator("[data-testid=stException]").count() == 0, f"exception on {where}"
