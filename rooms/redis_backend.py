"""Rooms in Redis, shared by every server process that points at the same Redis.

One hash per room, one per poll, one hash of votes per poll (voter -> option:time:network:sure,
sure "1", "0" or "" for not said), two
sorted sets per room (its voters and its connected followers, by when each was last seen), a
hash of the screens that followed it (voter -> network), a set of the voters set aside and a
hash of its unused lecturer links (token digest -> made:sealed key); every key of a room
expires with the room. Two sorted sets list the rooms: every room kept (by when
it ends) and the open ones (by when their lecturer was last seen). A hash per rate limit and
key holds its tokens, and expires once it would be full again. Writes that check before they
change (a new room against the cap, a vote against a reveal and the voter cap, a poll added
once, a rate limit's tokens, a room's newest lecturer links) are Lua scripts, which Redis runs
atomically.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

import redis

from rooms.backend import Backend
from rooms.records import Answer, Poll, Rate, Room, RoomError, Vote

PREFIX = "posviz:"
ROOMS = PREFIX + "rooms"  # sorted set: code -> when the room ends
OPEN = PREFIX + "open"    # sorted set: code of an open room -> when its lecturer was last seen
HEALTH = PREFIX + "health"
TIMEOUT = 2.0  # seconds a Redis call may take: one that hangs (a stopped Redis) fails by then

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

# KEYS: poll, its votes, the room's voters, screens, voters set aside
# ARGV: voter, option, now, cap of voters that never followed, expires, network, following, sure
# -2: set aside; -1: the poll is revealed (closed); 0: a new voter in a full room; 1: counted
VOTE = """
if redis.call('HGET', KEYS[1], 'revealed') ~= '0' then return -1 end
if redis.call('SISMEMBER', KEYS[5], ARGV[1]) == 1 then return -2 end
if ARGV[7] == '1' then
  redis.call('HSETNX', KEYS[4], ARGV[1], ARGV[6])
  redis.call('EXPIREAT', KEYS[4], ARGV[5])
end
if not redis.call('ZSCORE', KEYS[3], ARGV[1]) and redis.call('HEXISTS', KEYS[4], ARGV[1]) == 0 then
  local unfollowed = 0
  for _, voter in ipairs(redis.call('ZRANGE', KEYS[3], 0, -1)) do
    if redis.call('HEXISTS', KEYS[4], voter) == 0 then unfollowed = unfollowed + 1 end
  end
  if unfollowed >= tonumber(ARGV[4]) then return 0 end
end
redis.call('ZADD', KEYS[3], ARGV[3], ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2] .. ':' .. ARGV[3] .. ':' .. ARGV[6] .. ':' .. ARGV[8])
redis.call('EXPIREAT', KEYS[2], ARGV[5])
redis.call('EXPIREAT', KEYS[3], ARGV[5])
return 1
"""

# KEYS: the bucket; ARGV: burst, per minute, now, step (1 take, -1 give back, 0 read),
# force ('1': take what is left, never writing an empty bucket again); the tokens before
BUCKET = """
local held = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local burst, rate, now = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local tokens = burst
if held[1] then
  tokens = math.min(burst, tonumber(held[1]) + (now - tonumber(held[2])) * rate / 60)
end
local step = tonumber(ARGV[4])
if step < 0 or (step > 0 and (tokens >= 1 or (ARGV[5] == '1' and tokens > 0))) then
  local left = math.min(burst, math.max(0, tokens - step))
  redis.call('HSET', KEYS[1], 'tokens', tostring(left), 'at', ARGV[3])
  redis.call('EXPIRE', KEYS[1], math.ceil((burst - left) * 60 / rate) + 1)
