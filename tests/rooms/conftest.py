"""The room stores every test here runs against: SQLite in a temporary folder and a real
redis-server, each on a clock the test moves by hand."""

from __future__ import annotations

import pytest
import redis

from rooms import open_rooms


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(params=["sqlite", "redis"])
def backend(request, tmp_path):
    """A function making stores of one backend, all on the same fresh data."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'rooms.sqlite3'}"
    else:
        url = request.getfixturevalue("redis_url")
        redis.Redis.from_url(url).flushdb()
    return lambda **options: open_rooms(url, **options)


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def store(backend, clock):
    return backend(clock=clock)
