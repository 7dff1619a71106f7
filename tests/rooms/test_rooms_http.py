"""The room's HTTP routes on a real server, with each store: waiting followers, the lecturer's
publishing, and what a scripted class may throw at them (forged ids, floods of rooms and codes,
huge or nested bodies, every hostile text). Every client speaks from an address of its own on
this machine's loopback network (127.x.y.z), as the phones of a class and a student's script
do; the server believes X-Forwarded-For from one address only (PROXY, as from a proxy in front
of it), and from no client."""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote, urljoin, urlsplit

import pytest
import redis

from rooms import (
    CODE_VOTES,
    HOLDER_COOKIE,
    JOINED_COOKIE,
    LECTURER_COOKIE,
    VOTER_COOKIE,
    Rate,
    key_cookie,
    lead_cookie,
    open_rooms,
    signing,
)
from rooms.export import answers_csv, spreadsheet_cell
from rooms.routes.arrival import MAX_BODY
from rooms.routes.follow import HELD_PER_VOTER
from rooms.routes.hub import REPORT, TICK
from rooms.throttle import FIRST_WORD, GUESSED_SHOWN, MINTS, WORD_MINTS, WORDS, WRONG
from tests.helpers.hostile import HOSTILE
from tests.helpers.load_fixtures import rss_mb, serving, session
from tests.helpers.room_fixtures import Follower, Http, room_element, ticket, widgets
from ui.i18n import text

pytestmark = pytest.mark.server  # real servers of its own, beside the browser tests

_ADDRESSES = itertools.count(1)
HELD = REPORT + 3  # how long these servers hold a follower's request (POSVIZ_ROOM_WAIT)
PROXY = "127.0.0.9"  # the one address these servers believe X-Forwarded-For from


def address() -> str:
    """A loopback address (127.x.y.z) no other client of the run has used: another phone, or
    another student's laptop."""
    n = next(_ADDRESSES)
    return f"127.{1 + (n >> 16 & 127)}.{n >> 8 & 255}.{n & 255 or 1}"


@dataclass
class Site:
    base: str
    url: str
    store: object
    pid: int
    log: Path


@pytest.fixture(scope="module", params=["sqlite", "redis"])
def site(request, tmp_path_factory):
    """A server, its store (reached directly, as another server process sharing it would), and
    its log."""
    folder = tmp_path_factory.mktemp(f"rooms-{request.param}")
    if request.param == "sqlite":
        url = f"sqlite:///{folder / 'rooms.sqlite3'}"
    else:
        url = request.getfixturevalue("redis_url").rsplit("/", 1)[0] + "/5"
        redis.Redis.from_url(url).flushdb()
    log = folder / "server.log"
    env = {"POSVIZ_ROOM_STORE": url, "POSVIZ_ROOM_WAIT": str(HELD),
           "POSVIZ_TRUSTED_PROXIES": PROXY}
    with serving(env=env, log=log) as (proc, base):
        yield Site(base, url, open_rooms(url), proc.pid, log)


def call(loop, site: Site, method: str, path: str, body: object = None, *,
         cookies: dict[str, str] | None = None, by: str | None = None,
         headers: dict[str, str] | None = None) -> tuple[int, dict | None, dict[str, str]]:
    """One request from address by (a fresh one when None): status, JSON answer, headers."""
    async def one():
        http = Http(site.base, dict(cookies or {}), headers, source=by or address())
        try:
            status, answer = await http.request(method, path, body)
            return status, answer, http.headers
        finally:
            await http.close()
    return loop.run(one())


def lead(loop, site: Site, code: str, key: str, by: str) -> dict[str, str]:
    """The lecturer's browser hands the key over once; returns its cookies."""
    status, _, headers = call(loop, site, "POST", f"/_posviz/room/{code}/lead", {"key": key},
                              by=by)
    assert status == 204
    name, _, value = headers["set-cookie"].split(";")[0].partition("=")
    return {name: value}


def test_a_follower_gets_the_room_at_once_when_its_version_is_old(site, loop):
    code, _ = site.store.create()
    site.store.set_view(code, "rope", "rope_pair=3")
    status, room, _ = call(loop, site, "GET", f"/_posviz/room/{code}?v=-1")
    assert status == 200
    doc = room.pop("doc")
    assert room == {"version": 2, "closed": False, "page": "rope", "query": "rope_pair=3",
                    "app": False, "live": None, "polls": {}}
    assert doc[0] == {"t": "heading", "level": 1, "text": text("rope.title", "en"),
                      "anchor": None}
    assert {"t": "setting", "label": text("rope.pair", "en"), "value": "3"} in [
        block for row in doc if row["t"] == "columns" for column in row["columns"]
        for block in column]


def test_a_waiting_follower_wakes_when_the_lecturer_publishes(site, loop):
    code, key = site.store.create()
    laptop = address()
    cookies = lead(loop, site, code, key, laptop)

    async def wait_and_publish():
        follower = Http(site.base, {VOTER_COOKIE: site.store.new_voter(code, True)},
                        source=address())
        lecturer = Http(site.base, cookies, source=laptop)
        waiting = asyncio.ensure_future(follower.request("GET", f"/_posviz/room/{code}?v=1"))
        await asyncio.sleep(0.5)
        assert not waiting.done()  # held: nothing changed yet
        start = time.monotonic()
        published = await lecturer.request("POST", f"/_posviz/room/{code}/view",
                                            {"page": "alibi", "query": "x=1"})
        answer = await waiting
        await follower.close()
        await lecturer.close()
        return published, answer, time.monotonic() - start

    published, (status, room), took = loop.run(wait_and_publish())
    assert published == (200, {"version": 2}) and status == 200
    assert (room["version"], room["page"], room["query"]) == (2, "alibi", "x=1")
    assert took < HELD / 2  # woken by the publication, not by the end of its wait


def test_a_change_made_through_another_process_reaches_waiting_followers(site, loop):
    code, _ = site.store.create()

    async def wait_for_other_process():
        follower = Http(site.base, source=address())
        waiting = asyncio.ensure_future(follower.request("GET", f"/_posviz/room/{code}?v=1"))
        await asyncio.sleep(0.5)
        start = time.monotonic()
        await asyncio.to_thread(site.store.ask, code, "Which?", ["a", "b"])  # another server
        answer = await waiting
        await follower.close()
        return answer, time.monotonic() - start

    (status, room), took = loop.run(wait_for_other_process())
    assert status == 200 and room["live"] == {"id": "q1", "question": "Which?",
                                              "options": ["a", "b"]}
    assert room["version"] == 2
    assert took < HELD / 2  # woken by the change, read on a tick, not by the end of its wait


