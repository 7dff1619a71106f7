"""deploy.up's run folder, rendered without starting anything: every file private from its
creation, the secrets kept across restarts and shared by every replica, Redis's password in
private files only (never on a command line, which `ps` shows to every user); HAProxy started
by the gate once the replicas answer; the operator's help and the address students open."""

from __future__ import annotations

import configparser
import contextlib
import fcntl
import os
import re
import shlex
import socket
import stat
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import SimpleNamespace

import pytest

from deploy import up
from deploy.up import healthy, open_when_ready, parse, render, students_url

SECRETS = ("cookie-secret", "posviz-secret", "redis-password", "supervisor-password")


def rendered(run: Path, *options: str) -> dict[str, str]:
    """Render into run; the replicas' environment, as supervisord will give it to them."""
    conf = render(parse(["--run", str(run), "--redis-port", "6390", *options]))
    line = next(ln for ln in conf.read_text("utf-8").splitlines()
                if ln.startswith("environment="))
    return dict(re.findall(r'(\w+)="([^"]*)"', line))


def programs(run: Path) -> dict[str, configparser.SectionProxy]:
    """supervisord's programs in the rendered configuration, by name."""
    conf = configparser.RawConfigParser(inline_comment_prefixes=(";",))
    conf.read(run / "supervisord.conf", encoding="utf-8")
    return {name.removeprefix("program:"): conf[name] for name in conf.sections()
            if name.startswith("program:")}


def commands(run: Path) -> list[str]:
    return [ln for ln in (run / "supervisord.conf").read_text("utf-8").splitlines()
            if ln.startswith("command=")]


def test_every_file_of_the_run_folder_is_private_from_its_creation(tmp_path, monkeypatch):
    """Even with a umask that lets everyone read, and no chmod afterwards to narrow a file."""
    def no_chmod(*args, **kwargs):
        raise AssertionError("a file was made private after it was written")

    monkeypatch.setattr(os, "chmod", no_chmod)
    monkeypatch.setattr(os, "fchmod", no_chmod)
    old = os.umask(0)
    try:
        rendered(tmp_path / "run")
    finally:
        os.umask(old)
    files = sorted((tmp_path / "run").iterdir())
    assert {f.name for f in files} == {*SECRETS, "haproxy.cfg", "supervisord.conf",
                                       "redis.conf"}
    assert {f.name: stat.S_IMODE(f.stat().st_mode) for f in files} == {
        f.name: 0o600 for f in files}
    assert stat.S_IMODE((tmp_path / "run").stat().st_mode) == 0o700


