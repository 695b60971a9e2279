"""Users give plain database URLs; memlane picks the async driver for each backend.

PostgreSQL URLs may name several hosts the way libpq does
(``postgresql://u:p@host1:5432,host2:5433/db?target_session_attrs=read-write``): the spelling
every PostgreSQL tool and managed service documents for failover. SQLAlchemy's URL parser
reads ``host1:5432,host2:5433`` as one host with the port ``5432,host2:5433`` and fails
(``invalid literal for int()``). It takes the same list as repeated ``host`` query
parameters instead (``?host=host1:5432&host=host2:5433``, every port spelled out), which
its asyncpg dialect hands to asyncpg with the other parameters (``target_session_attrs``
included). ``async_url`` rewrites one spelling into the other; ``serve``, ``worker`` and
``migrate`` (Alembic runs on the same async engine) all go through it.
"""

from __future__ import annotations

from urllib.parse import parse_qsl, quote, urlencode

#: libpq's default port, which asyncpg's host list needs spelled out for every host
DEFAULT_PG_PORT = 5432
_PG_SCHEMES = ("postgres://", "postgresql://")


def async_url(url: str) -> str:
    if url.startswith(_PG_SCHEMES) and "sslmode=" in url:
        # libpq spells it sslmode; asyncpg takes ssl with the same values
        url = url.replace("sslmode=", "ssl=")
    if url.startswith(_PG_SCHEMES):
        url = hosts_as_query(url)
    if url.startswith("sqlite:///"):
        return "sqlite+aiosqlite:///" + url[len("sqlite:///") :]
    if url.startswith("postgres://"):
        return "postgresql+asyncpg://" + url[len("postgres://") :]
    if url.startswith("postgresql://"):
        return "postgresql+asyncpg://" + url[len("postgresql://") :]
    return url


def hosts_as_query(url: str) -> str:
    """A libpq host list (``h1:p1,h2:p2`` before the path) as SQLAlchemy's repeated ``host``
    query parameters, each with its port; other URLs unchanged."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        return url
    authority_end = min((i for i in (rest.find("/"), rest.find("?")) if i >= 0), default=len(rest))
    authority, tail = rest[:authority_end], rest[authority_end:]
    userinfo, at, hostlist = authority.rpartition("@")
    if "," not in hostlist:
        return url
    hosts = [_host_with_port(part) for part in hostlist.split(",")]
    path, _, query = tail.partition("?")
    params = parse_qsl(query, keep_blank_values=True)
    if any(k in ("host", "port") for k, _ in params):
        raise ValueError(
            "MEMLANE_DATABASE_URL names hosts both before the path and in the query string: use one of the two"
        )
    params = [("host", h) for h in hosts] + params
    return f"{scheme}://{userinfo}{at}{path or '/'}?{urlencode(params, quote_via=quote, safe=':')}"


def _host_with_port(part: str) -> str:
    part = part.strip()
    if not part:
        raise ValueError("MEMLANE_DATABASE_URL has an empty host in its host list")
    if part.startswith("["):
        raise ValueError(
            "MEMLANE_DATABASE_URL: IPv6 addresses in a host list are not supported; name the hosts, or use one host"
        )
    host, colon, port = part.partition(":")
    if not colon or not port:
        return f"{host}:{DEFAULT_PG_PORT}"
    if not port.isdigit():
        raise ValueError(f"MEMLANE_DATABASE_URL: port {port!r} of host {host!r} is not a number")
    return f"{host}:{port}"
