"""Rooms whose store fails under a running server: Redis stopped and started again, an SQLite
file corrupted or deleted. The health route says so, room routes answer 503 or 404 (never a
500), the lecturer's and the students' tabs back off instead of asking every 150 ms, and it all
comes back by itself."""

from __future__ import annotations

import contextlib
import os
import signal
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from playwright.sync_api import expect

from rooms import open_rooms
from rooms.redis_backend import TIMEOUT
from rooms.routes.arrival import DOWN_RETRY
from rooms.routes.service import HEALTH_DEADLINE
from tests.helpers.load_fixtures import free_port, redis_serving, serving, settle

pytestmark = pytest.mark.browser  # real servers, and Chromium


def fetch(url: str):
    """GET url: status, body, headers (read in any case; an error status is an answer too)."""
    try:
        with urllib.request.urlopen(url, timeout=30) as answer:
            return answer.status, answer.read().decode(), answer.headers
    except urllib.error.HTTPError as refused:
        return refused.code, refused.read().decode(), refused.headers


def until(condition, seconds: float = 20.0, every: float = 0.1):
    """condition()'s first true value within seconds (fails the test otherwise)."""
    deadline = time.monotonic() + seconds
    while not (value := condition()):
        if time.monotonic() > deadline:
            raise AssertionError(f"not so within {seconds} s: {condition.__doc__ or condition}")
        time.sleep(every)
    return value


class Redis:
    """A redis-server that a test stops and starts again on the same port and data."""

    def __init__(self, folder) -> None:
        self.folder, self.port, self._running = folder, free_port(), None
        self.url = f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self._running = redis_serving(self.folder, self.port)
        self._running.__enter__()

    def stop(self) -> None:
        self._running.__exit__(None, None, None)
        self._running = None

    def pid(self) -> int:
        """The process id of the redis-server listening on this port (its title, as it
        writes it: "redis-server 127.0.0.1:PORT")."""
        for proc in Path("/proc").iterdir():
            with contextlib.suppress(OSError):
                title = (proc / "cmdline").read_bytes()
                if b"redis-server" in title and title.split(b"\0")[0].endswith(
                        f":{self.port}".encode()):
                    return int(proc.name)
        raise AssertionError(f"no redis-server on port {self.port}")


def _requests(page, into: list) -> None:
    """Record when the page asks the room's routes, and what."""
    page.on("request", lambda r: into.append((time.monotonic(), r.method, r.url))
            if "/_posviz/room/" in r.url else None)


def test_a_stopped_redis_is_said_plainly_backed_off_from_and_comes_back(tmp_path, browser):
    redis = Redis(tmp_path)
    redis.start()
    log = tmp_path / "server.log"
    with contextlib.ExitStack() as stack:
        stack.callback(lambda: redis._running and redis.stop())
        _, base = stack.enter_context(serving(env={"POSVIZ_ROOM_STORE": redis.url}, log=log))
        store = open_rooms(redis.url)
        code, key = store.create()
        other, _ = store.create()  # no follower of it waits here: the server has no copy
        lecturer = browser.new_page(viewport={"width": 1400, "height": 1000})
        lecturer.goto(f"{base}/rope?room={code}&lead={store.lead_link(code, key)}")
        settle(lecturer)
        student = browser.new_page(viewport={"width": 390, "height": 844})
        student.goto(f"{base}/?room={code}")  # the app sends a follower to the room's screen
        student.wait_for_url(f"**/_posviz/follow/{code}**")
        student.wait_for_selector("#posviz-viewer h1")
        until(lambda: store.room(code).page == "rope")  # published, and followed
        lecturer_asked, student_asked = [], []
        _requests(lecturer, lecturer_asked)
        _requests(student, student_asked)

        redis.stop()
        stopped = time.monotonic()
        status, body, headers = fetch(f"{base}/_posviz/health")
        assert (status, body) == (503, "rooms unavailable")
        status, body, headers = fetch(f"{base}/_posviz/room/{other}?v=-1")
        assert (status, body) == (503, '{"error":"store_down"}')
        assert headers["Retry-After"] == str(DOWN_RETRY)
        # the lecturer moves (the address changes without a run), and the view cannot be sent
        lecturer.evaluate("history.replaceState(null, '', location.href + '&rope_pair=2')")
        views = []
        for _ in range(3):
            with lecturer.expect_request(lambda r: r.url.endswith("/view"), timeout=20_000):
                pass
            views.append(time.monotonic())
        assert min(b - a for a, b in zip(views, views[1:], strict=False)) > DOWN_RETRY - 1

        expect(student.locator("#posviz-status")).to_have_text(
            "Lecture rooms are unavailable right now.", timeout=20_000)  # said on the screen
        redis.start()
        started = time.monotonic()
        until(lambda: "rope_pair=2" in store.room(code).query)  # sent once the store is back
        assert fetch(f"{base}/_posviz/health")[:2] == (200, "ok")
        # the student's tab, meanwhile: no request storm either (one every 150 ms, before)
        down = [t for t, _, _ in student_asked if stopped <= t <= started]
        assert len(down) <= 2 + (started - stopped) / 2, (started - stopped, student_asked)
        assert len([1 for t, _, url in lecturer_asked if url.endswith("/view")
                    and stopped <= t <= started]) <= 2 + (started - stopped) / (DOWN_RETRY - 1)
        expect(student.locator("#posviz-status")).to_have_count(0, timeout=20_000)  # back
    assert "Traceback" not in log.read_text("utf-8", "replace")


