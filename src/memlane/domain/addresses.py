"""How memlane reads an IP address or a host list an operator or a caller writes.

Pure parsing, no network: the webhook target check (services/conversation/webhook_targets.py)
judges addresses with it, and config.py validates ``MEMLANE_WEBHOOK_ALLOWED_HOSTS`` at start-up
with the same parser, so a bad entry stops the server instead of the first delivery.
"""

from __future__ import annotations

import ipaddress
import socket
from typing import Final

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

_NUMERIC_HOST: Final = frozenset("0123456789abcdefxABCDEFX.")


def literal_address(host: str) -> IPAddress | None:
    """The address an IP literal stands for, in every spelling the C resolver accepts."""
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        pass
    if host and set(host) <= _NUMERIC_HOST and any(c.isdigit() for c in host):
        try:  # inet_aton reads decimal, hex and octal parts and short forms, as connect() would
            return ipaddress.IPv4Address(socket.inet_aton(host))
        except OSError:
            return None
    return None


def parse_allowed_hosts(raw: str) -> tuple[list[str], list[IPNetwork]]:
    """Host names and networks of ``MEMLANE_WEBHOOK_ALLOWED_HOSTS``; ValueError names a bad entry."""
    names: list[str] = []
    networks: list[IPNetwork] = []
    for entry in (e.strip().lower() for e in raw.split(",")):
        if not entry:
            continue
        if "/" in entry:
            try:
                networks.append(ipaddress.ip_network(entry, strict=False))
            except ValueError:
                raise ValueError(f"MEMLANE_WEBHOOK_ALLOWED_HOSTS: {entry!r} is not a CIDR network") from None
            continue
        address = literal_address(entry.strip("[]"))
        if address is not None:
            networks.append(ipaddress.ip_network(address))
        else:
            names.append(entry.rstrip("."))
    return names, networks
