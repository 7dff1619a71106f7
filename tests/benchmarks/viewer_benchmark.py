"""A lecture hall's load on one server process, measured:
`python -m tests.benchmarks.viewer_benchmark [--quick] [--classes 100,250,...] [--json PATH]`.

A lecturer walks nine of the guided lesson's scenes (a real page run for each, published to the room
as the lecturer's tab does) and a class follows on the room's screen: protocol-level phones
(tests/helpers/room_fixtures.py's Follower) that open the screen's page, then wait on the room's
route asking for gzip and decode each answer, exactly as static/viewer.js does; half read English,
half Chinese. A follower's time is from the lecturer's publishing of a scene to that follower
holding the scene's document.

Prints, with the cores used:
1. one server process at growing class sizes: p50 and p95 follower time per move; server CPU
   per follower per move (beyond what the moves cost with nobody following: the lecturer's own
   page run and the two renderings of each view); bytes each follower receives per move;
   resident memory per connected student; the largest class held at p95 <= 1.5 s;
2. what an unchanged room costs with the largest class waiting on it;
3. a sizing table: students per core, and what 5,000 students need;
4. a class of 500 thinking aloud: each answers scene 4's question and says how sure, the
   lecturer opens a second round, each answers again, then the six questions of the concept
   check, then taps a key for scene 8's predicted picture: p50 and p95 from a student's tap to
   the answer being counted (the lecturer's tally reads the counts again every second: add up
   to 1 s for it to show), and server CPU per answer;
5. side by side, the same class on the same machine: the path before the room's screen (every
   follower reran the lecturer's page, from a checkout of the commit before ui/doc.py came in,
   measured by that checkout's own benchmark) against this one, and the ratio.

Each follower speaks from an address of its own (X-Forwarded-For from a trusted local proxy),
as phones on a network do: the per-address limits stay those of one phone. The followers'
client runs on the same machine and takes CPU of its own: its share is printed beside the
server's. Not a test (pytest does not collect it): the figures depend on the machine.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from rooms import open_rooms
from tests.helpers.load_fixtures import ROOT, cpu_seconds, rss_mb, serving
from tests.helpers.room_fixtures import Follower, Lecturer, Loop, gather_in

SCENES = 9
TARGET_P95 = 1.5      # seconds: what a class should wait for the lecturer's move
CLASSES = (100, 250, 500, 1000, 2000)
COMPARED = 100        # students in the side-by-side run of the two paths
HALL = 5000
THINKING = 500        # students in the class that answers, revotes and sits the check
_ADDRESSES = itertools.count(1)


@dataclass
class Walk:
    """One walk of the lesson by a class of `students`."""

    students: int
    moves: int
    p50: float
    p95: float
    seconds: float        # wall time of the moves
    server_cpu: float     # CPU-s of the server during the moves
    client_cpu: float     # CPU-s of this process (the followers' client) during the moves
    received: int         # bytes the followers received during the moves
    rss_mb: float         # the server's resident memory with the class in
    rss_empty_mb: float   # ... before the class came in

    def per_follower_ms(self, empty: Walk | None) -> float:
        """Server CPU per follower per move, beyond the moves' own cost with nobody following."""
        base = empty.server_cpu if empty is not None else 0.0
        return 1e3 * (self.server_cpu - base) / (self.students * self.moves)

    @property
    def bytes_per_move(self) -> float:
        return self.received / max(1, self.students * self.moves)

    @property
    def mb_per_student(self) -> float:
        return (self.rss_mb - self.rss_empty_mb) / max(1, self.students)


def follower(url: str, code: str, n: int) -> Follower:
    """The class's n-th phone: half read English, half Chinese; each on its own address."""
    a = next(_ADDRESSES)
    return Follower(url, code, "zh" if n % 2 else "en",
                    address=f"10.{a >> 16 & 255}.{a >> 8 & 255}.{a & 255}")


async def seat(url: str, store_url: str, n: int) -> tuple[Lecturer, list[Follower]]:
    store = open_rooms(store_url)
    code, key = store.create()
    lecturer = Lecturer(url, code, store.lead_link(code, key))
    await lecturer.connect()
    await lecturer.show("lesson", scene="1", text="刚想到了")
    followers = [follower(url, code, i) for i in range(n)]
    await gather_in(100, (f.join() for f in followers))
    await gather_in(500, (f.wait() for f in followers))
    return lecturer, followers


