"""A room's questions: the lesson's scenes' polls and the lecturer's own, their rounds, the
votes (one per voter id, poll and round), the tallies and splits, the reveal, and every answer
for the lecturer's CSV."""

from __future__ import annotations

from rooms.records import (
    CODE_VOTES,
    POLL_ID,
    SECOND,
    Answer,
    Poll,
    Room,
    RoomError,
    Split,
    Tally,
    Vote,
    clean_text,
    normal_code,
)
from rooms.rules.base import RoomsBase, guarded


class Polls(RoomsBase):
    """Questions, votes, rounds and reveals."""

    @guarded
    def poll(self, code: str, poll_id: str) -> Poll | None:
        room = self.room(code)
        if room is None or not isinstance(poll_id, str) or not POLL_ID.fullmatch(poll_id):
            return None
        return self.backend.poll(room.code, poll_id)

    @guarded
    def polls(self, code: str) -> list[Poll]:
        """Every poll of the room, in the order they were opened."""
        room = self.room(code)
        if room is None:
            return []
        return [poll for poll_id in self.backend.poll_ids(room.code)
                if (poll := self.backend.poll(room.code, poll_id)) is not None]

    @guarded
    def lesson_poll(self, code: str, scene: str, question: str,
                    options: list[str]) -> Poll:
        """The poll of a lesson scene's question, opened on the lecturer's first visit."""
        poll_id = f"scene-{scene}"
        if not POLL_ID.fullmatch(poll_id):
            raise RoomError("bad_poll")
        room = self._open_room(code)
        found = self.backend.poll(room.code, poll_id)
        if found is not None:
            return found
        return self._add_poll(room, poll_id, *self._checked(question, options), live=False,
                              correct=None)

    @guarded
    def ask(self, code: str, question: object, options: object,
            correct: int | None = None) -> Poll:
        """The lecturer's own question (2-6 options, optionally one right), put in front of the
        whole class; the right option stays hidden until the reveal."""
        room = self._open_room(code)
        if not isinstance(options, list | tuple):
            raise RoomError("bad_option")
        text, clean = self._checked(question, options)
        if correct is not None and not (isinstance(correct, int) and 0 <= correct < len(clean)):
            raise RoomError("bad_option")
        number = sum(poll_id.startswith("q") for poll_id in self.backend.poll_ids(room.code)) + 1
        return self._add_poll(room, f"q{number}", text, clean, live=True, correct=correct)

    @guarded
    def put_away(self, code: str) -> None:
        """Take the lecturer's question off every screen."""
        room = self._open_room(code)
        if room.live:
            self.backend.set_live(room.code, "")

    @guarded
    def current(self, code: str, poll_id: str) -> Poll | None:
        """The poll a question's id names in the round it is in: its second round once the
        lecturer opened one, else the poll itself."""
        room = self.room(code)
        if room is None or not isinstance(poll_id, str) or not POLL_ID.fullmatch(poll_id):
            return None
        return self._current(room.code, poll_id)

    def _current(self, code: str, poll_id: str) -> Poll | None:
        if poll_id.endswith(SECOND) or poll_id.startswith("check-"):
            return self.backend.poll(code, poll_id)
        return self.backend.poll(code, poll_id + SECOND) or self.backend.poll(code, poll_id)

    @guarded
    def vote(self, code: str, poll_id: str, voter: object, option: object, network: str = "",
             following: bool = False, sure: object = None) -> None:
        """One vote per voter per poll and round (a second one replaces the first), while it is
        open: a question's id counts in the round it is in (current). sure: the student's
        confidence (True sure, False guessing, None not said). Only a voter id this server
        signed for this room votes; one whose browser showed only the room's code counts
        against its network's CODE_VOTES (RoomError "need_word", with the seconds to wait,
        past it). network: where the vote comes from (signing.network); following: whether the
        voter's screen follows the room now (a cap never refuses it)."""
        room = self._open_room(code)
        who = self.voter(room.code, voter)
        if who is None:
            raise RoomError("bad_voter")
        poll = self._current(room.code, poll_id) if isinstance(poll_id, str) and \
            POLL_ID.fullmatch(poll_id) else None
        if poll is None:
            raise RoomError("no_poll")
        if poll.revealed:
            raise RoomError("poll_closed")
        if not isinstance(option, int) or isinstance(option, bool) or not (
                0 <= option < len(poll.options)):
            raise RoomError("bad_option")
        if sure is not None and not isinstance(sure, bool):
            raise RoomError("bad_option")
        if not who.present and poll.id.startswith("check-"):  # the check is the hall's
            raise RoomError("need_word", "the concept check counts the hall's answers")
        if not who.present and (wait := self.spend(CODE_VOTES, f"{room.code}:{network}")):
            raise RoomError("need_word", "this network's answers by code alone", wait)
        if not self.backend.vote(room.code, poll.id, who.id, option, self.clock(), network,
                                 following, sure, self.limits.voters):
            raise RoomError("room_full", f"at most {self.limits.voters} students")

    @guarded
    def my_answer(self, code: str, poll_id: str, voter: object) -> Vote | None:
        """The voter's answer to exactly this poll (a round of its own), or None."""
        room = self.room(code)
        who = None if room is None else self.voter(room.code, voter)
        if who is None or not isinstance(poll_id, str) or not POLL_ID.fullmatch(poll_id):
            return None
        return self.backend.my_vote(room.code, poll_id, who.id)

    def my_vote(self, code: str, poll_id: str, voter: object) -> int | None:
        """The option of the voter's answer to exactly this poll, or None."""
        answer = self.my_answer(code, poll_id, voter)
        return None if answer is None else answer.option

    @guarded
    def counts(self, code: str, poll_id: str) -> list[int]:
        """Votes per option of exactly this poll, in option order."""
        poll = self.poll(code, poll_id)
        if poll is None:
            return []
        votes = self.backend.votes(normal_code(code), poll.id)
        return list(Tally.of(votes, len(poll.options)).counts)

    @guarded
    def split(self, code: str, poll_id: str) -> Split | None:
        """How a question (either round's id) was answered, round by round, with confidence,
        and how the voters of both rounds moved; None for no such poll."""
        first = self.poll(code, poll_id.removesuffix(SECOND) if isinstance(poll_id, str)
                          else poll_id)
        if first is None:
            return None
        code, n = normal_code(code), len(first.options)
        rounds = [self.backend.votes(code, first.id)]
        if not first.id.startswith("check-") and self.backend.poll(code, first.id + SECOND):
            rounds.append(self.backend.votes(code, first.id + SECOND))
        tallies = tuple(Tally.of(votes, n) for votes in rounds)
        if len(rounds) == 1:
            return Split(tallies)
        before = {v.voter: v.option for v in rounds[0]}
        moved: dict[tuple[int, int], int] = {}
        both = 0
        for v in rounds[1]:
            if v.voter in before:
                both += 1
                if before[v.voter] != v.option:
                    step = (before[v.voter], v.option)
                    moved[step] = moved.get(step, 0) + 1
        moves = tuple(sorted(((a, b, k) for (a, b), k in moved.items()),
                             key=lambda m: (-m[2], m[0], m[1])))
        return Split(tallies, both, moves)

    @guarded
    def second_round(self, code: str, poll_id: str) -> Poll:
        """Open a question's second round (after the class discussed it): the same question and
        options, answered afresh; the first round's answers stay as they were. Every screen
        shows the new round."""
        room = self._open_room(code)
        first = self.poll(room.code, poll_id)
        if first is None or first.id.endswith(SECOND) or first.id.startswith("check-"):
            raise RoomError("no_poll")
        if first.revealed:
            raise RoomError("poll_closed")
        second = self.backend.poll(room.code, first.id + SECOND)
        if second is not None:
            return second
        self._add_poll(room, first.id + SECOND, first.question, list(first.options),
                       live=False, correct=first.correct)
        self.backend.set_live(room.code, first.id + SECOND if room.live == first.id else room.live)
        return self.backend.poll(room.code, first.id + SECOND)

    @guarded
    def reveal(self, code: str, poll_id: str, correct: int | None = None) -> None:
        """Close the question (both its rounds) and show every member the answer and the
        class's distribution; the right option is `correct`, or the one given when the
        question was asked."""
        room = self._open_room(code)
        poll = self.poll(room.code, poll_id)
        if poll is None:
            raise RoomError("no_poll")
        if correct is not None and not 0 <= correct < len(poll.options):
            raise RoomError("bad_option")
        first = poll.id.removesuffix(SECOND)
        for each in (first, first + SECOND):
            found = self.backend.poll(room.code, each)
            if found is not None and not found.revealed:
                self.backend.reveal(room.code, each, found.correct if correct is None else correct)

    @guarded
    def answers(self, code: str) -> list[Answer]:
        """Every vote of the room, poll by poll, for the lecturer's CSV."""
        room = self.room(code)
        return [] if room is None else self.backend.answers(room.code)

    def _checked(self, question: object, options: object) -> tuple[str, list[str]]:
        text = clean_text(question, self.limits.question, "question")
        clean = [clean_text(o, self.limits.option, "option") for o in options]
        low, high = self.limits.options
        if not low <= len(clean) <= high:
            raise RoomError("option_count", f"{low} to {high} options")
        return text, clean

    def _add_poll(self, room: Room, poll_id: str, question: str, options: list[str],
                  live: bool, correct: int | None) -> Poll:
        if len(self.backend.poll_ids(room.code)) >= self.limits.polls:
            raise RoomError("polls_full", f"at most {self.limits.polls} questions a room")
        self.backend.store_poll(room.code, poll_id, question, options, live, correct)
        return Poll(poll_id, question, tuple(options), False, correct)
