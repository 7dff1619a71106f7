"""Lecture rooms: a lecturer's view that a class follows, and the questions the class answers.

A room has a six-digit code (read aloud in any language, typed on a phone's number pad), a
secret key whose holder drives it, the lecturer's current view (a page and its query string,
which holds every control of the page), polls, and a version number that grows whenever
something a follower shows changes: the view, a poll put in front of the class or revealed, the
room closing. Followers compare versions and redraw only when theirs is behind. A room ends when
its lecturer closes it, when its lecturer has not been seen for LECTURER_IDLE seconds, or
ROOM_SECONDS after it opened.

Everything arriving here comes from a link, a form or the network and is untrusted: codes, keys,
voter ids, poll ids, views and question texts are checked and bounded, and the number of rooms,
polls, voters and connected followers is capped, so a flood can fill neither memory nor disk.
Voter ids are issued for one room and signed by the server (rooms.signing): an id it did
not sign, or signed for another room, follows but never votes or counts.

What an anonymous poll can promise, it does here: a vote counts once per voter id; ids are
minted at a bounded rate per network (more for a browser that showed a proof of presence: the
QR code's ticket or the projector's word); from one network, voters with only the room's code
count at most CODE_VOTES a minute (past that, the screen asks for the projector's word); a cap
never refuses a voter whose screen follows the room; and the lecturer sees a network whose
answers outnumber the screens that follow from it (a script, most likely) and can set those
answers aside (`suspects`, `set_aside`). The rules also keep the rate limits that every server
process sharing the rooms must agree on (`wait`, `spend`).

The package, one direction from bottom to top:

- rooms.records: the records and their checks; rooms.signing: what the server signs;
- rooms.backend: what a backend stores (`Backend`), with rooms.sqlite_backend (one server
  process, nothing installed) and rooms.redis_backend (several processes sharing the rooms);
- rooms.rules: the rooms' rules over a backend (`Rooms`, one face over a module a job: rates,
  keys, lifetime, polls, check, presence); `open_rooms` picks the backend from a URL such as
  `POSVIZ_ROOM_STORE=redis://127.0.0.1:6379/0`;
- rooms.routes: the HTTP routes, served by one `RoomService` that serve.py builds.

A store that fails (a deleted, corrupt or read-only file, a Redis that stopped) raises StoreDown,
which the pages turn into a message; the lesson itself goes on.

The records and the rules are given here as `rooms.<name>`.
"""

from __future__ import annotations

from rooms.records import (
    CLOSED_SECONDS,
    CODE_DIGITS,
    CODE_LENGTH,
    CODE_VOTES,
    HOLDER_COOKIE,
    JOINED_COOKIE,
    LEADS,
    LECTURER_COOKIE,
    LECTURER_IDLE,
    LECTURER_TOUCH,
    LETTERS,
    LOG_EVERY,
    PAGE_NAME,
    PARAM_NAME,
    POLL_ID,
    PRESENT_SECONDS,
    ROOM_SECONDS,
    SUSPECT,
    VOTER_COOKIE,
    Answer,
    Limits,
    Poll,
    Rate,
    Room,
    RoomError,
    StoreDown,
    Suspect,
    clean_text,
    key_cookie,
    lead_cookie,
    lecturer_gone,
    log,
    normal_code,
    shared_query,
    spaced,
)
from rooms.rules import DEFAULT_STORE, ROOT, Rooms, guarded, open_rooms, shared_rooms

__all__ = [
    "CLOSED_SECONDS", "CODE_DIGITS", "CODE_LENGTH", "CODE_VOTES", "DEFAULT_STORE",
    "HOLDER_COOKIE", "LECTURER_COOKIE", "JOINED_COOKIE", "LEADS", "LECTURER_IDLE",
    "LECTURER_TOUCH", "LETTERS",
    "LOG_EVERY", "PAGE_NAME", "PARAM_NAME", "POLL_ID", "PRESENT_SECONDS", "ROOM_SECONDS",
    "ROOT", "SUSPECT", "VOTER_COOKIE", "Answer", "Limits", "Poll", "Rate", "Room", "RoomError",
    "Rooms", "StoreDown", "Suspect", "clean_text", "guarded", "key_cookie", "lead_cookie",
    "lecturer_gone", "log", "normal_code", "open_rooms", "shared_query", "shared_rooms",
    "spaced",
]