async def timed(wait: asyncio.Future, lecturer: Lecturer, times: list[float]) -> None:
    await wait
    times.append(max(0.0, time.monotonic() - lecturer.published_at))


async def walk(lecturer: Lecturer, followers: list[Follower], pid: int, pause: float
               ) -> tuple[list[float], float, float, float, int]:
    """The lecturer shows scenes 2..9 and back to 1; returns every follower's time, and the
    wall time, server CPU, client CPU and bytes received of the moves."""
    times: list[float] = []
    received = sum(f.http.received for f in followers)
    used, mine, start = cpu_seconds(pid), os.times(), time.monotonic()
    for scene in [*range(2, SCENES + 1), 1]:
        waits = [asyncio.ensure_future(f.wait()) for f in followers]
        await asyncio.sleep(0.3 + len(followers) / 2000)  # every wait is held by the server
        await lecturer.show("lesson", scene=str(scene), text="刚想到了")
        await asyncio.gather(*(timed(w, lecturer, times) for w in waits))
        await asyncio.sleep(pause)
    now = os.times()
    return (times, time.monotonic() - start, cpu_seconds(pid) - used,
            (now.user + now.system) - (mine.user + mine.system),
            sum(f.http.received for f in followers) - received)


async def tapped(student: Follower, times: list[float], *vote: object) -> None:
    start = time.monotonic()
    status = await student.vote(*vote)
    if status != 200:
        raise RuntimeError(f"an answer was refused: {status}")
    times.append(time.monotonic() - start)


async def thinking(lecturer: Lecturer, followers: list[Follower], store_url: str, pid: int
                   ) -> tuple[list[float], float]:
    """Scene 4's question answered with how sure, a second round, the concept check, scene 8's
    predicted picture: every tap's time, and the server's CPU seconds for all of them (the
    lecturer's two page runs included)."""
    store = open_rooms(store_url)
    await lecturer.show("lesson", scene="4", text="刚想到了")  # opens the scene's question
    await gather_in(500, (f.wait() for f in followers))
    times: list[float] = []
    used = cpu_seconds(pid)
    await gather_in(100, (tapped(f, times, "scene-order", i % 2) for i, f in enumerate(followers)))
    await gather_in(100, (tapped(f, times, "scene-order", i % 2, i % 3 == 0)
                          for i, f in enumerate(followers)))
    store.second_round(lecturer.code, "scene-order")
    await gather_in(500, (f.wait() for f in followers))
    await gather_in(100, (tapped(f, times, "scene-order", 1) for f in followers))
    store.open_check(lecturer.code, "pre", [(f"Q{n}?", ["a", "b", "c", "d"], 0)
                                            for n in range(1, 7)])
    await gather_in(500, (f.wait() for f in followers))
    async def sit(i: int, student: Follower) -> None:  # one question after another
        for n in range(1, 7):
            await tapped(student, times, f"check-pre-{n}", (i + n) % 4)

    await gather_in(100, (sit(i, f) for i, f in enumerate(followers)))
    store.close_check(lecturer.code, "pre")
    await lecturer.show("lesson", scene="8", text="刚想到了")  # the predicted picture
    await gather_in(500, (f.wait() for f in followers))
    await gather_in(100, (tapped(f, times, "scene-causalpick", i % 4)
                          for i, f in enumerate(followers)))
    return times, cpu_seconds(pid) - used


def answering(loop: Loop, n: int) -> tuple[float, float, float, int]:
    """A class of n thinking aloud on a fresh server: p50 and p95 tap time (s), server CPU
    per answer (ms), and the number of answers."""
    folder = tempfile.mkdtemp()
    store_url = f"sqlite:///{folder}/rooms.sqlite3"
    with serving(env=server_env(store_url)) as (proc, url):
        lecturer, followers = loop.run(seat(url, store_url, n))
        times, server = loop.run(thinking(lecturer, followers, store_url, proc.pid))
        loop.run(close(lecturer, followers))
    times.sort()
    return (statistics.median(times), times[int(0.95 * (len(times) - 1))],
            1e3 * server / len(times), len(times))


async def close(lecturer: Lecturer, followers: list[Follower]) -> None:
    await asyncio.gather(lecturer.close(), *(f.close() for f in followers))


