"""A real server of our own and what the browser sees of it: shared by the hostile-input browser
test and by the benchmark (`python -m tests.benchmark`)."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlencode

from tests.conftest import ROOT
from ui import page_name

LAUNCH_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
               "--disable-component-update", "--disable-sync", "--no-first-run"]

FINISHED = "[data-testid=stApp][data-test-script-state=notRunning]"

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


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_server(script: str = "app.py", cwd: Path = ROOT) -> tuple[subprocess.Popen, str]:
    """Start `streamlit run script` on a free port of 127.0.0.1; return the process and URL."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", script, "--server.headless=true",
         "--server.address=127.0.0.1", f"--server.port={port}",
         "--browser.gatherUsageStats=false"],
        cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
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
def serving(script: str = "app.py", cwd: Path = ROOT) -> Iterator[tuple[subprocess.Popen, str]]:
    """A server of our own for the duration of the block."""
    proc, url = start_server(script, cwd)
    try:
        wait_healthy(proc, url)
        yield proc, url
    finally:
        stop_server(proc)


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
