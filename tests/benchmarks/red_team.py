"""The scripting class's attacks on a lecture room, measured against a real server on 127.0.0.1,
each attacker a plain script speaking from its own loopback address (127.x.y.z):

    python -m tests.benchmarks.red_team                  # this checkout
    python -m tests.benchmarks.red_team --checkout PATH  # another (its serve.py, its own command)

It prints, per attack, what one laptop gets done:
- poll stuffing: cookie-less visits of the room's screen from one address with the code alone,
  then a vote from every id issued: ids issued, votes counted, over how long, and what the
  lecturer reads as students connected;
- the code walk: wrong codes spread over every room route (the vote route too), from one
  address: how many are answered before the first refusal, how many in all;
- a hall cut off: a script's wrong codes on the class's address, then the class's own requests
  (a phone with its voter id and proof, the lecturer's key): how many are refused;
- connections held: silent connections from one address and from several, against a server
  whose open-file limit is 1,024: how many are held, and whether another client is still
  served; tracebacks in the server's log.

Figures go to the terminal (and, with --json PATH, to a file); the checkout's own server is
started for each part with a store of its own. The numbers depend on the checkout, not on how
fast this machine is; the seconds shown do.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import resource
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SECRET = "the red team's own secret"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def server(checkout: Path, store: str, open_files: int | None = None):
    """The checkout's server on 127.0.0.1 (started as its README starts it), and its log."""
    port = free_port()
    own = "__main__" in (checkout / "serve.py").read_text("utf-8")  # `python serve.py` runs it
    start = ["serve.py"] if own else ["-m", "streamlit", "run", "serve.py"]
    log = Path(tempfile.mkdtemp()) / "server.log"
    limited = None if open_files is None else lambda: resource.setrlimit(
        resource.RLIMIT_NOFILE, (open_files, open_files))
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, *start, "--server.headless=true", "--server.address=127.0.0.1",
             f"--server.port={port}", "--browser.gatherUsageStats=false"], cwd=checkout,
            stdout=out, stderr=subprocess.STDOUT, preexec_fn=limited,
            env=os.environ | {"POSVIZ_ROOM_STORE": store, "POSVIZ_SECRET": SECRET,
                              "PYTHONUNBUFFERED": "1"})
    try:
        deadline = time.monotonic() + 60
        while ask(port, "GET", "/_stcore/health", "127.0.0.1")[0] != 200:
            if time.monotonic() > deadline:
                raise RuntimeError(f"the server did not start: {log.read_text()[-2000:]}")
            time.sleep(0.2)
        yield port, log
    finally:
        proc.terminate()
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()


def ask(port: int, method: str, path: str, source: str, body: object = None,
        cookies: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    """One request from source; status (0 for none), cookies set, body."""
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30,
                                          source_address=(source, 0))
        headers = {"Content-Type": "application/json"} if body is not None else {}
        if cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in cookies.items())
        conn.request(method, path, None if body is None else json.dumps(body), headers)
        reply = conn.getresponse()
        set_cookies = {h.split("=", 1)[0]: h.split("=", 1)[1].split(";", 1)[0]
                       for k, h in reply.getheaders() if k.lower() == "set-cookie"}
        return reply.status, set_cookies, reply.read()
    except (OSError, http.client.HTTPException):
        return 0, {}, b""
    finally:
        conn.close()


def room(checkout: Path, store: str, poll: bool = True) -> tuple[str, str]:
    """A room opened in the checkout's store (as the lecturer would), with a question."""
    code = subprocess.run(
        [sys.executable, "-c", "import sys; from rooms import open_rooms; "
         "s = open_rooms(sys.argv[1]); code, key = s.create(); "
         + ("s.ask(code, 'Which?', ['a', 'b']); " if poll else "") + "print(code, key)", store],
        cwd=checkout, capture_output=True, text=True, check=True,
        env=os.environ | {"POSVIZ_SECRET": SECRET}).stdout.split()
    return code[0], code[1]


def stuffing(checkout: Path, visits: int = 500) -> dict:
    store = f"sqlite:///{tempfile.mkdtemp()}/rooms.sqlite3"
    code, _ = room(checkout, store)
    with server(checkout, store) as (port, _):
        script = "127.9.0.1"
        started = time.monotonic()
        ids = []
        for _ in range(visits):
            status, cookies, _ = ask(port, "GET", f"/_posviz/follow/{code}", script)
            if "posviz_me" in cookies:
                ids.append(cookies)
        counted = sum(ask(port, "POST", f"/_posviz/room/{code}/vote", script,
                          {"poll": "q1", "option": 0}, cookies)[0] == 200 for cookies in ids)
        took = time.monotonic() - started
    return {"visits": visits, "ids issued": len(ids), "votes counted": counted,
            "seconds": round(took, 1)}