def _timed(url: str) -> tuple[int, float]:
    started = time.monotonic()
    return fetch(url)[0], time.monotonic() - started


def test_a_hung_redis_is_said_at_once_and_queues_nothing(tmp_path):
    """Redis stopped dead (SIGSTOP: it holds every connection and answers nothing): health
    checks say 503 within their deadline, however many room requests wait; those are answered
    503 within seconds, none held for long; once Redis goes on, everything answers again."""
    redis = Redis(tmp_path)
    redis.start()
    log = tmp_path / "server.log"
    with contextlib.ExitStack() as stack:
        stack.callback(lambda: redis._running and redis.stop())
        _, base = stack.enter_context(serving(env={"POSVIZ_ROOM_STORE": redis.url}, log=log))
        code, _ = open_rooms(redis.url).create()
        assert fetch(f"{base}/_posviz/room/{code}?v=-1")[0] == 200
        os.kill(redis.pid(), signal.SIGSTOP)
        stack.callback(lambda: os.kill(redis.pid(), signal.SIGCONT))
        with ThreadPoolExecutor(48) as pool:
            rooms = [pool.submit(_timed, f"{base}/_posviz/room/{code}?v=-1&n={n}")
                     for n in range(40)]
            time.sleep(0.5)  # the room requests first, then the health checks
            checks = [pool.submit(_timed, f"{base}/_posviz/health") for _ in range(6)]
            checks, rooms = [c.result() for c in checks], [r.result() for r in rooms]
        assert {status for status, _ in checks} == {503}
        assert max(took for _, took in checks) <= HEALTH_DEADLINE + 1.5, checks
        assert {status for status, _ in rooms} == {503}
        assert max(took for _, took in rooms) <= 2 * TIMEOUT + 3, rooms
        os.kill(redis.pid(), signal.SIGCONT)
        until(lambda: fetch(f"{base}/_posviz/health")[0] == 200)
        assert fetch(f"{base}/_posviz/room/{code}?v=-1")[0] == 200
    assert "Traceback" not in log.read_text("utf-8", "replace")


def test_a_corrupt_or_deleted_sqlite_file_under_a_running_server(tmp_path):
    folder = tmp_path / "data"
    url = f"sqlite:///{folder / 'rooms.sqlite3'}"
    log = tmp_path / "server.log"
    with serving(env={"POSVIZ_ROOM_STORE": url}, log=log) as (_, base):
        store = open_rooms(url)
        code, _ = store.create()
        assert fetch(f"{base}/_posviz/room/{code}?v=-1")[0] == 200

        garbage = tmp_path / "garbage"
        garbage.write_bytes(b"this is not a database at all " * 400)
        garbage.replace(folder / "rooms.sqlite3")  # the file and its journal overwritten
        for journal in folder.glob("rooms.sqlite3-*"):
            journal.unlink()
        seen = []

        def healthy() -> bool:
            """the health route answers ok again"""
            seen.append(fetch(f"{base}/_posviz/health")[0])
            return seen[-1] == 200
        until(healthy)
        assert list(folder.glob("rooms.sqlite3.corrupt-*"))  # kept aside for the operator
        assert set(seen) <= {200, 503}
        assert fetch(f"{base}/_posviz/room/{code}?v=-1")[0] == 404  # lost with its file

        store = open_rooms(url)
        again, _ = store.create()
        for made in folder.glob("rooms.sqlite3*"):
            made.unlink()
        assert fetch(f"{base}/_posviz/room/{again}?v=-1")[0] == 404
        assert fetch(f"{base}/_posviz/health")[:2] == (200, "ok")  # a new, empty store
    assert "Traceback" not in log.read_text("utf-8", "replace")
