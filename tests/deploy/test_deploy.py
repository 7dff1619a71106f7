"""posviz for a class as `python -m deploy.up` runs it: two replicas, Redis and HAProxy under
supervisord, on 127.0.0.1. HAProxy starts once the replicas answer, and finds them all up. The
proxy refuses what a class never sends (Streamlit's metrics, large or unbounded room bodies,
more connections from one address than a hall opens); the replicas refuse a run of wrong room
codes and of rooms started from one address, counted once across both (in Redis). Then a
lecturer in Chromium and 80 students through the proxy, 60 following on the room's screen and
20 exploring the app over Streamlit's websocket: each stays on one replica, none sees another's
sentence, the followers get every view in their language and vote, while a script on the
class's own address guesses codes, and counts are exact; one replica is killed, and its
students carry on through the other one. Last, Redis stops: the room routes answer 503 while
the pages still load. Clients speak from addresses of their own on 127.0.0.0/8."""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import json
import os
import resource
import shutil
import signal
import socket
import time
from collections import Counter
from urllib.parse import urlsplit

import pytest

from deploy.up import PER_SOURCE, TOOLS
from rooms import LECTURER_COOKIE, open_rooms, signing
from rooms.throttle import WRONG
from tests.helpers.load_fixtures import at_scene, nav_click, rerun, session, settle
from tests.helpers.room_fixtures import (
    BACKENDS,
    Follower,
    Student,
    deployment,
    gather_in,
    shown_text,
    ticket,
    widgets,
)
from ui.i18n import text

pytestmark = pytest.mark.browser

FOLLOWING = 60  # students following on the room's screen
ALONE = 20  # students who explore the app on their own, each with a sentence of their own
ELSEWHERE = "127.0.0.2"  # another client address on this machine than the class's 127.0.0.1
STARTER = "127.0.0.4"  # a script starting rooms
FLOODER = "127.0.0.5"  # a script holding connections


@pytest.fixture(scope="module")
def tools():
    """Debian's haproxy and redis-server, and supervisord: missing ones fail under CI and skip
    elsewhere."""
    missing = [t for t in TOOLS if shutil.which(t) is None]
    if missing and os.environ.get("CI") == "true":
        pytest.fail(f"{', '.join(missing)} not installed, and deployment tests may not skip "
                    "under CI")
    if missing:
        pytest.skip(f"{', '.join(missing)} not on this machine (apt-get install haproxy "
                    "redis-server; pip install -r deploy/requirements.txt); CI runs this test")


@pytest.fixture(scope="module")
def up(tools, tmp_path_factory):
    """The deployment, for every test of this module in turn; what HAProxy and supervisord said
    until HAProxy had checked every replica once is kept as `up.started`."""
    with deployment(tmp_path_factory.mktemp("deploy")) as running:
        running.started = _started(running)
        yield running


def _started(up) -> dict:
    """HAProxy's servers once each has had its first health check, and the logs until then."""
    deadline = time.monotonic() + 15
    rows = _checked(up)
    while any(s["check_status"] in ("", "INI") for s in rows):
        assert time.monotonic() < deadline, rows
        time.sleep(0.1)
        rows = _checked(up)
    return {"servers": rows, **{name: (up.run / name).read_text("utf-8")
                                for name in ("haproxy.log", "supervisord.log", "deploy.log")}}


def _checked(up) -> list[dict[str, str]]:
    return [s for backend in BACKENDS for s in up.servers(backend).values()]


def test_the_proxy_starts_once_every_replica_answers(up):
    """supervisord's gate starts HAProxy after every replica answers both health routes, so
    its first checks find them all up: no replica ever down, no "no server available" (nor a
    503 for the class's first student); supervisord (root under CI) logs nothing critical; the
    deployment says where students connect, and when they can."""
    started = up.started
    assert "no server available" not in started["haproxy.log"], started["haproxy.log"]
    assert " is DOWN" not in started["haproxy.log"], started["haproxy.log"]
    assert {(s["pxname"], s["svname"]): s["chkdown"] for s in started["servers"]} == {
        (backend, f"r{i}"): "0" for backend in BACKENDS for i in (1, 2)}
    log = started["supervisord.log"]
    assert "CRIT" not in log and "ERROR" not in log, log
    console = up.run / "deploy.log"  # the operator's: a file here, which neither writer clips
    assert f"students will open {up.url}/ " in started["deploy.log"]
    deadline = time.monotonic() + 15  # the gate says so once HAProxy has started
    while f"posviz: ready; students open {up.url}/" not in _read(console):
        assert time.monotonic() < deadline, _read(console)
        time.sleep(0.1)
    said = _read(console)
    assert said.index("students will open") < said.index("posviz: ready"), said


