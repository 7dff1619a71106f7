"""What the rooms' routes need from the app to show a room to its followers (`Screens`): the app
makes one (ui.documents), serve.py hands it to the room service. No HTTP here: the app builds
it without importing the routes."""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Screens:
    """document(page, query, lang, revealed) is the view drawn as a document: its blocks as JSON,
    and the polls it asks (revealed names the room's polls whose answers may be shown).
    live(asking, lang) is the room's own question or concept check in front of the class (a
    reply's "live") drawn as a document: its blocks as JSON, shown above the view's.
    viewer(code, proof, lang, chosen, state, voter) is the follower's page (chosen: lang was
    asked for; state: "open", "ended" for a member of a room gone, "unknown" for a wrong code,
    "too_many" past a limit, with its seconds in `wait`; voter: "present", "code" or "" for
    the browser's voter id).
    static is the folder of the scripts and styles the follower's page loads.
    personal names the query parameters that belong to one reader (a language, a room's code,
    a lecturer link's token), never to the view a room shares."""

    document: Callable[[str, str, str, frozenset[str]], tuple[str, tuple[str, ...]]]
    live: Callable[[dict, str], str]
    viewer: Callable[..., str]
    langs: Collection[str]
    static: Path
    personal: frozenset[str]