async def _waiting(site: Site, code: str, ids: list[str], by: str
                   ) -> list[tuple[Http, asyncio.Future]]:
    """Followers holding a wait on the room, one per id, and their waits."""
    followers = [Http(site.base, {VOTER_COOKIE: me}, source=by) for me in ids]
    version = site.store.room(code).version
    return [(follower, asyncio.ensure_future(follower.request(
        "GET", f"/_posviz/room/{code}?v={version}"))) for follower in followers]


async def _dropped(followers: list[tuple[Http, asyncio.Future]]) -> None:
    """The followers go away (their tabs closed)."""
    for follower, wait in followers:
        wait.cancel()
        await follower.close()


def test_the_id_flood_fills_neither_the_voters_nor_the_connected_count(site, loop):
    """1,500 follow requests with invented ids, each held a moment, from one script; two real
    students waiting meanwhile are the only ones counted, and a late student's vote counts."""
    code, _ = site.store.create()
    poll = site.store.ask(code, "Which?", ["a", "b"])
    script = address()

    async def flood_then_count():
        real = await _waiting(site, code, [site.store.new_voter(code, True) for _ in range(2)],
                              address())
        for _ in range(10):
            forged = await _waiting(site, code, [
                f"{code}.1900000000.p.{i:016d}.{'A' * 22}" for i in range(150)], script)
            await asyncio.sleep(0.05)
            await _dropped(forged)
        await asyncio.sleep(REPORT + 4 * TICK + 0.5)
        count = await asyncio.to_thread(site.store.headcount, code)
        await _dropped(real)
        return count

    assert loop.run(flood_then_count()) == 2
    late = site.store.new_voter(code, True)
    site.store.vote(code, poll.id, late, 1)
    assert site.store.voters(code) == 1
    rows = answers_csv(site.store, code).splitlines()[1:]  # the lecturer's download
    # a voter id starting with "-" is guarded against spreadsheet formulas, as any cell
    late_id = site.store.voter(code, late).id
    assert [row.split(",")[4:6] for row in rows] == [[spreadsheet_cell(late_id), "B"]]


@pytest.mark.parametrize("site", ["sqlite"], indirect=True)  # the route's own, any store
def test_a_held_wait_ends_with_the_same_version_and_the_follower_stays_present(site, loop):
    """An idle follower's wait is answered after the longest hold with the room unchanged, and
    the follower, renewing it, is still counted as present."""
    code, _ = site.store.create()
    me = site.store.new_voter(code, True)

    async def wait_it_out():
        follower = Http(site.base, {VOTER_COOKIE: me}, source=address())
        try:
            start = time.monotonic()
            status, room = await follower.request("GET", f"/_posviz/room/{code}?v=1")
            held = time.monotonic() - start
            renewed = asyncio.ensure_future(follower.request("GET", f"/_posviz/room/{code}?v=1"))
            await asyncio.sleep(REPORT + 2 * TICK + 0.5)
            present = await asyncio.to_thread(site.store.headcount, code)
            renewed.cancel()
            return status, room["version"], held, present
        finally:
            await follower.close()

    status, version, held, present = loop.run(wait_it_out())
    assert status == 200 and version == 1  # nothing changed: the same version
    assert HELD - 1 <= held <= HELD + 5
    assert present == 1


def test_a_closed_room_answers_at_once_and_takes_no_view(site, loop):
    code, key = site.store.create()
    laptop = address()
    cookies = lead(loop, site, code, key, laptop)
    site.store.close(code)
    status, room, _ = call(loop, site, "GET", f"/_posviz/room/{code}?v=2")
    assert status == 200 and room["closed"]
    status, refused, _ = call(loop, site, "POST", f"/_posviz/room/{code}/view",
                              {"page": "", "query": ""}, cookies=cookies, by=laptop)
    assert (status, refused) == (409, {"error": "room_closed"})


def test_the_key_goes_into_an_httponly_cookie_and_leave_deletes_it(site, loop):
    code, key = site.store.create()
    status, _, headers = call(loop, site, "POST", f"/_posviz/room/{code}/lead", {"key": key})
    cookie = headers["set-cookie"]
    assert status == 204 and cookie.startswith(f"{key_cookie(code)}={key};")
    flags = {part.strip().lower() for part in cookie.split(";")}
    assert {"httponly", "path=/", "samesite=strict"} <= flags and "secure" not in flags
    assert 11 * 3600 < int(next(f for f in flags if f.startswith("max-age="))[8:]) <= 12 * 3600

    async def over_https() -> str:  # through a proxy that ends TLS and says so
        http = Http(site.base, headers={"X-Forwarded-Proto": "https"}, source=PROXY)
        await http.request("POST", f"/_posviz/room/{code}/lead", {"key": key})
        await http.close()
        return http.headers["set-cookie"].lower()
    assert "; secure" in loop.run(over_https())

    status, _, headers = call(loop, site, "POST", f"/_posviz/room/{code}/lead",
                              {"key": key[::-1]})
    assert status == 403 and "set-cookie" not in headers
    async def leave() -> list[str]:
        http = Http(site.base, {key_cookie(code): key}, source=address())
        assert (await http.request("POST", f"/_posviz/room/{code}/forget", {}))[0] == 204
        await http.close()
        return http.set_cookies
    deleted = loop.run(leave())  # the key, and a lecturer link's token not yet used
    assert sorted(cookie.split("=")[0] for cookie in deleted) == [key_cookie(code),
                                                                   lead_cookie(code)]
    assert all("max-age=0" in cookie.lower() for cookie in deleted)