def _read(path) -> str:
    return path.read_text("utf-8") if path.exists() else ""


def test_the_proxy_refuses_what_a_class_never_sends(up):
    """Streamlit's metrics; a room body over 16 kB (refused before any replica sees it) or
    without a length; after a minute's allowance of wrong room codes from one address, every
    room route from it, while its pages still load and the class's address is not touched."""
    for path in ("/_stcore/metrics", "/_stcore/%6detrics"):  # the replica decodes %-escapes
        assert _ask(up, "GET", path)[0] == 404

    forwarded = _forwarded(up)
    large = _post(up, "/_posviz/room/000000/view", "Content-Length: 100000", b"x" * 100_000)
    assert large == (413, {"error": "too_large"})
    chunked = _post(up, "/_posviz/room/000000/view", "Transfer-Encoding: chunked",
                    b"c\r\n{\"key\": \"x\"}\r\n0\r\n\r\n")
    assert chunked == (411, {"error": "length_required"})
    assert _forwarded(up) == forwarded  # HAProxy sent neither on to a replica

    statuses, answers = [], []
    with _connection(up, ELSEWHERE) as conn:  # each new request may go to either replica
        for n in range(WRONG.burst + 10):
            conn.request("GET", f"/_posviz/room/{n:06d}?v=-1&me=x")
            reply = conn.getresponse()
            statuses.append(reply.status)
            answers.append((reply.getheader("Retry-After"), reply.read()))
    # one allowance for the whole deployment, kept in Redis: not one per replica
    assert statuses[:WRONG.burst] == [404] * WRONG.burst, statuses
    assert set(statuses[WRONG.burst:]) == {429}, statuses
    assert int(answers[-1][0]) >= 1 and json.loads(answers[-1][1]) == {"error": "too_many"}
    for path in ("/", "/_stcore/health"):  # the page and the websocket's health: never limited
        assert _ask(up, "GET", path, source=ELSEWHERE)[0] == 200
    assert _ask(up, "GET", "/_posviz/room/000000?v=-1&me=x")[0] == 404  # the class: not limited


def test_one_address_starts_five_rooms_across_both_replicas(up, loop):
    """Rooms started from one address are counted once for the deployment (in Redis): five on
    either replica, then the sixth, on the other one, is refused. The starter is the
    lecturer's browser by the lecturer's cookie (the link the server printed): either replica
    reads it, their secret being the same."""
    secret = (up.run / "posviz-secret").read_text("utf-8").strip().encode()
    mark = signing.lecturer_mark(secret, time.time())

    async def press_start(replica: str) -> str:
        async with session(up.url, {"POSVIZ_REPLICA": replica, LECTURER_COOKIE: mark},
                           source=STARTER) as tab:
            home = await tab.open("", "")
            shown = await tab.open("", "", clicked=(widgets(home)["room_start"],))
        return "\n".join(str(m.delta) for m in shown)

    pages = [loop.run(press_start(replica)) for replica in ("r1", "r2") * 3]
    assert ["You lead room" in page for page in pages] == [True] * 5 + [False]
    assert "Too many rooms started from your network" in pages[-1]


