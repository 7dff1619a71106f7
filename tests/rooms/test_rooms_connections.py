"""Connections a script holds open against one server process (rooms.server), started as
the README starts it and, here, with the common open-file limit of 1,024 (soft and hard, so the
server cannot raise it) and its connections capped lower still (POSVIZ_MAX_CONNECTIONS: with
1,024 files the listening queue is short, and a script opening connections one after another
waits on it long enough for the first ones' deadline to free their places): silent connections
and ones that trickle a byte now and then are closed after REQUEST_SECONDS; one address holds
at most its share; past the process's bound a new connection is answered 503 at once; and
meanwhile, and after, everyone else is served and the log holds one line about it, no
traceback. Each client speaks from its own loopback address. What a process with 1,024 files
holds by itself is measured by `python -m tests.benchmarks.red_team`."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import resource
import socket
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from rooms import server
from rooms.config import MAX_CONNECTIONS
from rooms.server import FEW, REQUEST_SECONDS, Gate, backlog, connection_bound
from tests.helpers.load_fixtures import run_apart, serving

pytestmark = pytest.mark.server

OPEN_FILES = 1024
MOST = 300
PER_ADDRESS = Gate(most=MOST).per_address


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    folder = tmp_path_factory.mktemp("connections")
    log = folder / "server.log"
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    assert hard > 4 * OPEN_FILES, f"this test opens {4 * OPEN_FILES} connections"
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # this process: the scripts
    try:
        with serving(env={"POSVIZ_ROOM_STORE": f"sqlite:///{folder / 'rooms.sqlite3'}",
                          MAX_CONNECTIONS: str(MOST)}, log=log, open_files=OPEN_FILES) as (_, base):
            yield base, log
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def _open(base: str, source: str, n: int) -> list[socket.socket]:
    parts = urlsplit(base)
    return [socket.create_connection((parts.hostname, parts.port), timeout=10,
                                     source_address=(source, 0)) for _ in range(n)]


def _answer(sock: socket.socket, seconds: float = 3.0) -> bytes:
    """What the server says on a connection before it closes it (b"" for nothing)."""
    sock.settimeout(seconds)
    got = b""
    with contextlib.suppress(TimeoutError, ConnectionResetError):
        while chunk := sock.recv(4096):
            got += chunk
    return got


def _health(base: str, source: str) -> int:
    """The status of /_stcore/health asked from source."""
    parts = urlsplit(base)
    with socket.create_connection((parts.hostname, parts.port), timeout=10,
                                  source_address=(source, 0)) as sock:
        sock.sendall(b"GET /_stcore/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        return int(_answer(sock, 10).split(b" ", 2)[1])


def _held(sock: socket.socket) -> bool:
    """Whether the server holds the connection open, saying nothing (not answered 503)."""
    sock.setblocking(False)
    try:
        sock.recv(1)
    except BlockingIOError:
        return True
    except OSError:
        return False
    return False


def _closing(socks: list[socket.socket]) -> None:
    for sock in socks:
        sock.close()


def test_a_silent_or_trickling_connection_is_closed_after_the_request_deadline(site):
    base, _ = site
    silent = _open(base, "127.0.3.1", 1)[0]
    trickling = _open(base, "127.0.3.2", 1)[0]
    started = time.monotonic()
    head = b"GET /_posviz/health HTTP/1.1\r\nHost: x\r\n"
    with contextlib.suppress(OSError):  # the server hangs up on the trickle
        for byte in head:
            trickling.sendall(bytes([byte]))
            time.sleep(0.4)
    assert _answer(silent, 2 * REQUEST_SECONDS) == b""
    assert REQUEST_SECONDS - 1 <= time.monotonic() - started <= 2 * REQUEST_SECONDS
    assert _answer(trickling, 2) == b""
    _closing([silent, trickling])


def test_one_address_holds_its_share_and_everyone_else_is_served(site):
    """A script on one address opens more connections than its share: the share is held
    (until the deadline), each one past it is answered 503 with Retry-After at once, and a
    student elsewhere is served meanwhile."""
    base, log = site
    script = _open(base, "127.0.4.1", PER_ADDRESS + 40)
    try:
        refused = [_answer(sock, 5) for sock in script[PER_ADDRESS:]]
        assert all(r.startswith(b"HTTP/1.1 503") and b"retry-after: 5" in r for r in refused)
        assert _health(base, "127.0.4.2") == 200
    finally:
        _closing(script)


def test_two_addresses_leave_the_reserve_to_everyone_else(site):
    """Two scripts' addresses open more than their share each: together they hold at most the
    process's bound less its reserve, and a third client's health probe, a lecturer's few tabs
    and a student's phone are served every time meanwhile."""
    base, _ = site
    gate = Gate(most=MOST)
    scripts = [sock for n in (1, 2) for sock in _open(base, f"127.0.7.{n}", PER_ADDRESS + 20)]
    try:
        time.sleep(1)  # the refused ones are answered and closed by then
        assert sum(_held(sock) for sock in scripts) <= MOST - gate.reserve
        assert [_health(base, "127.0.7.3") for _ in range(15)] == [200] * 15
        laptop = _open(base, "127.0.7.4", 6)  # the lecturer's tabs
        assert [_health(base, "127.0.7.4") for _ in range(3)] == [200] * 3
        _closing(laptop)
    finally:
        _closing(scripts)


