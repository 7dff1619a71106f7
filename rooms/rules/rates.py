"""Who a browser is in a room and how often it may act: its voter id (signed by the server,
for one room), its network (a keyed digest of its address), and the budgets every server
process shares (token buckets kept in the store: rooms.throttle names them), wrong codes
among them (`arrive`)."""

from __future__ import annotations

from rooms import signing
from rooms.records import Rate, normal_code
from rooms.rules.base import RoomsBase, guarded
from rooms.signing import Voter
from rooms.throttle import WRONG


class Rates(RoomsBase):
    """Voter ids, networks and the shared budgets."""

    @guarded
    def new_voter(self, code: str, present: bool = False, same: Voter | None = None) -> str:
        """A voter id for the room, signed, ending with it; a fresh one, or same voter with a
        proof of presence now. Raises RoomError for a room that is not open."""
        room = self._open_room(code)
        return signing.new_voter(self.secret, room.code, room.expires, present,
                                 same.id if same else None)

    def voter(self, code: str, raw: object) -> Voter | None:
        """The voter raw names if it is an id this server signed for room code, else None."""
        code = normal_code(code)
        return None if code is None else signing.voter(self.secret, raw, code, self.clock())

    def network(self, address: str) -> str:
        """A client address as the room keeps it (signing.network)."""
        return signing.network(self.secret, address)

    @guarded
    def wait(self, rate: Rate, who: str) -> float:
        """Seconds until who may act under rate (0 when it may now); takes nothing."""
        return rate.seconds(self.backend.bucket(f"{rate.name}:{who}", rate, self.clock(), 0,
                                                False))

    @guarded
    def spend(self, rate: Rate, who: str, force: bool = False) -> float:
        """Take one of who's tokens under rate: 0 when taken, else the seconds to wait (nothing
        taken), unless force (a wrong code counts after the fact, down to none left)."""
        tokens = self.backend.bucket(f"{rate.name}:{who}", rate, self.clock(), 1, force)
        return 0.0 if force else rate.seconds(tokens)

    @guarded
    def give_back(self, rate: Rate, who: str) -> None:
        """Give back a token taken under rate (spent before the need for it was known)."""
        self.backend.bucket(f"{rate.name}:{who}", rate, self.clock(), -1, False)

    @guarded
    def arrive(self, code: str, network: str) -> float:
        """A network asks for room code without a proof of membership: it takes one of its
        WRONG tokens before the code is looked up, and gets it back if the code names an open
        room (requests sent at once cannot overdraw the budget: the token is taken atomically).
        Returns 0 when it may ask, else the seconds to wait; none for an open room that screens
        from the same network follow (as wrong_wait)."""
        wait = self.spend(WRONG, network)
        room = self.room(code)
        known = room is not None and not room.closed
        if not wait:
            if known:
                self.give_back(WRONG, network)
            return 0.0
        followed = known and network in set(self.backend.screens(room.code).values())
        return 0.0 if followed else wait

    @guarded
    def wrong_wait(self, code: str, network: str) -> float:
        """Seconds a network must wait before it asks for room code without a proof of
        membership, having tried too many wrong codes lately (0 when it may now): none for an
        open room that screens from the same network follow (the class behind the address of
        a script that guesses codes keeps its newcomers)."""
        wait = self.wait(WRONG, network)
        if not wait:
            return 0.0
        room = self.room(code)
        followed = room is not None and not room.closed and network in set(
            self.backend.screens(room.code).values())
        return 0.0 if followed else wait
