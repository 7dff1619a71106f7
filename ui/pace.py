"""How much of the server one client may use with page runs: their CPU time per client address,
a token bucket of CPU-seconds (POSVIZ_CLIENT_CPU a minute, 30 unless set: half of one core; twice
that at once). A heavy run (the sinusoidal page at 4,096 x 1,024) costs seconds, a light one
tens of milliseconds, so the one budget bounds both how often a client runs pages and how
heavy they are. Past it, the page says so in the reader's language and runs nothing more until
the budget is back; its settings stay in the address. The machine's own browser (the lecturer at
the server's keyboard) and a room's lecturer are never slowed by it.

The budget is this process's: each server process spends its own CPU.
"""

from __future__ import annotations

import time

import streamlit as st

from rooms.address import client_address, this_machine
from rooms.throttle import Throttle
from ui import config
from ui.i18n import text


@st.cache_resource
def _budget(per_minute: float) -> Throttle:
    """The process's CPU budget of page runs per client address."""
    return Throttle(burst=max(1, round(2 * per_minute)), per_minute=per_minute)


def _paced(lecturer: bool) -> str | None:
    """The client address whose budget this run spends (behind a trusted proxy, the one it
    names), or None for a run that spends none."""
    headers = st.context.headers
    if lecturer or config.client_cpu() <= 0 or this_machine(st.context.ip_address, headers):
        return None
    return client_address(st.context.ip_address, headers.get("X-Forwarded-For"))


def admit(lang: str, lecturer: bool, started: float | None = None) -> None:
    """Let this page run go on, or, with its client's budget spent, say so and stop it (its CPU
    since started charged first, when given: for a caller without a `finally` that charges).
    Asked first thing in a run, so that a refused run draws nothing and asks no store: a
    refusal costs next to nothing."""
    who = _paced(lecturer)
    if who is not None and (wait := _budget(config.client_cpu()).wait(who)):
        st.warning(text("common.paced", lang, seconds=int(wait) + 1))
        if started is not None:
            charge(started, lecturer)
        st.stop()


def charge(started: float, lecturer: bool) -> None:
    """Charge this run's CPU time since started (time.thread_time()) to its client."""
    who = _paced(lecturer)
    if who is not None:
        _budget(config.client_cpu()).hit(who, time.thread_time() - started)