def test_past_the_process_bound_new_connections_get_503_and_the_server_recovers(site):
    """Scripts on several addresses fill the process's bound, its reserve too (many addresses
    holding a few each): each new connection past it gets 503 at once, never an accept() that
    fails; once the scripts' connections close, everyone is served again. The log says so once
    and holds no traceback and no 'Too many open files'."""
    base, log = site
    gate = Gate(most=MOST)
    heavy = [sock for n in range(MOST // PER_ADDRESS + 1)
             for sock in _open(base, f"127.0.5.{n + 1}", PER_ADDRESS)]
    light = [sock for n in range(gate.reserve // (FEW - 1) + 1)
             for sock in _open(base, f"127.0.8.{n + 1}", FEW - 1)]
    scripts = heavy + light
    try:
        late = _open(base, "127.0.5.200", 5)
        assert [_answer(sock, 5)[:12] for sock in late] == [b"HTTP/1.1 503"] * 5
        _closing(late)
    finally:
        _closing(scripts)
    deadline = time.monotonic() + 3 * REQUEST_SECONDS
    while _health_or_busy(base) != 200:
        assert time.monotonic() < deadline, "the server did not recover"
        time.sleep(0.5)
    said = Path(log).read_text("utf-8", "replace")
    assert "Traceback" not in said and "Too many open files" not in said, said[-3000:]
    assert 1 <= said.count("refused connections with 503") <= 3  # at most once a minute


def _health_or_busy(base: str) -> int:
    try:
        return _health(base, "127.0.5.201")
    except (OSError, ValueError, IndexError):
        return 0


def test_the_bounds_follow_the_open_file_limit():
    """What a process holds is its open-file limit less its own files and three bursts of
    connections taken at once (each burst the listening queue's length); a quarter kept for
    addresses holding few; one address half of the rest."""
    assert (backlog(1024), connection_bound(1024)) == (64, 1024 - 128 - 3 * 64)
    assert (backlog(65536), connection_bound(65536)) == (2048, 65536 - 128 - 3 * 2048)
    assert (Gate(most=704).per_address, Gate(most=704).reserve) == (264, 176)
    assert Gate(most=100_000).per_address == 2000


def test_refusals_are_logged_at_once_then_in_one_report_even_when_the_flood_stops(
        monkeypatch, caplog):
    """The first refusal of a quiet spell is logged at once; those after it within LOG_EVERY in
    one report when it is up, whether or not another refusal comes to trigger it."""
    monkeypatch.setattr(server, "LOG_EVERY", 0.3)
    gate = Gate(most=2)

    async def flood() -> None:
        assert gate.admit("127.0.6.1", False, FakeTransport())
        assert gate.admit("127.0.6.3", False, FakeTransport())
        for _ in range(5):  # the flood, then nothing
            assert not gate.admit("127.0.6.2", False, FakeTransport())
        await asyncio.sleep(0.5)

    with caplog.at_level(logging.WARNING, "posviz.server"):
        run_apart(flood())
    said = [r.getMessage() for r in caplog.records if "refused connections" in r.getMessage()]
    assert len(said) == 2 and "1 past the process's bound" in said[0], said
    assert "4 past the process's bound" in said[1], said


class FakeTransport:
    """A connection that stays open."""

    def is_closing(self) -> bool:
        return False
