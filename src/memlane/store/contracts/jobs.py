"""The durable job queue: submitted by services, leased and finished by the worker."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, Protocol

from memlane.domain.model import Job
from memlane.store.base import LeasePicker


class JobSubmitOps(Protocol):
    """Queue work and read how it went (the services that return 202)."""

    async def enqueue(self, jobs: Sequence[Job], *, now: datetime) -> list[Job]:
        """Insert jobs; a job whose ``idempotency_key`` already exists returns the stored one."""
        ...

    async def get_job(self, tenant_id: str, job_id: str) -> Job | None: ...


class JobProgressOps(Protocol):
    """A running job records how far it got (its handler, not the worker)."""

    async def update_job_progress(self, job: Job, progress: dict[str, Any], *, now: datetime) -> None: ...


class JobLeaseOps(Protocol):
    """The worker leases due jobs and records how each ended."""

    async def lease_jobs(
        self,
        worker_id: str,
        kinds: Sequence[str] | None,
        *,
        limit: int,
        lease_sec: float,
        now: datetime,
        per_key: bool = False,
        budget: LeasePicker | None = None,
    ) -> list[Job]:
        """Lease up to ``limit`` due jobs of ``kinds``, tenants in turns: every tenant's oldest
        job first, then every tenant's second, oldest first within a turn (store/sql/jobs.py ``in_turns``).
        ``per_key``: at most one job per (tenant, scope), and none of a key that has a job
        running, so the jobs of one key never overlap and start in order (``key_heads``).
        ``budget``: of those, only the jobs it picks (jobs/fair_share.py)."""
        ...

    async def renew_lease(self, job: Job, *, lease_sec: float, now: datetime) -> bool:
        """Extend a running job's lease; False when another worker has taken it over."""
        ...

    async def complete_job(self, job: Job, result: dict[str, Any] | None, *, now: datetime) -> None: ...

    async def complete_jobs(self, done: Sequence[tuple[Job, dict[str, Any] | None]], *, now: datetime) -> None:
        """Record many finished jobs in one transaction."""
        ...

    async def fail_job(self, job: Job, error: str, *, retry_at: datetime | None, now: datetime) -> None: ...


class QueueStatsOps(Protocol):
    """Figures of the queue and the embedding backlog, for metrics, the UI and fair shares."""

    async def count_jobs(self, status: str | None = None) -> int: ...

    async def count_due_jobs(self, *, now: datetime) -> int:
        """Queued jobs whose ``run_after`` has passed (the backlog; jobs backing off excluded)."""
        ...

    async def count_due_jobs_by_tenant(self, *, now: datetime) -> dict[str, int]:
        """``count_due_jobs`` per tenant, tenants without a due job left out."""
        ...

    async def job_counts(self) -> dict[tuple[str, str], int]:
        """Jobs of every tenant by ``(kind, status)``: the queue depth an operator watches."""
        ...

    async def embedding_counts(self) -> dict[str, int]:
        """Nodes of every tenant whose vector is not ready, by ``embedding_status``
        (``pending``, ``failed``): the embedding backlog."""
        ...
