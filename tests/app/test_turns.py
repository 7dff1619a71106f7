"""The line for the live experiment: one reader at a time, in the order they came, and a reader
who leaves (by an error, or stopped while waiting) frees the place at once."""

import contextlib
import queue
import threading
import time
from contextlib import ExitStack

import pytest

from ui.turns import Line, Ticket

LONG = 10.0  # seconds: a limit for waits that should end long before it
STEP = 0.01  # seconds between a waiter's checks, as a page shows its place between them


class Stopped(Exception):
    """Stands for the StopException that Streamlit raises inside a script thread it stops."""


def waiter(line: Line, on_turn=lambda: None,
           stop: threading.Event | None = None) -> tuple[threading.Thread, Ticket]:
    """A thread that joins the line, waits for its turn in steps and then calls on_turn; a set
    stop raises Stopped at its next step. Returns the thread and its ticket once it is in line."""
    tickets = queue.SimpleQueue()

    def run() -> None:
        with contextlib.suppress(Stopped), line.joined() as ticket:  # as Streamlit ends a run
            tickets.put(ticket)
            while line.wait(ticket, timeout=STEP):
                if stop is not None and stop.is_set():
                    raise Stopped
            on_turn()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, tickets.get(timeout=LONG)


def test_the_places_count_who_is_ahead_in_the_order_they_came():
    line = Line()
    with line.joined() as first, line.joined() as second, line.joined() as third:
        assert [line.ahead(t) for t in (first, second, third)] == [0, 1, 2]
        assert line.wait(third, timeout=STEP) == 2, "not its turn: the wait ends at its timeout"
        assert line.wait(first, timeout=LONG) == 0, "its turn: the wait ends at once"
    assert len(line) == 0


def test_a_place_moves_up_when_someone_ahead_leaves():
    line = Line()
    with line.joined() as first, ExitStack() as middle:
        middle.enter_context(line.joined())
        with line.joined() as last:
            assert line.ahead(last) == 2
            middle.close()
            assert (line.ahead(first), line.ahead(last)) == (0, 1)


def test_one_reader_at_a_time_in_the_order_they_joined():
    line, lock = Line(), threading.Lock()
    holding, most, order = [0], [0], []

    def work() -> None:
        with lock:
            holding[0] += 1
            most[0] = max(most[0], holding[0])
            order.append(threading.current_thread())
        threading.Event().wait(0.005)  # time for the others to try to come in
        with lock:
            holding[0] -= 1

    threads, tickets = [], []
    with line.joined() as gate:  # everyone queues behind it, so every one of them waits
        for _ in range(6):
            thread, ticket = waiter(line, work)
            threads.append(thread)
            tickets.append(ticket)
        assert [line.ahead(t) for t in tickets] == [1, 2, 3, 4, 5, 6]
        assert line.ahead(gate) == 0
    for thread in threads:
        thread.join(LONG)
    assert most[0] == 1, "two readers held the turn together"
    assert order == threads, "not first come, first served"
    assert len(line) == 0


def test_an_error_during_the_turn_gives_it_to_the_next():
    line = Line()
    turn = threading.Event()
    with pytest.raises(RuntimeError), line.joined():
        thread, _ = waiter(line, turn.set)
        raise RuntimeError("the training failed")
    assert turn.wait(LONG)
    thread.join(LONG)
    assert len(line) == 0


def test_a_waiter_that_is_stopped_does_not_block_those_behind_it():
    line = Line()
    stop, turn = threading.Event(), threading.Event()
    with line.joined():
        abandoned, _ = waiter(line, stop=stop)  # its reader closes the tab while it waits
        behind, ticket = waiter(line, turn.set)
        assert line.ahead(ticket) == 2
        stop.set()
        abandoned.join(LONG)
        assert not abandoned.is_alive()
        assert line.ahead(ticket) == 1, "the reader who left still holds a place"
        assert not turn.is_set()
    assert turn.wait(LONG), "the turn did not pass over the reader who left"
    behind.join(LONG)
    assert len(line) == 0


def test_a_waiter_is_woken_as_soon_as_the_turn_is_free():
    line = Line()
    places = queue.SimpleQueue()
    holder = ExitStack()
    holder.enter_context(line.joined())
    with line.joined() as ticket:
        thread = threading.Thread(target=lambda: places.put(line.wait(ticket, timeout=LONG)))
        thread.start()
        threading.Event().wait(0.05)  # time for it to start waiting
        started = time.monotonic()
        holder.close()
        assert places.get(timeout=LONG) == 0
        assert time.monotonic() - started < LONG / 2, "woken by its timeout, not by the leaver"
        thread.join(LONG)
