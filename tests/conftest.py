"""Shared fixtures: the app's pages, and a real server for the browser tests."""

import os
import shutil
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "pages").glob("*.py"))
TIMED_LAST = ("test_load.py", "test_room_load.py", "test_rooms_http.py", "test_deploy.py")
"""Modules whose tests measure time or CPU on a running server: they run last, and the first of
them waits for the other worker to finish (see _quiet_for_timed_tests)."""


def pytest_collection_modifyitems(config, items) -> None:
    """Two workers share the suite (pytest-xdist, `-n 2 --dist loadgroup`). The group marked
    here is meant to send every test that starts a server or a browser to one of them, timed
    tests last. It does not: pytest-xdist 3.8 turns the mark into a suffix of the test's id in
    its own collection hook, which runs before this one, so these tests are spread over both
    workers like the rest (seen 2026-12-03; making the grouping real changes the suite's timing
    and needs its own measured runs)."""
    for item in items:
        if item.get_closest_marker("browser"):
            item.add_marker(pytest.mark.xdist_group("servers"))
    items.sort(key=lambda item: item.path.name in TIMED_LAST)  # stable: order kept otherwise


def _busy_cores(seconds: float) -> float | None:
    """How many of the machine's cores were busy over the next few seconds, from /proc/stat
    (None where there is none)."""
    def sample() -> tuple[int, int]:
        with open("/proc/stat") as stat:
            ticks = [int(v) for v in stat.readline().split()[1:]]
        idle = ticks[3] + ticks[4]  # idle, iowait
        return sum(ticks) - idle, sum(ticks)

    try:
        busy0, total0 = sample()
        time.sleep(seconds)
        busy1, total1 = sample()
    except OSError:
        return None
    cores = os.cpu_count() or 1
    return cores * (busy1 - busy0) / max(total1 - total0, 1)


_QUIET = []  # set once the machine was seen quiet before the first timed test


@pytest.fixture(autouse=True)
def _quiet_for_timed_tests(request) -> None:
    """The first timed test starts once the machine is quiet: the other worker may still be
    running its last unit tests when this one reaches the timed ones (at most two minutes'
    wait; once that worker has finished it has nothing more to run)."""
    if _QUIET or request.node.path.name not in TIMED_LAST:
        return
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        busy = _busy_cores(1.0)
        if busy is None or busy < 0.3:
            break
    _QUIET.append(True)


@pytest.fixture(scope="session")
def chromium_path() -> str:
    """Debian's chromium; a missing browser fails under CI and skips elsewhere."""
    path = shutil.which("chromium")
    if path is None:
        if os.environ.get("CI") == "true":
            pytest.fail("chromium is not installed, and browser tests may not skip under CI")
        pytest.skip("no chromium on this machine (apt-get install chromium); CI runs these tests")
    return path


@pytest.fixture(scope="session")
def server(chromium_path, tmp_path_factory) -> str:
    """A freshly started posviz server on 127.0.0.1 (its rooms in a temporary SQLite file);
    yields its base URL."""
    from tests.load_fixtures import serving  # imported late: it reads ROOT from this module

    rooms = tmp_path_factory.mktemp("rooms") / "rooms.sqlite3"
    with serving(env={"POSVIZ_ROOM_STORE": f"sqlite:///{rooms}"}) as (_, url):
        yield url


@pytest.fixture(scope="session")
def browser(chromium_path):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium_path, args=[
            "--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--no-first-run"])
        yield browser
        browser.close()


@pytest.fixture
def artifacts() -> Path:
    """Where browser tests leave their screenshots."""
    folder = ROOT / "test-artifacts"
    folder.mkdir(exist_ok=True)
    return folder


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory) -> str:
    """A real redis-server started for this test run on 127.0.0.1; yields its URL."""
    from tests.load_fixtures import redis_serving

    with redis_serving(tmp_path_factory.mktemp("redis")) as url:
        yield url


@pytest.fixture(scope="module")
def loop():
    """An event loop on a thread of its own for a module's room clients (tests/room_fixtures)."""
    from tests.room_fixtures import Loop

    running = Loop()
    yield running
    running.close()
