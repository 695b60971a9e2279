"""A durable periodic job: one job row per period, chained by the runs themselves.

Used by the sweeps that must run for every tenant on a clock (decay, retention). The job of
period ``p`` is due at ``p * interval`` and carries the idempotency key
``periodic:<interval>:<p>`` under the system tenant, so any number of API processes and workers
asking for it produce one row per period, and exactly one worker runs it. Each run enqueues the
next period's job *first* (never one in the past), so a failing run cannot break the chain, and
API start-up enqueues the current (or, when asked, the next) period's job, which starts the
chain on a fresh database.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import UTC, datetime

from memlane.domain.clock import Clock, new_id
from memlane.domain.model import Job
from memlane.jobs.lifecycle_kinds import SYSTEM_TENANT
from memlane.store.contracts.jobs import JobSubmitOps


@dataclass(frozen=True, slots=True)
class PeriodicJob:
    kind: str
    interval_sec: float
    max_attempts: int
    #: start-up queues the next period's job instead of the current one (no run at start-up,
    #: so a fresh process adds nothing due to the job backlog the write gate counts)
    first_run_next_period: bool = False

    @property
    def enabled(self) -> bool:
        return self.interval_sec > 0

    def period(self, now: datetime) -> int:
        return math.floor(now.timestamp() / self.interval_sec)

    def job(self, period: int) -> Job:
        interval = self.interval_sec
        return Job(
            tenant_id=SYSTEM_TENANT,
            id=new_id(),
            kind=self.kind,
            payload={"periodic": True, "period": period, "interval_sec": interval},
            idempotency_key=f"periodic:{interval:g}:{period}",
            run_after=datetime.fromtimestamp(period * interval, tz=UTC),
            max_attempts=self.max_attempts,
        )

    async def ensure_scheduled(self, store: JobSubmitOps, clock: Clock) -> Job | None:
        """Enqueue this period's job unless it exists already; None when disabled."""
        if not self.enabled:
            return None
        now = clock.now()
        period = self.period(now) + (1 if self.first_run_next_period else 0)
        return (await store.enqueue([self.job(period)], now=now))[0]

    async def chain(self, store: JobSubmitOps, clock: Clock, ran: Job) -> Job:
        """Enqueue the period after the one ``ran`` was for (or after now, if later)."""
        now = clock.now()
        period = int(ran.payload.get("period", self.period(now)))
        nxt = self.job(max(period + 1, self.period(now) + 1))
        await store.enqueue([nxt], now=now)
        return nxt
