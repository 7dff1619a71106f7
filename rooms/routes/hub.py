"""The long-poll hub: one process's followers waiting on their rooms (`Hub`).

A follower's request is held until its room's version changes (at most WAIT seconds). One watcher
per process reads the versions of the rooms it has followers waiting on, every TICK seconds,
from the shared store (so a change made through another process reaches them too), and reports
who waits as present every REPORT seconds. What a follower is sent is made once per version and
language in this process (gzipped once) and the same bytes go to every follower: a follower
costs a request, never a page run.
"""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import json
import time
from collections.abc import Callable, Container
from dataclasses import dataclass, field

from rooms import config
from rooms.config import setting
from rooms.kept import Kept
from rooms.records import SECOND, Poll, Room
from rooms.routes.calls import StoreCalls
from rooms.rules import Rooms
from rooms.screens import Screens
from rooms.signing import Voter

REPORT = 5.0       # how often a process reports its waiting followers as present
WAIT = max(REPORT + 1, float(setting(config.WAIT, "25")))
"""Longest a follower's request is held (seconds): proxies commonly allow 60 or more; set it
lower behind one that cuts idle requests sooner. It outlasts REPORT, so that a waiting follower
is reported as present before its wait ends."""
TICK = 0.25        # how often a process reads the versions of rooms with waiting followers
KEPT_BYTES = 64 << 20  # bytes of made answers a process keeps (each made once per version)


@dataclass(frozen=True)
class Reply:
    """What every follower of a room in one language is sent for one version of the room."""

    version: int
    plain: bytes
    packed: bytes  # gzipped


def poll_state(rooms: Rooms, code: str, poll: Poll, ids: Container[str]) -> dict:
    """What a follower is told of a question: the round it is in (ids: the room's polls, a
    second round among them) and, once revealed, the right answer and each round's counts (a
    concept check's first sitting keeps its right answers to itself: the class sits it
    again)."""
    second = poll.id.endswith(SECOND) or poll.id + SECOND in ids
    state = {"revealed": poll.revealed, "round": 2 if second else 1, "correct": None,
             "counts": None}
    if poll.revealed and not poll.id.startswith("check-pre-"):
        split = rooms.split(code, poll.id)
        state |= {"correct": poll.correct, "counts": list(split.rounds[-1].counts),
                  "rounds": [list(t.counts) for t in split.rounds], "changed": split.changed}
    return state