def code_walk(checkout: Path, guesses: int = 1000) -> dict:
    store = f"sqlite:///{tempfile.mkdtemp()}/rooms.sqlite3"
    code, _ = room(checkout, store)
    with server(checkout, store) as (port, _):
        script = "127.9.0.2"
        started = time.monotonic()
        statuses = []
        for n in range(guesses):
            guess = f"{(100_000 + n * 7919) % 1_000_000:06d}"
            statuses.append(ask(port, "POST", f"/_posviz/room/{guess}/vote", script,
                                {"poll": "q1", "option": 0})[0])
        took = time.monotonic() - started
        found = ask(port, "POST", f"/_posviz/room/{code}/vote", script,
                    {"poll": "q1", "option": 0})[0]
    first = statuses.index(429) if 429 in statuses else len(statuses)
    return {"guesses": guesses, "answered before the first refusal": first,
            "refused": statuses.count(429), "seconds": round(took, 1),
            "the planted room, asked last": found}


def cut_off(checkout: Path) -> dict:
    store = f"sqlite:///{tempfile.mkdtemp()}/rooms.sqlite3"
    code, key = room(checkout, store)
    with server(checkout, store) as (port, _):
        campus = "127.9.0.3"
        _, phone, _ = ask(port, "GET", f"/_posviz/follow/{code}", campus)
        lead = ask(port, "POST", f"/_posviz/room/{code}/lead", campus, {"key": key})[1]
        for n in range(30):
            ask(port, "GET", f"/_posviz/room/{200_000 + n:06d}?v=-1", campus)
        proof = phone.get("posviz_joined", "")
        asked = [ask(port, "GET", f"/_posviz/room/{code}?v=-1&j={proof}", campus,
                     cookies=phone)[0],
                 ask(port, "POST", f"/_posviz/room/{code}/vote", campus,
                     {"poll": "q1", "option": 1}, phone)[0],
                 ask(port, "POST", f"/_posviz/room/{code}/view", campus,
                     {"page": "rope", "query": ""}, lead)[0]]
    return {"the class's requests after 30 wrong codes": len(asked),
            "refused": sum(status in (0, 429) for status in asked), "statuses": asked}


def connections(checkout: Path, open_files: int = 1024) -> dict:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    store = f"sqlite:///{tempfile.mkdtemp()}/rooms.sqlite3"
    out = {"open-file limit": open_files}
    with server(checkout, store, open_files) as (port, log):
        for label, sources in (("one address", ["127.9.1.1"]),
                               ("five addresses", [f"127.9.2.{n}" for n in range(1, 6)])):
            held = []
            for source in sources:
                for _ in range(open_files * 3 // 2 // len(sources)):
                    with contextlib.suppress(OSError):
                        held.append(socket.create_connection(("127.0.0.1", port), timeout=5,
                                                             source_address=(source, 0)))
            time.sleep(1)
            alive = 0
            for sock in held:
                sock.setblocking(False)
                try:
                    sock.recv(1)  # closed, or answered 503: not held
                except BlockingIOError:
                    alive += 1  # nothing said, still open: held
                except OSError:
                    pass
            served = ask(port, "GET", "/_stcore/health", "127.9.3.1")[0]
            out[label] = {"opened": len(held), "held": alive,
                          "another client's request": served}
            for sock in held:
                sock.close()
            time.sleep(12)  # the held ones' deadline passes too
        said = log.read_text("utf-8", "replace")
        out["tracebacks in the log"] = said.count("Traceback")
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m tests.benchmarks.red_team",
                                     description=__doc__)
    parser.add_argument("--checkout", default=str(ROOT), help="the posviz checkout to attack")
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args(argv)
    checkout = Path(args.checkout).resolve()
    figures = {}
    for name, attack in (("poll stuffing", stuffing), ("code walk", code_walk),
                         ("hall cut off", cut_off), ("connections held", connections)):
        figures[name] = attack(checkout)
        print(f"{name}: {json.dumps(figures[name], ensure_ascii=False)}", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2), "utf-8")


if __name__ == "__main__":
    main()
