"""The rooms' rules (`Rooms`): who may open a room, lead it, vote in it and how often, when it
ends, what a follower is shown; over a backend that stores the plain records (rooms.backend),
SQLite or Redis, which `open_rooms` picks from a URL.

`Rooms` is one face over the rules' jobs, each a module of its own on rooms.rules.base:

- rooms.rules.rates: voter ids, networks and the budgets every server process shares;
- rooms.rules.keys: the room's key, lecturer links, the key held for the browser that started it;
- rooms.rules.lifetime: rooms opened, shown (the view, the word), kept and ended;
- rooms.rules.polls: questions, votes, rounds, reveals, the answers' CSV;
- rooms.rules.check: the concept check's sittings and gains;
- rooms.rules.presence: screens that follow, connected students, suspect networks.
"""

from __future__ import annotations

import functools
from pathlib import Path

from rooms import config
from rooms.backend import Backend
from rooms.config import setting
from rooms.rules.base import ROOT, RoomsBase, guarded
from rooms.rules.check import ConceptCheck
from rooms.rules.keys import Keys
from rooms.rules.lifetime import Lifetime
from rooms.rules.polls import Polls
from rooms.rules.presence import Presence
from rooms.rules.rates import Rates

__all__ = ["DEFAULT_STORE", "ROOT", "Rooms", "RoomsBase", "guarded", "open_backend", "open_rooms",
           "shared_rooms"]


class Rooms(Rates, Keys, Lifetime, Polls, ConceptCheck, Presence):
    """The rooms of a server, their views, polls and votes, and the rate limits every server
    process shares, kept by a backend.

    Public methods check their arguments and raise RoomError for anything a room refuses, and
    StoreDown when the backend fails; the backend gets only checked values. Every time is this
    clock's (seconds since the epoch), injectable for tests; `secret` signs voter ids
    (rooms.signing).
    """


DEFAULT_STORE = "sqlite:///data/rooms.sqlite3"


def open_backend(url: str | None = None, root: Path | None = None) -> Backend:
    """The backend a URL names: `sqlite:///relative/path`, `sqlite:////absolute/path`, or
    `redis://host:port/db`. None reads POSVIZ_ROOM_STORE, then the SQLite default. A relative
    SQLite path starts at root (the project folder when None)."""
    url = url or setting(config.STORE, DEFAULT_STORE)
    root = root or ROOT
    if url.startswith(("redis://", "rediss://", "unix://")):
        from rooms.redis_backend import RedisBackend
        return RedisBackend.from_url(url)
    if url.startswith("sqlite:///"):
        from rooms.sqlite_backend import SQLiteBackend
        path = Path(url.removeprefix("sqlite:///"))
        return SQLiteBackend(path=path if path.is_absolute() else root / path)
    raise ValueError(f"POSVIZ_ROOM_STORE must start with sqlite:/// or redis://, got {url!r}")


def open_rooms(url: str | None = None, root: Path | None = None, **options) -> Rooms:
    """The rooms kept where a URL names (open_backend); options are Rooms' (limits, clock,
    secret)."""
    return Rooms(open_backend(url, root), **options)


@functools.cache
def shared_rooms() -> Rooms:
    """This server process's rooms, kept where POSVIZ_ROOM_STORE names: one for every session
    of the app and for the rooms' routes (serve.py hands it to them)."""
    return open_rooms()
