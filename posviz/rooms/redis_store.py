"""Rooms in Redis, shared by every server process that points at the same Redis.

One hash per room, one per poll, one hash of votes per poll, and two sorted sets per room: its
voters and its connected followers (by when each was last seen); every key of a room expires
with the room. Two sorted sets list the rooms: every room kept (by when it ends) and the open
ones (by when their lecturer was last seen). Writes that check before they change (a new room
against the cap, a vote against a reveal and the voter cap, a poll added once) are Lua scripts,
which Redis runs atomically.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

import redis

from posviz.rooms import (
    LECTURER_IDLE,
    PRESENT_SECONDS,
    Answer,
    Poll,
    Room,
    RoomError,
    RoomStore,
    guarded,
    lecturer_gone,
)

PREFIX = "posviz:"
ROOMS = PREFIX + "rooms"  # sorted set: code -> when the room ends
OPEN = PREFIX + "open"    # sorted set: code of an open room -> when its lecturer was last seen
HEALTH = PREFIX + "health"

# ARGV: code, key digest, now, expires, cap of open rooms, expires in whole seconds, the time
# before which a lecturer counts as gone
CREATE = """
for _, gone in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[3])) do
  redis.call('ZREM', KEYS[2], gone)
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[7])
if redis.call('EXISTS', KEYS[3]) == 1 then return 0 end
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[5]) then return 0 end
redis.call('HSET', KEYS[3], 'key_digest', ARGV[2], 'created', ARGV[3], 'expires', ARGV[4],
           'closed', '0', 'version', '1', 'page', '', 'query', '', 'live', '',
           'lead_seen', ARGV[3])
redis.call('EXPIREAT', KEYS[3], ARGV[6])
redis.call('ZADD', KEYS[1], ARGV[4], ARGV[1])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
return 1
"""

ADD_POLL = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'question', ARGV[2], 'options', ARGV[3], 'revealed', '0',
           'correct', ARGV[6])
redis.call('RPUSH', KEYS[2], ARGV[1])
redis.call('EXPIREAT', KEYS[1], ARGV[5])
redis.call('EXPIREAT', KEYS[2], ARGV[5])
if ARGV[4] == '1' then
  redis.call('HSET', KEYS[3], 'live', ARGV[1])
  redis.call('HINCRBY', KEYS[3], 'version', 1)
end
return 1
"""

# -1: the poll is revealed (closed); 0: a new voter in a full room; 1: counted
VOTE = """
if redis.call('HGET', KEYS[1], 'revealed') ~= '0' then return -1 end
if not redis.call('ZSCORE', KEYS[3], ARGV[1]) and
   redis.call('ZCARD', KEYS[3]) >= tonumber(ARGV[4]) then return 0 end
redis.call('ZADD', KEYS[3], ARGV[3], ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2] .. ':' .. ARGV[3])
redis.call('EXPIREAT', KEYS[2], ARGV[5])
redis.call('EXPIREAT', KEYS[3], ARGV[5])
return 1
"""

# ARGV: now, cap, expires, the time before which a follower counts as gone, followers...
SEEN = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[4])
local cap = tonumber(ARGV[2])
for i = 5, #ARGV do
  if redis.call('ZSCORE', KEYS[1], ARGV[i]) or redis.call('ZCARD', KEYS[1]) < cap then
    redis.call('ZADD', KEYS[1], ARGV[1], ARGV[i])
  end
