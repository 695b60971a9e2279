"""Where a webhook may be delivered: public addresses only, unless the operator names a target.

A ``callback_url`` is the caller's choice, and the server is the one that connects: without a
check, a caller makes memlane reach its own loopback, the private network or the cloud metadata
service (SSRF). So:

* the URL is ``http``/``https`` with a host and no credentials (``user:pass@`` would travel to
  the receiver and be kept with the task);
* the host is resolved, and *every* address it gives must be public: not loopback, private
  (RFC 1918, IPv6 ULA), link-local (``169.254.169.254``, the metadata service), shared
  (100.64/10), multicast, reserved, unspecified or documentation space. IPv6 addresses that
  carry an IPv4 one (mapped ``::ffff:a.b.c.d``, compatible, 6to4, Teredo, NAT64) are judged by
  the IPv4 address inside;
* IPv4 literals are read as the C resolver reads them (``2130706433``, ``0x7f.0.0.1``,
  ``0177.0.0.1``, ``127.1`` are all 127.0.0.1), and names end in at most one trailing dot, so
  no spelling gets past the address check; names that only exist inside a network
  (``localhost``, ``*.internal`` such as ``metadata.google.internal``, ``*.local``,
  ``*.home.arpa``, single-label names) are refused before any lookup;
* ``MEMLANE_WEBHOOK_ALLOWED_HOSTS`` (comma-separated host names, IP addresses or CIDR networks;
  empty by default) lets an operator name internal receivers: a named host is trusted
  whatever it resolves to, an address is allowed when it falls in a listed network.

The check runs when the task is submitted (a ``400`` naming the field) and again at every
delivery, against the addresses resolved then; the delivery connects to the address it checked
(:func:`pinned_request`), so a name that resolves elsewhere the second time (DNS rebinding)
cannot steer it.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Final

import httpx

from memlane.domain.addresses import IPAddress, IPNetwork, literal_address, parse_allowed_hosts

#: host, port -> the addresses the host resolves to (as strings)
Resolver = Callable[[str, int], Awaitable[list[str]]]

#: names that only ever mean something inside a network
INTERNAL_SUFFIXES: Final = (".localhost", ".internal", ".local", ".localdomain", ".home.arpa", ".intranet", ".lan")
INTERNAL_NAMES: Final = frozenset({"localhost", "metadata.goog"})
_NAT64: Final = ipaddress.IPv6Network("64:ff9b::/96")
_IPV4_COMPATIBLE: Final = ipaddress.IPv6Network("::/96")


class TargetRefused(ValueError):
    """The URL may not be delivered to; the message says why (safe to show the caller)."""


class TargetUnresolved(TargetRefused):
    """The host has no address now. Delivery refuses it like any refused target; submission
    accepts it, because every delivery resolves and checks the address again (DNS may just be
    late), and a name that never resolves fails its attempts without reaching anything."""


@dataclass(frozen=True, slots=True)
class Target:
    """A parsed callback URL: the host as compared and resolved, and the port to connect to."""

    url: httpx.URL
    host: str
    port: int
    #: the address when the host is an IP literal (in any spelling)
    literal: IPAddress | None


def parse_target(raw: str) -> Target:
    """The URL's parts, or :class:`TargetRefused` for anything but an absolute http(s) URL with a
    host and no credentials."""
    try:
        url = httpx.URL(raw.strip())
    except (httpx.InvalidURL, TypeError, ValueError):
        raise TargetRefused("must be an absolute http(s) URL") from None
    if url.scheme not in ("http", "https") or not url.host:
        raise TargetRefused("must be an absolute http(s) URL")
    if url.userinfo:
        raise TargetRefused("must not carry credentials (user:password@); send them in callback_headers")
    host = url.host.lower()
    if host.endswith(".") and not host.endswith(".."):
        host = host[:-1]
    if not host or "%" in host or host.endswith("."):
        raise TargetRefused(f"host {url.host!r} is not a valid host name")
    port = url.port or (443 if url.scheme == "https" else 80)
    return Target(url=url, host=host, port=port, literal=literal_address(host))


def embedded_ipv4(ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 one carries (mapped, compatible, 6to4, Teredo, NAT64), if any."""
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip.sixtofour is not None:
        return ip.sixtofour
    if ip.teredo is not None:
        return ip.teredo[1]
    if ip in _NAT64 or (ip in _IPV4_COMPATIBLE and int(ip) > 1):
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return None


