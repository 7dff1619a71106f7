"""The services the app is given, read here by every page and part of the app: its rooms
(rooms.Rooms), handed in once where the app starts (serve.py's app()), else this process's
shared rooms (rooms.shared_rooms: `streamlit run`, AppTest)."""

from __future__ import annotations

from rooms import Rooms, shared_rooms

_given: list[Rooms] = []


def give_rooms(service: Rooms) -> None:
    """The rooms the app serves from, for every session of this process (serve.py's, which its
    rooms' routes serve from too)."""
    _given[:] = [service]


def rooms() -> Rooms:
    """The rooms the app was given (give_rooms), else this process's shared rooms."""
    return _given[0] if _given else shared_rooms()