def test_a_secret_copied_in_readable_by_others_is_made_private(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    (run / "cookie-secret").write_text("from-the-last-machine")
    (run / "cookie-secret").chmod(0o644)
    assert rendered(run)["STREAMLIT_SERVER_COOKIE_SECRET"] == "from-the-last-machine"
    assert stat.S_IMODE((run / "cookie-secret").stat().st_mode) == 0o600


def test_the_secrets_are_kept_across_restarts_and_differ_between_deployments(tmp_path):
    first, again = rendered(tmp_path / "run"), rendered(tmp_path / "run")
    other = rendered(tmp_path / "other")
    for name in ("STREAMLIT_SERVER_COOKIE_SECRET", "POSVIZ_SECRET", "POSVIZ_ROOM_STORE"):
        assert first[name] == again[name] != other[name]
    assert len(first["POSVIZ_SECRET"]) >= 43  # secrets.token_urlsafe(32)
    assert first["POSVIZ_SECRET"] == (tmp_path / "run" / "posviz-secret").read_text()


def test_every_replica_has_the_secret_and_believes_only_the_local_proxy(tmp_path):
    env = rendered(tmp_path / "run", "--replicas", "3")
    assert env["POSVIZ_TRUSTED_PROXIES"] == "127.0.0.1"
    assert env["POSVIZ_SECRET"]
    conf = (tmp_path / "run" / "supervisord.conf").read_text("utf-8")
    assert "numprocs=3" in conf and conf.count("environment=") == 1  # one line, every replica


@pytest.mark.parametrize("bind", ["127.0.0.1", "10.0.0.5", "0.0.0.0"])
def test_redis_asks_for_a_password_that_only_private_files_hold(tmp_path, bind):
    """On loopback too: every user of the machine can reach 127.0.0.1."""
    run = tmp_path / "run"
    env = rendered(run, "--redis-bind", bind)
    password = (run / "redis-password").read_text()
    assert env["POSVIZ_ROOM_STORE"] == f"redis://:{password}@127.0.0.1:6390/0"
    redis_conf = (run / "redis.conf").read_text("utf-8").splitlines()
    assert f"requirepass {password}" in redis_conf and f"bind {bind}" in redis_conf
    assert not [c for c in commands(run) if password in c]
    (redis,) = [c for c in commands(run) if "redis.conf" in c]
    assert redis.split()[1:] == [f"{run.resolve()}/redis.conf"]  # its only argument


def test_an_existing_redis_is_used_as_given(tmp_path):
    run = tmp_path / "run"
    env = rendered(run, "--redis", "redis://:theirs@10.0.0.9:6379/2")
    assert env["POSVIZ_ROOM_STORE"] == "redis://:theirs@10.0.0.9:6379/2"
    assert not (run / "redis-password").exists() and not (run / "redis.conf").exists()
    assert programs(run)["redis"]["autostart"] == "false"


def test_room_routes_go_to_the_same_replicas_with_the_same_cookies(tmp_path):
    run = tmp_path / "run"
    rendered(run, "--backend", "10.0.0.7:8601")
    backends = (run / "haproxy.cfg").read_text("utf-8").split("\nbackend ")[1:]
    servers = {b.split()[0]: [ln.strip() for ln in b.splitlines() if ln.strip().startswith(
        "server ")] for b in backends}
    assert set(servers) == {"replicas", "rooms"}
    assert servers["rooms"] == servers["replicas"] and len(servers["rooms"]) == 3



def test_haproxy_is_started_by_the_gate_which_waits_for_every_replica(tmp_path):
    """Not by supervisord with the replicas: the gate asks each replica HAProxy will check, at
    the address HAProxy checks it, and knows where students connect."""
    run = tmp_path / "run"
    rendered(run, "--replicas", "2", "--first-port", "8601", "--backend", "10.0.0.7:8601",
             "--address", "127.0.0.1", "--port", "8500")
    started = programs(run)
    assert started["haproxy"]["autostart"] == "false"
    assert started["gate"].get("autostart", "true") == "true"
    assert started["gate"]["autorestart"] == "false"  # once: it starts HAProxy and exits
    python, *command = shlex.split(started["gate"]["command"])
    assert command == ["-m", "deploy.up", "gate", str(run.resolve()), "http://127.0.0.1:8500/",
                       "127.0.0.1:8601", "127.0.0.1:8602", "10.0.0.7:8601"]
    servers = re.findall(r"^ +server r\d+ (\S+) check", (run / "haproxy.cfg").read_text("utf-8"),
                         re.MULTILINE)
    assert servers == command[-3:] * 2  # replicas, rooms


@contextlib.contextmanager
def replica(answers: dict[str, tuple[int, bytes]]) -> Iterator[str]:
    """A stand-in replica on 127.0.0.1 answering each path as given (404 otherwise); yields its
    HOST:PORT."""
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            status, body = answers.get(self.path, (404, b""))
            self.send_response(status)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def unused() -> str:
    """An address on 127.0.0.1 where nothing listens."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"127.0.0.1:{sock.getsockname()[1]}"


OK = {"/_stcore/health": (200, b"ok"), "/_posviz/health": (200, b"ok")}


@pytest.mark.parametrize(("answers", "ready"), [
    (OK, True),
    ({**OK, "/_posviz/health": (503, b"rooms unavailable")}, False),  # its rooms fail
    ({"/_stcore/health": (200, b"ok")}, False),  # the page answers, the rooms' route not yet
])
def test_a_replica_is_ready_when_both_routes_haproxy_checks_answer_ok(answers, ready):
    with replica(answers) as address:
        assert healthy(address) is ready
    assert not healthy(unused())


def test_the_gate_starts_haproxy_after_a_replica_that_never_answers_too(tmp_path, monkeypatch,
                                                                        capsys):
    """After its time is up, with a note of which one: HAProxy takes it in once it answers."""
    calls = []
    supervisor = SimpleNamespace(startProcess=calls.append)
    monkeypatch.setattr(up.xmlrpc.client, "ServerProxy",
                        lambda url, transport: SimpleNamespace(supervisor=supervisor))
    (tmp_path / "supervisor-password").write_text("secret")
    missing = unused()
    with replica(OK) as address:
        open_when_ready(tmp_path, "http://10.0.0.5:8500/", [address, missing], timeout=0.5)
    assert calls == ["haproxy"]
    said = capsys.readouterr().out
    assert f"no answer from {missing} after" in said and address not in said
    assert said.endswith("posviz: ready; students open http://10.0.0.5:8500/\n")


def test_help_shows_every_default(capsys):
    with pytest.raises(SystemExit):
        parse(["--help"])
    shown = " ".join(capsys.readouterr().out.split())  # argparse wraps lines anywhere
    for default in ("(default: 2)", "(default: 8500)", "(default: 0.0.0.0)", "(default: 8601)",
                    "(default: 127.0.0.1)", "(default: start one here)", "(default: 6390)",
                    f"(default: {up.DEPLOY / 'run'})", "default: http://<this machine's"):
        assert default in shown, default


@pytest.mark.parametrize(("options", "network", "url"), [
    ([], "192.168.1.20", "http://192.168.1.20:8500/"),  # every address: the one others reach
    ([], None, "http://127.0.0.1:8500/"),  # no network but loopback
    (["--address", "10.0.0.5", "--port", "80"], "192.168.1.20", "http://10.0.0.5:80/"),
    (["--public-url", "https://posviz.example.edu/"], "192.168.1.20",
     "https://posviz.example.edu/"),
])
def test_students_are_told_an_address_a_browser_opens(monkeypatch, options, network, url):
    """Never http://0.0.0.0:8500/, where HAProxy listens but no browser elsewhere can go."""
    monkeypatch.setattr(up, "network_address", lambda: network)
    assert students_url(parse(options)) == url


@pytest.mark.parametrize("kind", ["file", "pipe", "socket"])
def test_the_ready_line_goes_to_the_operators_output_unless_it_cannot_be_opened(tmp_path, kind):
    """A terminal, a pipe or a file (switched to appending, so that supervisord's lines and the
    gate's never overwrite each other) is the operator's; a socket cannot be opened by name,
    and the line goes to the run folder's gate.log."""
    with contextlib.ExitStack() as stack:
        if kind == "file":
            out = os.open(tmp_path / "console", os.O_WRONLY | os.O_CREAT)
        elif kind == "pipe":
            reading, out = os.pipe()
            stack.callback(os.close, reading)
        else:
            pair = socket.socketpair()
            stack.callback(lambda: [s.close() for s in pair])
            out = os.dup(pair[0].fileno())
        held = os.dup(1)
        os.dup2(out, 1)
        os.close(out)
        try:
            where = up.console(tmp_path)
            appending = bool(fcntl.fcntl(1, fcntl.F_GETFL) & os.O_APPEND)
        finally:
            os.dup2(held, 1)
            os.close(held)
    assert where == (str(tmp_path / "gate.log") if kind == "socket" else "/dev/stdout")
    assert appending == (kind == "file")
