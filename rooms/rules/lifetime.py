"""A room from its start to its end: opened with a code and a key, the lecturer's view and
word, the lecturer's presence (a room whose lecturer is gone ends), closed, listed and purged
by the operator."""

from __future__ import annotations

import secrets
from collections.abc import Collection, Iterable

from rooms.records import (
    CLOSED_SECONDS,
    CODE_LENGTH,
    LECTURER_IDLE,
    LECTURER_TOUCH,
    PAGE_NAME,
    ROOM_SECONDS,
    Room,
    RoomError,
    lecturer_gone,
    normal_code,
    shared_query,
)
from rooms.rules.base import RoomsBase, digest, guarded
from rooms.throttle import GUESSED


class Lifetime(RoomsBase):
    """Rooms opened, shown, kept and ended."""

    @guarded
    def create(self) -> tuple[str, str]:
        """Open a room; returns (code, key). The key is shown once and stored only hashed."""
        key = secrets.token_urlsafe(18)
        now = self.clock()
        for _ in range(50):  # a million codes, at most `rooms` in use: a clash is rare
            code = "".join(secrets.choice("0123456789") for _ in range(CODE_LENGTH))
            if self.backend.create(code, digest(key), now, now + ROOM_SECONDS,
                                   self.limits.rooms, LECTURER_IDLE):
                return code, key
        raise RoomError("rooms_full", f"at most {self.limits.rooms} rooms at once")

    @guarded
    def room(self, code: object) -> Room | None:
        """The room, or None for a malformed, unknown, or expired code. A room whose lecturer
        has been gone LECTURER_IDLE ends here."""
        code = normal_code(code)
        if code is None:
            return None
        room = self.backend.room(code)
        now = self.clock()
        if room is None or room.expires <= now:
            return None
        if not room.closed and lecturer_gone(room.lead_seen, now):
            self.backend.close(code, min(room.expires, now + CLOSED_SECONDS))
            room = self.backend.room(code)  # as closing left it: its version and end moved
        return room

    @guarded
    def lecturer_here(self, code: str) -> None:
        """Note that the room's lecturer is here (written at most every LECTURER_TOUCH)."""
        room = self.room(code)
        now = self.clock()
        if room is not None and not room.closed and now - room.lead_seen >= LECTURER_TOUCH:
            self.backend.touch(room.code, now)

    @guarded
    def set_view(self, code: str, page: str, query: str, personal: Collection[str] = ()) -> int:
        """Show the class this page and query string (without the parameters personal to the
        lecturer); returns the room's version."""
        room = self._open_room(code)
        if not isinstance(page, str) or not PAGE_NAME.fullmatch(page):
            raise RoomError("bad_view", "unexpected page")
        query = shared_query(query, personal, self.limits.view)
        if (page, query) == (room.page, room.query):
            self.lecturer_here(room.code)
            return room.version
        return self.backend.set_view(room.code, page, query, self.clock())

    @guarded
    def new_word(self, code: str) -> None:
        """Give the room a new projector's word now: every word shown before is wrong from now
        on (its lecturer saw it being guessed)."""
        self.backend.new_word(self._open_room(code).code)

    @guarded
    def set_app_open(self, code: str, app_open: object) -> None:
        """Let the room's students into the app from "Explore on my own" (True), or keep them on
        the room's screen, trying sentences of their own there (False, a new room's choice)."""
        if not isinstance(app_open, bool):
            raise RoomError("bad_setting", "app_open is true or false")
        room = self._open_room(code)
        if room.app_open != app_open:
            self.backend.set_app_open(room.code, app_open)

    @guarded
    def guessed(self, code: str) -> int:
        """About how many wrong words were typed in the room lately (GUESSED)."""
        room = self.room(code)
        if room is None:
            return 0
        left = self.backend.bucket(f"{GUESSED.name}:{room.code}", GUESSED, self.clock(), 0, False)
        return int(GUESSED.burst - left)

    @guarded
    def close(self, code: str) -> None:
        """End the room for everyone; its answers stay readable for CLOSED_SECONDS, and it no
        longer counts against the cap of open rooms."""
        room = self.room(code)
        if room is not None and not room.closed:
            self.backend.close(room.code, min(room.expires, self.clock() + CLOSED_SECONDS))

    @guarded
    def versions(self, codes: Iterable[str]) -> dict[str, tuple[int, bool]]:
        """(version, closed) of each known room among codes: what a waiting follower needs. A
        room whose lecturer is gone shows as closed (room() ends it)."""
        now = self.clock()
        return {code: (room.version, room.closed or lecturer_gone(room.lead_seen, now))
                for code, room in self.backend.versions(codes).items() if room.expires > now}

    @guarded
    def kept(self) -> list[Room]:
        """Every room the store keeps, open or closed, oldest first (for the operator)."""
        kept = (room for code in self.backend.codes() if (room := self.room(code)) is not None)
        return sorted(kept, key=lambda room: room.created)

    @guarded
    def purge(self, code: str) -> None:
        """Delete the room and everything in it at once (for the operator)."""
        if code := normal_code(code):
            self.backend.delete(code)

    @guarded
    def health(self) -> None:
        """Read and write the store once; raises StoreDown when it cannot."""
        self.backend.health(self.clock())

    def _open_room(self, code: str) -> Room:
        room = self.room(code)
        if room is None:
            raise RoomError("no_room")
        if room.closed:
            raise RoomError("room_closed")
        return room
