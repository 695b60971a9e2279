"""Retention: recall audits and finished jobs are kept for a while, then removed.

Both tables gain rows forever otherwise: a row per recall in ``recall_audit``, a row per job
(including every run of the periodic jobs) in ``jobs``. A durable periodic job, scheduled like
the decay job (services/lifecycle/decay.py: one job per period with the idempotency key
``periodic:<interval>:<period>``, each run first enqueues the next, API start-up enqueues the
current one), deletes for every tenant:

* recall audit rows older than ``MEMLANE_RECALL_AUDIT_RETENTION_DAYS``;
* jobs that finished (``done`` or ``failed``) more than ``MEMLANE_JOB_RETENTION_DAYS`` ago.
  Queued and running jobs are never removed. A conversation task (a job) then reads as not
  found, and its ``Idempotency-Key`` is forgotten with it.

A retention of ``0`` keeps that table's rows forever; ``MEMLANE_RETENTION_INTERVAL_SEC=0``
switches the sweep off. Deletes go in batches of :data:`BATCH` rows, one transaction each, so
the sweep never holds SQLite's one writer for long.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from memlane.config import Settings
from memlane.domain.clock import Clock, iso, new_id
from memlane.domain.model import Job
from memlane.jobs.kinds import RETENTION_SWEEP
from memlane.jobs.lifecycle_kinds import SYSTEM_TENANT
from memlane.store.base import Store

BATCH = 1000


@dataclass(frozen=True, slots=True)
class RetentionPolicy:
    interval_sec: float = 3600.0
    recall_audit_days: float = 30.0
    job_days: float = 7.0

    @classmethod
    def from_settings(cls, settings: Settings) -> RetentionPolicy:
        return cls(
            interval_sec=settings.retention_interval_sec,
            recall_audit_days=settings.recall_audit_retention_days,
            job_days=settings.job_retention_days,
        )

    @property
    def enabled(self) -> bool:
        return self.interval_sec > 0


class RetentionService:
    def __init__(self, store: Store, *, clock: Clock, policy: RetentionPolicy, job_max_attempts: int):
        self.store = store
        self.clock = clock
        self.policy = policy
        self.job_max_attempts = job_max_attempts

    async def sweep(self) -> dict[str, int]:
        """Delete every row past its retention, now; returns how many of each went."""
        now = self.clock.now()
        removed = {"recall_audits": 0, "jobs": 0}
        if self.policy.recall_audit_days > 0:
            cutoff = now - timedelta(days=self.policy.recall_audit_days)
            removed["recall_audits"] = await _drain(lambda: self.store.delete_recall_audits_before(cutoff, limit=BATCH))
        if self.policy.job_days > 0:
            cutoff = now - timedelta(days=self.policy.job_days)
            removed["jobs"] = await _drain(lambda: self.store.delete_finished_jobs_before(cutoff, limit=BATCH))
        return removed

    # --- the durable periodic job ---------------------------------------------------------
    def _period(self, now: datetime) -> int:
        return math.floor(now.timestamp() / self.policy.interval_sec)

    def periodic_job(self, period: int) -> Job:
        interval = self.policy.interval_sec
        return Job(
            tenant_id=SYSTEM_TENANT,
            id=new_id(),
            kind=RETENTION_SWEEP,
            payload={"periodic": True, "period": period, "interval_sec": interval},
            idempotency_key=f"periodic:{interval:g}:{period}",
            run_after=datetime.fromtimestamp(period * interval, tz=UTC),
            max_attempts=self.job_max_attempts,
        )

    async def ensure_scheduled(self) -> Job | None:
        """Enqueue this period's sweep unless it exists already; None when retention is off."""
        if not self.policy.enabled:
            return None
        now = self.clock.now()
        return (await self.store.enqueue([self.periodic_job(self._period(now))], now=now))[0]

    async def run_job(self, job: Job) -> dict[str, Any]:
        """Handler of ``retention_sweep``: chain the next period first, then sweep."""
        out: dict[str, Any] = {}
        if self.policy.enabled:
            now = self.clock.now()
            period = int(job.payload.get("period", self._period(now)))
            next_job = self.periodic_job(max(period + 1, self._period(now) + 1))
            await self.store.enqueue([next_job], now=now)
            out["next_run_after"] = iso(next_job.run_after)
        out.update(await self.sweep())
        return out


async def _drain(delete_batch: Callable[[], Awaitable[int]]) -> int:
    total = 0
    while True:
        n = await delete_batch()
        total += n
        if n < BATCH:
            return total
