"""Who is here: the screens that follow a room (reported by each server process), the students
connected now, the voters counted, and the networks whose answers outnumber their screens (a
script, most likely), whose answers the lecturer can set aside."""

from __future__ import annotations

from collections.abc import Mapping

from rooms.records import POLL_ID, PRESENT_SECONDS, SUSPECT, Suspect, normal_code
from rooms.rules.base import RoomsBase, guarded


class Presence(RoomsBase):
    """Screens that follow, connected students, suspect networks."""

    @guarded
    def seen(self, code: str, followers: Mapping[str, str]) -> None:
        """Mark followers (voter id -> the network it follows from) as connected now, and as
        screens that follow the room (a server process reports its waiting followers): only
        ids this server signed for this room, at most `limits.present` in a room at once."""
        code = normal_code(code)
        if code is None:
            return
        found = {who.id: network for raw, network in followers.items()
                 if (who := self.voter(code, raw)) is not None}
        if found:
            now = self.clock()
            self.backend.seen(code, dict(list(found.items())[: self.limits.present]), now,
                              now - PRESENT_SECONDS, self.limits.present)

    @guarded
    def suspects(self, code: str, poll_id: str) -> list[Suspect]:
        """The networks whose answers to the poll outnumber the screens that follow the room
        from them, by at least SUSPECT answers from voters that never followed: most likely a
        script that mints ids and answers without a screen. Largest first."""
        room = self.room(code)
        if room is None or not isinstance(poll_id, str) or not POLL_ID.fullmatch(poll_id):
            return []
        screens = self.backend.screens(room.code)
        answers: dict[str, int] = {}
        unfollowed: dict[str, int] = {}
        for voter, network in self.backend.poll_votes(room.code, poll_id):
            answers[network] = answers.get(network, 0) + 1
            if voter not in screens:
                unfollowed[network] = unfollowed.get(network, 0) + 1
        following = list(screens.values())
        found = [Suspect(network, answers[network], following.count(network), n)
                 for network, n in unfollowed.items()
                 if n >= SUSPECT and answers[network] > following.count(network)]
        return sorted(found, key=lambda suspect: -suspect.unfollowed)

    @guarded
    def set_aside(self, code: str, network: str) -> int:
        """Take away every answer in the room from voters that answered from network without
        ever following the room, and refuse their votes from now on; returns how many answers
        went."""
        room = self._open_room(code)
        screens = self.backend.screens(room.code)
        voters = {voter for voter, came in self.backend.room_votes(room.code)
                  if came == network and voter not in screens}
        return self.backend.set_aside(room.code, sorted(voters)) if voters else 0

    @guarded
    def headcount(self, code: str) -> int:
        """Followers connected within the last PRESENT_SECONDS."""
        room = self.room(code)
        return 0 if room is None else self.backend.headcount(room.code,
                                                      self.clock() - PRESENT_SECONDS)

    @guarded
    def voters(self, code: str) -> int:
        """Students who voted in the room (what the cap of voters counts)."""
        room = self.room(code)
        return 0 if room is None else self.backend.voters(room.code)
