"""An SQLAlchemy asyncio dialect that runs ``sqlite3`` calls in the calling thread.

aiosqlite sends every call to its own thread and back: a cursor, its ``execute``, its
``fetchall`` and its ``close`` are four round trips, and a one-node write is about ten
statements, so some forty thread hand-offs per write transaction. Under load each hand-off
waits for a core; in process that was most of the 5-8 ms a one-node write took (profiled,
BENCHMARKS.md). The store's writer thread (writer.py) runs whole write transactions on its
own event loop; on that loop nothing else is waiting, so the calls may as well run where
they are: one hand-off per transaction instead of one per call.

Only for the writer thread: on the server's event loop a ``sqlite3`` call would block every
request while it waits for SQLite's lock.

SQLAlchemy's asyncio layer insists that a driver really awaits something
(``AwaitRequired``), and reads results from a buffered cursor with an awaitable close; the
cursor below fetches rows at ``execute`` and awaits a finished coroutine, which costs a
greenlet switch and no trip through an event loop.
"""

from __future__ import annotations

import collections
import sqlite3
from collections.abc import Sequence
from typing import Any

from sqlalchemy import pool
from sqlalchemy.dialects import registry
from sqlalchemy.dialects.sqlite.pysqlite import SQLiteDialect_pysqlite
from sqlalchemy.engine.url import URL
from sqlalchemy.util.concurrency import await_, in_greenlet

#: the URL scheme of this dialect: ``sqlite+memlane_inline:///path/to/file.db``
DRIVER = "memlane_inline"


async def _finished() -> None:
    return None


def _yield_to_greenlet() -> None:
    if in_greenlet():
        await_(_finished())


class InlineCursor:
    """A ``sqlite3`` cursor whose rows are read at ``execute``, as the asyncio layer expects."""

    arraysize = 1

    def __init__(self, connection: sqlite3.Connection):
        self._cursor = connection.cursor()
        self._rows: collections.deque[Any] = collections.deque()
        self.description: Any = None

    @property
    def rowcount(self) -> int:
        return self._cursor.rowcount

    @property
    def lastrowid(self) -> int | None:
        return self._cursor.lastrowid

    def execute(self, operation: str, parameters: Any = ()) -> InlineCursor:
        self._cursor.execute(operation, parameters)
        self._buffer()
        return self

    def executemany(self, operation: str, seq_of_parameters: Sequence[Any]) -> InlineCursor:
        self._cursor.executemany(operation, seq_of_parameters)
        self._buffer()
        return self

    def _buffer(self) -> None:
        self.description = self._cursor.description
        self._rows = collections.deque(self._cursor.fetchall() if self.description else ())
        _yield_to_greenlet()

    def fetchone(self) -> Any:
        return self._rows.popleft() if self._rows else None

    def fetchmany(self, size: int | None = None) -> list[Any]:
        n = self.arraysize if size is None else size
        return [self._rows.popleft() for _ in range(min(n, len(self._rows)))]

    def fetchall(self) -> list[Any]:
        rows = list(self._rows)
        self._rows.clear()
        return rows

    def setinputsizes(self, *sizes: Any) -> None:
        return None

    def setoutputsize(self, size: Any, column: Any = None) -> None:
        return None

    async def _async_soft_close(self) -> None:
        self._cursor.close()

    def close(self) -> None:
        self._rows.clear()
        self._cursor.close()


class InlineConnection:
    """A ``sqlite3`` connection handing out ``InlineCursor``; everything else is passed on."""

    def __init__(self, connection: sqlite3.Connection):
        self._connection = connection

    @property
    def isolation_level(self) -> str | None:
        return self._connection.isolation_level

    @isolation_level.setter
    def isolation_level(self, value: Any) -> None:
        self._connection.isolation_level = value

    def cursor(self) -> InlineCursor:
        return InlineCursor(self._connection)

    def commit(self) -> None:
        self._connection.commit()

    def rollback(self) -> None:
        self._connection.rollback()

    def close(self) -> None:
        self._connection.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._connection, name)


class InlineSQLiteDialect(SQLiteDialect_pysqlite):
    driver = DRIVER
    is_async = True
    supports_statement_cache = True
    supports_server_side_cursors = False

    @classmethod
    def get_pool_class(cls, url: URL) -> type[pool.Pool]:
        return pool.AsyncAdaptedQueuePool

    def connect(self, *cargs: Any, **cparams: Any) -> Any:
        return InlineConnection(sqlite3.connect(*cargs, **cparams))

    def get_driver_connection(self, connection: Any) -> Any:
        return connection


registry.register(f"sqlite.{DRIVER}", __name__, "InlineSQLiteDialect")


def inline_url(path: str) -> str:
    return f"sqlite+{DRIVER}:///{path}"
