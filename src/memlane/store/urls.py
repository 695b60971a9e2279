"""Users give plain database URLs; memlane picks the async driver for each backend."""

from __future__ import annotations


def async_url(url: str) -> str:
    if url.startswith(("postgres://", "postgresql://")) and "sslmode=" in url:
        # libpq spells it sslmode; asyncpg takes ssl with the same values
        url = url.replace("sslmode=", "ssl=")
    if url.startswith("sqlite:///"):
        return "sqlite+aiosqlite:///" + url[len("sqlite:///") :]
    if url.startswith("postgres://"):
        return "postgresql+asyncpg://" + url[len("postgres://") :]
    if url.startswith("postgresql://"):
        return "postgresql+asyncpg://" + url[len("postgresql://") :]
    return url
