"""Tables beside the Store protocol (the knowledge repository, the memory batcher's buffers):
used by one surface each, they run SQLAlchemy Core on the store's own engine instead of
widening the protocol every backend implements.

On SQLite that engine is the single writer connection: never call a Store write while a
connection from a side table is open (they would wait on each other).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from memlane.domain.errors import ServiceUnavailable


class SideTables:
    #: what needs the SQL store, for the error when the store has no engine
    purpose = "this feature"

    def __init__(self, engine_source: Any):
        self._source = engine_source

    @property
    def engine(self) -> AsyncEngine:
        engine = getattr(self._source, "engine", None)
        if not isinstance(engine, AsyncEngine):
            raise ServiceUnavailable(f"{self.purpose} needs an SQL store (SQLite or PostgreSQL)")
        return engine

    @contextlib.asynccontextmanager
    async def _tx(self) -> AsyncIterator[AsyncConnection]:
        async with self.engine.begin() as conn:
            yield conn
