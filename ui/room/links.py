"""The addresses a room gives: the link students open (with the QR code's ticket, or without),
the room's screen, a one-time lecturer link, and whether an address works beyond this machine."""

from __future__ import annotations

import ipaddress
import time
from urllib.parse import urlencode, urlsplit

import streamlit as st

from rooms import signing
from rooms.address import network_address
from ui import config
from ui.services import rooms


def public_base() -> str:
    """The address students open: POSVIZ_PUBLIC_URL, else the one this browser used."""
    configured = config.public_url()
    if configured:
        return configured.rstrip("/") + "/"
    used = urlsplit(st.context.url or "http://localhost:8501/")
    return f"{used.scheme}://{used.netloc}/"


def only_this_machine(base: str) -> bool:
    """Whether base names this machine only (localhost, a loopback address): no phone can
    open it."""
    host = urlsplit(base).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def network_base(base: str) -> str | None:
    """This machine's address on its network, with base's scheme and port."""
    parts, address = urlsplit(base), network_address()
    port = f":{parts.port}" if parts.port else ""
    return None if address is None else f"{parts.scheme}://{address}{port}/"


def student_link(code: str, ticket: bool = False) -> str:
    """The room's link for students (the app, which sends a follower to the room's screen);
    with its ticket of now (in the QR code), the room's screen itself, whose voter id then
    shows it was in the hall, and which joins even while a script floods the class's network
    address with wrong codes. The ticket changes every signing.TICKET_SECONDS."""
    if ticket:
        ticketed = urlencode({"t": signing.ticket(rooms().secret, code, time.time())})
        return f"{public_base()}_posviz/follow/{code}?{ticketed}"
    return f"{public_base()}?{urlencode({'room': code})}"


def screen_link(code: str, lang: str) -> str:
    """The room's screen in lang: where a tab without a voter id for the room answers."""
    return f"{public_base()}_posviz/follow/{code}?{urlencode({'lang': lang})}"


def lecturer_link(page: str, view: str, code: str, token: str) -> str:
    """A one-time lecturer link (token: Rooms.lead_link's) to the room, opening page (its URL
    path, "" for home) at view (its shared query string)."""
    mine = urlencode({"room": code, "lead": token})
    return f"{public_base()}{page}?{'&'.join(filter(None, (view, mine)))}"
