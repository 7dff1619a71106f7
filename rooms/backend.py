"""What a backend stores for the rooms (`Backend`): the plain records, read and written, with the
few writes that must check before they change done atomically. A backend decides nothing: the
rules (who may vote, which code is wrong, when a room ends) are rooms.rules', which hands a
backend only checked values, and the caps it must hold to in the same breath as a write."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable
from typing import ClassVar

from rooms.records import Answer, Poll, Rate, Room, Vote


class Backend(ABC):
    """Rooms, polls, votes and rate limits as one kind of storage keeps them."""

    failures: ClassVar[tuple[type[BaseException], ...]] = (OSError,)
    """What the backend raises when it cannot be read or written."""

    def failed(self, failure: BaseException) -> None:  # noqa: B027 - most need nothing
        """Told of a failure before it is reported (a backend may recover: reconnect)."""

    @abstractmethod
    def create(self, code: str, digest: str, now: float, expires: float, most: int,
               idle: float) -> bool:
        """Store a new room unless the code is taken or `most` are open (not closed, not
        expired, lecturer seen after `idle`); rooms past their time go for good."""

    @abstractmethod
    def room(self, code: str) -> Room | None: ...

    def versions(self, codes: Iterable[str]) -> dict[str, Room]:
        """The rooms of codes that are kept (one round trip where the backend can)."""
        return {code: room for code in codes if (room := self.room(code)) is not None}

    @abstractmethod
    def codes(self) -> list[str]:
        """The codes of every room kept."""

    @abstractmethod
    def key_digest(self, code: str) -> str | None: ...

    @abstractmethod
    def add_lead(self, code: str, digest: str, sealed: str, now: float, most: int) -> None:
        """Keep a lecturer link's token (by its digest) until the room goes, and at most the
        `most` newest of a room."""

    @abstractmethod
    def lead(self, code: str, digest: str) -> tuple[float, str] | None:
        """When a lecturer link's token was made and its sealed key, left in place."""

    @abstractmethod
    def take_lead(self, code: str, digest: str) -> str | None:
        """The sealed key of a lecturer link's token, deleted as it is read (once)."""

    @abstractmethod
    def touch(self, code: str, now: float) -> None:
        """The lecturer was seen now."""

    @abstractmethod
    def new_word(self, code: str) -> None:
        """The room's projector's word is a new one (Room.word grows)."""

    @abstractmethod
    def set_app_open(self, code: str, app_open: bool) -> None:
        """Whether the room's students may explore in the app (the version grows)."""

    @abstractmethod
    def set_view(self, code: str, page: str, query: str, now: float) -> int:
        """The new view (the version grows); the lecturer was seen now."""

    @abstractmethod
    def close(self, code: str, expires: float) -> None:
        """Close the room (the version grows); it and all it holds go at expires."""

    @abstractmethod
    def delete(self, code: str) -> None: ...

    @abstractmethod
    def health(self, now: float) -> None:
        """Read and write something small."""

    @abstractmethod
    def poll(self, code: str, poll_id: str) -> Poll | None: ...

    @abstractmethod
    def poll_ids(self, code: str) -> list[str]:
        """The room's polls in the order they were opened."""

    @abstractmethod
    def store_poll(self, code: str, poll_id: str, question: str, options: list[str],
                   live: bool, correct: int | None) -> None:
        """Add the poll unless it exists; a live one is shown to every member (the version
        grows)."""

    @abstractmethod
    def set_live(self, code: str, poll_id: str) -> None: ...

    @abstractmethod
    def vote(self, code: str, poll_id: str, voter: str, option: int, now: float,
             network: str, following: bool, sure: bool | None, most: int) -> bool:
        """Record the vote, from network (a following voter becomes one of the room's screens
        from there); False when the voter has not voted in the room before, never followed it,
        and `most` such voters have voted. Raises RoomError "poll_closed" for a revealed poll
        and "set_aside" for a voter the lecturer set aside. Atomic with respect to the
        reveal."""

    @abstractmethod
    def my_vote(self, code: str, poll_id: str, voter: str) -> Vote | None: ...

    @abstractmethod
    def votes(self, code: str, poll_id: str) -> list[Vote]:
        """Every vote of the poll."""

    @abstractmethod
    def reveal(self, code: str, poll_id: str, correct: int | None) -> None: ...

    @abstractmethod
    def answers(self, code: str) -> list[Answer]: ...

    @abstractmethod
    def seen(self, code: str, voters: dict[str, str], now: float, gone: float,
             most: int) -> None:
        """Mark voters (id -> network) connected now, and each one not yet a screen of the room
        as one, from its network; forget those not seen since `gone`; count no one beyond
        `most` as connected."""

    @abstractmethod
    def screens(self, code: str) -> dict[str, str]:
        """Every voter whose screen followed the room -> the network it followed from."""

    @abstractmethod
    def poll_votes(self, code: str, poll_id: str) -> list[tuple[str, str]]:
        """(voter, network) of every vote of the poll."""

    @abstractmethod
    def room_votes(self, code: str) -> list[tuple[str, str]]:
        """(voter, network) of every vote of the room, poll by poll."""

    @abstractmethod
    def set_aside(self, code: str, voters: list[str]) -> int:
        """Delete these voters' votes in the room and refuse theirs from now on; returns how
        many votes went."""

    @abstractmethod
    def bucket(self, key: str, rate: Rate, now: float, step: int, force: bool) -> float:
        """The tokens key holds now under rate (burst when unknown); afterwards, with step 1,
        one fewer if there was a whole one (or, with force, down to none left); with step -1,
        one more (at most burst); with step 0, as many. Atomic."""

    @abstractmethod
    def headcount(self, code: str, since: float) -> int: ...

    @abstractmethod
    def voters(self, code: str) -> int: ...
