"""Addresses: who a request comes from (the key of every rate limit), and where this machine is
reached on its network.

A client's address is read from the connection, or from X-Forwarded-For only when the
connection comes from a proxy named in POSVIZ_TRUSTED_PROXIES (anyone can write that header).
An IPv6 client counts by its /64 network: one machine there holds a whole /64 of addresses.
"""

from __future__ import annotations

import contextlib
import functools
import ipaddress
import socket

from rooms import config
from rooms.config import setting


@functools.cache
def trusted_proxies(setting: str) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
    return tuple(ipaddress.ip_network(part.strip(), strict=False)
                 for part in setting.split(",") if part.strip())


def trusted(peer: str | None) -> bool:
    """Whether peer is a proxy named in POSVIZ_TRUSTED_PROXIES (None is this machine)."""
    try:
        ip = ipaddress.ip_address(peer if isinstance(peer, str) and peer else "127.0.0.1")
    except ValueError:
        return False
    proxies = trusted_proxies(setting(config.TRUSTED_PROXIES))
    return any(ip in network for network in proxies)


def client_address(peer: str | None, forwarded_for: str | None) -> str:
    """Who a request comes from, as a rate limit's key: the peer's address (None is this
    machine), or the last address a trusted proxy appended to X-Forwarded-For; an IPv6 address
    as its /64 network."""
    address = peer if isinstance(peer, str) and peer else "127.0.0.1"
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address[:100]
    if isinstance(forwarded_for, str) and trusted(address):
        with contextlib.suppress(ValueError):  # no address in it: limit the proxy itself
            ip = ipaddress.ip_address(forwarded_for.split(",")[-1].strip())
    if ip.version == 6 and not ip.ipv4_mapped:
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip.ipv4_mapped or ip) if ip.version == 6 else str(ip)


def this_machine(address: str | None) -> bool:
    """Whether a client address (as client_address gives it) is this machine itself: the
    lecturer at the server's own keyboard (127.0.0.1 or ::1, or no address at all)."""
    return address in (None, "", "127.0.0.1", "::1")


def network_address() -> str | None:
    """This machine's address on its network, as other machines reach it (no packet is sent),
    or None when it has none but loopback."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(("10.255.255.255", 1))  # picks the route; UDP connect sends nothing
            address = probe.getsockname()[0]
    except OSError:
        return None
    return None if address.startswith("127.") else address
