"""Which ``Host`` names memlane answers to and which web origins may act on it.

A web page in a browser can reach a server on the same machine in two ways that neither auth
off nor a loopback binding stops by itself:

* **DNS rebinding**: a page of ``evil.example`` makes its own name resolve to 127.0.0.1; its
  requests are then same-origin to the browser and reach memlane, but carry
  ``Host: evil.example``. Answering only to the host names memlane is reached by defeats it.
* **Cross-site requests**: any page may send a POST to ``http://127.0.0.1:8000`` (a form, or a
  ``fetch`` with a "simple" content type, which needs no CORS preflight). The browser marks it
  with the page's ``Origin``; a state-changing request from an origin other than memlane's own
  is refused unless the operator named that origin.

The rules are data here (parsed once from the settings, a bad entry stops start-up); the ASGI
layer that applies them is ``api/common/browser_boundary.py`` and the MCP SDK's transport security gets
the same lists (``api/tools/mcp_http.py``). This module imports nothing of memlane: ``config.py``
validates the settings with it.
"""

from __future__ import annotations

import functools
import ipaddress
import re
from dataclasses import dataclass
from urllib.parse import urlsplit

#: the names of this machine a local client uses; allowed by default on the serving port
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]")
#: a Host header (RFC 9110 ``uri-host [ ":" port ]``): a DNS name, an IPv4 address or a
#: bracketed IPv6 literal, and an optional port
_HOST = re.compile(r"(?P<name>\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_](?:[A-Za-z0-9._-]*[A-Za-z0-9_])?)(?::(?P<port>\d{1,5}))?")
DEFAULT_PORTS = {"http": 80, "https": 443}


@functools.lru_cache(maxsize=1024)
def split_host(value: str) -> tuple[str, int | None] | None:
    """``"LocalHost:8000"`` -> ``("localhost", 8000)``; ``"[::1]"`` -> ``("[::1]", None)``;
    None for anything that is not a host (empty, a path, a bad IPv6 literal, port > 65535)."""
    match = _HOST.fullmatch(value.strip())
    if match is None:
        return None
    name = match["name"].lower()
    if name.startswith("["):
        try:
            ipaddress.IPv6Address(name[1:-1])
        except ValueError:
            return None
    port = int(match["port"]) if match["port"] is not None else None
    if port is not None and port > 65535:
        return None
    return name, port


@dataclass(frozen=True)
class HostEntry:
    """One allowed host: a name, on one port or (``port`` None) on any."""

    name: str
    port: int | None = None

    def matches(self, name: str, port: int | None) -> bool:
        return name == self.name and (self.port is None or port == self.port)


@dataclass(frozen=True)
class HostPolicy:
    """The ``Host`` values memlane answers to.

    By default the loopback names (``localhost``, ``127.0.0.1``, ``[::1]``) on the port the
    request arrived on, which is the server's own (ASGI ``server``): those are the URLs a local
    client uses, and a DNS-rebinding page can never produce them (the browser writes the page's
    own name into ``Host``). ``MEMLANE_ALLOWED_HOSTS`` adds entries: ``name`` (any port) or
    ``name:port``; ``*`` answers to any host (the check is off: for a server whose proxy
    checks the host itself)."""

    entries: tuple[HostEntry, ...] = ()
    any_host: bool = False

    def allows(self, host_header: str | None, server_port: int | None, scheme: str) -> bool:
        if self.any_host:
            return True
        parsed = split_host(host_header) if host_header else None
        if parsed is None:
            return False
        name, port = parsed
        if name in LOOPBACK_NAMES:
            # no port in Host means the scheme's default port; an unknown server port (a Unix
            # socket) leaves only the name to check
            effective = port if port is not None else DEFAULT_PORTS.get(scheme)
            if server_port is None or effective == server_port:
                return True
        return any(entry.matches(name, port) for entry in self.entries)


def parse_allowed_hosts(value: str) -> HostPolicy:
    """``MEMLANE_ALLOWED_HOSTS``: comma-separated ``name`` or ``name:port`` entries, or ``*``."""
    entries: list[HostEntry] = []
    any_host = False
    for raw in (part.strip() for part in value.split(",")):
        if not raw:
            continue
        if raw == "*":
            any_host = True
            continue
        parsed = split_host(raw)
        if parsed is None:
            raise ValueError(
                f"MEMLANE_ALLOWED_HOSTS: {raw!r} is not a host name, IPv4 address or [IPv6] literal "
                "with an optional :port (or *)"
            )
        entries.append(HostEntry(*parsed))
    return HostPolicy(tuple(entries), any_host)


def normalise_origin(value: str) -> str | None:
    """``"HTTPS://App.Example:443/"`` -> ``"https://app.example"``: scheme and host lowercased,
    the scheme's default port and a trailing slash dropped (a browser's ``Origin`` has neither);
    None unless it is an http(s) origin (no path, query or credentials)."""
    try:
        parts = urlsplit(value.strip())
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    host = split_host(parts.netloc) if "@" not in parts.netloc else None
    if scheme not in DEFAULT_PORTS or host is None or parts.path not in ("", "/") or parts.query or parts.fragment:
        return None
    name, port = host
    return f"{scheme}://{name}" + (f":{port}" if port not in (None, DEFAULT_PORTS[scheme]) else "")


@dataclass(frozen=True)
class OriginPolicy:
    """The web origins besides memlane's own that may call it from a browser
    (``MEMLANE_CORS_ORIGINS``): CORS answers them, and their state-changing requests pass.
    ``*`` is every origin: any web page may then read and write (unsafe with auth off)."""

    origins: frozenset[str] = frozenset()
    any_origin: bool = False

    @property
    def enabled(self) -> bool:
        return self.any_origin or bool(self.origins)

    def allows(self, origin: str) -> bool:
        if self.any_origin:
            return True
        normal = normalise_origin(origin)
        return normal is not None and normal in self.origins


def parse_cors_origins(value: str) -> OriginPolicy:
    """``MEMLANE_CORS_ORIGINS``: comma-separated origins (``https://app.example``,
    ``http://localhost:3000``), or ``*``."""
    origins: set[str] = set()
    any_origin = False
    for raw in (part.strip() for part in value.split(",")):
        if not raw:
            continue
        if raw == "*":
            any_origin = True
            continue
        normal = normalise_origin(raw)
        if normal is None:
            raise ValueError(
                f"MEMLANE_CORS_ORIGINS: {raw!r} is not an origin: scheme (http or https), host and an "
                "optional port, no path (or *)"
            )
        origins.add(normal)
    return OriginPolicy(frozenset(origins), any_origin)


def same_origin(origin: str, host_header: str) -> bool:
    """The page that sent the request was served from the host and port the request went to.

    The scheme is not compared: behind a TLS proxy memlane sees ``http`` while the page is
    ``https``, and one host and port is one listener whatever the scheme. A browser writes
    ``Origin`` without the scheme's default port, as it writes ``Host``."""
    try:
        parts = urlsplit(origin)
    except ValueError:
        return False
    page = split_host(parts.netloc) if parts.scheme.lower() in DEFAULT_PORTS else None
    return page is not None and page == split_host(host_header)


@dataclass(frozen=True)
class BrowserPolicy:
    hosts: HostPolicy
    origins: OriginPolicy

    @classmethod
    def parse(cls, allowed_hosts: str, cors_origins: str) -> BrowserPolicy:
        return cls(parse_allowed_hosts(allowed_hosts), parse_cors_origins(cors_origins))
