"""A class's load, measured: `python -m tests.class_benchmark [--quick] [--json PATH]`.

A lecturer walks through the guided lesson's nine scenes, one every few seconds, and a room of
students follows: protocol-level students (tests/room_fixtures.py) who wait on the room's route
and rerun each new view as their browsers would. A follower's page time is from the lecturer's
publishing of a scene to that follower's run of it finished.

Prints, with the cores used:
1. one replica (one server process) at growing class sizes: p95 page time per move, server CPU
   and resident memory per student, the cost of one follower update; the largest class it holds
   at p95 <= 1.5 s; what 200 followers waiting on an unchanged room cost it for a minute;
2. from these, a sizing table: replicas and cores for 50, 200, 500 and 5,000 students;
3. one replica against two behind HAProxy (`python -m deploy.up`), the same room: follower
   updates per second and p95 page time of each, and their ratio.

The students' client runs on the same machine as the servers and takes CPU of its own: its share
is printed beside the servers'. Not a test (pytest does not collect it): the figures depend on
the machine and its load.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import statistics
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from posviz.rooms import open_store
from tests.load_fixtures import cpu_seconds, rss_mb, serving
from tests.room_fixtures import Lecturer, Loop, Student, deployment

SCENES = 9
TARGET_P95 = 1.5   # seconds: the page time a class should see
CLASSES = (25, 50, 100, 150, 200)
SIZES = (50, 200, 500, 5000)
IDLE_CLASS, IDLE_SECONDS = 200, 60
IDLE_TARGET = 0.20  # of one core, for a whole class waiting on an unchanged room


@dataclass
class Walk:
    """One walk of the lesson by a room of `students`."""

    students: int
    moves: int
    p50: float
    p95: float
    seconds: float          # wall time of the moves
    server_cpu: float       # CPU-s of every server process during the moves
    client_cpu: float       # CPU-s of this process (the students' client) during the moves
    rss_mb: float           # resident memory of the servers with the class in
    rss_empty_mb: float     # ... before the class came in
    updates_per_s: float    # follower runs finished per second of moving

    @property
    def update_ms(self) -> float:
        return 1e3 * self.server_cpu / (self.students * self.moves)


async def seat(url: str, store_url: str, n: int) -> tuple[Lecturer, list[Student]]:
    store = open_store(store_url)
    code, key = store.create()
    lecturer = Lecturer(url, code, key)
    await lecturer.connect()
    await lecturer.show("lesson", scene="1")
    students = [Student(url, code) for _ in range(n)]
    for first in range(0, n, 20):
        await asyncio.gather(*(s.join() for s in students[first:first + 20]))
    await asyncio.gather(*(follow(s) for s in students))
    return lecturer, students


async def follow(student: Student) -> None:
    await student.follow(await student.wait())


async def walk(lecturer: Lecturer, students: list[Student], pids: list[int],
               pause: float) -> tuple[list[float], float, float, float]:
    """The lecturer shows scenes 2..9 and back to 1; returns every follower's page time, and
    the wall time, server CPU and client CPU of the moves."""
    times: list[float] = []
    used, mine, start = sum(map(cpu_seconds, pids)), os.times(), time.monotonic()
    for scene in [*range(2, SCENES + 1), 1]:
        waits = [asyncio.ensure_future(s.wait()) for s in students]
        await asyncio.sleep(0.2)
        await lecturer.show("lesson", scene=str(scene))
        shown = time.monotonic()

        await asyncio.gather(*(timed(s, w, shown, times)
                               for s, w in zip(students, waits, strict=True)))
        await asyncio.sleep(pause)
    now = os.times()
    return (times, time.monotonic() - start, sum(map(cpu_seconds, pids)) - used,
            (now.user + now.system) - (mine.user + mine.system))


async def close(lecturer: Lecturer, students: list[Student]) -> None:
    await asyncio.gather(lecturer.close(), *(s.close() for s in students))


async def timed(student: Student, wait, shown: float, times: list[float]) -> None:
    """The follower goes where its wait says; its page time goes into times."""
    await student.follow(await wait)
    times.append(time.monotonic() - shown)


def measure(loop: Loop, url: str, store_url: str, pids: list[int], n: int,
            pause: float) -> Walk:
    empty = sum(map(rss_mb, pids))
    lecturer, students = loop.run(seat(url, store_url, n))
    times, seconds, server, client = loop.run(walk(lecturer, students, pids, pause))
    full = sum(map(rss_mb, pids))
    loop.run(close(lecturer, students))
    times.sort()
    moves = SCENES
    return Walk(n, moves, statistics.median(times), times[int(0.95 * (len(times) - 1))],
                seconds, server, client, full, empty,
                n * moves / (seconds - moves * (pause + 0.2)))


async def idle(students: list[Student], pid: int, seconds: float) -> tuple[float, int]:
    """Followers waiting on an unchanged room for `seconds`: the server's share of one core, and
    how many waits it answered (each is renewed after the route's hold, 25 s)."""
    waits = {asyncio.ensure_future(s.wait()): s for s in students}
    renewed = 0
    await asyncio.sleep(1)
    start, used = time.monotonic(), cpu_seconds(pid)
    while time.monotonic() - start < seconds:
        done, _ = await asyncio.wait(waits, timeout=1)
        for finished in done:
            student = waits.pop(finished)
            waits[asyncio.ensure_future(student.wait())] = student
            renewed += 1
    share = (cpu_seconds(pid) - used) / (time.monotonic() - start)
    for wait in waits:
        wait.cancel()
    return share, renewed


def idle_cost(loop: Loop, n: int, seconds: float) -> tuple[float, int]:
    folder = tempfile.mkdtemp()
    store_url = f"sqlite:///{folder}/rooms.sqlite3"
    with serving(env={"POSVIZ_ROOM_STORE": store_url}) as (proc, url):
        lecturer, students = loop.run(seat(url, store_url, n))
        share, renewed = loop.run(idle(students, proc.pid, seconds))
        loop.run(close(lecturer, students))
    return share, renewed


def one_replica(loop: Loop, classes: tuple[int, ...], pause: float) -> list[Walk]:
    walks = []
    for n in classes:
        folder = tempfile.mkdtemp()
        store_url = f"sqlite:///{folder}/rooms.sqlite3"
        with serving(env={"POSVIZ_ROOM_STORE": store_url}) as (proc, url):
            walks.append(measure(loop, url, store_url, [proc.pid], n, pause))
        w = walks[-1]
        print(f"  1 replica, {n:4d} students: p50 {w.p50:5.2f} s  p95 {w.p95:5.2f} s  "
              f"update {w.update_ms:5.1f} ms CPU  rss {w.rss_mb:5.0f} MB", flush=True)
    return walks


def behind_proxy(loop: Loop, replicas: int, n: int, pause: float) -> Walk:
    with tempfile.TemporaryDirectory() as folder, deployment(Path(folder), replicas) as up:
        store_url = up.store_url()
        pids = [up.pid(port) for port in up.ports]
        return measure(loop, up.url, store_url, pids, n, pause)


def capacity(walks: list[Walk]) -> int:
    """The largest class held at p95 <= TARGET_P95, estimated between the sizes measured: page
    time grows about linearly with the class (every follower's run queues on one core)."""
    held = [w for w in walks if w.p95 <= TARGET_P95]
    if not held:
        return 0
    best = max(held, key=lambda w: w.students)
    return int(best.students * TARGET_P95 / best.p95)


def sizing(per_replica: int, per_student_mb: float, base_mb: float) -> list[dict]:
    """Replicas (one core each, one Python process per core) for a class of each size."""
    rows = []
    for students in SIZES:
        replicas = max(1, math.ceil(students / per_replica))
        rows.append(dict(students=students, replicas=replicas, cores=replicas + (
            1 if replicas > 1 else 0), memory_gb=round(
                (replicas * base_mb + students * per_student_mb) / 1024, 1)))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer and smaller classes")
    parser.add_argument("--pause", type=float, default=2.0,
                        help="seconds the lecturer stays on a scene after everyone has it")
    parser.add_argument("--json", type=Path, help="keep the figures in this file")
    args = parser.parse_args()
    classes = (25, 50, 100) if args.quick else CLASSES
    compared = 60 if args.quick else 150
    loop = Loop()
    print(f"cores: {os.cpu_count()} (servers, proxy, Redis and the students' client share them)")
    print("1. one replica, the guided lesson's nine scenes:", flush=True)
    walks = one_replica(loop, classes, args.pause)
    per_replica = capacity(walks)
    biggest = walks[-1]
    per_student = (biggest.rss_mb - biggest.rss_empty_mb) / biggest.students
    print(f"  held at p95 <= {TARGET_P95} s: about {per_replica} students per replica; "
          f"{per_student:.2f} MB and "
          f"{biggest.server_cpu / biggest.students:.3f} CPU-s per student for the walk; "
          f"one follower update {statistics.median(w.update_ms for w in walks):.1f} ms CPU")
    table = sizing(per_replica, per_student, biggest.rss_empty_mb)
    print("2. sizing (one core per replica, plus one for HAProxy and Redis past one replica):")
    print("  | students | replicas | cores | memory (GB) |")
    for row in table:
        print(f"  | {row['students']:>8,} | {row['replicas']:>8} | {row['cores']:>5} | "
              f"{row['memory_gb']:>11} |")
    idle_class, idle_seconds = (50, 30) if args.quick else (IDLE_CLASS, IDLE_SECONDS)
    share, renewed = idle_cost(loop, idle_class, idle_seconds)
    print(f"  {idle_class} idle followers for {idle_seconds} s: {share:.1%} of one core "
          f"(target {IDLE_TARGET:.0%}), {renewed} waits renewed", flush=True)
    print(f"3. the same room of {compared} students, behind HAProxy:", flush=True)
    compare = {}
    for replicas in (1, 2):
        w = behind_proxy(loop, replicas, compared, args.pause)
        compare[replicas] = w
        print(f"  {replicas} replica(s): {w.updates_per_s:6.1f} updates/s  p50 {w.p50:5.2f} s  "
              f"p95 {w.p95:5.2f} s  servers {w.server_cpu:5.1f} CPU-s  "
              f"client {w.client_cpu:5.1f} CPU-s over {w.seconds:5.1f} s", flush=True)
    ratio = compare[2].updates_per_s / compare[1].updates_per_s
    print(f"  throughput 2 vs 1 replica: {ratio:.2f}x on {os.cpu_count()} cores "
          f"(the students' client uses the same cores)")
    loop.close()
    if args.json:
        args.json.write_text(json.dumps(dict(
            cores=os.cpu_count(), one_replica=[asdict(w) | {"update_ms": w.update_ms}
                                              for w in walks],
            per_replica=per_replica, sizing=table, idle=dict(
                students=idle_class, seconds=idle_seconds, core_share=share, renewed=renewed),
            proxy={k: asdict(w) for k, w in compare.items()}, ratio=ratio), indent=2))


if __name__ == "__main__":
    main()
