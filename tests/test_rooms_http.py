"""The room's two HTTP routes on a real server: waiting followers, the lecturer's publishing, and
everything a hostile client may send them."""

from __future__ import annotations

import asyncio
import time
from urllib.parse import quote

import pytest

from posviz.rooms import open_store
from posviz.rooms.http import REPORT, TICK, WAIT
from tests.hostile import HOSTILE
from tests.load_fixtures import serving
from tests.room_fixtures import Http

pytestmark = pytest.mark.browser  # a real server


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """A server and the store it uses (the test reaches the store directly, as another server
    process sharing it would)."""
    url = f"sqlite:///{tmp_path_factory.mktemp('rooms') / 'rooms.sqlite3'}"
    with serving(env={"POSVIZ_ROOM_STORE": url}) as (_, base):
        yield base, open_store(url)


def ask(loop, base: str, method: str, path: str, body: object = None):
    async def one():
        http = Http(base)
        try:
            return await http.request(method, path, body)
        finally:
            await http.close()
    return loop.run(one())


def test_a_follower_gets_the_room_at_once_when_its_version_is_old(site, loop):
    base, store = site
    code, _ = store.create()
    store.set_view(code, "rope", "rope_pair=3")
    status, room = ask(loop, base, "GET", f"/_posviz/room/{code}?v=-1")
    assert status == 200
    assert room == {"version": 2, "closed": False, "page": "rope", "query": "rope_pair=3",
                    "live": ""}


def test_a_waiting_follower_wakes_when_the_lecturer_publishes(site, loop):
    base, store = site
    code, key = store.create()

    async def wait_and_publish():
        follower, lecturer = Http(base), Http(base)
        waiting = asyncio.ensure_future(follower.request(
            "GET", f"/_posviz/room/{code}?v=1&me=student-0001"))
        await asyncio.sleep(0.5)
        assert not waiting.done()  # held: nothing changed yet
        start = time.monotonic()
        published = await lecturer.request("POST", f"/_posviz/room/{code}/view",
                                           {"key": key, "page": "alibi", "query": "x=1"})
        answer = await waiting
        await follower.close()
        await lecturer.close()
        return published, answer, time.monotonic() - start

    published, (status, room), took = loop.run(wait_and_publish())
    assert published == (200, {"version": 2}) and status == 200
    assert (room["version"], room["page"], room["query"]) == (2, "alibi", "x=1")
    assert took < 1.0


def test_a_change_made_through_another_process_reaches_waiting_followers(site, loop):
    base, store = site
    code, _ = store.create()

    async def wait_for_other_process():
        follower = Http(base)
        waiting = asyncio.ensure_future(follower.request("GET", f"/_posviz/room/{code}?v=1"))
        await asyncio.sleep(0.5)
        start = time.monotonic()
        await asyncio.to_thread(store.ask, code, "Which?", ["a", "b"])  # another server
        answer = await waiting
        await follower.close()
        return answer, time.monotonic() - start

    (status, room), took = loop.run(wait_for_other_process())
    assert status == 200 and room["live"] == "q1" and room["version"] == 2
    assert took < TICK + 1.0


def test_waiting_followers_are_counted_as_present(site, loop):
    base, store = site
    code, _ = store.create()

    async def three_wait():
        followers = [Http(base) for _ in range(3)]
        waits = [asyncio.ensure_future(f.request(
            "GET", f"/_posviz/room/{code}?v=1&me=student-{i:04d}"))
            for i, f in enumerate(followers)]
        await asyncio.sleep(REPORT + 2 * TICK + 0.5)
        count = await asyncio.to_thread(store.headcount, code)
        for wait in waits:
            wait.cancel()
        for follower in followers:
            await follower.close()
        return count

    assert loop.run(three_wait()) == 3
    assert WAIT > REPORT  # a follower renews its wait before it stops counting as present


def test_a_held_wait_ends_with_the_same_version_and_the_follower_stays_present(site, loop):
    """An idle follower's wait is answered after the longest hold with the room unchanged, and
    the follower, renewing it, is still counted as present."""
    base, store = site
    code, _ = store.create()

    async def wait_it_out():
        follower = Http(base)
        try:
            start = time.monotonic()
            status, room = await follower.request(
                "GET", f"/_posviz/room/{code}?v=1&me=student-0001")
            held = time.monotonic() - start
            renewed = asyncio.ensure_future(follower.request(
                "GET", f"/_posviz/room/{code}?v=1&me=student-0001"))
            await asyncio.sleep(REPORT + 2 * TICK + 0.5)
            present = await asyncio.to_thread(store.headcount, code)
            renewed.cancel()
            return status, room["version"], held, present
        finally:
            await follower.close()

    status, version, held, present = loop.run(wait_it_out())
    assert status == 200 and version == 1  # nothing changed: the same version
    assert WAIT - 1 <= held <= WAIT + 5
    assert present == 1


def test_a_closed_room_answers_at_once_and_takes_no_view(site, loop):
    base, store = site
    code, key = store.create()
    store.close(code)
    status, room = ask(loop, base, "GET", f"/_posviz/room/{code}?v=2")
    assert status == 200 and room["closed"]
    status, refused = ask(loop, base, "POST", f"/_posviz/room/{code}/view",
                          {"key": key, "page": "", "query": ""})
    assert (status, refused) == (409, {"error": "room_closed"})


@pytest.mark.parametrize(("body", "status", "error"), [
    ({"key": "not-the-key-at-all", "page": "rope", "query": ""}, 403, "not_lecturer"),
    ({"page": "rope", "query": ""}, 400, "bad_request"),
    ("just a string", 400, "bad_request"),
    ({"key": None, "page": "rope", "query": ""}, 403, "not_lecturer"),
    ({"key": "KEY", "page": "../../etc", "query": ""}, 400, "bad_view"),
    ({"key": "KEY", "page": "rope", "query": "a=" + "x" * 9000}, 400, "view_too_long"),
    ({"key": "KEY", "page": "rope", "query": "x" * 20_000}, 400, "bad_request"),
    ({"key": "KEY", "page": ["rope"], "query": ""}, 400, "bad_view")])
def test_the_view_route_refuses_what_is_not_a_lecturers_view(site, loop, body, status, error):
    base, store = site
    code, key = store.create()
    if isinstance(body, dict) and body.get("key") == "KEY":
        body = body | {"key": key}
    answer = ask(loop, base, "POST", f"/_posviz/room/{code}/view", body)
    assert answer == (status, {"error": error})
    assert store.room(code).version == 1


@pytest.mark.parametrize("raw", HOSTILE)
def test_every_hostile_code_in_the_route_is_refused_cleanly(site, loop, raw):
    base, _ = site
    path = quote(raw[:200], safe="")
    status, answer = ask(loop, base, "GET", f"/_posviz/room/{path}?v=x&me={path}")
    moved = (301, 307)  # an empty code: the route's path ends in "/", redirected
    # a "/" in the code makes another path: the app's own page answers it (HTML, no JSON)
    assert status in (400, 404, *moved) or (status == 200 and (answer is None
                                                                or "version" in answer))
    status, answer = ask(loop, base, "POST", f"/_posviz/room/{path}/view",
                         {"key": raw, "page": raw, "query": raw})
    assert status in (400, 403, 404, 405, *moved) or (status == 200 and answer is None)