def test_one_address_holds_a_halls_connections_at_most(up):
    """A script opening silent connections from one address: HAProxy takes PER_SOURCE of them
    and refuses the rest at once, closes the silent ones after its request timeout, and meanwhile
    every other client is served."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    assert hard > PER_SOURCE + 500, f"this test needs {PER_SOURCE + 500} open files"
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    host, port = urlsplit(up.url).hostname, urlsplit(up.url).port
    held, refused = [], 0
    try:
        for _ in range(PER_SOURCE + 50):
            try:
                held.append(socket.create_connection((host, port), timeout=10,
                                                     source_address=(FLOODER, 0)))
            except (ConnectionResetError, ConnectionRefusedError):  # refused before accept
                refused += 1  # (a busy machine: the listening queue overflows at once)
        assert len(held) >= PER_SOURCE // 2, len(held)
        for sock in held[-100:]:  # past the bound: closed by the proxy at once
            sock.settimeout(2)
            try:
                refused += sock.recv(1) == b""
            except TimeoutError:
                pass
            except ConnectionResetError:
                refused += 1
        assert refused >= 50, refused
        assert _ask(up, "GET", "/_stcore/health", source="127.0.0.6")[0] == 200
        held[0].settimeout(15)  # a silent connection inside the bound: closed after 10 s
        started = time.monotonic()
        assert held[0].recv(4096).startswith((b"", b"HTTP/1.1 408"))
        assert time.monotonic() - started < 12
    finally:
        for sock in held:
            sock.close()
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_a_class_through_the_proxy(up, browser, loop):
    lecturer = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
    lecturer.goto(f"{up.url}/lesson?scene=2")
    settle(lecturer)
    with rerun(lecturer):
        lecturer.get_by_role("button", name="Start a room").click()
    code = lecturer.url.split("room=")[1][:6]
    store = open_rooms(up.store_url())
    assert store.room(code) is not None  # the rooms live in the deployment's Redis

    # most of the class follows on the room's screen; some explore the app on their own
    followers = [Follower(up.url, code, "en" if i % 2 else "zh") for i in range(FOLLOWING)]
    alone = [Student(up.url, code, lang="en" if i % 2 else "zh") for i in range(ALONE)]
    scanned = ticket(code, (up.run / "posviz-secret").read_text("utf-8").strip().encode())
    loop.run(gather_in(20, (f.join(scanned) for f in followers)))  # the QR code
    loop.run(gather_in(20, (s.join(scanned) for s in alone)))
    loop.run(_settle_on(followers, "scene=2"))  # the lecturer's tab publishes once settled
    assert all(f.answer["page"] == "lesson" for f in followers)

    # each keeps one replica, given by the proxy's cookie
    replica = {f: f.cookies["POSVIZ_REPLICA"] for f in followers}
    spread = Counter(replica.values())
    assert set(spread) == {"r1", "r2"} and min(spread.values()) >= FOLLOWING // 4
    for s in alone:
        s.record = True
    loop.run(gather_in(20, (s.wander("", text=f"mine{i:03d} alone", follow="false")
                            for i, s in enumerate(alone))))
    waits = {asyncio.run_coroutine_threadsafe(f.wait(), loop.loop): f for f in followers}
    lecturer_on = next(c["value"] for c in lecturer.context.cookies()
                       if c["name"] == "POSVIZ_REPLICA")
    sockets = Counter(s.cookies["POSVIZ_REPLICA"] for s in alone)
    expected = {name: spread[name] + sockets[name] + (name == lecturer_on)
                for name in ("r1", "r2")}
    held = _held_when(up, expected)
    assert held == expected, (held, spread, sockets)  # their requests there, nowhere else

    # the lecturer moves: every follower gets the view in its own language; nobody exploring
    # sees another's sentence
    nav_click(lecturer, "ALiBi")
    answers = {f: w.result(timeout=60) for w, f in waits.items()}
    for f, answer in answers.items():
        assert answer["page"] == "alibi"
        assert answer["doc"][0]["text"] == text("alibi.title", f.lang)
    for i, s in enumerate(alone):
        sent = shown_text(s.seen)
        others = [j for j in range(ALONE) if j != i and f"mine{j:03d}" in sent]
        assert not others, (i, others)

    # a script on the class's own address guesses codes: nobody in the class is refused
    with _connection(up) as conn:
        for n in range(WRONG.burst + 5):
            conn.request("GET", f"/_posviz/room/{600_000 + n:06d}?v=-1")
            conn.getresponse().read()
    assert _ask(up, "GET", f"/_posviz/room/{code}?v=-1")[0] == 429  # shows no membership

    # all following vote on scene 4; the counts are exact
    nav_click(lecturer, "Guided lesson")
    lecturer.locator("[data-testid=stPagination] button", has_text="4").first.click()
    at_scene(lecturer, 4)  # the lesson may open there already: no run then
    loop.run(_settle_on(followers, "scene=4"))
    statuses = loop.run(gather_in(25, (f.vote("scene-order", i % 2)
                                       for i, f in enumerate(followers))))
    assert set(statuses) == {200}
    assert store.counts(code, "scene-order") == [FOLLOWING // 2, FOLLOWING // 2]

    # a replica dies (and supervisord is told to leave it dead, so that the reconnections
    # meet a dead replica, not one it already restarted): its students carry on through the
    # proxy, all on the other replica
    victim = "r2" if lecturer_on == "r1" else "r1"
    port = up.ports[int(victim[1]) - 1]
    os.kill(up.pid(port), signal.SIGKILL)
    up.supervisor("stop", f"posviz:posviz-{port}")
    loop.run(gather_in(20, (s.reconnect() for s in alone if s.cookies["POSVIZ_REPLICA"]
                            == victim)))
    with rerun(lecturer):
        lecturer.get_by_role("button", name="Reveal the answer to the room").click()
    loop.run(_settle_on(followers, "scene=4", revealed="scene-order"))
    for f in followers:  # the class's counts, and the answer, on every screen
        assert f.answer["polls"]["scene-order"]["counts"] == [FOLLOWING // 2, FOLLOWING // 2]
        assert next(b for b in f.answer["doc"] if b["t"] == "question")["answer"]
    waits = [asyncio.run_coroutine_threadsafe(f.wait(), loop.loop) for f in followers]
    held = _held_when(up, {lecturer_on: FOLLOWING + ALONE + 1, victim: 0})
    assert held == {lecturer_on: FOLLOWING + ALONE + 1, victim: 0}, held
    for wait in waits:
        wait.cancel()
    assert store.counts(code, "scene-order") == [FOLLOWING // 2, FOLLOWING // 2]
    loop.run(gather_in(50, (s.close() for s in [*followers, *alone])))
    up.supervisor("start", f"posviz:posviz-{port}")  # back, and back in HAProxy's rotation
    up.wait_up()


async def _settle_on(followers: list[Follower], query: str, revealed: str = "") -> None:
    """Followers wait on the room (asking again when a request fails over to another replica)
    until each holds a view with query (and, if named, that poll revealed)."""
    async def one(f: Follower) -> None:
        for _ in range(10):
            answer = f.answer or {}
            if query in answer.get("query", "") and (
                    not revealed or answer["polls"].get(revealed, {}).get("revealed")):
                return
            try:
                await f.wait()
            except (AssertionError, ConnectionError, asyncio.IncompleteReadError):
                await asyncio.sleep(0.5)  # its replica went away: the proxy sends it on
        raise AssertionError(f"a follower never reached {query} {revealed}")
    await gather_in(50, (one(f) for f in followers))


def test_room_routes_need_working_rooms(up):
    """Redis stops: HAProxy's checks of the rooms' health route take every replica out of the
    room routes, which then answer 503; pages and Streamlit's health still go to the replicas."""
    up.supervisor("stop", "redis")
    deadline = time.monotonic() + 15
    while any(s["status"] != "DOWN" for s in up.servers("rooms").values()):
        assert time.monotonic() < deadline, up.servers("rooms")
        time.sleep(0.2)
    status, answer = _ask(up, "GET", "/_posviz/room/000000?v=-1&me=x")
    assert (status, json.loads(answer)) == (503, {"error": "rooms_unavailable"})
    for path in ("/", "/_stcore/health"):
        assert _ask(up, "GET", path)[0] == 200
    assert all(s["status"] == "UP" for s in up.servers("replicas").values())


