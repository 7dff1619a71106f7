"""The app's settings: every POSVIZ_* variable the app reads, read here, when asked (the rooms
read theirs in rooms.config)."""

from __future__ import annotations

import os
from pathlib import Path

from rooms.config import setting

LECTURER_PASSWORD = "POSVIZ_LECTURER_PASSWORD"  # asked by Start a room on a public server
PUBLIC_URL = "POSVIZ_PUBLIC_URL"                # the address students open, when set
CLIENT_CPU = "POSVIZ_CLIENT_CPU"  # CPU-seconds of page runs a client address may use a minute


def lecturer_password() -> str:
    """The lecturer's passphrase (as typed: spaces count), or "" for none: then this machine's
    own browser is the lecturer's without one (ui.lecturer)."""
    return os.environ.get(LECTURER_PASSWORD, "")


def client_cpu() -> float:
    """CPU-seconds a minute of page runs one client address may use (ui.pace): 30 (half a
    core) unless set; 0 bounds nothing."""
    return float(setting(CLIENT_CPU, "30"))


def public_url() -> str:
    """The address the class opens, or "" for the one the lecturer's browser used."""
    return setting(PUBLIC_URL)


MODELS = "POSVIZ_MODELS"  # a folder of model folders for the real-model page, beside the cache


def models_folder() -> Path | None:
    """The folder whose model folders the real-model page offers, if set."""
    raw = os.environ.get(MODELS, "")
    return Path(raw).expanduser() if raw else None


CHECK_DOCUMENTS = "POSVIZ_CHECK_DOCUMENTS"  # 1: every document is checked before it is sent


def check_documents() -> bool:
    """Whether every document a follower is sent, a file holds or a report draws is checked
    against ui/blocks.py's declarations first (a debug setting: the tests set it)."""
    return setting(CHECK_DOCUMENTS) == "1"
