"""A server process's watch over the rooms its followers wait on (rooms.http.Watch), on a
real SQLite store, without HTTP: a follower holding one long wait is reported as present at
every report, not only when its wait began."""

from __future__ import annotations

import asyncio
import time

from rooms import PRESENT_SECONDS, open_store
from rooms.http import REPORT, Watch
from tests.helpers.load_fixtures import run_apart


def test_a_follower_holding_one_long_wait_is_reported_at_every_report(tmp_path):
    offset = [0.0]
    store = open_store(f"sqlite:///{tmp_path / 'rooms.sqlite3'}",
                       clock=lambda: time.time() + offset[0])
    code, _ = store.create()
    voter = store.voter(code, store.new_voter(code, True))

    async def hold() -> None:
        watch = Watch(store)
        await watch.room(code)  # as the room's route reads it before a follower waits
        gone = asyncio.get_running_loop().create_future()  # the tab stays
        waiting = asyncio.ensure_future(watch.until_changed(code, voter, "hall", gone))
        await asyncio.sleep(2 * REPORT + 1)  # one wait, held across two reports
        waiting.cancel()
        gone.cancel()

    run_apart(hold())
    offset[0] = PRESENT_SECONDS - REPORT + 1  # counted only if reported in the last report
    assert store.headcount(code) == 1
