"""Admission for writes that queue background work: beyond a backlog, shed load with 503.

Without it a write burst grows the job queue without bound while every write still answers
200: half the nodes stayed unsearchable for minutes under 32 clients (issue 15). A 503 with
``Retry-After`` tells well-behaved clients to back off while the worker catches up; it is the
server's state, not the caller's rate, so it is not a 429. Before the limit, from ``slow_at``,
a write waits for the worker instead (``_wait_for_worker``), so writers slow to its pace.

The bounds are shared fairly between tenants. A tenant is held back only when the whole queue
is at a bound *and* the tenant holds at least its share of it: the bound divided by the
tenant's with due jobs (itself included). One tenant alone may use the whole queue; once it
has filled it, another tenant's write is still admitted at once, since its own few jobs are
below its share. Before, the bound was global: one tenant's import of 3,000 one-node scopes
filled it, and another tenant's writes answered 503 ``backlog_full`` for minutes (issue 26).
The worker serves tenants in turns too (jobs/worker.py), so that tenant's admitted write is
also embedded without waiting for the backlog. An import is admitted batch by batch
(services/transfer/importer.py), so it cannot queue past its share either.
"""

from __future__ import annotations

import asyncio
import math
import time
from dataclasses import dataclass

from memlane.domain.clock import Clock
from memlane.domain.errors import Overloaded
from memlane.store.contracts.jobs import QueueStatsOps


@dataclass(frozen=True, slots=True)
class Backlog:
    """Due queued jobs: in all, and per tenant (tenants with none left out)."""

    total: int = 0
    by_tenant: dict[str, int] | None = None

    def of(self, tenant_id: str) -> int:
        return (self.by_tenant or {}).get(tenant_id, 0)

    def share(self, tenant_id: str, bound: int) -> int:
        """The tenant's share of ``bound``: an equal part for each tenant with due jobs, the
        asking one included (rounded up, so a share is never 0)."""
        tenants = len((self.by_tenant or {}).keys() | {tenant_id})
        return math.ceil(bound / tenants)

    def holds_back(self, tenant_id: str, bound: int) -> bool:
        """Whether ``tenant_id`` is held back at ``bound`` (0 = never): the queue is at the
        bound and the tenant holds at least its share of it."""
        return 0 < bound <= self.total and self.of(tenant_id) >= self.share(tenant_id, bound)


class BacklogGate:
    """Counts due queued jobs per tenant at most every ``refresh_sec`` (one grouped count over
    an index), so the check costs nothing per request; the bound is therefore soft by what
    arrives in that window."""

    def __init__(
        self,
        store: QueueStatsOps,
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
        self._current = Backlog()
        self._at = float("-inf")
        self._lock = asyncio.Lock()

    async def current(self) -> Backlog:
        """Due queued jobs, as of at most ``refresh_sec`` ago."""
        if time.monotonic() - self._at >= self.refresh_sec:
            async with self._lock:
                if time.monotonic() - self._at >= self.refresh_sec:
                    by_tenant = await self.store.count_due_jobs_by_tenant(now=self.clock.now())
                    self._current = Backlog(sum(by_tenant.values()), by_tenant)
                    self._at = time.monotonic()
        return self._current

    async def backlog(self) -> int:
        """Due queued jobs of every tenant, as of at most ``refresh_sec`` ago."""
        return (await self.current()).total

    async def admit(self, tenant_id: str) -> None:
        """Wait while ``tenant_id`` is held back at ``slow_at`` (for at most ``wait_sec``), then
        raise ``Overloaded`` if it is held back at the limit (``Backlog.holds_back``)."""
        if self.limit <= 0 and self.slow_at <= 0:
            return
        backlog = await self.current()
        if backlog.holds_back(tenant_id, self.slow_at):
            backlog = await self._wait_for_worker(tenant_id)
        if backlog.holds_back(tenant_id, self.limit):
            share = backlog.share(tenant_id, self.limit)
            raise Overloaded(
                f"the background queue holds {backlog.total} jobs (limit {self.limit}), "
                f"{backlog.of(tenant_id)} of them this tenant's (its share: {share}); retry after "
                f"{self.retry_after_sec:g} s",
                retry_after=self.retry_after_sec,
                backlog=backlog.total,
                limit=self.limit,
                tenant_backlog=backlog.of(tenant_id),
                tenant_share=share,
            )

    async def _wait_for_worker(self, tenant_id: str) -> Backlog:
        """Writers slow to the pace of the worker instead of filling the queue to its limit and
        being shed: under 32 clients on 2 cores the queue grew by about 25 jobs/s while every
        write still answered at once, so a longer run ended in 503s (BENCHMARKS.md). Waiting
        here costs the server nothing; the write's latency shows it."""
        deadline = time.monotonic() + self.wait_sec
        backlog = await self.current()
        while backlog.holds_back(tenant_id, self.slow_at) and time.monotonic() < deadline:
            await asyncio.sleep(self.refresh_sec)
            backlog = await self.current()
        return backlog
