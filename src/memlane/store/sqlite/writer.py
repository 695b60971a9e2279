"""SQLite's write transactions on one thread of their own, committed in groups.

Two costs made a one-node write slow (BENCHMARKS.md): aiosqlite's thread hand-off for every
call of every statement (about forty per write), and one commit per request, each rewriting
the same B-tree, keyword-index and job pages into the WAL. Here a write transaction is a
coroutine function ``fn(conn)`` handed to the writer thread, which runs it on its own event
loop through the inline driver (inline_driver.py): two hand-offs per transaction whatever
its size.

**Group commit.** Writes that queue while a transaction runs go into the next one together
(up to ``max_group``), each inside its own SAVEPOINT: a write that fails rolls back to its
savepoint and fails alone, the others commit. Every caller is answered only after the COMMIT
that holds its write returned, so an acknowledged write is as durable as before (a commit
in WAL mode); if BEGIN or COMMIT fails, every write of that group fails and nothing of it is
stored. Nothing waits to form a group: a lone write commits at once.

**Everything else.** Transactions that still run on the server's event loop (``exclusive``)
first queue behind the writes already submitted and hold the writer thread until they end,
so the two connections never wait on SQLite's lock for each other.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine

from memlane.domain.errors import ServiceUnavailable
from memlane.store.error_text import ENGINE_OPTIONS
from memlane.store.sqlite.inline_driver import inline_url

log = logging.getLogger(__name__)

T = TypeVar("T")
#: one write transaction's work, given the connection inside BEGIN IMMEDIATE
WriteFn = Callable[[AsyncConnection], Awaitable[Any]]
#: writes committed together at most
MAX_GROUP = 64


@dataclass(slots=True)
class _Item:
    fn: WriteFn | None
    future: asyncio.Future[Any]
    loop: asyncio.AbstractEventLoop
    #: set for an ``exclusive`` turn: the writer thread waits on it instead of running ``fn``
    release: threading.Event | None = None


def _settle(future: asyncio.Future[Any], ok: bool, value: Any) -> None:
    if future.done():  # the caller went away (cancelled); the write's outcome stands
        return
    if ok:
        future.set_result(value)
    else:
        future.set_exception(value)


class WriterThread:
    def __init__(self, path: str, *, configure: Callable[[AsyncEngine], None], max_group: int = MAX_GROUP):
        self.path = path
        self.max_group = max_group
        self._configure = configure
        self._queue: deque[_Item] = deque()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._wake: asyncio.Event | None = None
        self._stopping = False
        #: transactions and groups committed (observability and tests)
        self.commits = 0
        self.largest_group = 0

    # --- lifecycle -----------------------------------------------------------------------
    def start(self) -> None:
        ready = threading.Event()
        self._thread = threading.Thread(target=self._main, args=(ready,), name="memlane-sqlite-writer", daemon=True)
        self._thread.start()
        ready.wait()

    async def stop(self) -> None:
        if self._thread is None or self._loop is None:
            return
        loop, wake = self._loop, self._wake
        self._stopping = True
        if wake is not None:
            loop.call_soon_threadsafe(wake.set)
        await asyncio.to_thread(self._thread.join)
        self._thread = None

    def _main(self, ready: threading.Event) -> None:
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        self._loop = loop
        self._wake = asyncio.Event()
        engine = create_async_engine(inline_url(self.path), pool_size=1, max_overflow=0, **ENGINE_OPTIONS)
        self._configure(engine)
        ready.set()
        try:
            loop.run_until_complete(self._serve(engine))
        finally:
            loop.run_until_complete(engine.dispose())
            loop.close()

    # --- callers (any event loop) --------------------------------------------------------
    async def run(self, fn: Callable[[AsyncConnection], Awaitable[T]]) -> T:
        """Run ``fn`` in a write transaction; returns once the commit holding it is done."""
        result: T = await self._submit(fn, None)
        return result

    @contextlib.asynccontextmanager
    async def exclusive(self) -> AsyncIterator[None]:
        """Hold the writer thread: for a transaction on another connection. Never submit a
        write from inside: it would wait for this turn to end."""
        release = threading.Event()
        try:
            await self._submit(None, release)
            yield
        finally:
            release.set()  # also when cancelled before the turn came: the writer passes on

    async def _submit(self, fn: WriteFn | None, release: threading.Event | None) -> Any:
        loop, wake = self._loop, self._wake
        if loop is None or wake is None or self._stopping:
            raise ServiceUnavailable("store is not open")
        caller = asyncio.get_running_loop()
        item = _Item(fn, caller.create_future(), caller, release)
        with self._lock:
            self._queue.append(item)
        loop.call_soon_threadsafe(wake.set)
        return await item.future

    # --- the writer thread ---------------------------------------------------------------
    def _take(self) -> list[_Item]:
        """The next group: queued writes up to ``max_group``, or one exclusive turn."""
        with self._lock:
            if not self._queue:
                return []
            if self._queue[0].release is not None:
                return [self._queue.popleft()]
            group: list[_Item] = []
            while self._queue and len(group) < self.max_group and self._queue[0].release is None:
                group.append(self._queue.popleft())
            return group

    async def _serve(self, engine: AsyncEngine) -> None:
        assert self._wake is not None
        while True:
            group = self._take()
            if not group:
                if self._stopping:
                    return
                self._wake.clear()
                if not self._queue:
                    await self._wake.wait()
                continue
            release = group[0].release
            if release is not None:
                turn = group[0]
                turn.loop.call_soon_threadsafe(_settle, turn.future, True, None)
                release.wait()
                continue
            outcomes = await self._commit(engine, group)
            for item, (ok, value) in zip(group, outcomes, strict=True):
                item.loop.call_soon_threadsafe(_settle, item.future, ok, value)

    async def _commit(self, engine: AsyncEngine, group: list[_Item]) -> list[tuple[bool, Any]]:
        try:
            async with engine.begin() as conn:
                if len(group) == 1:
                    assert group[0].fn is not None
                    outcomes: list[tuple[bool, Any]] = [(True, await group[0].fn(conn))]
                else:
                    outcomes = [await self._in_savepoint(conn, item) for item in group]
        except Exception as exc:  # BEGIN, COMMIT, or the only write failed: none of the group is stored
            if len(group) > 1:
                log.warning("group commit of %d writes failed: %s", len(group), exc)
            return [(False, exc)] * len(group)
        self.commits += 1
        self.largest_group = max(self.largest_group, len(group))
        return outcomes

    @staticmethod
    async def _in_savepoint(conn: AsyncConnection, item: _Item) -> tuple[bool, Any]:
        assert item.fn is not None
        savepoint = await conn.begin_nested()
        try:
            value = await item.fn(conn)
        except Exception as exc:
            await savepoint.rollback()
            return False, exc
        await savepoint.commit()
        return True, value
