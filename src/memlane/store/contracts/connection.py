"""The store as a connection: opened once per process, watched by health checks."""

from __future__ import annotations

from typing import Any, Protocol


class ConnectionOps(Protocol):
    """The process opens and closes the store; health checks ping it and read its pool."""

    #: ``sqlite`` or ``postgres``
    backend: str

    async def open(self) -> None:
        """Connect and check that the schema is at the migration head."""
        ...

    async def close(self) -> None: ...

    async def ping(self) -> bool: ...

    async def pool_stats(self) -> dict[str, Any]:
        """Real figures of the connection pool (size, checked out, idle, overflow)."""
        ...
