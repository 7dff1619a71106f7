"""Whether this session is the lecturer's: what a student may not do (type a path on the
lecturer's disk, make the server load a model) is decided here.

The lecturer is the machine's own browser (a connection from 127.0.0.1, ::1 or one of this
machine's own interface addresses, behind a trusted proxy the address it forwards for; never
another 127.x address, which a phone can use as well as any) or a session that leads an open
room (ui.membership: it holds the room's key). A page drawn as a document (a room's screen, a
file) has no session and is nobody's: it reads only what the lecturer has opened.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import ipaddress
import socket
import struct
from pathlib import Path

import streamlit as st

from rooms import network_address
from rooms.throttle import trusted
from ui.shared import Settings

LOOPBACK = frozenset({"127.0.0.1", "::1"})
SIOCGIFADDR = 0x8915  # Linux: an interface's IPv4 address


@functools.cache
def own_addresses() -> frozenset[str]:
    """This machine's own addresses: 127.0.0.1, ::1 and every interface's (Linux lists them;
    elsewhere the address its route out uses)."""
    found = set(LOOPBACK)
    if (address := network_address()) is not None:
        found.add(address)
    with contextlib.suppress(OSError):
        for _, name in socket.if_nameindex():
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe, \
                    contextlib.suppress(OSError):
                asked = struct.pack("256s", name.encode()[:15])
                found.add(socket.inet_ntoa(fcntl.ioctl(probe.fileno(), SIOCGIFADDR,
                                                       asked)[20:24]))
    with contextlib.suppress(OSError, ValueError):
        for line in Path("/proc/net/if_inet6").read_text().splitlines():
            raw = line.split()[0]
            found.add(str(ipaddress.IPv6Address(int(raw, 16))))
    return frozenset(a for a in found if a in LOOPBACK or not a.startswith("127."))


def client_address(peer: str | None, forwarded_for: str | None) -> str:
    """The address a session's connection comes from: the peer (None, as Streamlit gives
    127.0.0.1 and ::1 and a script run with no browser, is this machine), or behind a trusted
    proxy the last address it appended to X-Forwarded-For. A page run by AppTest sees stand-in
    objects, not text, where these would be: no browser, this machine."""
    address = peer if isinstance(peer, str) and peer else "127.0.0.1"
    if isinstance(forwarded_for, str) and forwarded_for and trusted(address):
        with contextlib.suppress(ValueError):
            address = str(ipaddress.ip_address(forwarded_for.split(",")[-1].strip()))
    with contextlib.suppress(ValueError):
        ip = ipaddress.ip_address(address)
        address = str(ip.ipv4_mapped or ip) if ip.version == 6 else str(ip)
    return address


def on_this_machine(address: str) -> bool:
    """Whether a connection from address is this machine's own browser."""
    return address in own_addresses()


PROXY_HEADERS = ("X-Forwarded-For", "X-Real-IP", "Forwarded")
"""Headers a proxy adds: a request that carries one came through a proxy."""


def own_browser(peer: str | None, headers) -> bool:
    """Whether a connection is this machine's own browser: from one of its addresses, directly,
    or through a trusted proxy that forwards for one of them. A request a proxy forwarded that
    the operator does not trust (a proxy on this machine left out of POSVIZ_TRUSTED_PROXIES) is
    nobody's: its peer, 127.0.0.1, is the proxy's, not the reader's."""
    forwarded = headers.get("X-Forwarded-For")
    direct = peer if isinstance(peer, str) and peer else "127.0.0.1"
    if not trusted(direct) and any(isinstance(headers.get(h), str) and headers.get(h).strip()
                                   for h in PROXY_HEADERS):
        return False
    return on_this_machine(client_address(peer, forwarded))


def is_lecturer(s: Settings) -> bool:
    """Whether this page run is the lecturer's: a session of the machine's own browser, or one
    that leads its room. A document (no session) is not."""
    if not s.controls:
        return False
    if s.room is not None and s.room.lecturer:
        return True
    headers = st.context.headers
    return own_browser(st.context.ip_address,
                       headers if hasattr(headers, "get") else {})