def server_env(store_url: str) -> dict[str, str]:
    return {"POSVIZ_ROOM_STORE": store_url, "POSVIZ_TRUSTED_PROXIES": "127.0.0.1"}


def measure(loop: Loop, n: int, pause: float, idle: float = 0.0) -> tuple[Walk, float]:
    """One class of n on a fresh server; with idle, also the server's share of a core while the
    class waits that long on an unchanged room."""
    folder = tempfile.mkdtemp()
    store_url = f"sqlite:///{folder}/rooms.sqlite3"
    with serving(env=server_env(store_url)) as (proc, url):
        empty = rss_mb(proc.pid)
        lecturer, followers = loop.run(seat(url, store_url, n))
        times, seconds, server, client, received = loop.run(
            walk(lecturer, followers, proc.pid, pause))
        full = rss_mb(proc.pid)
        share = loop.run(idle_share(followers, proc.pid, idle)) if idle else 0.0
        loop.run(close(lecturer, followers))
    times.sort()
    p50 = statistics.median(times) if times else 0.0
    p95 = times[int(0.95 * (len(times) - 1))] if times else 0.0
    return Walk(n, SCENES, p50, p95, seconds, server, client, received, full, empty), share


async def idle_share(followers: list[Follower], pid: int, seconds: float) -> float:
    """Followers waiting on an unchanged room: the server's share of one core."""
    waits = {asyncio.ensure_future(f.wait()): f for f in followers}
    await asyncio.sleep(1)
    start, used = time.monotonic(), cpu_seconds(pid)
    while time.monotonic() - start < seconds:
        done, _ = await asyncio.wait(waits, timeout=1)
        for finished in done:
            one = waits.pop(finished)
            waits[asyncio.ensure_future(one.wait())] = one
    share = (cpu_seconds(pid) - used) / (time.monotonic() - start)
    for wait in waits:
        wait.cancel()
    return share


def capacity(walks: list[Walk]) -> int:
    """The largest class held at p95 <= TARGET_P95, estimated between the sizes measured."""
    held = [w for w in walks if w.p95 <= TARGET_P95]
    if not held:
        return 0
    best = max(held, key=lambda w: w.students)
    bigger = [w for w in walks if w.students > best.students]
    if not bigger:
        return best.students  # the largest class measured: held, and maybe more
    nxt = min(bigger, key=lambda w: w.students)
    share = (TARGET_P95 - best.p95) / (nxt.p95 - best.p95)  # linear between the two
    return int(best.students + share * (nxt.students - best.students))


BEFORE_SCRIPT = """
import json, sys
from tests.class_benchmark import one_replica
from tests.helpers.room_fixtures import Loop
loop = Loop()
w = one_replica(loop, (int(sys.argv[1]),), float(sys.argv[2]))[0]
loop.close()
print("RESULT " + json.dumps(dict(p50=w.p50, p95=w.p95, server_cpu=w.server_cpu,
                                  students=w.students, moves=w.moves, seconds=w.seconds)))
"""


