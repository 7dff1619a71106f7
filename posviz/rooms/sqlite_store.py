"""Rooms in one SQLite file (WAL mode): the default, for a single server process.

Each thread gets its own connection (Streamlit runs every session's script on a thread of its
own); writes that check before they change (a vote against a reveal, a room against the cap)
run in `BEGIN IMMEDIATE` transactions, so two processes sharing the file stay consistent too.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from posviz.rooms import Answer, Poll, Room, RoomError, RoomStore

SCHEMA = """
CREATE TABLE IF NOT EXISTS rooms (
    code TEXT PRIMARY KEY, key_digest TEXT NOT NULL, created REAL NOT NULL,
    expires REAL NOT NULL, closed INTEGER NOT NULL DEFAULT 0, version INTEGER NOT NULL DEFAULT 1,
    page TEXT NOT NULL DEFAULT '', query TEXT NOT NULL DEFAULT '', live TEXT NOT NULL DEFAULT '');
CREATE TABLE IF NOT EXISTS polls (
    code TEXT NOT NULL, id TEXT NOT NULL, question TEXT NOT NULL, options TEXT NOT NULL,
    revealed INTEGER NOT NULL DEFAULT 0, correct INTEGER, PRIMARY KEY (code, id));
CREATE TABLE IF NOT EXISTS votes (
    code TEXT NOT NULL, poll TEXT NOT NULL, voter TEXT NOT NULL, option INTEGER NOT NULL,
    at REAL NOT NULL, PRIMARY KEY (code, poll, voter));
CREATE TABLE IF NOT EXISTS voters (
    code TEXT NOT NULL, voter TEXT NOT NULL, seen REAL NOT NULL, PRIMARY KEY (code, voter));