def test_a_lecturer_link_moves_its_token_into_a_cookie_and_a_key_leads_nothing(site, loop):
    """KeyLinks: the page's address comes back without the token (an HttpOnly cookie holds
    it, for the page to use up: a link preview that fetches the address leads nothing); a
    key in an address is taken out, counted as a wrong code, and the page says so."""
    code, key = site.store.create()
    token = site.store.lead_link(code, key)

    async def opened(query: str, by: str) -> tuple[int, dict[str, str], list[str]]:
        http = Http(site.base, source=by)
        status, _ = await http.request("GET", f"/lesson?{query}")
        await http.close()
        return status, http.headers, http.set_cookies
    status, headers, cookies = loop.run(opened(f"scene=2&room={code}&lead={token}", address()))
    assert status == 303 and headers["location"] == f"/lesson?scene=2&room={code}"
    assert sorted(c.split("=")[0] for c in cookies) == [HOLDER_COOKIE, lead_cookie(code)]
    cookies = [c for c in cookies if not c.startswith(HOLDER_COOKIE)]
    assert cookies[0].startswith(f"{lead_cookie(code)}={token};")
    assert "httponly" in cookies[0].lower() and "no-store" in headers["cache-control"]
    assert site.store.redeem(code, token) == key  # unused by the redirect itself

    laptop = address()
    before = site.store.wait(WRONG, site.store.network(laptop))
    status, headers, cookies = loop.run(opened(f"room={code}&key={key}", laptop))
    assert status == 303 and [c.split("=")[0] for c in cookies] == [HOLDER_COOKIE]
    assert headers["location"] == f"/lesson?room={code}&lead_refused=1"
    assert before == 0 and site.store.wait(WRONG, site.store.network(laptop)) == 0
    for _ in range(WRONG.burst):  # the key link was one wrong code of the network's budget
        loop.run(opened(f"room={code}&key={key}", laptop))
    assert site.store.wait(WRONG, site.store.network(laptop)) > 0


@pytest.mark.parametrize(("cookie", "body", "status", "error"), [
    (None, {"page": "rope", "query": ""}, 403, "not_lecturer"),
    ("not-the-key-at-all", {"page": "rope", "query": ""}, 403, "not_lecturer"),
    (None, {"key": "KEY", "page": "rope", "query": ""}, 403, "not_lecturer"),  # cookie only
    ("KEY", "just a string", 400, "bad_request"),
    ("KEY", {"page": "../../etc", "query": ""}, 400, "bad_view"),
    ("KEY", {"page": "rope", "query": "a=" + "x" * 9000}, 400, "view_too_long"),
    ("KEY", {"page": "rope", "query": "x" * 20_000}, 413, "too_large"),
    ("KEY", {"page": ["rope"], "query": ""}, 400, "bad_request"),
    ("KEY", {"query": ""}, 400, "bad_request")])
def test_the_view_route_refuses_what_is_not_a_lecturers_view(site, loop, cookie, body, status,
                                                              error):
    code, key = site.store.create()
    cookies = {} if cookie is None else {key_cookie(code): key if cookie == "KEY" else cookie}
    if isinstance(body, dict) and body.get("key") == "KEY":
        body = body | {"key": key}
    answer = call(loop, site, "POST", f"/_posviz/room/{code}/view", body, cookies=cookies)
    assert answer[:2] == (status, {"error": error})
    assert site.store.room(code).version == 1


def test_guessing_codes_is_refused_after_twenty_and_the_real_room_stays_joinable(site, loop):
    """The guessing burst: a script trying codes gets 429 after 20 wrong ones, for every room,
    the real one included; a student elsewhere still joins it."""
    code, _ = site.store.create()
    script = address()
    guesses = [f"{n:06d}" for n in range(100_000, 100_040) if f"{n:06d}" != code]
    statuses = [call(loop, site, "GET", f"/_posviz/room/{guess}?v=-1", by=script)
                for guess in guesses[:25]]
    assert [s for s, _, _ in statuses[:20]] == [404] * 20
    assert {s for s, _, _ in statuses[20:]} == {429}
    assert statuses[-1][1] == {"error": "too_many"} and int(statuses[-1][2]["retry-after"]) >= 1
    assert call(loop, site, "GET", f"/_posviz/room/{code}?v=-1", by=script)[0] == 429
    assert call(loop, site, "GET", f"/_posviz/room/{code}?v=-1")[0] == 200
    # the class behind the script's address still follows: its tabs show they were in the room
    proof = signing.joined(site.store.secret, code, site.store.room(code).expires)
    assert call(loop, site, "GET", f"/_posviz/room/{code}?v=-1&j={proof}", by=script)[0] == 200
    other, _ = site.store.create()  # a proof opens its own room only
    assert call(loop, site, "GET", f"/_posviz/room/{other}?v=-1&j={proof}", by=script)[0] == 429


def test_tabs_of_a_room_that_is_gone_are_told_so_and_guess_nothing(site, loop):
    """A room purged (or lost by the server): its tabs, all behind one campus address, show
    their proof of having been in it and get 410, which counts as no wrong code."""
    code, _ = site.store.create()
    proof = signing.joined(site.store.secret, code, site.store.room(code).expires)
    site.store.purge(code)
    hall = address()
    answers = [call(loop, site, "GET", f"/_posviz/room/{code}?v=3&j={proof}", by=hall)[:2]
               for _ in range(30)]
    assert set(map(str, answers)) == {str((410, {"error": "gone"}))}
    forged = proof[:-2] + ("AA" if not proof.endswith("AA") else "BB")
    assert call(loop, site, "GET", f"/_posviz/room/{code}?v=3&j={forged}", by=hall)[0] == 404


def test_a_script_starts_a_few_rooms_then_waits_and_a_lecturer_elsewhere_starts_one(site,
                                                                                    loop):
    """The room flood: sessions from one address pressing Start a room open five rooms, then
    are told to wait; a lecturer at another address still opens one. (Both are the lecturer's
    browsers, by the lecturer's cookie: a student's is offered no Start a room at all.)"""
    mark = {LECTURER_COOKIE: signing.lecturer_mark(site.store.secret, time.time())}

    async def press_start(by: str) -> str:
        async with session(site.base, cookies=mark, source=by) as tab:
            home = await tab.open("", "")
            shown = await tab.open("", "", clicked=(widgets(home)["room_start"],))
        return "\n".join(str(m.delta) for m in shown)

    before = len(site.store.kept())
    script = address()
    pages = [loop.run(press_start(script)) for _ in range(8)]
    told = [page for page in pages if "Too many rooms started from your network" in page]
    assert len(told) == 3 and len(site.store.kept()) == before + 5
    assert "You lead room" in loop.run(press_start(address()))
    assert len(site.store.kept()) == before + 6


async def _raw(site: Site, head: str, body_chunks, by: str) -> bytes:
    """Send a request's head, then body chunks until the server answers (or they run out);
    return the answer's status line."""
    parts = urlsplit(site.base)
    reader, writer = await asyncio.open_connection(parts.hostname, parts.port,
                                                   local_addr=(by, 0))
    writer.write(head.replace("\n", "\r\n").encode() + b"\r\n")
    answered = asyncio.ensure_future(reader.readline())
    try:
        for chunk in body_chunks:
            if answered.done():
                break
            writer.write(chunk)
            await writer.drain()
        return await asyncio.wait_for(answered, 10)
    except ConnectionError:  # the server closed the connection after answering
        return await asyncio.wait_for(answered, 10)
    finally:
        writer.close()


