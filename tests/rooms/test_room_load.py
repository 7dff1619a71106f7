"""A room of 200 students on a real server, their phones on the room's screen spoken to as the
screen speaks (tests/helpers/room_fixtures.py's Follower): each votes once, the counts are exact;
and a restart of the server in the middle of the lecture loses nothing, with either store. What
followers cost the server is measured by `python -m tests.benchmarks.viewer_benchmark`."""

from __future__ import annotations

import asyncio

import pytest
import redis

from rooms import open_store
from tests.helpers.load_fixtures import (
    free_port,
    start_server,
    stop_server,
    wait_healthy,
)
from tests.helpers.room_fixtures import Follower, Lecturer, gather_in, ticket

pytestmark = pytest.mark.browser  # a real server (and the CI machine's redis-server)

CLASS = 200


class Room:
    """A server of our own, a lecturer and a class."""

    def __init__(self, store_url: str, port: int | None = None) -> None:
        self.store_url, self.port = store_url, port or free_port()
        self.store = open_store(store_url)
        self.code, self.key = self.store.create()
        self.proc = self.url = None
        self.lecturer: Lecturer | None = None
        self.students: list[Follower] = []

    def start(self) -> None:
        self.proc, self.url = start_server(env={"POSVIZ_ROOM_STORE": self.store_url},
                                           port=self.port)
        wait_healthy(self.proc, self.url)

    def stop(self) -> None:
        stop_server(self.proc)

    async def seat(self, n: int) -> None:
        """The lecturer opens the lesson's scene 4; n students open the room's screen."""
        self.lecturer = Lecturer(self.url, self.code, self.store.lead_link(self.code, self.key))
        await self.lecturer.connect()
        await self.lecturer.show("lesson", scene="4")
        self.students = [Follower(self.url, self.code) for _ in range(n)]
        await gather_in(20, (s.join(ticket(self.code)) for s in self.students))  # the QR code
        await gather_in(50, (s.wait() for s in self.students))


@pytest.fixture(scope="module")
def crowd(tmp_path_factory, loop):
    room = Room(f"sqlite:///{tmp_path_factory.mktemp('rooms') / 'rooms.sqlite3'}")
    room.start()
    try:
        loop.run(room.seat(CLASS))
        yield room
    finally:
        loop.run(close_all(room))
        room.stop()


async def close_all(room: Room) -> None:
    await asyncio.gather(*(s.close() for s in room.students),
                         *([room.lecturer.close()] if room.lecturer else []))


def test_every_student_follows_to_the_lecturers_scene(crowd):
    assert all(s.answer["page"] == "lesson" and "scene=4" in s.answer["query"]
               for s in crowd.students)
    assert len({s.me for s in crowd.students}) == CLASS  # one voter each


def test_two_hundred_students_vote_once_each_and_are_counted_exactly(crowd, loop):
    async def vote(i: int, student: Follower) -> None:
        assert await student.vote("scene-order", i % 2) == 200
        if i % 10 == 0:  # some change their minds: the second vote replaces the first
            assert await student.vote("scene-order", 1 - i % 2) == 200

    loop.run(gather_in(25, (vote(i, s) for i, s in enumerate(crowd.students))))
    final = [1 - i % 2 if i % 10 == 0 else i % 2 for i in range(CLASS)]
    assert crowd.store.counts(crowd.code, "scene-order") == [final.count(0), final.count(1)]
    assert [final.count(0), final.count(1)] == [80, 120]
    assert len(crowd.store.answers(crowd.code)) == CLASS  # one answer per student


@pytest.mark.parametrize("backend", ["sqlite", "redis"])
def test_a_server_restart_in_the_middle_of_a_room_loses_nothing(backend, request, tmp_path,
                                                              loop):
    if backend == "redis":
        url = request.getfixturevalue("redis_url")
        redis.Redis.from_url(url).flushdb()
    else:
        url = f"sqlite:///{tmp_path / 'rooms.sqlite3'}"
    room = Room(url)
    room.start()

    async def before() -> None:
        await room.seat(20)
        await gather_in(20, (s.vote("scene-order", i % 2) for i, s in enumerate(room.students)))

    async def after() -> None:
        await room.lecturer.connect()  # the tabs reconnect to the new server
        await room.lecturer.show("lesson", scene="4")  # still the lecturer: the key's cookie
        for student in room.students:  # the screens' connections to the old server are gone
            await student.http.close()
        before = [s.version for s in room.students]
        await room.lecturer.show("rope", rope_pair="5")  # the class follows again
        await gather_in(20, (s.wait() for s in room.students))
        assert all(s.answer["page"] == "rope" and s.version > v
                   for s, v in zip(room.students, before, strict=True))
        # each vote is still its student's: a second one replaces it, never adds
        await gather_in(20, (s.vote("scene-order", 1 - i % 2)
                             for i, s in enumerate(room.students)))
        assert room.store.counts(room.code, "scene-order") == [10, 10]
        assert len(room.store.answers(room.code)) == 20

    try:
        loop.run(before())
        kept = room.store.room(room.code)
        room.stop()
        room.start()  # the same port, as a restarted service
        assert room.store.room(room.code) == kept
        assert room.store.counts(room.code, "scene-order") == [10, 10]
        loop.run(after())
    finally:
        loop.run(close_all(room))
        room.stop()
    assert room.store.holds_key(room.code, room.key)
