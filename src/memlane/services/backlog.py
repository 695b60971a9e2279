"""Admission for writes that queue background work: beyond a backlog, shed load with 503.

Without it a write burst grows the job queue without bound while every write still answers
200: half the nodes stayed unsearchable for minutes under 32 clients (issue 15). A 503 with
``Retry-After`` tells well-behaved clients to back off while the worker catches up; it is the
server's state, not the caller's rate, so it is not a 429. Before the limit, from ``slow_at``,
a write waits for the worker instead (``_wait_for_worker``), so writers slow to its pace.
"""

from __future__ import annotations

import asyncio
import time

from memlane.domain.clock import Clock
from memlane.domain.errors import Overloaded
from memlane.store.base import Store


class BacklogGate:
    """Counts due queued jobs at most every ``refresh_sec`` (one indexed count), so the check
    costs nothing per request; the bound is therefore soft by what arrives in that window."""

    def __init__(
        self,
        store: Store,
        *,
        clock: Clock,
        limit: int,
        refresh_sec: float = 0.25,
        retry_after_sec: float = 1.0,
        slow_at: int = 0,
        wait_sec: float = 5.0,
    ):
        self.store = store
        self.clock = clock
        self.limit = limit
        #: from this backlog on (0 = never), a write waits for the worker before it is admitted
        self.slow_at = slow_at
        self.wait_sec = wait_sec
        self.refresh_sec = refresh_sec
        self.retry_after_sec = retry_after_sec
        self._count = 0
        self._at = float("-inf")
        self._lock = asyncio.Lock()

    async def backlog(self) -> int:
        """Due queued jobs, as of at most ``refresh_sec`` ago."""
        if time.monotonic() - self._at >= self.refresh_sec:
            async with self._lock:
                if time.monotonic() - self._at >= self.refresh_sec:
                    self._count = await self.store.count_due_jobs(now=self.clock.now())
                    self._at = time.monotonic()
        return self._count

    async def admit(self) -> None:
        """Wait while the backlog is at ``slow_at`` (for at most ``wait_sec``), then raise
        ``Overloaded`` if it is at its limit (0 = never)."""
        if self.limit <= 0 and self.slow_at <= 0:
            return
        backlog = await self.backlog()
        if 0 < self.slow_at <= backlog:
            backlog = await self._wait_for_worker(backlog)
        if 0 < self.limit <= backlog:
            raise Overloaded(
                f"the background queue holds {backlog} jobs (limit {self.limit}); retry after "
                f"{self.retry_after_sec:g} s",
                retry_after=self.retry_after_sec,
                backlog=backlog,
                limit=self.limit,
            )

    async def _wait_for_worker(self, backlog: int) -> int:
        """Writers slow to the pace of the worker instead of filling the queue to its limit and
        being shed: under 32 clients on 2 cores the queue grew by about 25 jobs/s while every
        write still answered at once, so a longer run ended in 503s (BENCHMARKS.md). Waiting
        here costs the server nothing; the write's latency shows it."""
        deadline = time.monotonic() + self.wait_sec
        while backlog >= self.slow_at and time.monotonic() < deadline:
            await asyncio.sleep(self.refresh_sec)
            backlog = await self.backlog()
        return backlog