"""
ROOM_COLUMNS = "code, version, page, query, live, closed, created, expires"


@dataclass
class SQLiteStore(RoomStore):
    path: Path = Path("data/rooms.sqlite3")
    _local: threading.local = field(default_factory=threading.local, repr=False)

    def __post_init__(self) -> None:
        self.path = Path(self.path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db.executescript(SCHEMA)

    @property
    def _db(self) -> sqlite3.Connection:
        db = getattr(self._local, "db", None)
        if db is None:
            db = sqlite3.connect(self.path, timeout=10, isolation_level=None,
                                 check_same_thread=False)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")  # durable across a process crash
            self._local.db = db
        return db

    @contextlib.contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            yield db
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")

    def _create(self, code: str, digest: str, now: float, expires: float) -> bool:
        with self._write() as db:
            for table in ("polls", "votes", "voters"):  # rooms past their time go for good
                db.execute(f"DELETE FROM {table} WHERE code IN "
                           "(SELECT code FROM rooms WHERE expires <= ?)", (now,))
            db.execute("DELETE FROM rooms WHERE expires <= ?", (now,))
            (open_rooms,) = db.execute("SELECT COUNT(*) FROM rooms").fetchone()
            if open_rooms >= self.limits.rooms:
                return False
            return db.execute(
                "INSERT OR IGNORE INTO rooms (code, key_digest, created, expires) "
                "VALUES (?, ?, ?, ?)", (code, digest, now, expires)).rowcount == 1

    def _room(self, code: str) -> Room | None:
        row = self._db.execute(f"SELECT {ROOM_COLUMNS} FROM rooms WHERE code = ?",
                               (code,)).fetchone()
        return None if row is None else Room(row[0], row[1], row[2], row[3], row[4],
                                             bool(row[5]), row[6], row[7])

    def _key_digest(self, code: str) -> str | None:
        row = self._db.execute("SELECT key_digest FROM rooms WHERE code = ?", (code,)).fetchone()
        return None if row is None else row[0]

    def _set_view(self, code: str, page: str, query: str) -> int:
        with self._write() as db:
            return db.execute("UPDATE rooms SET page = ?, query = ?, version = version + 1 "
                              "WHERE code = ? RETURNING version", (page, query, code)).fetchone()[0]

    def _close(self, code: str) -> None:
        with self._write() as db:
            db.execute("UPDATE rooms SET closed = 1, version = version + 1 WHERE code = ?",
                       (code,))

    def _poll(self, code: str, poll_id: str) -> Poll | None:
        row = self._db.execute("SELECT id, question, options, revealed, correct FROM polls "
                               "WHERE code = ? AND id = ?", (code, poll_id)).fetchone()
        return None if row is None else Poll(row[0], row[1], tuple(json.loads(row[2])),
                                             bool(row[3]), row[4])

    def _poll_ids(self, code: str) -> list[str]:
        return [poll_id for (poll_id,) in self._db.execute(
            "SELECT id FROM polls WHERE code = ? ORDER BY rowid", (code,))]

    def _store_poll(self, code: str, poll_id: str, question: str, options: list[str],
                    live: bool, correct: int | None) -> None:
        with self._write() as db:
            db.execute("INSERT OR IGNORE INTO polls (code, id, question, options, correct) "
                       "VALUES (?, ?, ?, ?, ?)", (code, poll_id, question,
                                                  json.dumps(options, ensure_ascii=False),
                                                  correct))
            if live:
                db.execute("UPDATE rooms SET live = ?, version = version + 1 WHERE code = ?",
                           (poll_id, code))

    def _set_live(self, code: str, poll_id: str) -> None:
        with self._write() as db:
            db.execute("UPDATE rooms SET live = ?, version = version + 1 WHERE code = ?",
                       (poll_id, code))

    def _vote(self, code: str, poll_id: str, voter: str, option: int, now: float) -> bool:
        with self._write() as db:
            (revealed,) = db.execute("SELECT revealed FROM polls WHERE code = ? AND id = ?",
                                     (code, poll_id)).fetchone()
            if revealed:  # revealed between the caller's check and now
                raise RoomError("poll_closed")
            if not self._admit(db, code, voter, now):
                return False
            db.execute("INSERT INTO votes (code, poll, voter, option, at) VALUES (?, ?, ?, ?, ?)"
                       " ON CONFLICT DO UPDATE SET option = excluded.option, at = excluded.at",
                       (code, poll_id, voter, option, now))
            return True

    def _admit(self, db: sqlite3.Connection, code: str, voter: str, now: float) -> bool:
        """Count the voter in the room (seen now) unless it is new and the room is full."""
        if db.execute("UPDATE voters SET seen = ? WHERE code = ? AND voter = ?",
                      (now, code, voter)).rowcount:
            return True
        (count,) = db.execute("SELECT COUNT(*) FROM voters WHERE code = ?", (code,)).fetchone()
        if count >= self.limits.voters:
            return False
        db.execute("INSERT INTO voters (code, voter, seen) VALUES (?, ?, ?)", (code, voter, now))
        return True

    def _my_vote(self, code: str, poll_id: str, voter: str) -> int | None:
        row = self._db.execute("SELECT option FROM votes WHERE code = ? AND poll = ? AND "
                               "voter = ?", (code, poll_id, voter)).fetchone()
        return None if row is None else row[0]

    def _options_voted(self, code: str, poll_id: str) -> list[int]:
        return [option for (option,) in self._db.execute(
            "SELECT option FROM votes WHERE code = ? AND poll = ?", (code, poll_id))]

    def _reveal(self, code: str, poll_id: str, correct: int | None) -> None:
        with self._write() as db:
            db.execute("UPDATE polls SET revealed = 1, correct = ? WHERE code = ? AND id = ?",
                       (correct, code, poll_id))
            db.execute("UPDATE rooms SET version = version + 1 WHERE code = ?", (code,))

    def _answers(self, code: str) -> list[Answer]:
        rows = self._db.execute(
            "SELECT v.poll, p.question, v.voter, v.option, p.options, p.correct, v.at "
            "FROM votes v JOIN polls p ON p.code = v.code AND p.id = v.poll "
            "WHERE v.code = ? ORDER BY p.rowid, v.at, v.rowid", (code,))
        return [Answer(poll, question, voter, option, json.loads(options)[option], correct, at)
                for poll, question, voter, option, options, correct, at in rows]

    def _seen(self, code: str, voters: list[str], now: float) -> None:
        with self._write() as db:
            for voter in voters:
                self._admit(db, code, voter, now)

    def _headcount(self, code: str, since: float) -> int:
        return self._db.execute("SELECT COUNT(*) FROM voters WHERE code = ? AND seen >= ?",
                                (code, since)).fetchone()[0]