def test_bodies_are_bounded_before_they_are_read(site, loop):
    """A 300 MB body (declared, or streamed without a length), a body of nested brackets and a
    client hanging up mid-body: 413, 400, nothing; the server's memory barely moves and its
    log shows no traceback."""
    code, _ = site.store.create()
    path = f"/_posviz/room/{code}/view"
    megabyte = b"x" * 2**20
    before = rss_mb(site.pid)

    async def attacks():
        declared = await _raw(site, f"POST {path} HTTP/1.1\nHost: x\nContent-Type: "
                              f"application/json\nContent-Length: {300 * 2**20}\n",
                              itertools.repeat(megabyte, 300), address())
        chunked = await _raw(site, f"POST {path} HTTP/1.1\nHost: x\nContent-Type: "
                             "application/json\nTransfer-Encoding: chunked\n",
                             itertools.repeat(b"100000\r\n" + megabyte + b"\r\n", 300),
                             address())
        nested = json.dumps({"page": "rope", "query": ""})[:-1] + ', "x": ' + "[" * 7000 + \
            "]" * 7000 + "}"
        assert len(nested) <= MAX_BODY
        deep = await _raw(site, f"POST {path} HTTP/1.1\nHost: x\nContent-Type: "
                          f"application/json\nContent-Length: {len(nested)}\n",
                          [nested.encode()], address())
        parts = urlsplit(site.base)
        for _ in range(5):  # hang up mid-body
            _, writer = await asyncio.open_connection(parts.hostname, parts.port)
            writer.write(f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json"
                         "\r\nContent-Length: 10000\r\n\r\n{\"page\"".encode())
            await writer.drain()
            writer.close()
        return declared, chunked, deep

    declared, chunked, deep = loop.run(attacks())
    assert declared.split()[1] == b"413" and chunked.split()[1] == b"413"
    assert deep.split()[1] == b"400"
    assert call(loop, site, "GET", "/_posviz/health")[0] == 200  # the server is still there
    assert rss_mb(site.pid) - before < 40
    assert "Traceback" not in site.log.read_text("utf-8", "replace")


@pytest.mark.parametrize("raw", HOSTILE)
def test_every_hostile_code_in_the_route_is_refused_cleanly(site, loop, raw):
    path = quote(raw[:200], safe="")
    status, answer, _ = call(loop, site, "GET", f"/_posviz/room/{path}?v=x&lang={path}&j={path}")
    moved = (301, 307)  # an empty code: the route's path ends in "/", redirected
    # a "/" in the code makes another path: the app's own page answers it (HTML, no JSON)
    assert status in (400, 404, *moved) or (status == 200 and (answer is None
                                                                or "version" in answer))
    for route in ("view", "lead", "forget"):
        status, answer, _ = call(loop, site, "POST", f"/_posviz/room/{path}/{route}",
                                 {"key": raw, "page": raw, "query": raw})
        assert status in (204, 400, 403, 404, 405, 413, *moved) or (
            status == 200 and answer is None)


# ---- a scripting class (issue: rooms that hold against one) ---------------------------------


def _scripted(loop, site: Site, code: str, by: str, n: int, **query: str) -> list[Follower]:
    """n browsers of one script opening the room's screen from one address, each without a
    cookie (as a script asks again and again); those the screen issued a voter id."""
    async def all_of_them() -> list[Follower]:
        followers = [Follower(site.base, code, source=by) for _ in range(n)]
        for follower in followers:
            await follower.join(voter=False, **query)
            if VOTER_COOKIE not in follower.cookies:
                await follower.close()
        return [f for f in followers if VOTER_COOKIE in f.cookies]
    return loop.run(all_of_them())


def given_back(rate: Rate, since: float) -> int:
    """How many actions the rate's limit has given back since `since` (monotonic seconds)."""
    return int((time.monotonic() - since) * rate.per_minute / 60)


def _votes(loop, followers: list[Follower], poll: str, option: int = 0) -> list[int]:
    async def all_of_them() -> list[int]:
        out = [await f.vote(poll, option) for f in followers]
        for f in followers:
            await f.close()
        return out
    return loop.run(all_of_them())


def test_a_script_with_the_code_alone_mints_few_ids_and_counts_thirty_votes(site, loop):
    """The poll stuffing: 150 cookie-less visits of the room's screen from one laptop get
    MINTS.burst voter ids (ids for this room only, ending with it), and those the limit gives
    back while they run (one every two seconds); of their votes, CODE_VOTES.burst count (and
    those given back meanwhile) and the rest are asked for the projector's word; the lecturer's
    count of connected students counts none of them (none follows). Honest students, from
    their own phones and from the script's own address with the QR code's ticket, all vote:
    nobody is locked out."""
    code, _ = site.store.create()
    poll = site.store.ask(code, "Which?", ["a", "b"])
    script = address()
    started = time.monotonic()
    minted = _scripted(loop, site, code, script, 150)
    assert MINTS.burst <= len(minted) <= MINTS.burst + given_back(MINTS, started)
    assert {site.store.voter(code, f.me).present for f in minted} == {False}
    started = time.monotonic()
    statuses = _votes(loop, minted, poll.id)
    counted = statuses.count(200)
    assert CODE_VOTES.burst <= counted <= CODE_VOTES.burst + given_back(CODE_VOTES, started)
    assert statuses[:CODE_VOTES.burst] == [200] * CODE_VOTES.burst
    assert statuses.count(429) == len(statuses) - counted
    other, _ = site.store.create()
    other_poll = site.store.ask(other, "Which?", ["a", "b"])
    stolen = call(loop, site, "POST", f"/_posviz/room/{other}/vote",
                  {"poll": other_poll.id, "option": 0}, cookies=minted[0].cookies, by=script)
    assert stolen[:2] == (403, {"error": "need_word"})  # an id of room A is none in room B
    assert site.store.counts(other, other_poll.id) == [0, 0]

    async def honest() -> list[int]:
        phones = [Follower(site.base, code, source=address()) for _ in range(5)]
        hall = [Follower(site.base, code, source=script) for _ in range(5)]
        for f in phones:
            await f.join()
        for f in hall:
            await f.join(ticket(code))
        statuses = [await f.vote(poll.id, 1) for f in phones + hall]
        for f in phones + hall:
            await f.close()
        return statuses
    assert loop.run(honest()) == [200] * 10
    assert site.store.counts(code, poll.id) == [counted, 10]
    assert site.store.headcount(code) == 0  # no screen follows: nobody counted as connected


