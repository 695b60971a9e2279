"""Retention: recall audits and finished jobs are kept for a while, then removed.

Both tables gain rows forever otherwise: a row per recall in ``recall_audit``, a row per job
(including every run of the periodic jobs) in ``jobs``. A durable periodic job
(jobs/periodic.py, like the decay job) deletes for every tenant:

* recall audit rows older than ``MEMLANE_RECALL_AUDIT_RETENTION_DAYS``;
* jobs that finished (``done`` or ``failed``) more than ``MEMLANE_JOB_RETENTION_DAYS`` ago.
  Queued and running jobs are never removed. A conversation task (a job) then reads as not
  found, and its ``Idempotency-Key`` is forgotten with it.

A retention of ``0`` keeps that table's rows forever; ``MEMLANE_RETENTION_INTERVAL_SEC=0``
switches the sweep off. Deletes go in batches of :data:`BATCH` rows, one transaction each, so
the sweep never holds SQLite's one writer for long.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import NotRequired, Protocol

from typing_extensions import TypedDict

from memlane.domain.clock import Clock, iso
from memlane.domain.model import Job
from memlane.jobs.kinds import RETENTION_SWEEP
from memlane.jobs.periodic import PeriodicJob
from memlane.store.contracts.audit import RetentionOps
from memlane.store.contracts.jobs import JobSubmitOps

BATCH = 1000


class RetentionSwept(TypedDict):
    """How many rows of each kind one sweep deleted."""

    recall_audits: int
    jobs: int


class RetentionRun(RetentionSwept):
    """A sweep job's result; with retention scheduled, when the next sweep runs."""

    next_run_after: NotRequired[str | None]


@dataclass(frozen=True, slots=True)
class RetentionPolicy:
    interval_sec: float = 3600.0
    recall_audit_days: float = 30.0
    job_days: float = 7.0


class RetentionStore(RetentionOps, JobSubmitOps, Protocol):
    """The rows retention removes, and the queue its next run is scheduled on."""


class RetentionService:
    def __init__(self, store: RetentionStore, *, clock: Clock, policy: RetentionPolicy, job_max_attempts: int):
        self.store = store
        self.clock = clock
        self.policy = policy
        # nothing is urgent at start-up: the first sweep is at the start of the next period
        self.schedule = PeriodicJob(RETENTION_SWEEP, policy.interval_sec, job_max_attempts, first_run_next_period=True)

    async def sweep(self) -> RetentionSwept:
        """Delete every row past its retention, now; returns how many of each went."""
        now = self.clock.now()
        removed: RetentionSwept = {"recall_audits": 0, "jobs": 0}
        if self.policy.recall_audit_days > 0:
            cutoff = now - timedelta(days=self.policy.recall_audit_days)
            removed["recall_audits"] = await _drain(lambda: self.store.delete_recall_audits_before(cutoff, limit=BATCH))
        if self.policy.job_days > 0:
            cutoff = now - timedelta(days=self.policy.job_days)
            removed["jobs"] = await _drain(lambda: self.store.delete_finished_jobs_before(cutoff, limit=BATCH))
        return removed

    # --- the durable periodic job (jobs/periodic.py) ---------------------------------------
    async def ensure_scheduled(self) -> Job | None:
        """Enqueue this period's sweep unless it exists already; None when retention is off."""
        return await self.schedule.ensure_scheduled(self.store, self.clock)

    async def run_job(self, job: Job) -> RetentionRun:
        """Handler of ``retention_sweep``: chain the next period first, then sweep."""
        if self.schedule.enabled:
            next_run_after = iso((await self.schedule.chain(self.store, self.clock, job)).run_after)
            return {"next_run_after": next_run_after, **await self.sweep()}
        swept = await self.sweep()
        return {"recall_audits": swept["recall_audits"], "jobs": swept["jobs"]}


async def _drain(delete_batch: Callable[[], Awaitable[int]]) -> int:
    total = 0
    while True:
        n = await delete_batch()
        total += n
        if n < BATCH:
            return total
