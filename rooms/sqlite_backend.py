"""Rooms in one SQLite file (WAL mode): the default, for a single server process.

Each thread gets its own connection (Streamlit runs every session's script on a thread of its
own); writes that check before they change (a vote against a reveal, a room against the cap)
run in `BEGIN IMMEDIATE` transactions, so two processes sharing the file stay consistent too.

The store mends itself where it can: a connection whose file was deleted or replaced opens the
file at its path again (a new, empty store when it is gone), one that failed is opened afresh on
the next call (a folder made writable again), and a file that is not a database any more is moved
aside (`rooms.sqlite3.corrupt-<time>`) for a fresh one.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from rooms.backend import Backend
from rooms.records import Answer, Poll, Rate, Room, RoomError, Vote, log

SCHEMA = """
CREATE TABLE IF NOT EXISTS rooms (
    code TEXT PRIMARY KEY, key_digest TEXT NOT NULL, created REAL NOT NULL,
    expires REAL NOT NULL, closed INTEGER NOT NULL DEFAULT 0, version INTEGER NOT NULL DEFAULT 1,
    page TEXT NOT NULL DEFAULT '', query TEXT NOT NULL DEFAULT '', live TEXT NOT NULL DEFAULT '',
    lead_seen REAL NOT NULL DEFAULT 0, word INTEGER NOT NULL DEFAULT 0,
    app_open INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS polls (
    code TEXT NOT NULL, id TEXT NOT NULL, question TEXT NOT NULL, options TEXT NOT NULL,
    revealed INTEGER NOT NULL DEFAULT 0, correct INTEGER, PRIMARY KEY (code, id));
CREATE TABLE IF NOT EXISTS votes (
    code TEXT NOT NULL, poll TEXT NOT NULL, voter TEXT NOT NULL, option INTEGER NOT NULL,
    at REAL NOT NULL, network TEXT NOT NULL DEFAULT '', sure INTEGER,
    PRIMARY KEY (code, poll, voter));
CREATE TABLE IF NOT EXISTS voters (
    code TEXT NOT NULL, voter TEXT NOT NULL, seen REAL NOT NULL, PRIMARY KEY (code, voter));
CREATE TABLE IF NOT EXISTS present (
    code TEXT NOT NULL, voter TEXT NOT NULL, seen REAL NOT NULL, PRIMARY KEY (code, voter));
CREATE TABLE IF NOT EXISTS screens (
    code TEXT NOT NULL, voter TEXT NOT NULL, network TEXT NOT NULL, PRIMARY KEY (code, voter));
CREATE TABLE IF NOT EXISTS aside (
    code TEXT NOT NULL, voter TEXT NOT NULL, PRIMARY KEY (code, voter));
CREATE TABLE IF NOT EXISTS leads (
    code TEXT NOT NULL, digest TEXT NOT NULL, sealed TEXT NOT NULL, made REAL NOT NULL,
    PRIMARY KEY (code, digest));
CREATE TABLE IF NOT EXISTS limits (
    key TEXT PRIMARY KEY, tokens REAL NOT NULL, at REAL NOT NULL, full REAL NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS health (id INTEGER PRIMARY KEY, at REAL NOT NULL);
"""
ROOM_COLUMNS = ("code, version, page, query, live, closed, created, expires, lead_seen, word, "
                "app_open")
TABLES = ("polls", "votes", "voters", "present", "screens", "aside", "leads")  # a room's, by code
PURGE_EVERY = 60.0  # seconds between purges of the limits that are full again (as Redis expires)
MOST_LIMITS = 200_000  # rows of limits kept at most: past it, those full soonest go first
CORRUPT = ("not a database", "malformed")


@dataclass
class SQLiteBackend(Backend):
    path: Path = Path("data/rooms.sqlite3")
    failures = (sqlite3.Error, OSError)
    _local: threading.local = field(default_factory=threading.local, repr=False)
    _purged: float = field(default=0.0, repr=False)  # when the limits were last purged

    def __post_init__(self) -> None:
        self.path = Path(self.path)

    @property
    def _db(self) -> sqlite3.Connection:
        """This thread's connection to the file now at self.path."""
        db = getattr(self._local, "db", None)
        try:
            here = os.stat(self.path)
            same = db is not None and (here.st_dev, here.st_ino) == self._local.file
        except FileNotFoundError:
            same = False
        if not same:
            self._drop()
            db = self._connect()
        return db

    def _connect(self) -> sqlite3.Connection:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(self.path, timeout=10, isolation_level=None,
                             check_same_thread=False)
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")  # durable across a process crash
            db.executescript(SCHEMA)
            columns = {row[1] for row in db.execute("PRAGMA table_info(rooms)")}
            if "lead_seen" not in columns:  # a file from before lecturers were timed
                db.execute("ALTER TABLE rooms ADD COLUMN lead_seen REAL NOT NULL DEFAULT 0")
                db.execute("UPDATE rooms SET lead_seen = ?", (time.time(),))
            if "word" not in columns:  # a file from before a lecturer could change the word
                db.execute("ALTER TABLE rooms ADD COLUMN word INTEGER NOT NULL DEFAULT 0")
            if "app_open" not in columns:  # a file from before students could be let in the app
                db.execute("ALTER TABLE rooms ADD COLUMN app_open INTEGER NOT NULL DEFAULT 0")
            if "full" not in {row[1] for row in db.execute("PRAGMA table_info(limits)")}:
                db.execute("ALTER TABLE limits ADD COLUMN full REAL NOT NULL DEFAULT 0")
            voted = {row[1] for row in db.execute("PRAGMA table_info(votes)")}
            if "network" not in voted:
                db.execute("ALTER TABLE votes ADD COLUMN network TEXT NOT NULL DEFAULT ''")
            if "sure" not in voted:  # a file from before students said how sure they were
                db.execute("ALTER TABLE votes ADD COLUMN sure INTEGER")
        except BaseException:
            db.close()
            raise
        here = os.stat(self.path)
        self._local.db, self._local.file = db, (here.st_dev, here.st_ino)
        return db

    def disconnect(self) -> None:
        """Close this thread's connection (the next call opens the file again)."""
        self._drop()

    def _drop(self) -> None:
        db = getattr(self._local, "db", None)
        self._local.db = None
        if db is not None:
            with contextlib.suppress(sqlite3.Error):
                db.close()

    def failed(self, failure: BaseException) -> None:
        self._drop()  # the next call opens the file again
        if isinstance(failure, sqlite3.DatabaseError) and any(
                words in str(failure) for words in CORRUPT):
            aside = self.path.with_name(f"{self.path.name}.corrupt-{int(time.time())}")
            with contextlib.suppress(OSError):
                self.path.rename(aside)
                for extra in ("-wal", "-shm"):
                    Path(f"{self.path}{extra}").unlink(missing_ok=True)
                log.warning("posviz rooms: %s is not a database; moved to %s, a new store "
                            "starts empty", self.path, aside)

    @contextlib.contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            yield db
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")

    def create(self, code: str, digest: str, now: float, expires: float, most: int,
               idle: float) -> bool:
        with self._write() as db:
            for table in TABLES:  # rooms past their time go for good
                db.execute(f"DELETE FROM {table} WHERE code IN "
                           "(SELECT code FROM rooms WHERE expires <= ?)", (now,))
            db.execute("DELETE FROM rooms WHERE expires <= ?", (now,))
            (open_rooms,) = db.execute(
                "SELECT COUNT(*) FROM rooms WHERE closed = 0 AND lead_seen > ?",
                (now - idle,)).fetchone()
            if open_rooms >= most:
                return False
            return db.execute(
                "INSERT OR IGNORE INTO rooms (code, key_digest, created, expires, lead_seen) "
                "VALUES (?, ?, ?, ?, ?)", (code, digest, now, expires, now)).rowcount == 1

    def room(self, code: str) -> Room | None:
        row = self._db.execute(f"SELECT {ROOM_COLUMNS} FROM rooms WHERE code = ?",
                               (code,)).fetchone()
        return None if row is None else Room(row[0], row[1], row[2], row[3], row[4],
                                             bool(row[5]), row[6], row[7], row[8], row[9],
                                             bool(row[10]))

    def codes(self) -> list[str]:
        return [code for (code,) in self._db.execute("SELECT code FROM rooms")]

    def key_digest(self, code: str) -> str | None:
        row = self._db.execute("SELECT key_digest FROM rooms WHERE code = ?", (code,)).fetchone()
        return None if row is None else row[0]

    def add_lead(self, code: str, digest: str, sealed: str, now: float, most: int) -> None:
        with self._write() as db:
            db.execute("INSERT INTO leads (code, digest, sealed, made) VALUES (?, ?, ?, ?)",
                       (code, digest, sealed, now))
            db.execute("DELETE FROM leads WHERE code = ? AND digest NOT IN (SELECT digest "
                       "FROM leads WHERE code = ? ORDER BY made DESC LIMIT ?)",
                       (code, code, most))

    def lead(self, code: str, digest: str) -> tuple[float, str] | None:
        row = self._db.execute("SELECT made, sealed FROM leads WHERE code = ? AND digest = ?",
                               (code, digest)).fetchone()
        return None if row is None else (row[0], row[1])

    def take_lead(self, code: str, digest: str) -> str | None:
        with self._write() as db:
            row = db.execute("DELETE FROM leads WHERE code = ? AND digest = ? RETURNING sealed",
                             (code, digest)).fetchone()
        return None if row is None else row[0]

    def touch(self, code: str, now: float) -> None:
        with self._write() as db:
            db.execute("UPDATE rooms SET lead_seen = ? WHERE code = ?", (now, code))

    def new_word(self, code: str) -> None:
        with self._write() as db:
            db.execute("UPDATE rooms SET word = word + 1 WHERE code = ?", (code,))

    def set_app_open(self, code: str, app_open: bool) -> None:
        with self._write() as db:
            db.execute("UPDATE rooms SET app_open = ?, version = version + 1 WHERE code = ?",
                       (int(app_open), code))

    def set_view(self, code: str, page: str, query: str, now: float) -> int:
        with self._write() as db:
            return db.execute("UPDATE rooms SET page = ?, query = ?, version = version + 1, "
                              "lead_seen = ? WHERE code = ? RETURNING version",
                              (page, query, now, code)).fetchone()[0]

    def close(self, code: str, expires: float) -> None:
        with self._write() as db:
            db.execute("UPDATE rooms SET closed = 1, version = version + 1, expires = ? "
                       "WHERE code = ?", (expires, code))

    def delete(self, code: str) -> None:
        with self._write() as db:
            for table in (*TABLES, "rooms"):
                db.execute(f"DELETE FROM {table} WHERE code = ?", (code,))

    def health(self, now: float) -> None:
        with self._write() as db:
            db.execute("INSERT OR REPLACE INTO health (id, at) VALUES (1, ?)", (now,))

    def poll(self, code: str, poll_id: str) -> Poll | None:
        row = self._db.execute("SELECT id, question, options, revealed, correct FROM polls "
                               "WHERE code = ? AND id = ?", (code, poll_id)).fetchone()
        return None if row is None else Poll(row[0], row[1], tuple(json.loads(row[2])),
                                             bool(row[3]), row[4])

    def poll_ids(self, code: str) -> list[str]:
        return [poll_id for (poll_id,) in self._db.execute(
            "SELECT id FROM polls WHERE code = ? ORDER BY rowid", (code,))]

    def store_poll(self, code: str, poll_id: str, question: str, options: list[str],
                    live: bool, correct: int | None) -> None:
        with self._write() as db:
            db.execute("INSERT OR IGNORE INTO polls (code, id, question, options, correct) "
                       "VALUES (?, ?, ?, ?, ?)", (code, poll_id, question,
                                                  json.dumps(options, ensure_ascii=False),
                                                  correct))
            if live:
                db.execute("UPDATE rooms SET live = ?, version = version + 1 WHERE code = ?",
                           (poll_id, code))

    def set_live(self, code: str, poll_id: str) -> None:
        with self._write() as db:
            db.execute("UPDATE rooms SET live = ?, version = version + 1 WHERE code = ?",
                       (poll_id, code))

    def vote(self, code: str, poll_id: str, voter: str, option: int, now: float,
             network: str, following: bool, sure: bool | None, most: int) -> bool:
        with self._write() as db:
            (revealed,) = db.execute("SELECT revealed FROM polls WHERE code = ? AND id = ?",
                                     (code, poll_id)).fetchone()
            if revealed:  # revealed between the caller's check and now
                raise RoomError("poll_closed")
            if db.execute("SELECT 1 FROM aside WHERE code = ? AND voter = ?",
                          (code, voter)).fetchone():
                raise RoomError("set_aside")
            if following:
                db.execute("INSERT OR IGNORE INTO screens (code, voter, network) VALUES "
                           "(?, ?, ?)", (code, voter, network))
            if not _admit(db, code, voter, now, most):
                return False
            db.execute("INSERT INTO votes (code, poll, voter, option, at, network, sure) VALUES "
                       "(?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO UPDATE SET option = "
                       "excluded.option, at = excluded.at, network = excluded.network, "
                       "sure = excluded.sure", (code, poll_id, voter, option, now, network, sure))
            return True

    def my_vote(self, code: str, poll_id: str, voter: str) -> Vote | None:
        row = self._db.execute("SELECT option, sure FROM votes WHERE code = ? AND poll = ? AND "
                               "voter = ?", (code, poll_id, voter)).fetchone()
        return None if row is None else Vote(voter, row[0], _sure(row[1]))

    def votes(self, code: str, poll_id: str) -> list[Vote]:
        return [Vote(voter, option, _sure(sure)) for voter, option, sure in self._db.execute(
            "SELECT voter, option, sure FROM votes WHERE code = ? AND poll = ?", (code, poll_id))]

    def reveal(self, code: str, poll_id: str, correct: int | None) -> None:
        with self._write() as db:
            db.execute("UPDATE polls SET revealed = 1, correct = ? WHERE code = ? AND id = ?",
                       (correct, code, poll_id))
            db.execute("UPDATE rooms SET version = version + 1 WHERE code = ?", (code,))

    def answers(self, code: str) -> list[Answer]:
        rows = self._db.execute(
            "SELECT v.poll, p.question, v.voter, v.option, p.options, p.correct, v.at, "
            "v.network, v.sure FROM votes v JOIN polls p ON p.code = v.code AND p.id = v.poll "
            "WHERE v.code = ? ORDER BY p.rowid, v.at, v.rowid", (code,))
        return [Answer(poll, question, voter, option, json.loads(options)[option], correct, at,
                       network, _sure(sure))
                for poll, question, voter, option, options, correct, at, network, sure in rows]

    def seen(self, code: str, voters: dict[str, str], now: float, gone: float,
             most: int) -> None:
        with self._write() as db:
            db.execute("DELETE FROM present WHERE code = ? AND seen < ?", (code, gone))
            (count,) = db.execute("SELECT COUNT(*) FROM present WHERE code = ?",
                                  (code,)).fetchone()
            for voter, network in voters.items():
                db.execute("INSERT OR IGNORE INTO screens (code, voter, network) VALUES "
                           "(?, ?, ?)", (code, voter, network))
                if db.execute("UPDATE present SET seen = ? WHERE code = ? AND voter = ?",
                              (now, code, voter)).rowcount == 0 and count < most:
                    db.execute("INSERT INTO present (code, voter, seen) VALUES (?, ?, ?)",
                               (code, voter, now))
                    count += 1

    def screens(self, code: str) -> dict[str, str]:
        return dict(self._db.execute("SELECT voter, network FROM screens WHERE code = ?",
                                     (code,)))

    def poll_votes(self, code: str, poll_id: str) -> list[tuple[str, str]]:
        return self._db.execute("SELECT voter, network FROM votes WHERE code = ? AND poll = ?",
                                (code, poll_id)).fetchall()

    def room_votes(self, code: str) -> list[tuple[str, str]]:
        return self._db.execute("SELECT voter, network FROM votes WHERE code = ? ORDER BY rowid",
                                (code,)).fetchall()

    def set_aside(self, code: str, voters: list[str]) -> int:
        gone = 0
        with self._write() as db:
            for voter in voters:
                db.execute("INSERT OR IGNORE INTO aside (code, voter) VALUES (?, ?)",
                           (code, voter))
                db.execute("DELETE FROM voters WHERE code = ? AND voter = ?", (code, voter))
                gone += db.execute("DELETE FROM votes WHERE code = ? AND voter = ?",
                                   (code, voter)).rowcount
        return gone

    def bucket(self, key: str, rate: Rate, now: float, step: int, force: bool) -> float:
        if not step:
            return _refilled(self._db.execute("SELECT tokens, at FROM limits WHERE key = ?",
                                              (key,)).fetchone(), rate, now)
        with self._write() as db:
            tokens = _refilled(db.execute("SELECT tokens, at FROM limits WHERE key = ?",
                                          (key,)).fetchone(), rate, now)
            if step < 0 or tokens >= 1 or (force and tokens > 0):  # a refusal writes nothing
                left = min(rate.burst, max(0.0, tokens - step))
                db.execute("INSERT OR REPLACE INTO limits (key, tokens, at, full) "
                           "VALUES (?, ?, ?, ?)",
                           (key, left, now, now + (rate.burst - left) * 60 / rate.per_minute))
            if now - self._purged >= PURGE_EVERY:
                self._purged = now
                _purge_limits(db, now)
        return tokens

    def headcount(self, code: str, since: float) -> int:
        return self._db.execute("SELECT COUNT(*) FROM present WHERE code = ? AND seen >= ?",
                                (code, since)).fetchone()[0]

    def voters(self, code: str) -> int:
        return self._db.execute("SELECT COUNT(*) FROM voters WHERE code = ?",
                                (code,)).fetchone()[0]


def _admit(db: sqlite3.Connection, code: str, voter: str, now: float, most: int) -> bool:
    """Count the voter among the room's voters unless it is new, never followed the room,
    and the room has `most` such voters."""
    if db.execute("UPDATE voters SET seen = ? WHERE code = ? AND voter = ?",
                  (now, code, voter)).rowcount:
        return True
    screen = db.execute("SELECT 1 FROM screens WHERE code = ? AND voter = ?",
                        (code, voter)).fetchone()
    (count,) = db.execute("SELECT COUNT(*) FROM voters WHERE code = ? AND voter NOT IN "
                          "(SELECT voter FROM screens WHERE code = ?)", (code, code)).fetchone()
    if not screen and count >= most:
        return False
    db.execute("INSERT INTO voters (code, voter, seen) VALUES (?, ?, ?)", (code, voter, now))
    return True


def _purge_limits(db: sqlite3.Connection, now: float) -> None:
    """Delete the limits that are full again (a full bucket is what a missing row means), and
    past MOST_LIMITS rows those full soonest."""
    db.execute("DELETE FROM limits WHERE full <= ?", (now,))
    (rows,) = db.execute("SELECT COUNT(*) FROM limits").fetchone()
    if rows > MOST_LIMITS:
        db.execute("DELETE FROM limits WHERE key IN (SELECT key FROM limits ORDER BY full "
                   "LIMIT ?)", (rows - MOST_LIMITS,))


def _sure(stored: int | None) -> bool | None:
    return None if stored is None else bool(stored)


def _refilled(row: tuple[float, float] | None, rate: Rate, now: float) -> float:
    """A bucket's tokens now, from what it held when last taken from (a full one if never)."""
    return rate.burst if row is None else min(rate.burst,
                                              row[0] + (now - row[1]) * rate.per_minute / 60)
