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
answers aside (`suspects`, `set_aside`). The store also keeps the rate limits that every server
process sharing it must agree on (`wait`, `spend`).

A store that fails (a deleted, corrupt or read-only file, a Redis that stopped) raises StoreDown,
a RoomError the pages turn into a message; the lesson itself goes on.

Two stores implement the same interface (`RoomStore`): SQLite in a data folder, for one server
process with nothing installed, and Redis, for several server processes sharing the rooms.
`open_store` picks one from a URL such as `POSVIZ_ROOM_STORE=redis://127.0.0.1:6379/0`.

The records and their checks are in rooms.records, the store interface in rooms.store; the
package gives both as `rooms.<name>`.
"""

from __future__ import annotations

from rooms.records import (
    CLOSED_SECONDS as CLOSED_SECONDS,
)
from rooms.records import (
    CODE_DIGITS as CODE_DIGITS,
)
from rooms.records import (
    CODE_LENGTH as CODE_LENGTH,
)
from rooms.records import (
    CODE_VOTES as CODE_VOTES,
)
from rooms.records import (
    JOINED_COOKIE as JOINED_COOKIE,
)
from rooms.records import (
    LEADS as LEADS,
)
from rooms.records import (
    LECTURER_IDLE as LECTURER_IDLE,
)
from rooms.records import (
    LECTURER_TOUCH as LECTURER_TOUCH,
)
from rooms.records import (
    LETTERS as LETTERS,
)
from rooms.records import (
    LOG_EVERY as LOG_EVERY,
)
from rooms.records import (
    PAGE_NAME as PAGE_NAME,
)
from rooms.records import (
    PARAM_NAME as PARAM_NAME,
)
from rooms.records import (
    PERSONAL as PERSONAL,
)
from rooms.records import (
    POLL_ID as POLL_ID,
)
from rooms.records import (
    PRESENT_SECONDS as PRESENT_SECONDS,
)
from rooms.records import (
    ROOM_SECONDS as ROOM_SECONDS,
)
from rooms.records import (
    SUSPECT as SUSPECT,
)
from rooms.records import (
    VOTER_COOKIE as VOTER_COOKIE,
)
from rooms.records import (
    Answer as Answer,
)
from rooms.records import (
    Limits as Limits,
)
from rooms.records import (
    Poll as Poll,
)
from rooms.records import (
    Rate as Rate,
)
from rooms.records import (
    Room as Room,
)
from rooms.records import (
    RoomError as RoomError,
)
from rooms.records import (
    StoreDown as StoreDown,
)
from rooms.records import (
    Suspect as Suspect,
)
from rooms.records import (
    clean_text as clean_text,
)
from rooms.records import (
    key_cookie as key_cookie,
)
from rooms.records import (
    lead_cookie as lead_cookie,
)
from rooms.records import (
    lecturer_gone as lecturer_gone,
)
from rooms.records import (
    log as log,
)
from rooms.records import (
    network_address as network_address,
)
from rooms.records import (
    normal_code as normal_code,
)
from rooms.records import (
    shared_query as shared_query,
)
from rooms.records import (
    spaced as spaced,
)
from rooms.store import (
    DEFAULT_STORE as DEFAULT_STORE,
)
from rooms.store import (
    ROOT as ROOT,
)
from rooms.store import (
    RoomStore as RoomStore,
)
from rooms.store import (
    guarded as guarded,
)
from rooms.store import (
    open_store as open_store,
)
from rooms.store import (
    shared_store as shared_store,
)