def test_the_projectors_word_lets_a_hall_behind_one_address_answer(site, loop):
    """A hall behind one campus address typed the code (no QR code): past the network's
    allowance of ids and of answers, each phone is asked for the projector's word; with it,
    its answer counts. A wrong word counts as a wrong code; an old word does not work."""
    code, _ = site.store.create()
    poll = site.store.ask(code, "Which?", ["a", "b"])
    campus = address()
    _votes(loop, _scripted(loop, site, code, campus, MINTS.burst), poll.id)  # the early ones

    async def late_phone(word: str) -> tuple[int, int, int]:
        phone = Follower(site.base, code, source=campus)
        await phone.join(voter=False)
        refused = await phone.vote(poll.id, 1)
        typed = await phone.word(word)
        counted = await phone.vote(poll.id, 1)
        await phone.close()
        return refused, typed, counted

    now = time.time()
    words = [signing.word(site.store.secret, code, now - n * signing.TICKET_SECONDS)
             for n in range(4)]
    assert loop.run(late_phone(words[0].upper())) == (403, 200, 200)
    assert loop.run(late_phone("wrongword"))[1:] == (403, 403)
    if words[3] not in words[:3]:  # a word of six minutes ago (unless it came round again)
        assert loop.run(late_phone(words[3]))[1:] == (403, 403)
    assert site.store.counts(code, poll.id)[1] == 1


def test_a_qr_ticket_stops_working_within_minutes(site, loop):
    """The ticket of the QR code changes every TICKET_SECONDS and the one before is still
    taken: a ticket posted outside the hall proves no presence two windows later."""
    code, _ = site.store.create()
    now = time.time()
    fresh = signing.ticket(site.store.secret, code, now)
    old = signing.ticket(site.store.secret, code, now - 2 * signing.TICKET_SECONDS)

    async def join(with_ticket: str) -> bool:
        phone = Follower(site.base, code, source=address())
        await phone.join(with_ticket)
        await phone.close()
        return site.store.voter(code, phone.me).present
    assert loop.run(join(fresh)) and not loop.run(join(old))


def test_every_room_route_counts_a_wrong_code_the_same_way(site, loop):
    """The code walk: guesses spread over every room route (the vote route too) draw on one
    budget; past WRONG.burst, every route refuses the script, the planted room included."""
    planted, _ = site.store.create()
    script = address()
    routes = [("GET", "/_posviz/room/{}?v=-1", None), ("POST", "/_posviz/room/{}/vote",
              {"poll": "q1", "option": 0}), ("POST", "/_posviz/room/{}/view",
              {"page": "", "query": ""}), ("POST", "/_posviz/room/{}/lead", {"key": "x" * 20}),
              ("POST", "/_posviz/room/{}/forget", {}), ("POST", "/_posviz/room/{}/word",
              {"word": "bagel"}), ("GET", "/_posviz/follow/{}", None)]
    guesses = (f"{n:06d}" for n in itertools.count(200_000) if f"{n:06d}" != planted)
    statuses = [call(loop, site, method, path.format(next(guesses)), body, by=script)[0]
                for method, path, body in itertools.islice(itertools.cycle(routes),
                                                           WRONG.burst + 14)]
    assert set(statuses[:WRONG.burst]) == {404}, statuses
    assert set(statuses[WRONG.burst:]) == {429}, statuses
    for method, path, body in routes:
        assert call(loop, site, method, path.format(planted), body, by=script)[0] == 429


def test_a_script_on_the_class_address_cuts_no_member_off(site, loop):
    """A script floods the class's campus address with wrong codes: the class's phones (their
    voter id and proof), a phone scanning the QR code now, and the lecturer (the key in its
    cookie) carry on, on every route; only requests that show nothing are refused, and the
    room's screen then says so in the reader's language, not in raw JSON."""
    code, key = site.store.create()
    site.store.set_view(code, "lesson", "scene=4")
    poll = site.store.ask(code, "Which?", ["a", "b"])
    campus = address()
    cookies = lead(loop, site, code, key, campus)
    phone = Follower(site.base, code, source=campus)
    loop.run(phone.join(ticket(code)))
    for n in range(WRONG.burst + 5):
        call(loop, site, "GET", f"/_posviz/room/{300_000 + n:06d}?v=-1", by=campus)
    assert call(loop, site, "GET", f"/_posviz/room/{code}?v=-1", by=campus)[0] == 429
    assert loop.run(phone.wait())["version"] >= 1
    assert loop.run(phone.vote(poll.id, 1)) == 200
    assert call(loop, site, "POST", f"/_posviz/room/{code}/view", {"page": "rope", "query": ""},
                cookies=cookies, by=campus)[0] == 200
    scanning = Follower(site.base, code, source=campus)
    loop.run(scanning.join(ticket(code)))
    assert loop.run(scanning.vote(poll.id, 0)) == 200
    loop.run(phone.close())
    loop.run(scanning.close())
    status, answer, headers = call(loop, site, "GET", f"/_posviz/follow/{code}?lang=zh",
                                   by=campus)
    assert status == 429 and answer is None and "text/html" in headers["content-type"]
    assert int(headers["retry-after"]) >= 1


def test_a_voter_id_holds_a_few_waits_at_once(site, loop):
    """One voter id holding waits: HELD_PER_VOTER are held, the next is refused at once."""
    code, _ = site.store.create()
    me = site.store.new_voter(code, True)

    async def hold() -> list[int]:
        waits = await _waiting(site, code, [me] * (HELD_PER_VOTER + 2), address())
        await asyncio.sleep(1.0)
        done = [w.result()[0] for _, w in waits if w.done()]
        await _dropped(waits)
        return done
    assert loop.run(hold()) == [429, 429]


def test_forwarded_for_is_believed_from_the_configured_proxy_only(site, loop):
    """A client writing X-Forwarded-For itself (a fresh address for every guess) is limited
    by its own address; the proxy's word counts for its clients."""
    script = address()
    statuses = [call(loop, site, "GET", f"/_posviz/room/{400_000 + n:06d}?v=-1", by=script,
                     headers={"X-Forwarded-For": f"10.9.{n}.1"})[0]
                for n in range(WRONG.burst + 3)]
    assert statuses[-3:] == [429] * 3
    statuses = [call(loop, site, "GET", f"/_posviz/room/{500_000 + n:06d}?v=-1", by=PROXY,
                     headers={"X-Forwarded-For": f"10.8.{n}.1"})[0]
                for n in range(WRONG.burst + 3)]
    assert set(statuses) == {404}  # each guess from another client behind the proxy


