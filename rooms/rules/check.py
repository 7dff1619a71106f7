"""The concept check: six questions sat before and after the lecture (`open_check`,
`close_check`), and the normalized gain per question over the students who answered both
sittings, paired by their signed voter id (`gains`)."""

from __future__ import annotations

from collections import Counter

from rooms.records import PHASES, Gain, Poll, RoomError, check_poll
from rooms.rules.base import RoomsBase, guarded


class ConceptCheck(RoomsBase):
    """The concept check's sittings and gains."""

    @guarded
    def open_check(self, code: str, phase: str,
                   questions: list[tuple[str, list[str], int]]) -> list[Poll]:
        """Put the concept check's questions (text, options, the right one) in front of the
        class for a sitting, "pre" (before the lecture) or "post" (after it); a sitting opened
        again shows the same polls with their answers."""
        room = self._open_room(code)
        if phase not in PHASES or not 1 <= len(questions) <= 9:
            raise RoomError("bad_poll")
        polls = []
        for number, (question, options, correct) in enumerate(questions, start=1):
            poll_id = check_poll(phase, number)
            found = self.backend.poll(room.code, poll_id)
            if found is None:
                text, clean = self._checked(question, options)
                if not (isinstance(correct, int) and 0 <= correct < len(clean)):
                    raise RoomError("bad_option")
                found = self._add_poll(room, poll_id, text, clean, live=False, correct=correct)
            polls.append(found)
        self.backend.set_live(room.code, f"check-{phase}")
        return polls

    @guarded
    def check(self, code: str, phase: str) -> list[Poll]:
        """The concept check's polls of a sitting, in order (none before it was opened)."""
        room = self.room(code)
        if room is None or phase not in PHASES:
            return []
        ids = set(self.backend.poll_ids(room.code))
        return [self.backend.poll(room.code, check_poll(phase, n)) for n in range(1, 10)
                if check_poll(phase, n) in ids]

    @guarded
    def sitters(self, code: str, phase: str) -> int:
        """Students who answered at least one question of a sitting of the concept check."""
        room = self.room(code)
        if room is None:
            return 0
        return len({v.voter for poll in self.check(room.code, phase)
                    for v in self.backend.votes(room.code, poll.id)})

    @guarded
    def close_check(self, code: str, phase: str) -> None:
        """End a sitting: its answers are closed (and kept), and it leaves every screen."""
        room = self._open_room(code)
        for poll in self.check(room.code, phase):
            if not poll.revealed:
                self.backend.reveal(room.code, poll.id, poll.correct)
        if room.live == f"check-{phase}":
            self.backend.set_live(room.code, "")

    @guarded
    def gains(self, code: str) -> list[Gain]:
        """Each concept-check question before and after, over the students who answered it in
        both sittings (paired by their signed voter id)."""
        room = self.room(code)
        if room is None:
            return []
        out = []
        for pre in self.check(room.code, "pre"):
            number = int(pre.id.rsplit("-", 1)[1])
            post = self.backend.poll(room.code, check_poll("post", number))
            if post is None:
                continue
            before = {v.voter: v.option == pre.correct
                      for v in self.backend.votes(room.code, pre.id)}
            after = {v.voter: v.option == post.correct
                     for v in self.backend.votes(room.code, post.id) if v.voter in before}
            paired = len(after)
            came = dict(self.backend.poll_votes(room.code, post.id))  # voter -> network
            from_one = max(Counter(came.get(v, "") for v in after).values(), default=0)
            out.append(Gain(number, paired,
                            100.0 * sum(before[v] for v in after) / paired if paired else None,
                            100.0 * sum(after.values()) / paired if paired else None,
                            from_one))
        return out
