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
  served; tracebacks in the server's log;
- the code walk at once: the same guesses sent together, 200 at a time, from one address;
- the word guessed from home: one laptop with the code alone types wrong projector's words
  (taking a fresh voter id every 50): how many are compared before the first refusal;
- ids by the word: the right word posted again and again without a cookie: ids issued;
- the open redirect: where a lecturer link with the path `//evil.example/` sends the browser;
- a forged voter id: what its vote is answered;
- a trickle of wrong codes on the class's address: whether a newcomer typing the right code
  gets in while a classmate follows from there;
- the concept check from home: answers by the code alone that count;
- two addresses' connections: whether a third client's health probe is served (15 tries).

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
from concurrent.futures import ThreadPoolExecutor
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


OPEN = ("import sys\ntry:\n    from rooms import open_rooms as opened\n"
        "except ImportError:\n    from rooms import open_store as opened\n"
        "s = opened(sys.argv[1])\n")  # the rooms of this checkout, or of an older one


def in_checkout(checkout: Path, store: str, code: str) -> list[str]:
    """What code prints, run in the checkout with its rooms opened as `s`."""
    return subprocess.run(
        [sys.executable, "-c", OPEN + code, store], cwd=checkout, capture_output=True,
        text=True, check=True, env=os.environ | {"POSVIZ_SECRET": SECRET}).stdout.split()


def room(checkout: Path, store: str, poll: bool = True, check: bool = False
         ) -> tuple[str, str]:
    """A room opened in the checkout's store (as the lecturer would), with a question, or the
    concept check's first sitting of one question."""
    code = in_checkout(checkout, store, "code, key = s.create()\n"
                       + ("s.ask(code, 'Which?', ['a', 'b'])\n" if poll else "")
                       + ("s.open_check(code, 'pre', [('Which?', ['a', 'b'], 0)])\n"
                          if check else "") + "print(code, key)")
    return code[0], code[1]


def word(checkout: Path, store: str, code: str) -> str:
    """The room's projector's word now, as the checkout makes it."""
    return in_checkout(checkout, store, "import time\nfrom rooms import signing\n"
                       f"print(signing.word(s.secret, '{code}', time.time()))")[0]


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


def code_walk_at_once(checkout: Path, guesses: int = 1000) -> dict:
    store = f"sqlite:///{tempfile.mkdtemp()}/rooms.sqlite3"
    room(checkout, store)
    with server(checkout, store) as (port, _):
        script = "127.9.0.4"
        started = time.monotonic()
        with ThreadPoolExecutor(200) as pool:
            statuses = list(pool.map(lambda n: ask(
                port, "GET", f"/_posviz/room/{(300_000 + n * 7919) % 1_000_000:06d}?v=-1",
                script)[0], range(guesses)))
        took = time.monotonic() - started
    return {"guesses": guesses, "looked up (404)": statuses.count(404),
            "refused": statuses.count(429), "seconds": round(took, 1)}


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


def word_guessing(checkout: Path, guesses: int = 2000) -> dict:
    store = f"sqlite:///{tempfile.mkdtemp()}/rooms.sqlite3"
    code, _ = room(checkout, store)
    with server(checkout, store) as (port, _):
        home = "127.9.4.1"
        started = time.monotonic()
        statuses, cookies = [], {}
        for n in range(guesses):
            if n % 50 == 0:  # a fresh voter id now and then
                cookies = ask(port, "GET", f"/_posviz/follow/{code}", home)[1] or cookies
            statuses.append(ask(port, "POST", f"/_posviz/room/{code}/word", home,
                                {"word": f"x{n:06d}"}, cookies)[0])
        took = time.monotonic() - started
    first = statuses.index(429) if 429 in statuses else len(statuses)
    return {"wrong words": guesses, "compared before the first refusal": first,
            "compared in all": statuses.count(403), "refused": statuses.count(429),
            "seconds": round(took, 1)}


def word_ids(checkout: Path, posts: int = 1000) -> dict:
    store = f"sqlite:///{tempfile.mkdtemp()}/rooms.sqlite3"
    code, _ = room(checkout, store)
    said = word(checkout, store, code)
    with server(checkout, store) as (port, _):
        script = "127.9.4.2"
        started = time.monotonic()
        ids = [cookies for _ in range(posts) if "posviz_me" in (cookies := ask(
            port, "POST", f"/_posviz/room/{code}/word", script, {"word": said})[1])]
        counted = sum(ask(port, "POST", f"/_posviz/room/{code}/vote", script,
                          {"poll": "q1", "option": 0}, cookies)[0] == 200 for cookies in ids)
        took = time.monotonic() - started
    return {"posts of the word without a cookie": posts, "ids issued": len(ids),
            "votes counted": counted, "seconds": round(took, 1)}