@pytest.mark.parametrize("site", ["sqlite"], indirect=True)  # the route's own, any store
def test_the_screens_scripts_are_served_gzipped_and_nothing_else_is(site, loop):
    async def fetched(name: str) -> tuple[int, dict[str, str], int]:
        http = Http(site.base, source=address())
        status, _ = await http.request("GET", f"/_posviz/asset/{name}?v=1")
        await http.close()
        return status, http.headers, http.received
    status, headers, size = loop.run(fetched("viewer.js"))
    assert status == 200 and headers["content-encoding"] == "gzip" and size > 1000
    assert "immutable" in headers["cache-control"]
    assert loop.run(fetched("app.py"))[0] == 404  # only the screen's own files


def test_the_room_screen_sets_only_httponly_cookies(site, loop):
    code, _ = site.store.create()
    phone = Http(site.base, source=address())

    async def visit() -> list[str]:
        await phone.request("GET", f"/_posviz/follow/{code}?{quote('t')}={ticket(code)}")
        await phone.close()
        return phone.set_cookies
    cookies = loop.run(visit())
    assert {c.split("=")[0] for c in cookies} == {VOTER_COOKIE, "posviz_joined"}
    assert all("httponly" in c.lower() for c in cookies)


# ---- the projector's word, forged ids, links and a trickle of wrong codes (issue 53) --------


def test_guessing_the_word_from_home_is_cut_off_whatever_ids_the_script_takes(site, loop):
    """A script at home with the code alone guesses the projector's word: its id's own guess
    and WORDS.burst more (and those given back while it runs) are compared, then every guess
    is refused 429, the right word too (never compared); a fresh voter id from the same network
    brings one guess of its own and no more; a phone on another network types the word and
    counts. The lecturer's count of wrong words sees them all."""
    code, _ = site.store.create()
    home = address()
    word = signing.word(site.store.secret, code, time.time())

    async def guess() -> tuple[list[int], int, list[int], int, int]:
        script = Follower(site.base, code, source=home)
        await script.join()  # a voter id by the code alone
        started = time.monotonic()
        statuses = [await script.word(f"{n:07d}") for n in range(WORDS.burst + 15)]
        allowed = FIRST_WORD.burst + WORDS.burst + given_back(WORDS, started)
        fresh = Follower(site.base, code, source=home)
        await fresh.join()
        again = [await fresh.word("zzzzzzz"), await fresh.word("zzzzzzy")]
        right = await script.word(word)
        phone = Follower(site.base, code, source=address())
        await phone.join()
        elsewhere = await phone.word(word)
        for f in (script, fresh, phone):
            await f.close()
        return statuses, allowed, again, right, elsewhere

    statuses, allowed, again, right, elsewhere = loop.run(guess())
    assert FIRST_WORD.burst + WORDS.burst <= statuses.count(403) <= allowed
    assert statuses.count(429) == len(statuses) - statuses.count(403)
    assert statuses[-1] == 429 and (again, right, elsewhere) == ([403, 429], 429, 200)
    assert site.store.guessed(code) >= GUESSED_SHOWN  # the lecturer is told


def test_the_word_without_a_cookie_mints_few_ids(site, loop):
    """The word, once known, posted again and again without a cookie: WORD_MINTS.burst ids
    (and those given back meanwhile), then 429."""
    code, _ = site.store.create()
    word = signing.word(site.store.secret, code, time.time())
    proof = signing.joined(site.store.secret, code, site.store.room(code).expires)
    script = address()
    started = time.monotonic()
    answers = [call(loop, site, "POST", f"/_posviz/room/{code}/word?j={proof}",
                    {"word": word}, by=script) for _ in range(WORD_MINTS.burst + 30)]
    issued = sum(headers.get("set-cookie", "").startswith(VOTER_COOKIE + "=")
                 for _, _, headers in answers)
    assert WORD_MINTS.burst <= issued <= WORD_MINTS.burst + given_back(WORD_MINTS, started)
    assert answers[-1][:2] == (429, {"error": "too_many"})


def test_a_forged_voter_id_is_told_so(site, loop):
    """An id this server never signed is answered bad_voter; an id it signed for another room
    (a browser from an earlier lecture) is asked for the word, as a browser without one."""
    code, _ = site.store.create()
    poll = site.store.ask(code, "Which?", ["a", "b"])
    forged = f"{code}.1900000000.p.{'A' * 16}.{'A' * 22}"
    for raw in (forged, "not an id at all"):
        answer = call(loop, site, "POST", f"/_posviz/room/{code}/vote",
                      {"poll": poll.id, "option": 0}, cookies={VOTER_COOKIE: raw})
        assert answer[:2] == (403, {"error": "bad_voter"})
    other, _ = site.store.create()
    earlier = site.store.new_voter(other, True)
    answer = call(loop, site, "POST", f"/_posviz/room/{code}/vote",
                  {"poll": poll.id, "option": 0}, cookies={VOTER_COOKIE: earlier})
    assert answer[:2] == (403, {"error": "need_word"})


@pytest.mark.parametrize("site", ["sqlite"], indirect=True)  # KeyLinks' own, any store
@pytest.mark.parametrize("path", ["//evil.example/", "/%2F%2Fevil.example", "/%2f/evil.example",
                                  "/\\evil.example", "/%5C%5Cevil.example", "///evil.example/x",
                                  "/\\/evil.example", "/%09/evil.example"])
def test_a_lecturer_link_redirects_to_this_server_only(site, loop, path):
    """The open redirect: whatever path a link holds, the answer's Location is a path on this
    server (one leading slash, no backslash), as a browser resolves it."""
    async def opened() -> tuple[int, str]:
        http = Http(site.base, source=address())
        status, _ = await http.request("GET", f"{path}?lead=x{'y' * 20}&room=123456")
        await http.close()
        return status, http.headers.get("location", "")
    status, location = loop.run(opened())
    assert status == 303 and location.startswith("/") and not location.startswith("//")
    assert "\\" not in location and urlsplit(urljoin(site.base + "/", location)).netloc == \
        urlsplit(site.base).netloc
    assert location.endswith("?room=123456")


