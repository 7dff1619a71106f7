"""Turns: one job at a time for many readers, first come, first served.

The live experiment trains on the server's shared cores, and two trainings side by side end
later than the same two one after the other, for more CPU
(`python -m tests.benchmarks.training_benchmark`). So a server process keeps one line: a reader
joins it, waits until nobody is ahead, does the job and leaves. Leaving happens on the way out
of `joined` whatever ends the job: its end, an error, or an exception raised inside the waiting
thread by whoever runs it (Streamlit stops or reruns a script that way when its reader moves a
control or closes the tab), so a reader who has gone holds no place.

Waiting is in short steps (`wait` with a timeout), so that the caller can show its place as it
changes and can be interrupted between steps.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager


class Ticket:
    """A reader's place in a line (compared by identity)."""


class Line:
    """Readers in the order they joined; the first one has the turn."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._tickets: list[Ticket] = []

    def __len__(self) -> int:
        """How many readers are in the line, the one with the turn included."""
        with self._changed:
            return len(self._tickets)

    @contextmanager
    def joined(self) -> Iterator[Ticket]:
        """Join at the end of the line; leave it when the block ends, however it ends."""
        ticket = Ticket()
        with self._changed:
            self._tickets.append(ticket)
        try:
            yield ticket
        finally:
            with self._changed:
                self._tickets.remove(ticket)
                self._changed.notify_all()

    def ahead(self, ticket: Ticket) -> int:
        """How many readers are ahead of ticket: 0 when it has the turn."""
        with self._changed:
            return self._tickets.index(ticket)

    def wait(self, ticket: Ticket, timeout: float) -> int:
        """Wait until ticket has the turn, or at most timeout seconds; return how many readers
        are then ahead of it (0: its turn)."""
        with self._changed:
            self._changed.wait_for(lambda: self._tickets.index(ticket) == 0, timeout)
            return self._tickets.index(ticket)
