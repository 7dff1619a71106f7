"""The rooms' settings: every POSVIZ_* variable the rooms read, read here, when asked (a test
or an operator's shell may set one before the next call)."""

from __future__ import annotations

import os

STORE = "POSVIZ_ROOM_STORE"              # where rooms are kept: sqlite:///... or redis://...
WAIT = "POSVIZ_ROOM_WAIT"                # longest a follower's request is held, in seconds
MAX_CONNECTIONS = "POSVIZ_MAX_CONNECTIONS"  # a process's connections, capped below what its
                                            # open files allow (a machine short of memory)
TRUSTED_PROXIES = "POSVIZ_TRUSTED_PROXIES"  # whose X-Forwarded-For is believed
SECRET = "POSVIZ_SECRET"                 # signs voter ids, tickets, words and proofs


def setting(name: str, default: str = "") -> str:
    """One setting as the environment holds it now, stripped; default when unset or empty."""
    return os.environ.get(name, "").strip() or default
