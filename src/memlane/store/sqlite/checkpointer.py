"""Copies the write-ahead log into the database file on a thread of its own.

By default SQLite checkpoints inside the commit that pushes the WAL past 1,000 pages, on the
writer's connection: every few bulk writes one of them also copies megabytes of pages and
syncs the file while every other write waits. On the 100k-node bulk write that was a fifth
of the time (1,644 nodes/s with it, 2,052 with no checkpoints at all; bench/recall.py).
Here a PASSIVE checkpoint runs about once a second after writes, on a separate connection
and thread, so it overlaps the next write instead of stalling it. PASSIVE never waits for
readers or writers; what it cannot copy yet, the next round does.

The writer keeps an automatic checkpoint as a backstop (``BACKSTOP_PAGES``), so the WAL
stays bounded even if this task is not running (another process without it, a stalled
thread).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
import threading

log = logging.getLogger(__name__)

#: the writer's own automatic checkpoint, in 4 KiB pages (about 80 MB of WAL)
BACKSTOP_PAGES = 20_000
INTERVAL_SECONDS = 1.0


class Checkpointer:
    def __init__(self, path: str, *, interval: float = INTERVAL_SECONDS):
        self.path = path
        self.interval = interval
        self._dirty = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._conn: sqlite3.Connection | None = None
        # cancelling the task does not stop a checkpoint already running on its thread: the
        # connection is used and closed under this lock, never closed in the middle of a PRAGMA
        # (that crashed the process)
        self._lock = threading.Lock()

    def start(self) -> None:
        self._conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._conn.execute("PRAGMA busy_timeout=0")
        self._task = asyncio.get_running_loop().create_task(self._run(), name="sqlite-checkpointer")

    def note_write(self) -> None:
        self._dirty.set()

    async def _run(self) -> None:
        while True:
            await self._dirty.wait()
            await asyncio.sleep(self.interval)  # let writes accumulate: one pass per second at most
            self._dirty.clear()
            try:
                await asyncio.to_thread(self.checkpoint)
            except sqlite3.Error as exc:  # busy or locked: the next round copies it
                log.debug("checkpoint deferred: %s", exc)

    def checkpoint(self) -> tuple[int, int, int]:
        """``(busy, wal pages, pages copied)`` of one PASSIVE checkpoint."""
        with self._lock:
            if self._conn is None:
                raise sqlite3.ProgrammingError("the checkpointer is not running")
            busy, frames, copied = self._conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        return int(busy), int(frames), int(copied)

    def _close(self) -> None:
        """A last checkpoint, then close; waits for a checkpoint still running on another thread."""
        with self._lock:
            if self._conn is None:
                return
            with contextlib.suppress(sqlite3.Error):
                self._conn.execute("PRAGMA wal_checkpoint(PASSIVE)")
            self._conn.close()
            self._conn = None

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        await asyncio.to_thread(self._close)
