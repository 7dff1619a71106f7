"""500 students' phones on one server process, spoken to exactly as the room's screen speaks
(tests/helpers/room_fixtures.py's Follower): every follower receives every version of its room, in
its own language, and nothing of another room or language; they vote, and the reveal reaches each
with the class's counts. What this costs the server is measured by
`python -m tests.benchmarks.viewer_benchmark`."""

from __future__ import annotations

import asyncio

import pytest

from rooms import open_rooms
from tests.helpers.load_fixtures import serving
from tests.helpers.room_fixtures import Follower, Lecturer, Loop, gather_in, ticket
from ui.documents import scenes
from ui.i18n import text

pytestmark = pytest.mark.server

CLASS = 500
OTHER = 20  # followers of a second room on the same server


def caption(answer: dict) -> str:
    """The scene line of a lesson document ("Scene 2 of 10")."""
    return next(b["text"] for b in answer["doc"] if b["t"] == "caption")


def chips(answer: dict) -> list[str]:
    """The first token chips of the document, those in its columns too."""
    blocks = [b for block in answer["doc"]
              for b in [block, *(c for column in block.get("columns", []) for c in column)]]
    return next(b["tokens"] for b in blocks if b["t"] == "chips")


def question(answer: dict) -> dict:
    return next(b for b in answer["doc"] if b["t"] == "question")


async def everyone_waits(followers: list[Follower]) -> list[dict]:
    return list(await asyncio.gather(*(f.wait() for f in followers)))


async def lecture(url: str, store_url: str) -> None:
    store = open_rooms(store_url)
    code, key = store.create()
    other_code, other_key = store.create()
    lecturer, other = (Lecturer(url, code, store.lead_link(code, key)),
                       Lecturer(url, other_code, store.lead_link(other_code, other_key)))
    await lecturer.connect()
    await other.connect()
    await lecturer.show("lesson", scene="1", text="刚想到了")
    await other.show("lesson", scene="1", text="the cat sat")
    followers = [Follower(url, code, "zh" if i % 2 else "en") for i in range(CLASS)]
    strangers = [Follower(url, other_code, "en") for _ in range(OTHER)]
    everyone = followers + strangers
    try:
        await gather_in(50, (f.join(ticket(f.code)) for f in everyone))  # the QR code
        assert len({f.me for f in everyone}) == CLASS + OTHER  # one signed voter id each
        await everyone_waits(everyone)
        for scene in (2, 4):
            waits = [asyncio.ensure_future(f.wait()) for f in everyone]
            await asyncio.sleep(0.5)  # every follower is held by the server
            assert not any(w.done() for w in waits)
            await lecturer.show("lesson", scene=str(scene), text="刚想到了")
            answers = await asyncio.wait_for(asyncio.gather(*waits[:CLASS]), 60)
            for follower, answer in zip(followers, answers, strict=True):
                assert caption(answer) == text("lesson.scene_of", follower.lang, n=scene,
                                               total=len(scenes()))
                assert scene != 4 or chips(answer) == list("刚想到了")
            by_lang = {lang: {repr(a["doc"]) for f, a in zip(followers, answers, strict=True)
                              if f.lang == lang} for lang in ("en", "zh")}
            assert all(len(docs) == 1 for docs in by_lang.values())  # one rendering each
            assert by_lang["en"] != by_lang["zh"]
            assert not any(w.done() for w in waits[CLASS:])  # the other room did not move
            await other.show("lesson", scene=str(scene), text="the cat sat")
            for answer in await asyncio.wait_for(asyncio.gather(*waits[CLASS:]), 60):
                assert caption(answer) == text("lesson.scene_of", "en", n=scene,
                                               total=len(scenes()))
                assert repr(answer["doc"]) not in by_lang["en"]  # its own sentence's figures
                assert scene != 4 or chips(answer) == ["the", "cat", "sat"]
        poll = question(followers[0].answer)["poll"]
        assert poll == "scene-order" and not question(followers[0].answer)["answer"]
        statuses = await gather_in(100, (f.vote(poll, i % 2) for i, f in enumerate(followers)))
        assert set(statuses) == {200}
        waits = [asyncio.ensure_future(f.wait()) for f in followers]
        await asyncio.sleep(0.5)
        await lecturer.click(f"reveal_{poll}")
        answers = await asyncio.wait_for(asyncio.gather(*waits), 60)
        for answer in answers:
            state = answer["polls"][poll]
            assert state["revealed"] and state["counts"] == [CLASS // 2, CLASS // 2]
            assert question(answer)["answer"]  # the answer, now shown
    finally:
        await asyncio.gather(lecturer.close(), other.close(), *(f.close() for f in everyone))


def test_five_hundred_followers_of_one_process_each_get_every_version_in_their_language(
        tmp_path):
    store_url = f"sqlite:///{tmp_path / 'rooms.sqlite3'}"
    log = tmp_path / "server.log"
    loop = Loop()
    try:
        with serving(env={"POSVIZ_ROOM_STORE": store_url}, log=log) as (_, url):
            loop.run(lecture(url, store_url))
    finally:
        loop.close()
    said = log.read_text("utf-8")  # documents drawn outside any page run, quietly
    assert "Traceback" not in said and "WARNING" not in said, said[-3000:]