def commit_before() -> str:
    """The commit before the room's screen came in (the parent of the one adding ui/doc.py)."""
    added = subprocess.run(["git", "log", "--diff-filter=A", "--format=%H", "--", "ui/doc.py"],
                           cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    return subprocess.run(["git", "rev-parse", "--short", f"{added[-1]}^"], cwd=ROOT,
                          capture_output=True, text=True, check=True).stdout.strip()


def before(n: int, pause: float) -> dict:
    """The same class on the path before: a checkout of the commit before, its own benchmark."""
    with tempfile.TemporaryDirectory() as folder:
        tree = Path(folder) / "before"
        subprocess.run(["git", "worktree", "add", "--detach", str(tree), commit_before()],
                       cwd=ROOT, check=True, capture_output=True)
        try:
            env = os.environ | {"PYTHONPATH": str(tree)}
            done = subprocess.run([sys.executable, "-c", BEFORE_SCRIPT, str(n), str(pause)],
                                  cwd=tree, env=env, capture_output=True, text=True, check=True)
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT,
                           check=True, capture_output=True)
    line = next(x for x in done.stdout.splitlines() if x.startswith("RESULT "))
    return json.loads(line.removeprefix("RESULT "))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="two small classes, no comparison")
    parser.add_argument("--classes", help="class sizes, e.g. 100,500")
    parser.add_argument("--pause", type=float, default=2.0,
                        help="seconds the lecturer stays on a scene after everyone has it")
    parser.add_argument("--idle", type=float, default=30.0,
                        help="seconds the largest class waits on an unchanged room")
    parser.add_argument("--json", type=Path, help="keep the figures in this file")
    args = parser.parse_args()
    classes = tuple(int(n) for n in args.classes.split(",")) if args.classes else (
        (100, 250) if args.quick else CLASSES)
    loop = Loop()
    cores = os.cpu_count()
    print(f"cores: {cores} (the server and the followers' client share them)")
    empty, _ = measure(loop, 0, args.pause)
    print(f"1. one server process, nine of the guided lesson's scenes; the moves alone "
          f"(lecturer's runs, two renderings each): {empty.server_cpu / SCENES * 1e3:.0f} ms "
          f"CPU per move", flush=True)
    print("  | students | p50 (s) | p95 (s) | server CPU / follower / move (ms) | "
          "bytes / follower / move | MB / student | client CPU-s |")
    walks, idle = [], 0.0
    for n in classes:
        w, share = measure(loop, n, args.pause, args.idle if n == max(classes) else 0.0)
        walks.append(w)
        idle = share or idle
        print(f"  | {n:>8,} | {w.p50:7.2f} | {w.p95:7.2f} | {w.per_follower_ms(empty):33.2f} | "
              f"{w.bytes_per_move:23,.0f} | {w.mb_per_student:12.3f} | {w.client_cpu:12.1f} |",
              flush=True)
    held = capacity(walks)
    per_follower = statistics.median(w.per_follower_ms(empty) for w in walks)
    print(f"  held at p95 <= {TARGET_P95} s: {held:,} students"
          f"{' or more (the largest class measured)' if held == max(classes) else ''}; "
          f"median server CPU per follower per move {per_follower:.2f} ms")
    print(f"2. {max(classes):,} followers waiting {args.idle:.0f} s on an unchanged room: "
          f"{idle:.1%} of one core")
    per_core = held  # one server process: one Python thread does the room's work
    replicas = max(1, math.ceil(HALL / per_core)) if per_core else 0
    print("3. sizing: one server process serves its followers on one core "
          f"(p95 <= {TARGET_P95} s):")
    print(f"  students per core: {per_core:,}; {HALL:,} students: {replicas} server "
          f"process(es) on {replicas + (1 if replicas > 1 else 0)} cores"
          f"{' (one more for HAProxy and Redis)' if replicas > 1 else ''}")
    thought = answering(loop, THINKING)
    print(f"4. a class of {THINKING} answers with how sure, again in a second round, and the "
          f"six questions of the concept check, and taps a key of a predicted picture "
          f"({thought[3]:,} answers): tap to counted p50 "
          f"{thought[0]:.3f} s, p95 {thought[1]:.3f} s (the lecturer's tally shows it within "
          f"1 s more); server CPU {thought[2]:.2f} ms per answer", flush=True)
    compared = None
    if not args.quick:
        old = before(COMPARED, args.pause)
        new, _ = measure(loop, COMPARED, args.pause)
        old_ms = 1e3 * old["server_cpu"] / (old["students"] * old["moves"])
        new_ms = 1e3 * new.server_cpu / (new.students * new.moves)
        compared = dict(before=old, after=asdict(new), before_ms=old_ms, after_ms=new_ms)
        print(f"5. the same class of {COMPARED}, side by side (server CPU per follower per "
              f"move, the moves' own cost included; p95):")
        print(f"  before (every follower reruns the page, {commit_before()}): "
              f"{old_ms:6.2f} ms  p95 {old['p95']:5.2f} s")
        print(f"  the room's screen:                                      "
              f"{new_ms:6.2f} ms  p95 {new.p95:5.2f} s")
        print(f"  ratio: {old_ms / new_ms:.0f}x less server CPU per follower")
    loop.close()
    if args.json:
        args.json.write_text(json.dumps(dict(
            cores=cores, empty=asdict(empty), walks=[asdict(w) | dict(
                per_follower_ms=w.per_follower_ms(empty), bytes_per_move=w.bytes_per_move,
                mb_per_student=w.mb_per_student) for w in walks], held=held,
            idle_share=idle, thinking=dict(zip(("p50", "p95", "cpu_ms", "answers"), thought,
                                               strict=True)), compared=compared), indent=2))


if __name__ == "__main__":
    main()
