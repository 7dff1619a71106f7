"""Shared fixtures: the app's pages, and a real server for the browser tests."""

import os
import shutil
from pathlib import Path

import pytest

from tests.helpers import apptest, scheduling

ROOT = Path(__file__).resolve().parent.parent
PAGES = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "pages").glob("*.py"))
os.environ.setdefault("POSVIZ_SECRET", "the test run's own secret")  # servers inherit it
os.environ.setdefault("POSVIZ_CHECK_DOCUMENTS", "1")  # every document checked before it is sent


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist's own, which reads the groups
def pytest_collection_modifyitems(config, items) -> None:
    """Mark each test's group (tests/helpers/scheduling.py)."""
    scheduling.mark_groups(items)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    if config.getvalue("dist") == "loadgroup":
        return scheduling.Scheduling(config, log)
    return None


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error) -> None:
    scheduling.node_down(node)


def pytest_configure(config) -> None:
    scheduling.share_a_folder(config)
    apptest.scan_components_once()
    apptest.compile_each_script_once()


def pytest_unconfigure(config) -> None:
    scheduling.drop_the_folder(config)


@pytest.fixture(autouse=True, scope="module")
def _machine_to_itself(request) -> None:
    """A module that needs the whole machine starts once the other workers have finished."""
    if request.node.path.name in scheduling.ALONE_MODULES:
        scheduling.wait_for_the_others(request.config, [
            item.nodeid for item in request.session.items if item.path == request.node.path])


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
def rooms_url(tmp_path_factory) -> str:
    """The store of the browser tests' server: a temporary SQLite file."""
    return f"sqlite:///{tmp_path_factory.mktemp('rooms') / 'rooms.sqlite3'}"


@pytest.fixture(scope="session")
def server(chromium_path, rooms_url) -> str:
    """A freshly started posviz server on 127.0.0.1 (its rooms in rooms_url); yields its base
    URL."""
    from tests.helpers.load_fixtures import serving  # imported late: it reads ROOT from this module

    with serving(env={"POSVIZ_ROOM_STORE": rooms_url}) as (_, url):
        yield url


ARRIVES_MS = 90_000
"""How long a browser test waits for a state the app reaches by itself (a count, a follow, a
reveal): a busy machine slows it, so the wait is for the state, bounded only by this and the
test's own timeout (pyproject.toml's 300 s), never by a figure that load can exceed."""


@pytest.fixture(scope="session")
def browser(chromium_path):
    from playwright.sync_api import expect, sync_playwright

    from tests.helpers.load_fixtures import Watched

    expect.set_options(timeout=ARRIVES_MS)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium_path, args=[
            "--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--no-first-run"])
        yield Watched(browser)
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
    from tests.helpers.load_fixtures import redis_serving

    with redis_serving(tmp_path_factory.mktemp("redis")) as url:
        yield url


@pytest.fixture(scope="module")
def loop():
    """An event loop on a thread of its own for a module's room clients (tests/room_fixtures)."""
    from tests.helpers.room_fixtures import Loop

    running = Loop()
    yield running
    running.close()