def redirect(checkout: Path) -> dict:
    store = f"sqlite:///{tempfile.mkdtemp()}/rooms.sqlite3"
    out = {}
    with server(checkout, store) as (port, _):
        for path in ("//evil.example/", "/%2F%2Fevil.example", "/\\evil.example"):
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30,
                                              source_address=("127.9.4.3", 0))
            conn.request("GET", f"{path}?lead=x{'y' * 20}&room=123456")
            reply = conn.getresponse()
            out[path] = reply.getheader("location")
            conn.close()
    return out


def forged(checkout: Path) -> dict:
    store = f"sqlite:///{tempfile.mkdtemp()}/rooms.sqlite3"
    code, _ = room(checkout, store)
    with server(checkout, store) as (port, _):
        fake = {"posviz_me": f"{code}.1900000000.p.{'A' * 16}.{'A' * 22}"}
        status, _, body = ask(port, "POST", f"/_posviz/room/{code}/vote", "127.9.4.4",
                              {"poll": "q1", "option": 0}, fake)
    return {"a forged id's vote": f"{status} {body.decode()}"}


def trickle(checkout: Path) -> dict:
    store = f"sqlite:///{tempfile.mkdtemp()}/rooms.sqlite3"
    code, _ = room(checkout, store)
    campus = "127.9.4.5"
    with server(checkout, store) as (port, _):
        _, phone, _ = ask(port, "GET", f"/_posviz/follow/{code}", campus)
        version = json.loads(ask(port, "GET", f"/_posviz/room/{code}?v=-1", campus,
                                 cookies=phone)[2])["version"]
        held = socket.create_connection(("127.0.0.1", port), source_address=(campus, 0))
        cookie = "; ".join(f"{k}={v}" for k, v in phone.items())
        held.sendall(f"GET /_posviz/room/{code}?v={version} HTTP/1.1\r\nHost: x\r\n"
                     f"Cookie: {cookie}\r\n\r\n".encode())  # the classmate's screen waits
        time.sleep(6.5)  # reported as one of the room's screens
        for n in range(25):
            ask(port, "GET", f"/_posviz/room/{700_000 + n:06d}?v=-1", campus)
        newcomer = ask(port, "GET", f"/_posviz/follow/{code}", campus)[0]
        held.close()
    return {"a newcomer typing the right code, after 25 wrong ones": newcomer}


def check_from_home(checkout: Path, tries: int = 30) -> dict:
    store = f"sqlite:///{tempfile.mkdtemp()}/rooms.sqlite3"
    code, _ = room(checkout, store, poll=False, check=True)
    with server(checkout, store) as (port, _):
        home = "127.9.4.6"
        counted = 0
        for _ in range(tries):
            _, cookies, _ = ask(port, "GET", f"/_posviz/follow/{code}", home)
            counted += ask(port, "POST", f"/_posviz/room/{code}/vote", home,
                           {"poll": "check-pre-1", "option": 1}, cookies)[0] == 200
    return {"answers to the check by the code alone": tries, "counted": counted}


def two_addresses(checkout: Path, open_files: int = 1024) -> dict:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    store = f"sqlite:///{tempfile.mkdtemp()}/rooms.sqlite3"
    with server(checkout, store, open_files) as (port, _):
        held = []
        for source in ("127.9.5.1", "127.9.5.2"):
            for _ in range(open_files // 2):
                with contextlib.suppress(OSError):
                    held.append(socket.create_connection(("127.0.0.1", port), timeout=5,
                                                         source_address=(source, 0)))
        time.sleep(1)
        served = [ask(port, "GET", "/_posviz/health", "127.9.5.3")[0] for _ in range(15)]
        for sock in held:
            sock.close()
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    return {"a third client's health probes served": f"{served.count(200)} of 15"}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m tests.benchmarks.red_team",
                                     description=__doc__)
    parser.add_argument("--checkout", default=str(ROOT), help="the posviz checkout to attack")
    parser.add_argument("--json", help="also write the figures to this file")
    parser.add_argument("--only", nargs="*", help="the attacks to run (their names)")
    attacks = {"poll stuffing": stuffing, "code walk": code_walk,
               "code walk at once": code_walk_at_once, "hall cut off": cut_off,
               "connections held": connections, "word guessed": word_guessing,
               "ids by the word": word_ids, "open redirect": redirect, "forged id": forged,
               "wrong-code trickle": trickle, "check from home": check_from_home,
               "two addresses' connections": two_addresses}
    args = parser.parse_args(argv)
    checkout = Path(args.checkout).resolve()
    figures = {}
    for name, attack in attacks.items():
        if args.only and name not in args.only:
            continue
        figures[name] = attack(checkout)
        print(f"{name}: {json.dumps(figures[name], ensure_ascii=False)}", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2), "utf-8")


if __name__ == "__main__":
    main()