def address_refusal(ip: IPAddress) -> str | None:
    """Why a webhook may not connect to ``ip``, or None for a public unicast address."""
    if isinstance(ip, ipaddress.IPv6Address) and (inner := embedded_ipv4(ip)) is not None:
        reason = address_refusal(inner)
        return f"{reason} (inside {ip})" if reason else None
    checks = (
        (ip.is_unspecified, "an unspecified address"),
        (ip.is_loopback, "a loopback address"),
        (ip.is_link_local, "a link-local address (where cloud metadata services live)"),
        (ip.is_multicast, "a multicast address"),
        (ip.is_private, "a private address"),
        (ip.is_reserved, "a reserved address"),
        (not ip.is_global, "an address that is not publicly routable"),
    )
    for refused, reason in checks:
        if refused:
            return reason
    return None


def internal_name(host: str) -> bool:
    return host in INTERNAL_NAMES or host.endswith(INTERNAL_SUFFIXES) or "." not in host


async def system_resolver(host: str, port: int) -> list[str]:
    """The operating system's resolver, off the event loop."""
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


@dataclass(frozen=True, slots=True)
class TargetPolicy:
    """``MEMLANE_WEBHOOK_ALLOWED_HOSTS`` and the checks above, with the resolver to use."""

    allowed_names: frozenset[str] = frozenset()
    allowed_networks: tuple[IPNetwork, ...] = ()
    resolver: Resolver = system_resolver

    @classmethod
    def from_setting(cls, raw: str, *, resolver: Resolver = system_resolver) -> TargetPolicy:
        names, networks = parse_allowed_hosts(raw)
        return cls(frozenset(names), tuple(networks), resolver)

    def _address_allowed(self, ip: IPAddress) -> str | None:
        if any(ip.version == net.version and ip in net for net in self.allowed_networks):
            return None
        return address_refusal(ip)

    async def addresses(self, target: Target) -> list[IPAddress]:
        """The addresses to connect to, every one of them checked; :class:`TargetRefused` else."""
        if target.literal is not None:
            candidates = [target.literal]
        else:
            named = target.host in self.allowed_names
            if not named and internal_name(target.host):
                raise TargetRefused(f"host {target.host!r} is an internal name")
            try:
                found = await self.resolver(target.host, target.port)
            except (OSError, UnicodeError) as exc:
                raise TargetUnresolved(f"host {target.host!r} does not resolve ({type(exc).__name__})") from None
            candidates = [ip for ip in (literal_address(a.split("%")[0]) for a in found) if ip is not None]
            if not candidates:
                raise TargetUnresolved(f"host {target.host!r} does not resolve")
            if named:
                return candidates
        for ip in candidates:
            reason = self._address_allowed(ip)
            if reason is not None:
                shown = target.host if target.literal is None else str(ip)
                raise TargetRefused(
                    f"host {shown!r} is {reason}; only public addresses, or those listed in "
                    "MEMLANE_WEBHOOK_ALLOWED_HOSTS, receive webhooks"
                )
        return candidates


def pinned_request(target: Target, ip: IPAddress) -> tuple[httpx.URL, dict[str, str], dict[str, str]]:
    """URL, headers and request extensions that reach ``target`` at exactly ``ip``: the Host
    header and (for https) the TLS server name and certificate check keep the original host."""
    url = target.url.copy_with(host=str(ip), username=None, password=None)
    default = 443 if target.url.scheme == "https" else 80
    host = _bracketed(target.url.host)
    authority = host if target.port == default else f"{host}:{target.port}"
    extensions = {"sni_hostname": target.url.host} if target.url.scheme == "https" else {}
    return url, {"host": authority}, extensions


def _bracketed(host: str) -> str:
    return f"[{host}]" if ":" in host else host