@dataclass
class Hub:
    """One process's followers waiting on their rooms, and the rooms as it last read them."""

    calls: StoreCalls
    screens: Callable[[], Screens]  # the app's, asked for on first use
    known: dict[str, Room] = field(default_factory=dict)  # code -> the room as last read
    changed: dict[str, asyncio.Event] = field(default_factory=dict)
    waiting: dict[str, dict[str, int]] = field(default_factory=dict)  # code -> voter -> waits
    places: dict[str, dict[str, str]] = field(default_factory=dict)  # ... -> its network
    recent: dict[str, dict[str, str]] = field(default_factory=dict)  # seen since the report
    task: asyncio.Task | None = None
    replies: Kept[tuple[str, str], Reply] = field(default_factory=lambda: Kept(
        KEPT_BYTES, lambda reply: len(reply.plain) + len(reply.packed)))  # (code, lang)
    making: dict[tuple[str, str, int], asyncio.Future] = field(default_factory=dict)
    reading: dict[str, asyncio.Future] = field(default_factory=dict)  # code -> its read
    closing: bool = False  # the server is stopping: no wait is held any more

    async def reply(self, room: Room, lang: str) -> Reply:
        """The reply for the room as it is now, in lang: made once per version and language
        (the first follower to ask waits for it; the others wait on that one), then kept
        (KEPT_BYTES of them)."""
        kept = self.replies.get((room.code, lang))
        if kept is not None and kept.version == room.version:
            return kept
        key = (room.code, lang, room.version)
        job = self.making.get(key)
        if job is None:
            job = self.making[key] = asyncio.ensure_future(
                self.calls.run(lambda: self._make(room, lang)))
            job.add_done_callback(lambda _: self.making.pop(key, None))
        made = await asyncio.shield(job)
        self.replies.put((room.code, lang), made)
        return made

    def _make(self, room: Room, lang: str) -> Reply:
        head = {"version": room.version, "closed": room.closed, "page": room.page,
                "query": room.query, "app": room.app_open, "live": None, "polls": {}}
        doc = "[]"
        if not room.closed:
            rooms = self.calls.rooms
            polls = {poll.id: poll for poll in rooms.polls(room.code)}
            revealed = frozenset(poll_id for poll_id, poll in polls.items() if poll.revealed)
            doc, asked = self.screens().document(room.page, room.query, lang, revealed)
            sitting = [poll_id for poll_id in polls if room.live.startswith("check-")
                       and poll_id.startswith(room.live + "-")]
            for poll_id in {*asked, room.live, *sitting} & polls.keys():
                head["polls"][poll_id] = poll_state(rooms, room.code, polls[poll_id], polls)
            if room.live in polls:
                live = polls[room.live]
                head["live"] = {"id": live.id, "question": live.question,
                                "options": list(live.options)}
            elif sitting:
                head["live"] = {"id": room.live, "check": [
                    {"id": poll_id, "question": polls[poll_id].question,
                     "options": list(polls[poll_id].options)} for poll_id in sitting]}
            if head["live"] is not None:  # above the view, in one document
                asking = self.screens().live(head["live"], lang)
                doc = asking if doc == "[]" else f"{asking[:-1]},{doc[1:]}"
        plain = (json.dumps(head, ensure_ascii=False)[:-1] + f',"doc":{doc}}}').encode()
        return Reply(room.version, plain, gzip.compress(plain, 6))

    async def room(self, code: str) -> Room | None:
        """The room as this process last read it while followers wait on it (the watcher keeps
        that copy fresh), else as the store has it now (read once for every request asking at
        the same moment: a class arriving at once)."""
        if code not in self.known or code not in self.waiting:
            reading = self.reading.get(code)
            if reading is None:
                reading = self.reading[code] = asyncio.ensure_future(self.calls.room(code))
                reading.add_done_callback(lambda _: self.reading.pop(code, None))
            room = await asyncio.shield(reading)
            if room is None:
                self.known.pop(code, None)
                return None
            self.known[code] = room
        return self.known[code]

    async def refresh(self, code: str) -> None:
        """Read the room again and wake its waiting followers if it changed."""
        room = await self.calls.room(code)
        if room is None:
            self.known.pop(code, None)
        elif code in self.known and (self.known[code].version, self.known[code].closed) == (
                room.version, room.closed):
            return
        else:
            self.known[code] = room
        if code in self.changed:
            self.changed.pop(code).set()

    def following(self, code: str, voter: Voter) -> bool:
        """Whether voter's screen is waiting on the room in this process now."""
        return voter.token in self.waiting.get(code, ())

    def holding(self, code: str, voter: Voter) -> int:
        return self.waiting.get(code, {}).get(voter.token, 0)

    def close(self) -> None:
        """The server is stopping: every held wait is answered now (it would hold the
        shutdown up to WAIT seconds), and none is held from now on."""
        self.closing = True
        for event in self.changed.values():
            event.set()

    async def until_changed(self, code: str, voter: Voter | None, network: str,
                            gone: asyncio.Future) -> None:
        """Wait for the room to change, the request to be dropped, the server to stop, or WAIT
        seconds."""
        if self.closing:
            return
        event = self.changed.setdefault(code, asyncio.Event())
        who = self.waiting.setdefault(code, {})
        if voter:
            who[voter.token] = who.get(voter.token, 0) + 1
            self.places.setdefault(code, {})[voter.token] = network
            self.recent.setdefault(code, {})[voter.token] = network
        self._start()
        try:
            waiter = asyncio.ensure_future(event.wait())
            await asyncio.wait([waiter, gone], timeout=WAIT,
                               return_when=asyncio.FIRST_COMPLETED)
            waiter.cancel()
        finally:
            if voter:
                who[voter.token] -= 1
                if not who[voter.token]:
                    del who[voter.token]
                    self.places.get(code, {}).pop(voter.token, None)
            if not who:
                self.waiting.pop(code, None)
                self.places.pop(code, None)

    def _start(self) -> None:
        if self.task is None or self.task.done():
            self.task = asyncio.get_running_loop().create_task(self._watch())

    async def _watch(self) -> None:
        """Every TICK, compare versions of watched rooms; every REPORT, report who waits."""
        reported = time.monotonic()
        while self.waiting:
            await asyncio.sleep(TICK)
            codes = list(self.waiting)
            with contextlib.suppress(Exception):  # a store down for a moment: try next tick
                versions = await self.calls.versions(codes)
                for code in codes:
                    known = self.known.get(code)
                    if known is None or versions.get(code) != (known.version, known.closed):
                        await self.refresh(code)
                if time.monotonic() - reported >= REPORT:
                    reported = time.monotonic()
                    for code in codes:  # who waits now, and who came and went meanwhile
                        present = self.recent.pop(code, {}) | self.places.get(code, {})
                        await self.calls.seen(code, present)
        self.known.clear()  # nobody waits: the next follower reads afresh
        self.recent.clear()
