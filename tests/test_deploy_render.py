"""deploy.up's run folder, rendered without starting anything: every file private from its
creation, the secrets kept across restarts and shared by every replica, Redis's password in
private files only (never on a command line, which `ps` shows to every user)."""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

import pytest

from deploy.up import parse, render

SECRETS = ("cookie-secret", "posviz-secret", "redis-password", "supervisor-password")


def rendered(run: Path, *options: str) -> dict[str, str]:
    """Render into run; the replicas' environment, as supervisord will give it to them."""
    conf = render(parse(["--run", str(run), "--redis-port", "6390", *options]))
    line = next(ln for ln in conf.read_text("utf-8").splitlines()
                if ln.startswith("environment="))
    return dict(re.findall(r'(\w+)="([^"]*)"', line))


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
    assert "autostart=false" in (run / "supervisord.conf").read_text("utf-8")


def test_room_routes_go_to_the_same_replicas_with_the_same_cookies(tmp_path):
    run = tmp_path / "run"
    rendered(run, "--backend", "10.0.0.7:8601")
    backends = (run / "haproxy.cfg").read_text("utf-8").split("\nbackend ")[1:]
    servers = {b.split()[0]: [ln.strip() for ln in b.splitlines() if ln.strip().startswith(
        "server ")] for b in backends}
    assert set(servers) == {"replicas", "rooms"}
    assert servers["rooms"] == servers["replicas"] and len(servers["rooms"]) == 3

