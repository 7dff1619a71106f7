"""Who leads a room: its key (compared in constant time with the digest the store keeps), the
one-time lecturer links that hand it to another browser, and the key held for the browser that
started the room until its own cookie holds it. The store keeps a link's key only sealed with
the link's token (`_sealed`), so what it holds makes nobody a lecturer."""

from __future__ import annotations

import hashlib
import hmac
import secrets

from rooms.records import HOLD_SECONDS, LEADS, RoomError, normal_code
from rooms.rules.base import RoomsBase, digest, guarded


def _sealed(key: bytes, token: str) -> bytes:
    """key sealed with a lecturer link's token (and unsealed by sealing again): the store
    keeps a link's key only this way, so what it holds makes nobody a lecturer."""
    pad = hmac.new(token.encode(), b"posviz lead", hashlib.sha256).digest()
    return bytes(a ^ b for a, b in zip(key, pad, strict=False))


def _token(raw: object) -> bool:
    """Whether raw has the shape of a token the server made (a key, a link's, a holder's)."""
    return isinstance(raw, str) and 10 <= len(raw) <= 100


class Keys(RoomsBase):
    """The room's key and the ways it is handed on."""

    @guarded
    def holds_key(self, code: object, key: object) -> bool:
        """Whether key drives the room (compared in constant time)."""
        code = normal_code(code)
        if code is None or not isinstance(key, str) or not 10 <= len(key) <= 100:
            return False
        stored = self.backend.key_digest(code)
        return stored is not None and hmac.compare_digest(stored, digest(key))

    @guarded
    def lead_link(self, code: str, key: object) -> str:
        """A new one-time token for a lecturer link: the browser that opens it first leads
        the room as well (until it leaves); afterwards, and once the room ends, it is refused.
        A room keeps its LEADS newest unused tokens."""
        if not self.holds_key(code, key):
            raise RoomError("not_lecturer")
        room = self._open_room(code)
        token = secrets.token_urlsafe(18)
        self.backend.add_lead(room.code, digest(token), _sealed(key.encode(), token).hex(),
                              self.clock(), LEADS)
        return token

    @guarded
    def redeem(self, code: object, token: object) -> str | None:
        """The room's key for a lecturer link's token, which this uses up; None for a token
        that is wrong or used, or a room that ended."""
        code = normal_code(code)
        if code is None or not isinstance(token, str) or not 10 <= len(token) <= 100:
            return None
        sealed = self.backend.take_lead(code, digest(token))
        if sealed is None:
            return None
        key = _sealed(bytes.fromhex(sealed), token).decode("utf-8", "replace")
        room = self.room(code)
        return key if room is not None and not room.closed and self.holds_key(code, key) else None

    @guarded
    def hold_key(self, code: str, key: str, holder: object) -> None:
        """Keep the room's key for the browser that started it (holder: its HOLDER_COOKIE)
        until that browser's own key cookie is set (let_go), HOLD_SECONDS at most: a reload
        before then leaves the lecturer in charge. Kept sealed, like a lecturer link's key."""
        if _token(holder) and self.holds_key(code, key):
            self.backend.add_lead(normal_code(code), digest("hold:" + holder),
                                  _sealed(key.encode(), holder).hex(), self.clock(), LEADS)

    @guarded
    def held_key(self, code: object, holder: object) -> str | None:
        """The key the room keeps for the browser that started it, or None."""
        code = normal_code(code)
        if code is None or not _token(holder):
            return None
        held = self.backend.lead(code, digest("hold:" + holder))
        if held is None or self.clock() - held[0] > HOLD_SECONDS:
            return None
        key = _sealed(bytes.fromhex(held[1]), holder).decode("utf-8", "replace")
        room = self.room(code)
        return key if room is not None and not room.closed and self.holds_key(code, key) else None

    @guarded
    def let_go(self, code: object, holder: object) -> None:
        """The room keeps the key for that browser no more (its cookie holds it, or it left)."""
        code = normal_code(code)
        if code is not None and _token(holder):
            self.backend.take_lead(code, digest("hold:" + holder))