def test_a_trickle_of_wrong_codes_keeps_out_no_classmate_nor_the_word(site, loop):
    """One wrong code now and then from the class's campus address keeps its budget spent: a
    newcomer typing the right code still gets in while classmates from that address follow,
    and so does one who brings the projector's word; a wrong code from there is still 429."""
    code, _ = site.store.create()
    campus = address()
    classmate = Follower(site.base, code, source=campus)
    loop.run(classmate.join(ticket(code)))

    async def following() -> None:  # the classmate's screen waits on the room
        await classmate.wait()  # the room as it is; the next wait is held
        waiting = asyncio.ensure_future(classmate.wait())
        await asyncio.sleep(REPORT + 4 * TICK + 0.5)  # reported as one of the room's screens
        waiting.cancel()
    loop.run(following())
    loop.run(classmate.close())
    for n in range(WRONG.burst + 3):
        call(loop, site, "GET", f"/_posviz/room/{600_000 + n:06d}?v=-1", by=campus)
    assert call(loop, site, "GET", f"/_posviz/room/{600_100:06d}?v=-1", by=campus)[0] == 429
    newcomer = visit(loop, site, f"/_posviz/follow/{code}", campus)
    assert newcomer[0] == 200 and JOINED_COOKIE in newcomer[1]
    quiet, _ = site.store.create()  # a room nobody follows from the campus: still refused
    assert visit(loop, site, f"/_posviz/follow/{quiet}", campus)[0] == 429
    word = signing.word(site.store.secret, quiet, time.time())
    status, cookies = visit(loop, site, f"/_posviz/follow/{quiet}?w={word}", campus)
    assert status == 200 and site.store.voter(quiet, cookies[VOTER_COOKIE]).present


def visit(loop, site: Site, path: str, by: str) -> tuple[int, dict[str, str]]:
    """A browser without cookies opens path from address by: the status, the cookies set."""
    async def one() -> tuple[int, dict[str, str]]:
        http = Http(site.base, source=by)
        status, _ = await http.request("GET", path)
        await http.close()
        return status, http.cookies
    return loop.run(one())


@pytest.mark.parametrize("site", ["sqlite"], indirect=True)  # the app's own, any store
def test_a_lecturer_who_reloads_right_after_start_still_leads(site, loop):
    """Start a room, then reload at once (another page of the room, typed), before the tab
    handed the key to its cookie: the new tab leads the room and hands the key over itself;
    another browser opening the same address follows; after Leave the reload leads nothing."""
    laptop = address()

    async def start_then_reload() -> tuple[dict, dict, dict]:
        cookies = {LECTURER_COOKIE: signing.lecturer_mark(site.store.secret, time.time())}
        page = Http(site.base, cookies, source=laptop)
        await page.request("GET", "/")  # the app's page, as the browser loads it
        await page.close()
        async with session(site.base, cookies, source=laptop) as tab:
            home = await tab.open("", "")
            started = room_element(await tab.open("", "", clicked=(widgets(home)["room_start"],)))
        address_bar = f"scene=2&room={started['code']}"
        async with session(site.base, cookies, source=laptop) as tab:  # the reload
            shown = await tab.open("lesson", address_bar)
            reloaded = room_element(shown)
            await tab.open("lesson", address_bar, clicked=(widgets(shown)["room_leave"],))
        async with session(site.base, source=address()) as tab:  # someone else
            other = room_element(await tab.open("lesson", address_bar))
        async with session(site.base, cookies, source=laptop) as tab:  # after Leave
            left = room_element(await tab.open("lesson", address_bar))
        return started, reloaded, other, left

    started, reloaded, other, left = loop.run(start_then_reload())
    assert started["lead"] and started["grant"]
    assert reloaded["code"] == started["code"] and reloaded["lead"]
    assert reloaded["grant"] == started["grant"]  # the new tab hands the key over now
    for follower in (other, left):
        assert not follower.get("lead") and "grant" not in follower


@pytest.mark.parametrize("site", ["sqlite"], indirect=True)  # the rules' own, any store
def test_the_code_alone_does_not_sit_the_concept_check(site, loop):
    """A laptop at home with the code alone answers the check's questions: each is asked for
    the projector's word (403 need_word), whatever its budget of answers; a phone that scanned
    the QR code answers."""
    code, _ = site.store.create()
    site.store.open_check(code, "pre", [("Which?", ["a", "b"], 0)])

    async def sit() -> tuple[list[int], int]:
        home = Follower(site.base, code, source=address())
        await home.join()
        refused = [await home.vote("check-pre-1", n % 2) for n in range(3)]
        phone = Follower(site.base, code, source=address())
        await phone.join(ticket(code))
        counted = await phone.vote("check-pre-1", 0)
        for f in (home, phone):
            await f.close()
        return refused, counted

    assert loop.run(sit()) == ([403] * 3, 200)
    assert site.store.sitters(code, "pre") == 1


def test_wrong_codes_sent_at_once_cannot_overdraw_their_budget(site, loop):
    """200 guesses sent together from one address, each on a connection of its own: as many
    are looked up as the budget holds (and those given back meanwhile); the rest are 429."""
    script = address()

    async def at_once() -> list[int]:
        guesses = [Http(site.base, source=script) for _ in range(200)]
        statuses = await asyncio.gather(*(http.request("GET", f"/_posviz/room/{800_000 + n:06d}"
                                                       "?v=-1") for n, http in enumerate(guesses)))
        for http in guesses:
            await http.close()
        return [status for status, _ in statuses]

    started = time.monotonic()
    statuses = loop.run(at_once())
    assert statuses.count(404) <= WRONG.burst + given_back(WRONG, started)
    assert statuses.count(404) + statuses.count(429) == len(statuses)


# ---- the fourth round: methods, the word among classmates, refusals that write nothing -------


@pytest.mark.parametrize("route", ["vote", "word", "view", "lead", "forget"])
def test_get_or_head_on_a_post_route_is_405_not_the_apps_page(site, loop, route):
    """GET and HEAD (and PUT) on a route that takes POST are answered 405 with Allow: POST,
    never with the app's HTML page; a HEAD of the room's screen issues no voter id."""
    code, _ = site.store.create()
    for method in ("GET", "HEAD"):
        status, _, headers = call(loop, site, method, f"/_posviz/room/{code}/{route}")
        assert (status, headers.get("allow")) == (405, "POST"), method
        assert "html" not in headers.get("content-type", "")
    assert call(loop, site, "PUT", f"/_posviz/room/{code}/{route}")[2].get("allow") == "POST"
    probe = address()
    for _ in range(MINTS.burst + 5):
        status, _, headers = call(loop, site, "HEAD", f"/_posviz/follow/{code}", by=probe)
        assert status == 200 and VOTER_COOKIE not in headers.get("set-cookie", "")
    network = site.store.network(probe)
    left = site.store.backend.bucket(f"{MINTS.name}:{network}", MINTS, time.time(), 0, False)
    assert left == MINTS.burst  # the class's ids by the code alone are all still there


