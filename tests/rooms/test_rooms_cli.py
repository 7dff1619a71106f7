"""The operator's command, `python -m rooms`, on a store of its own."""

from __future__ import annotations

import subprocess
import sys

from rooms import open_rooms, spaced
from tests.conftest import ROOT


def rooms(url: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rooms", "--store", url, *args],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)


def test_the_operator_lists_closes_and_purges_rooms(tmp_path):
    url = f"sqlite:///{tmp_path / 'rooms.sqlite3'}"
    store = open_rooms(url)
    kept, _ = store.create()
    ended, _ = store.create()
    poll = store.ask(kept, "Which?", ["a", "b"])
    store.vote(kept, poll.id, store.new_voter(kept, True), 0)

    listed = rooms(url, "list")
    assert listed.returncode == 0 and "rooms kept: 2, open: 2" in listed.stdout
    assert f"{spaced(kept)}  open" in listed.stdout and "students voted 1" in listed.stdout

    assert rooms(url, "close", ended).returncode == 0 and store.room(ended).closed
    purged = rooms(url, "purge", "--closed")
    assert purged.returncode == 0 and f"purged 1 room(s) {spaced(ended)}" in purged.stdout
    assert store.room(ended) is None and store.room(kept) is not None
    assert rooms(url, "purge", kept).returncode == 0 and store.kept() == []


def test_the_operator_is_told_plainly_what_went_wrong(tmp_path):
    url = f"sqlite:///{tmp_path / 'rooms.sqlite3'}"
    missing = rooms(url, "close", "123 456")
    assert missing.returncode == 1 and "no room '123 456'" in missing.stderr
    down = rooms("redis://127.0.0.1:9/0", "list")  # nothing listens there
    assert down.returncode == 1 and "cannot be reached" in down.stderr
    assert "Traceback" not in down.stderr
