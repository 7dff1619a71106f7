"""A room of 200 students on a real server, their phones on the room's screen spoken to as the
screen speaks (tests/helpers/room_fixtures.py's Follower): each votes once, the counts are exact;
and a restart of the server in the middle of the lecture loses nothing, with either store. What
followers cost the server is measured by `python -m tests.benchmarks.viewer_benchmark`."""

from __future__ import annotations

import asyncio

import pytest
import redis

from rooms import open_rooms
from tests.helpers.load_fixtures import (
    free_port,
    start_server,
    stop_server,
    wait_healthy,
)
from tests.helpers.room_fixtures import Follower, Lecturer, Student, gather_in, ticket

pytestmark = pytest.mark.browser  # a real server (and the CI machine's redis-server)

CLASS = 200


class Room:
    """A server of our own, a lecturer and a class."""

    def __init__(self, store_url: str, port: int | None = None) -> None:
        self.store_url, self.port = store_url, port or free_port()
        self.store = open_rooms(store_url)
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


def test_the_screens_show_the_second_round_and_the_check_and_keep_pre_answers_hidden(crowd,
                                                                                       loop):
    """After the vote above: how sure goes with an answer (anything but yes, no or nothing is
    refused), the second round reaches every screen and counts apart, the reveal sends both
    rounds; the concept check reaches every screen whole, and its first sitting, once ended,
    tells no one its right answers."""
    store, code, students = crowd.store, crowd.code, crowd.students[:3]
    first = students[0]
    assert loop.run(first.vote("scene-order", 0, sure="yes")) == 400
    store.second_round(code, "scene-order")
    loop.run(gather_in(3, (s.wait() for s in students)))
    assert first.answer["polls"]["scene-order"] == {
        "revealed": False, "round": 2, "correct": None, "counts": None}
    assert loop.run(first.vote("scene-order", 0, sure=True)) == 200
    assert store.split(code, "scene-order").rounds[1].sure == (1, 0)
    store.reveal(code, "scene-order", correct=1)
    loop.run(gather_in(3, (s.wait() for s in students)))
    state = first.answer["polls"]["scene-order"]
    assert state["rounds"] == [[80, 120], [1, 0]] and state["counts"] == [1, 0]
    assert state["correct"] == 1 and state["changed"] == 1  # the first student: B, then A

    store.open_check(code, "pre", [("One?", ["a", "b"], 1), ("Two?", ["c", "d"], 0)])
    loop.run(gather_in(3, (s.wait() for s in students)))
    assert [q["id"] for q in first.answer["live"]["check"]] == ["check-pre-1", "check-pre-2"]
    assert first.answer["live"]["check"][1]["options"] == ["c", "d"]
    assert loop.run(first.vote("check-pre-2", 0)) == 200
    store.close_check(code, "pre")
    loop.run(gather_in(3, (s.wait() for s in students)))
    assert first.answer["live"] is None
    assert store.sitters(code, "pre") == 1


def test_a_student_exploring_the_app_answers_each_round_and_says_how_sure(crowd, loop):
    """The app's own answer buttons (a student who explores instead of following): the answer
    goes to the round the question is in, with how sure."""
    store, code = crowd.store, crowd.code
    store.lesson_poll(code, "leak", "Q?", ["a", "b", "c", "d"])
    student = Student(crowd.url, code, lang="en")

    async def answer() -> None:
        await student.join(ticket(code))
        await student.wander("lesson", scene="9", follow="false")
        await student.vote("scene-leak", 2)
        await student.say_sure("scene-leak", False)
        store.second_round(code, "scene-leak")
        await student.wander("lesson", scene="9", follow="false")
        await student.vote("scene-leak.2", 3)  # the buttons of round 2
        await student.say_sure("scene-leak.2", True)

    try:
        loop.run(answer())
    finally:
        loop.run(student.close())
    split = store.split(code, "scene-leak")
    assert [t.counts for t in split.rounds] == [(0, 0, 1, 0), (0, 0, 0, 1)]
    assert split.rounds[0].guessing == (0, 0, 1, 0) and split.rounds[1].sure == (0, 0, 0, 1)
    assert split.moves == ((2, 3, 1),)


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
        await gather_in(20, (s.vote("scene-order", i % 2, sure=i % 3 == 0 or None)
                             for i, s in enumerate(room.students)))
        room.store.open_check(room.code, "pre", [("Q?", ["a", "b", "c", "d"], 1)])  # a check
        await gather_in(20, (s.vote("check-pre-1", i % 4) for i, s in enumerate(room.students)))
        room.store.close_check(room.code, "pre")
        room.store.lesson_poll(room.code, "leak", "Q?", ["a", "b", "c", "d"])  # two rounds
        await gather_in(20, (s.vote("scene-leak", i % 4) for i, s in enumerate(room.students)))
        room.store.second_round(room.code, "scene-leak")
        await gather_in(20, (s.vote("scene-leak", 3, sure=False) for s in room.students[:5]))

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
        assert len(room.store.answers(room.code)) == 20 + 20 + 20 + 5

    try:
        loop.run(before())
        kept = room.store.room(room.code)
        thought = [room.store.split(room.code, poll) for poll in ("scene-order", "scene-leak",
                                                                   "check-pre-1")]
        assert thought[0].rounds[0].sure == (4, 3) and thought[1].both == 5
        room.stop()
        room.start()  # the same port, as a restarted service
        assert room.store.room(room.code) == kept
        assert room.store.counts(room.code, "scene-order") == [10, 10]
        assert [room.store.split(room.code, poll) for poll in (
            "scene-order", "scene-leak", "check-pre-1")] == thought
        loop.run(after())
    finally:
        loop.run(close_all(room))
        room.stop()
    assert room.store.holds_key(room.code, room.key)
