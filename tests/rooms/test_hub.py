"""A server process's long-poll hub over the rooms its followers wait on (rooms.routes.hub.Hub),
on a real SQLite store, without HTTP: a follower holding one long wait is reported as present at
every report, not only when its wait began; and two room services in one process keep apart."""

from __future__ import annotations

import asyncio
import time

from rooms import PRESENT_SECONDS, open_rooms
from rooms.routes.hub import REPORT
from rooms.routes.service import RoomService
from tests.helpers.load_fixtures import run_apart


def _no_screens():
    raise AssertionError("no document is drawn here")


def test_a_follower_holding_one_long_wait_is_reported_at_every_report(tmp_path):
    offset = [0.0]
    store = open_rooms(f"sqlite:///{tmp_path / 'rooms.sqlite3'}",
                       clock=lambda: time.time() + offset[0])
    code, _ = store.create()
    voter = store.voter(code, store.new_voter(code, True))

    async def hold() -> None:
        hub = RoomService(store, _no_screens).hub
        await hub.room(code)  # as the room's route reads it before a follower waits
        gone = asyncio.get_running_loop().create_future()  # the tab stays
        waiting = asyncio.ensure_future(hub.until_changed(code, voter, "hall", gone))
        await asyncio.sleep(2 * REPORT + 1)  # one wait, held across two reports
        waiting.cancel()
        gone.cancel()

    run_apart(hold())
    offset[0] = PRESENT_SECONDS - REPORT + 1  # counted only if reported in the last report
    assert store.headcount(code) == 1


def test_two_services_in_one_process_keep_their_rooms_and_waits_apart(tmp_path):
    """Each service reads its own rooms, holds its own followers, and stops alone: nothing of
    one reaches the other through the process."""
    one = open_rooms(f"sqlite:///{tmp_path / 'one.sqlite3'}")
    other = open_rooms(f"sqlite:///{tmp_path / 'other.sqlite3'}", secret=b"another server")
    code, _ = one.create()

    async def both() -> tuple:
        first, second = RoomService(one, _no_screens), RoomService(other, _no_screens)
        found = (await first.hub.room(code), await second.hub.room(code))
        gone = asyncio.get_running_loop().create_future()
        voter = one.voter(code, one.new_voter(code, True))
        waiting = asyncio.ensure_future(first.hub.until_changed(code, voter, "hall", gone))
        await asyncio.sleep(0.1)
        held = (first.hub.following(code, voter), second.hub.following(code, voter))
        second.stopping()  # the other server stops: this one's follower still waits
        await asyncio.sleep(0.1)
        still = not waiting.done()
        first.stopping()
        await asyncio.wait_for(waiting, 2)
        gone.cancel()
        return found, held, still, first.follows is not second.follows

    (mine, theirs), held, still, apart = run_apart(both())
    assert mine is not None and mine.code == code and theirs is None
    assert held == (True, False) and still and apart