def _held_when(up, expected: dict[str, int], timeout: float = 15) -> dict[str, int]:
    """The connections HAProxy holds to each replica (for its pages and its rooms), once they
    are as expected (or as they are after the timeout)."""
    deadline = time.monotonic() + timeout
    while True:
        rows = [up.servers(backend) for backend in BACKENDS]
        held = {name: sum(int(r[name]["scur"]) for r in rows) for name in rows[0]}
        if held == expected or time.monotonic() > deadline:
            return held
        time.sleep(0.1)


@contextlib.contextmanager
def _connection(up, source: str = "127.0.0.1"):
    """A keep-alive connection to the proxy from one of this machine's addresses."""
    parts = urlsplit(up.url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10,
                                      source_address=(source, 0))
    try:
        yield conn
    finally:
        conn.close()


def _ask(up, method: str, path: str, source: str = "127.0.0.1") -> tuple[int, bytes]:
    """One request through the proxy; its status and body."""
    with _connection(up, source) as conn:
        conn.request(method, path)
        reply = conn.getresponse()
        return reply.status, reply.read()


def _post(up, path: str, length: str, body: bytes) -> tuple[int, dict]:
    """A POST with this length header and body, sent at once as a script would; the proxy's
    JSON answer."""
    host, port = urlsplit(up.url).hostname, urlsplit(up.url).port
    head = (f"POST {path} HTTP/1.1\r\nHost: {host}:{port}\r\n"
            f"Content-Type: application/json\r\n{length}\r\n\r\n")
    with socket.create_connection((host, port), timeout=10,
                                  source_address=(ELSEWHERE, 0)) as sock:
        with contextlib.suppress(OSError):  # the proxy may close before the body is all sent
            sock.sendall(head.encode() + body)
        reply = http.client.HTTPResponse(sock)
        reply.begin()
        return reply.status, json.loads(reply.read())


def _forwarded(up) -> dict[str, str]:
    """How many requests HAProxy has sent to each backend so far."""
    return {r["pxname"]: r["stot"] for r in up.stats()
            if r["svname"] == "BACKEND" and r["pxname"] in BACKENDS}