end
return tostring(tokens)
"""

# KEYS: the room's lecturer links, the room; ARGV: digest, made:sealed, how many are kept
ADD_LEAD = """
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('EXPIREAT', KEYS[1], math.ceil(tonumber(redis.call('HGET', KEYS[2], 'expires'))))
local kept = redis.call('HGETALL', KEYS[1])
local over = #kept / 2 - tonumber(ARGV[3])
while over > 0 do
  local oldest, made = nil, nil
  for i = 1, #kept, 2 do
    local at = tonumber(string.match(kept[i + 1], '^[^:]+'))
    if at and (made == nil or at < made) then oldest, made = kept[i], at end
  end
  redis.call('HDEL', KEYS[1], oldest)
  kept = redis.call('HGETALL', KEYS[1])
  over = over - 1
end
return 1
"""

# KEYS: present, screens
# ARGV: now, cap, expires, the time before which a follower counts as gone, then followers
# and their networks in turn
SEEN = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[4])
local cap = tonumber(ARGV[2])
for i = 5, #ARGV, 2 do
  redis.call('HSETNX', KEYS[2], ARGV[i], ARGV[i + 1])
  if redis.call('ZSCORE', KEYS[1], ARGV[i]) or redis.call('ZCARD', KEYS[1]) < cap then
    redis.call('ZADD', KEYS[1], ARGV[1], ARGV[i])
  end
end
redis.call('EXPIREAT', KEYS[1], ARGV[3])
redis.call('EXPIREAT', KEYS[2], ARGV[3])
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


def _screens_key(code: str) -> str:
    return f"{PREFIX}room:{code}:screens"


def _aside_key(code: str) -> str:
    return f"{PREFIX}room:{code}:aside"


def _leads_key(code: str) -> str:
    return f"{PREFIX}room:{code}:leads"


@dataclass
class RedisBackend(Backend):
    client: redis.Redis
    failures = (redis.RedisError, OSError)

    def __post_init__(self) -> None:
        self._create_script = self.client.register_script(CREATE)
        self._add_poll_script = self.client.register_script(ADD_POLL)
        self._vote_script = self.client.register_script(VOTE)
        self._seen_script = self.client.register_script(SEEN)
        self._bucket_script = self.client.register_script(BUCKET)
        self._add_lead_script = self.client.register_script(ADD_LEAD)

    @classmethod
    def from_url(cls, url: str) -> RedisBackend:
        return cls(redis.Redis.from_url(url, decode_responses=True, socket_timeout=TIMEOUT,
                                        socket_connect_timeout=TIMEOUT, health_check_interval=30))

    def _expiry(self, code: str) -> int:
        """When the room's keys go: the room hash's own expiry, whole seconds."""
        return math.ceil(float(self.client.hget(_room_key(code), "expires") or 0))

    def create(self, code: str, digest: str, now: float, expires: float, most: int,
               idle: float) -> bool:
        return self._create_script(keys=[ROOMS, OPEN, _room_key(code)],
                                   args=[code, digest, now, expires, most,
                                         math.ceil(expires), now - idle]) == 1

    def room(self, code: str) -> Room | None:
        return _room(code, self.client.hgetall(_room_key(code)))

    def versions(self, codes) -> dict[str, Room]:
        codes = list(codes)
        with self.client.pipeline(transaction=False) as pipe:  # one round trip for all
            for code in codes:
                pipe.hgetall(_room_key(code))
            rows = pipe.execute()
        return {code: room for code, row in zip(codes, rows, strict=True)
                if (room := _room(code, row)) is not None}

    def codes(self) -> list[str]:
        return self.client.zrange(ROOMS, 0, -1)

    def key_digest(self, code: str) -> str | None:
        return self.client.hget(_room_key(code), "key_digest")

    def add_lead(self, code: str, digest: str, sealed: str, now: float, most: int) -> None:
        self._add_lead_script(keys=[_leads_key(code), _room_key(code)],
                              args=[digest, f"{now!r}:{sealed}", most])

    def lead(self, code: str, digest: str) -> tuple[float, str] | None:
        held = self.client.hget(_leads_key(code), digest)
        if held is None:
            return None
        made, _, sealed = held.partition(":")
        return float(made), sealed

    def take_lead(self, code: str, digest: str) -> str | None:
        with self.client.pipeline(transaction=True) as pipe:  # read and gone at once
            pipe.hget(_leads_key(code), digest)
            pipe.hdel(_leads_key(code), digest)
            held = pipe.execute()[0]
        return None if held is None else held.partition(":")[2]

    def touch(self, code: str, now: float) -> None:
        with self.client.pipeline(transaction=True) as pipe:
            pipe.hset(_room_key(code), "lead_seen", now)
            pipe.zadd(OPEN, {code: now}, xx=True)
            pipe.execute()

    def new_word(self, code: str) -> None:
        self.client.hincrby(_room_key(code), "word", 1)

    def set_app_open(self, code: str, app_open: bool) -> None:
        with self.client.pipeline(transaction=True) as pipe:
            pipe.hset(_room_key(code), "app_open", int(app_open))
            pipe.hincrby(_room_key(code), "version", 1)
            pipe.execute()

    def set_view(self, code: str, page: str, query: str, now: float) -> int:
        with self.client.pipeline(transaction=True) as pipe:
            pipe.hset(_room_key(code), mapping={"page": page, "query": query, "lead_seen": now})
            pipe.hincrby(_room_key(code), "version", 1)
            pipe.zadd(OPEN, {code: now}, xx=True)
            return pipe.execute()[1]

    def _keys(self, code: str) -> list[str]:
        """Every key of the room."""
        polls = self.poll_ids(code)
        return [_room_key(code), _polls_key(code), _voters_key(code), _present_key(code),
                _screens_key(code), _aside_key(code), _leads_key(code),
                *(_poll_key(code, p) for p in polls), *(_votes_key(code, p) for p in polls)]

    def close(self, code: str, expires: float) -> None:
        keys = self._keys(code)
        with self.client.pipeline(transaction=True) as pipe:
            pipe.hset(_room_key(code), mapping={"closed": "1", "expires": expires})
            pipe.hincrby(_room_key(code), "version", 1)
            pipe.zrem(OPEN, code)
            pipe.zadd(ROOMS, {code: expires})
            for key in keys:
                pipe.expireat(key, math.ceil(expires))
            pipe.execute()

    def delete(self, code: str) -> None:
        keys = self._keys(code)
        with self.client.pipeline(transaction=True) as pipe:
            pipe.delete(*keys)
            pipe.zrem(OPEN, code)
            pipe.zrem(ROOMS, code)
            pipe.execute()

    def health(self, now: float) -> None:
        self.client.set(HEALTH, now, ex=60)
        self.client.get(HEALTH)

    def poll(self, code: str, poll_id: str) -> Poll | None:
        poll = self.client.hgetall(_poll_key(code, poll_id))
        if not poll:
            return None
        return Poll(poll_id, poll["question"], tuple(json.loads(poll["options"])),
                    poll["revealed"] == "1", int(poll["correct"]) if poll["correct"] else None)

    def poll_ids(self, code: str) -> list[str]:
        return self.client.lrange(_polls_key(code), 0, -1)

    def store_poll(self, code: str, poll_id: str, question: str, options: list[str],
                    live: bool, correct: int | None) -> None:
        self._add_poll_script(
            keys=[_poll_key(code, poll_id), _polls_key(code), _room_key(code)],
            args=[poll_id, question, json.dumps(options, ensure_ascii=False), int(live),
                  self._expiry(code), "" if correct is None else correct])

    def set_live(self, code: str, poll_id: str) -> None:
        with self.client.pipeline(transaction=True) as pipe:
            pipe.hset(_room_key(code), "live", poll_id)
            pipe.hincrby(_room_key(code), "version", 1)
            pipe.execute()

    def vote(self, code: str, poll_id: str, voter: str, option: int, now: float,
             network: str, following: bool, sure: bool | None, most: int) -> bool:
        counted = self._vote_script(
            keys=[_poll_key(code, poll_id), _votes_key(code, poll_id), _voters_key(code),
                  _screens_key(code), _aside_key(code)],
            args=[voter, option, now, most, self._expiry(code), network,
                  int(following), "" if sure is None else int(sure)])
        if counted < 0:
            raise RoomError("poll_closed" if counted == -1 else "set_aside")
        return counted == 1

    def my_vote(self, code: str, poll_id: str, voter: str) -> Vote | None:
        vote = self.client.hget(_votes_key(code, poll_id), voter)
        return None if vote is None else _vote(voter, vote)

    def votes(self, code: str, poll_id: str) -> list[Vote]:
        return [_vote(voter, vote)
                for voter, vote in self.client.hgetall(_votes_key(code, poll_id)).items()]

    def reveal(self, code: str, poll_id: str, correct: int | None) -> None:
        with self.client.pipeline(transaction=True) as pipe:
            pipe.hset(_poll_key(code, poll_id), mapping={
                "revealed": "1", "correct": "" if correct is None else str(correct)})
            pipe.hincrby(_room_key(code), "version", 1)
            pipe.execute()

    def answers(self, code: str) -> list[Answer]:
        out = []
        for poll_id in self.poll_ids(code):
            poll = self.poll(code, poll_id)
            votes = [(voter, *_vote_fields(vote)) for voter, vote in
                     self.client.hgetall(_votes_key(code, poll_id)).items()]
            for voter, option, at, network, sure in sorted(votes, key=lambda vote: vote[2]):
                out.append(Answer(poll_id, poll.question, voter, option, poll.options[option],
                                  poll.correct, at, network, sure))
        return out

    def seen(self, code: str, voters: dict[str, str], now: float, gone: float,
             most: int) -> None:
        expires = self._expiry(code)
        if expires:
            self._seen_script(keys=[_present_key(code), _screens_key(code)],
                              args=[now, most, expires, gone,
                                    *(part for pair in voters.items() for part in pair)])

    def screens(self, code: str) -> dict[str, str]:
        return self.client.hgetall(_screens_key(code))

    def poll_votes(self, code: str, poll_id: str) -> list[tuple[str, str]]:
        return [(voter, _vote_fields(vote)[2])
                for voter, vote in self.client.hgetall(_votes_key(code, poll_id)).items()]

    def room_votes(self, code: str) -> list[tuple[str, str]]:
        return [pair for poll_id in self.poll_ids(code)
                for pair in self.poll_votes(code, poll_id)]

    def set_aside(self, code: str, voters: list[str]) -> int:
        polls = self.poll_ids(code)
        with self.client.pipeline(transaction=True) as pipe:
            pipe.sadd(_aside_key(code), *voters)
            pipe.expireat(_aside_key(code), self._expiry(code))
            pipe.zrem(_voters_key(code), *voters)
            for poll_id in polls:
                pipe.hdel(_votes_key(code, poll_id), *voters)
            return sum(pipe.execute()[3:])

    def bucket(self, key: str, rate: Rate, now: float, step: int, force: bool) -> float:
        return float(self._bucket_script(keys=[f"{PREFIX}limit:{key}"], args=[
            rate.burst, rate.per_minute, now, step, int(force)]))

    def headcount(self, code: str, since: float) -> int:
        return self.client.zcount(_present_key(code), since, "+inf")

    def voters(self, code: str) -> int:
        return self.client.zcard(_voters_key(code))


def _room(code: str, room: dict[str, str]) -> Room | None:
    if not room:
        return None
    return Room(code, int(room["version"]), room["page"], room["query"], room["live"],
                room["closed"] == "1", float(room["created"]), float(room["expires"]),
                float(room["lead_seen"]), int(room.get("word", 0)),
                room.get("app_open") == "1")


def _vote_fields(vote: str) -> tuple[int, float, str, bool | None]:
    """A stored vote's option, time, network and confidence ("2:1800000000.5:mcxWwcw7Oi5F:1";
    votes from before networks or confidence were kept have none)."""
    option, at, network, sure = (vote.split(":", 3) + ["", ""])[:4]
    return int(option), float(at), network, None if sure == "" else sure == "1"


def _vote(voter: str, stored: str) -> Vote:
    option, _, _, sure = _vote_fields(stored)
    return Vote(voter, option, sure)