def _limit_rows(site: Site) -> int:
    """Rows (SQLite) or keys (Redis) of rate limits the store keeps."""
    backend = site.store.backend
    if hasattr(backend, "client"):
        return sum(1 for _ in backend.client.scan_iter("posviz:limit:*"))
    return backend._db.execute("SELECT COUNT(*) FROM limits").fetchone()[0]


def test_a_prankster_on_the_class_network_keeps_no_classmate_from_the_word(site, loop):
    """Twelve classmates behind the campus address follow the room (ids by the code alone);
    a prankster at the same address sends wrong words with its id and without, and HEAD and
    GET requests, between every classmate's try: every classmate's right word is taken, each
    within 5 s. The lecturer's screen is told the word is being guessed; one press gives a new
    word, and the old one is wrong from then on."""
    code, _ = site.store.create()
    campus = address()
    word = signing.word(site.store.secret, code, time.time())

    async def lecture() -> tuple[list[int], float]:
        class_ = [Follower(site.base, code, source=campus) for _ in range(12)]
        for phone in class_:
            await phone.join()
        prankster = Follower(site.base, code, source=campus)
        await prankster.join()
        bare = Http(site.base, source=campus)
        statuses, slowest = [], 0.0
        for phone in class_:
            for n in range(4):
                await prankster.word(f"wrong{n:02d}")
                await bare.request("POST", f"/_posviz/room/{code}/word", {"word": "nonono"})
                await bare.request("HEAD", f"/_posviz/follow/{code}")
                await bare.request("GET", f"/_posviz/follow/{code}?w=guessed")
                bare.cookies.clear()
            started = time.monotonic()
            statuses.append(await phone.word(word))
            slowest = max(slowest, time.monotonic() - started)
        for each in (*class_, prankster):
            await each.close()
        await bare.close()
        return statuses, slowest

    statuses, slowest = loop.run(lecture())
    assert statuses.count(200) >= 0.95 * len(statuses) and slowest < 5.0
    assert site.store.guessed(code) >= GUESSED_SHOWN
    site.store.new_word(code)
    fresh = signing.word(site.store.secret, code, time.time(), site.store.room(code).word)
    assert fresh != word

    async def late() -> tuple[int, int]:
        old, new = (Follower(site.base, code, source=address()) for _ in range(2))
        await old.join()
        await new.join()
        out = await old.word(word), await new.word(fresh)
        await old.close()
        await new.close()
        return out
    assert loop.run(late()) == (403, 200)


def test_random_codes_with_a_word_write_no_rows(site, loop):
    """300 requests for random codes with `?w=` from one address: the wrong-code budget
    refuses most, and the store's limits grow by the address's own budget alone (before, one
    row per code)."""
    before = _limit_rows(site)
    script = address()

    async def walk() -> list[int]:
        http = Http(site.base, source=script)
        out = []
        for n in range(300):
            out.append((await http.request("GET", f"/_posviz/follow/{n:06d}?w=abcdefg"))[0])
        await http.close()
        return out
    statuses = loop.run(walk())
    assert statuses.count(429) >= 300 - WRONG.burst - 5
    assert _limit_rows(site) - before <= 1


def test_a_prankster_flooding_the_class_network_keeps_no_newcomer_from_the_word(site, loop):
    """The class behind the campus address is in (five phones scanned the QR code). A prankster
    at that address floods the room from four connections at once, as fast as they go: the
    room's screen by GET and HEAD without a cookie (spending the network's ids by the code
    alone), wrong words with its voter id and without. While it does, 20 classmates arrive at
    the campus address without an id, open the screen and type the right word: at least 95% of
    their words are taken, each within 5 s; one mistypes first, then types it right and gets
    in."""
    code, _ = site.store.create()
    campus = address()
    word = signing.word(site.store.secret, code, time.time())
    network = site.store.network(campus)

    async def lecture() -> tuple[list[float | None], int, int, int, float]:
        hall = [Follower(site.base, code, source=campus) for _ in range(5)]
        for phone in hall:
            await phone.join(ticket(code))
        stop, sent = asyncio.Event(), [0]

        async def flood(n: int) -> None:
            prankster = Follower(site.base, code, source=campus)
            await prankster.join(voter=False)
            bare = Http(site.base, source=campus)
            while not stop.is_set():
                await prankster.word(f"wrong{n}{sent[0] % 97:02d}")
                await bare.request("POST", f"/_posviz/room/{code}/word", {"word": "nonono"})
                await bare.request("HEAD", f"/_posviz/follow/{code}")
                bare.cookies.clear()
                await bare.request("GET", f"/_posviz/follow/{code}")
                bare.cookies.clear()
                sent[0] += 4
            await prankster.close()
            await bare.close()

        flooding = [asyncio.ensure_future(flood(n)) for n in range(4)]
        for _ in range(300):  # the flood spends the network's ids before the newcomers come
            await asyncio.sleep(0.1)
            left = site.store.backend.bucket(f"{MINTS.name}:{network}", MINTS, time.time(), 0,
                                             False)
            if left < 1:
                break
        flooded = sent[0]
        taken: list[float | None] = []
        for _ in range(20):
            phone = Follower(site.base, code, source=campus)
            started = time.monotonic()
            await phone.join(voter=False)
            status = await phone.word(word)
            taken.append(time.monotonic() - started if status == 200 else None)
            await phone.close()
        mistyped = Follower(site.base, code, source=campus)
        await mistyped.join(voter=False)
        first, again = await mistyped.word("bakodix"), await mistyped.word(word)
        stop.set()
        await asyncio.gather(*flooding)
        for each in (*hall, mistyped):
            await each.close()
        return taken, first, again, sent[0] - flooded, left

    taken, first, again, sent, left = loop.run(lecture())
    assert left < 1 and sent >= 80  # the network's ids spent, the flood on all along
    assert sum(t is not None and t < 5.0 for t in taken) >= 0.95 * len(taken), taken
    assert (first, again) == (403, 200)
    assert site.store.guessed(code) >= GUESSED_SHOWN