end
redis.call('EXPIREAT', KEYS[1], ARGV[3])
return 1
"""


def _room_key(code: str) -> str:
    return f"{PREFIX}room:{code}"


def _poll_key(code: str, poll_id: str) -> str:
    return f"{PREFIX}room:{code}:poll:{poll_id}"


def _votes_key(code: str, poll_id: str) -> str:
    return f"{PREFIX}room:{code}:votes:{poll_id}"


def _polls_key(code: str) -> str:
    return f"{PREFIX}room:{code}:polls"


def _voters_key(code: str) -> str:
    return f"{PREFIX}room:{code}:voters"


def _present_key(code: str) -> str:
    return f"{PREFIX}room:{code}:present"


@dataclass
class RedisStore(RoomStore):
    client: redis.Redis | None = None
    failures = (redis.RedisError, OSError)

    def __post_init__(self) -> None:
        super().__post_init__()
        self._create_script = self.client.register_script(CREATE)
        self._add_poll_script = self.client.register_script(ADD_POLL)
        self._vote_script = self.client.register_script(VOTE)
        self._seen_script = self.client.register_script(SEEN)

    @classmethod
    def from_url(cls, url: str, **options) -> RedisStore:
        client = redis.Redis.from_url(url, decode_responses=True, socket_timeout=5,
                                      socket_connect_timeout=2, health_check_interval=30)
        return cls(client=client, **options)

    def _expiry(self, code: str) -> int:
        """When the room's keys go: the room hash's own expiry, whole seconds."""
        return math.ceil(float(self.client.hget(_room_key(code), "expires") or 0))

    def _create(self, code: str, digest: str, now: float, expires: float) -> bool:
        return self._create_script(keys=[ROOMS, OPEN, _room_key(code)],
                                   args=[code, digest, now, expires, self.limits.rooms,
                                         math.ceil(expires), now - LECTURER_IDLE]) == 1

    def _room(self, code: str) -> Room | None:
        room = self.client.hgetall(_room_key(code))
        if not room:
            return None
        return Room(code, int(room["version"]), room["page"], room["query"], room["live"],
                    room["closed"] == "1", float(room["created"]), float(room["expires"]),
                    float(room["lead_seen"]))

    def _codes(self) -> list[str]:
        return self.client.zrange(ROOMS, 0, -1)

    @guarded
    def versions(self, codes) -> dict[str, tuple[int, bool]]:
        codes = list(codes)
        with self.client.pipeline(transaction=False) as pipe:  # one round trip for all
            for code in codes:
                pipe.hmget(_room_key(code), "version", "closed", "expires", "lead_seen")
            rows = pipe.execute()
        now = self.clock()
        return {code: (int(version), closed == "1" or lecturer_gone(float(lead), now))
                for code, (version, closed, expires, lead) in zip(codes, rows, strict=True)
                if version is not None and float(expires) > now}

    def _key_digest(self, code: str) -> str | None:
        return self.client.hget(_room_key(code), "key_digest")

    def _touch(self, code: str, now: float) -> None:
        with self.client.pipeline(transaction=True) as pipe:
            pipe.hset(_room_key(code), "lead_seen", now)
            pipe.zadd(OPEN, {code: now}, xx=True)
            pipe.execute()

    def _set_view(self, code: str, page: str, query: str, now: float) -> int:
        with self.client.pipeline(transaction=True) as pipe:
            pipe.hset(_room_key(code), mapping={"page": page, "query": query, "lead_seen": now})
            pipe.hincrby(_room_key(code), "version", 1)
            pipe.zadd(OPEN, {code: now}, xx=True)
            return pipe.execute()[1]

    def _keys(self, code: str) -> list[str]:
        """Every key of the room."""
        polls = self._poll_ids(code)
        return [_room_key(code), _polls_key(code), _voters_key(code), _present_key(code),
                *(_poll_key(code, p) for p in polls), *(_votes_key(code, p) for p in polls)]

    def _close(self, code: str, expires: float) -> None:
        keys = self._keys(code)
        with self.client.pipeline(transaction=True) as pipe:
            pipe.hset(_room_key(code), mapping={"closed": "1", "expires": expires})
            pipe.hincrby(_room_key(code), "version", 1)
            pipe.zrem(OPEN, code)
            pipe.zadd(ROOMS, {code: expires})
            for key in keys:
                pipe.expireat(key, math.ceil(expires))
            pipe.execute()

    def _delete(self, code: str) -> None:
        keys = self._keys(code)
        with self.client.pipeline(transaction=True) as pipe:
            pipe.delete(*keys)
            pipe.zrem(OPEN, code)
            pipe.zrem(ROOMS, code)
            pipe.execute()

    def _health(self, now: float) -> None:
        self.client.set(HEALTH, now, ex=60)
        self.client.get(HEALTH)

    def _poll(self, code: str, poll_id: str) -> Poll | None:
        poll = self.client.hgetall(_poll_key(code, poll_id))
        if not poll:
            return None
        return Poll(poll_id, poll["question"], tuple(json.loads(poll["options"])),
                    poll["revealed"] == "1", int(poll["correct"]) if poll["correct"] else None)

    def _poll_ids(self, code: str) -> list[str]:
        return self.client.lrange(_polls_key(code), 0, -1)

    def _store_poll(self, code: str, poll_id: str, question: str, options: list[str],
                    live: bool, correct: int | None) -> None:
        self._add_poll_script(
            keys=[_poll_key(code, poll_id), _polls_key(code), _room_key(code)],
            args=[poll_id, question, json.dumps(options, ensure_ascii=False), int(live),
                  self._expiry(code), "" if correct is None else correct])

    def _set_live(self, code: str, poll_id: str) -> None:
        with self.client.pipeline(transaction=True) as pipe:
            pipe.hset(_room_key(code), "live", poll_id)
            pipe.hincrby(_room_key(code), "version", 1)
            pipe.execute()

    def _vote(self, code: str, poll_id: str, voter: str, option: int, now: float) -> bool:
        counted = self._vote_script(
            keys=[_poll_key(code, poll_id), _votes_key(code, poll_id), _voters_key(code)],
            args=[voter, option, now, self.limits.voters, self._expiry(code)])
        if counted == -1:
            raise RoomError("poll_closed")
        return counted == 1

    def _my_vote(self, code: str, poll_id: str, voter: str) -> int | None:
        vote = self.client.hget(_votes_key(code, poll_id), voter)
        return None if vote is None else int(vote.split(":")[0])

    def _options_voted(self, code: str, poll_id: str) -> list[int]:
        return [int(vote.split(":")[0])
                for vote in self.client.hvals(_votes_key(code, poll_id))]

    def _reveal(self, code: str, poll_id: str, correct: int | None) -> None:
        with self.client.pipeline(transaction=True) as pipe:
            pipe.hset(_poll_key(code, poll_id), mapping={
                "revealed": "1", "correct": "" if correct is None else str(correct)})
            pipe.hincrby(_room_key(code), "version", 1)
            pipe.execute()

    def _answers(self, code: str) -> list[Answer]:
        out = []
        for poll_id in self._poll_ids(code):
            poll = self._poll(code, poll_id)
            votes = self.client.hgetall(_votes_key(code, poll_id))
            for voter, vote in sorted(votes.items(), key=lambda item: float(
                    item[1].split(":", 1)[1])):
                option, at = vote.split(":", 1)
                out.append(Answer(poll_id, poll.question, voter, int(option),
                                  poll.options[int(option)], poll.correct, float(at)))
        return out

    def _seen(self, code: str, voters: list[str], now: float) -> None:
        expires = self._expiry(code)
        if expires:
            self._seen_script(keys=[_present_key(code)],
                              args=[now, self.limits.present, expires, now - PRESENT_SECONDS,
                                    *voters])

    def _headcount(self, code: str, since: float) -> int:
        return self.client.zcount(_present_key(code), since, "+inf")

    def _voters(self, code: str) -> int:
        return self.client.zcard(_voters_key(code))
