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
import struct
from pathlib import Path

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


def peer_address(peer: str | None, forwarded_for: str | None) -> str:
    """Who a request comes from, exactly: the peer's address (None, as Streamlit says it for a
    run with no browser, is this machine), or the last address a trusted proxy appended to
    X-Forwarded-For; an IPv4 address mapped into IPv6 as itself."""
    address = peer if isinstance(peer, str) and peer else "127.0.0.1"
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address[:100]
    if isinstance(forwarded_for, str) and trusted(address):
        with contextlib.suppress(ValueError):  # no address in it: the proxy itself
            ip = ipaddress.ip_address(forwarded_for.split(",")[-1].strip())
    return str(ip.ipv4_mapped or ip) if ip.version == 6 else str(ip)


def client_address(peer: str | None, forwarded_for: str | None) -> str:
    """Who a request comes from, as a rate limit's key: peer_address, an IPv6 address as its /64
    network."""
    address = peer_address(peer, forwarded_for)
    with contextlib.suppress(ValueError):
        ip = ipaddress.ip_address(address)
        if ip.version == 6:
            return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return address


LOOPBACK = frozenset({"127.0.0.1", "::1"})
SIOCGIFADDR = 0x8915  # Linux: an interface's IPv4 address
PROXY_HEADERS = ("X-Forwarded-For", "X-Real-IP", "Forwarded")
"""Headers a proxy adds: a request that carries one came through a proxy."""


@functools.cache
def own_addresses() -> frozenset[str]:
    """This machine's own addresses: 127.0.0.1, ::1 and every interface's (Linux lists them;
    elsewhere the address its route out uses); never another 127.x address, which a phone can
    be given as well as anyone (the tests' phones are)."""
    found = set(LOOPBACK)
    if (address := network_address()) is not None:
        found.add(address)
    with contextlib.suppress(OSError, ImportError):
        import fcntl  # Unix only

        for _, name in socket.if_nameindex():
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe, \
                    contextlib.suppress(OSError):
                asked = struct.pack("256s", name.encode()[:15])
                found.add(socket.inet_ntoa(fcntl.ioctl(probe.fileno(), SIOCGIFADDR,
                                                       asked)[20:24]))
    with contextlib.suppress(OSError, ValueError):
        for line in Path("/proc/net/if_inet6").read_text().splitlines():
            found.add(str(ipaddress.IPv6Address(int(line.split()[0], 16))))
    return frozenset(a for a in found if a in LOOPBACK or not a.startswith("127."))


def this_machine(peer: str | None, headers) -> bool:
    """Whether a request comes from this machine's own browser (the lecturer at the server's
    keyboard): from one of its own addresses, directly or through a trusted proxy that forwards
    for one of them. A request that a proxy the operator does not trust forwarded (a proxy on
    this machine left out of POSVIZ_TRUSTED_PROXIES) is nobody's: its peer, 127.0.0.1, is the
    proxy's, not the reader's. headers: the request's (anything with .get)."""
    direct = peer if isinstance(peer, str) and peer else "127.0.0.1"
    if not trusted(direct) and any(isinstance(value := headers.get(name), str) and value.strip()
                                   for name in PROXY_HEADERS):
        return False
    return peer_address(peer, headers.get("X-Forwarded-For")) in own_addresses()


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
