"""The job queue: enqueue, lease renewal, completion and failure.

Leasing itself is the backends' (``lease_jobs``): PostgreSQL locks due rows with ``SKIP
LOCKED`` so several workers never take one job; SQLite has one writer and needs no more than
``leasable``'s test.

Jobs of one ordering key (tenant and scope: a conversation app) may depend on each other: an
ingestion task resolves its notes against the notes the tasks before it wrote. A lease that
asks for it (``per_key``) takes only ``key_heads``: the oldest due job of each key that has no
job running, so a key's jobs run one at a time, in order, however many workers lease.

Tenants take turns (``in_turns``; ``fair_turns`` among key heads): a lease takes the oldest
due job of each tenant, then the second of each, and so on, oldest first within a turn. It
reads a few ranges of the (status, tenant, kind, run_after, id) index, not the whole backlog.
Leased oldest first overall, the 80
embedding jobs of one tenant's 40,000-node import were all run before another tenant's one-node
write queued a second later: that write became searchable after minutes instead of seconds
(BENCHMARKS.md "Noisy neighbour"). A lease may also be given a ``LeasePicker``, which chooses
among the candidates inside the lease's transaction: the worker's embedding lane bounds each
round by the nodes its jobs name and shares it fairly (jobs/fair_share.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from memlane.domain.model import Job
from memlane.store.base import job_from_row
from memlane.store.schema import jobs
from memlane.store.sql.core import SqlCore

#: statuses a job never leaves
FINISHED = ("done", "failed")


def job_row(job: Job, now: datetime) -> dict[str, Any]:
    """A new job's column values; a job starts unleased, without error, result or progress."""
    return {
        "tenant_id": job.tenant_id,
        "id": job.id,
        "scope": job.scope,
        "kind": job.kind,
        "payload": job.payload,
        "status": job.status,
        "attempts": job.attempts,
        "max_attempts": job.max_attempts,
        "idempotency_key": job.idempotency_key,
        "run_after": job.run_after,
        "lease_owner": None,
        "lease_expires_at": None,
        "last_error": None,
        "result": None,
        "progress": None,
        "created_at": now,
        "updated_at": now,
    }


def leasable(kinds: Sequence[str] | None, now: datetime) -> list[Any]:
    """Jobs a worker may take: queued and due, or running under a lease that has expired."""
    cond: list[Any] = [
        sa.or_(
            sa.and_(jobs.c.status == "queued", jobs.c.run_after <= now),
            sa.and_(jobs.c.status == "running", jobs.c.lease_expires_at < now),
        )
    ]
    if kinds:
        cond.append(jobs.c.kind.in_(list(kinds)))
    return cond


def key_heads(kinds: Sequence[str] | None, now: datetime) -> sa.Subquery:
    """The oldest leasable job of each (tenant, scope), only for keys with no job of ``kinds``
    running under a live lease: ``(tenant_id, id, run_after, created_at)``. A job whose lease
    has expired is leasable again and, being older, heads its key: a crashed task runs again
    before the tasks queued behind it. Jobs without a scope share one key per tenant."""
    ranked = (
        sa.select(
            jobs.c.tenant_id,
            jobs.c.id,
            jobs.c.scope,
            jobs.c.run_after,
            jobs.c.created_at,
            sa.func.row_number()
            .over(
                partition_by=(jobs.c.tenant_id, jobs.c.scope),
                order_by=(jobs.c.run_after, jobs.c.created_at, jobs.c.id),
            )
            .label("place"),
        )
        .where(*leasable(kinds, now))
        .subquery("ranked")
    )
    running = jobs.alias("running")
    busy = sa.exists().where(
        running.c.tenant_id == ranked.c.tenant_id,
        running.c.scope.is_not_distinct_from(ranked.c.scope),
        running.c.status == "running",
        running.c.lease_expires_at >= now,
        *([running.c.kind.in_(list(kinds))] if kinds else []),
    )
    return (
        sa.select(ranked.c.tenant_id, ranked.c.id, ranked.c.run_after, ranked.c.created_at)
        .where(ranked.c.place == 1, ~busy)
        .subquery("heads")
    )


def fair_turns(kinds: Sequence[str] | None, now: datetime) -> sa.Subquery:
    """``(tenant_id, id, turn)`` of the heads of idle keys (``key_heads``): ``turn`` is the
    head's place among its tenant's, oldest first, so ordering by it serves every tenant's
    oldest idle app before any tenant's second."""
    pool = key_heads(kinds, now)
    turn = sa.func.row_number().over(
        partition_by=pool.c.tenant_id, order_by=(pool.c.run_after, pool.c.created_at, pool.c.id)
    )
    return sa.select(pool.c.tenant_id, pool.c.id, turn.label("turn")).subquery("turns")


def key_candidates(kinds: Sequence[str] | None, now: datetime, *, limit: int) -> sa.Select[Any]:
    """A ``per_key`` lease's candidates, whole rows, in turns (``fair_turns``), oldest first
    within a turn; ``leasable`` is asked of the row itself too, so PostgreSQL checks it again
    on a row it had to wait for."""
    turns = fair_turns(kinds, now)
    return (
        sa.select(jobs)
        .join(turns, sa.and_(jobs.c.tenant_id == turns.c.tenant_id, jobs.c.id == turns.c.id))
        .where(*leasable(kinds, now))
        .order_by(turns.c.turn, jobs.c.run_after, jobs.c.created_at, jobs.c.id)
        .limit(limit)
    )


def _of_kinds(kinds: Sequence[str] | None) -> list[Any]:
    return [jobs.c.kind.in_(list(kinds))] if kinds else []


def due_tenants(kinds: Sequence[str] | None, now: datetime, *, limit: int) -> sa.Select[Any]:
    """The ``limit`` tenants whose oldest queued, due job is oldest: one pass over the
    ``(status, tenant_id, kind, run_after, id)`` index, no row read, whatever the backlog."""
    oldest = sa.func.min(jobs.c.run_after)
    return (
        sa.select(jobs.c.tenant_id, oldest.label("oldest"))
        .where(jobs.c.status == "queued", *_of_kinds(kinds), jobs.c.run_after <= now)
        .group_by(jobs.c.tenant_id)
        .order_by(oldest, jobs.c.tenant_id)
        .limit(limit)
    )


def tenant_due(tenant_id: str, kinds: Sequence[str] | None, now: datetime, *, limit: int) -> sa.Select[Any]:
    """One tenant's ``limit`` oldest queued, due jobs (a range of the same index, in its
    order: ids are time-ordered, so ``id`` breaks ties as creation would)."""
    return (
        sa.select(jobs)
        .where(jobs.c.status == "queued", *_of_kinds(kinds), jobs.c.tenant_id == tenant_id, jobs.c.run_after <= now)
        .order_by(jobs.c.run_after, jobs.c.id)
        .limit(limit)
    )


def lapsed_leases(kinds: Sequence[str] | None, now: datetime, *, limit: int) -> sa.Select[Any]:
    """Running jobs whose lease expired (their worker died): leasable again, oldest first."""
    return (
        sa.select(jobs)
        .where(jobs.c.status == "running", jobs.c.lease_expires_at < now, *_of_kinds(kinds))
        .order_by(jobs.c.run_after, jobs.c.id)
        .limit(limit)
    )


def in_turns(found: Sequence[Job], limit: int) -> list[Job]:
    """``found`` (each tenant's oldest leasable jobs) ordered by turn: every tenant's oldest
    before any tenant's second, oldest first within a turn; the first ``limit``."""

    def age(job: Job) -> tuple[Any, str]:
        return (job.run_after, job.id)

    by_tenant: dict[str, list[Job]] = {}
    for job in sorted(found, key=age):
        by_tenant.setdefault(job.tenant_id, []).append(job)
    placed = [(turn, age(job), job) for jobs_of in by_tenant.values() for turn, job in enumerate(jobs_of)]
    placed.sort(key=lambda p: p[:2])
    return [job for _, _, job in placed[:limit]]


async def stored_job(conn: AsyncConnection, job: Job) -> Job | None:
    """The stored job with ``job``'s idempotency key (per tenant and kind), if any."""
    row = (
        await conn.execute(
            sa.select(jobs).where(
                jobs.c.tenant_id == job.tenant_id,
                jobs.c.kind == job.kind,
                jobs.c.idempotency_key == job.idempotency_key,
            )
        )
    ).first()
    return job_from_row(row) if row is not None else None


class JobQueue(SqlCore):
    async def _lease_candidates(
        self,
        conn: AsyncConnection,
        kinds: Sequence[str] | None,
        now: datetime,
        *,
        limit: int,
        per_key: bool,
        lock: bool,
    ) -> list[Job]:
        """What a lease may take, in turns (the module's docstring). Without ``per_key`` in a
        few index ranges: the tenants with the oldest due jobs, up to ``limit`` of each, and
        the lapsed leases. A window over every due job did the same in one statement, but it
        read and sorted the whole backlog on every lease: 276 ms instead of 55 ms with
        40,000 jobs due. ``lock`` (PostgreSQL): the rows are locked, skipping those another
        worker holds."""

        def locked(q: sa.Select[Any]) -> sa.Select[Any]:
            return q.with_for_update(of=jobs, skip_locked=True) if lock else q

        if per_key:
            return [job_from_row(r) for r in await conn.execute(locked(key_candidates(kinds, now, limit=limit)))]
        found: list[Job] = []
        for tenant_id, _ in (await conn.execute(due_tenants(kinds, now, limit=limit))).all():
            found += [
                job_from_row(r) for r in await conn.execute(locked(tenant_due(tenant_id, kinds, now, limit=limit)))
            ]
        found += [job_from_row(r) for r in await conn.execute(locked(lapsed_leases(kinds, now, limit=limit)))]
        return in_turns(found, limit)

    async def _insert_jobs(self, conn: AsyncConnection, items: Sequence[Job], now: datetime) -> list[Job]:
        """Insert in the caller's transaction (a write and its follow-up jobs commit together);
        a job whose idempotency key is taken gives back the stored one."""
        out: list[Job] = []
        for job in items:
            if job.idempotency_key and (stored := await stored_job(conn, job)) is not None:
                out.append(stored)
                continue
            job.created_at = job.updated_at = now
            job.run_after = job.run_after or now
            await conn.execute(jobs.insert(), job_row(job, now))
            out.append(job)
        return out

    async def enqueue(self, items: Sequence[Job], *, now: datetime) -> list[Job]:
        return await self._in_write_tx(lambda conn: self._insert_jobs(conn, items, now))

    async def renew_lease(self, job: Job, *, lease_sec: float, now: datetime) -> bool:
        expires = now + timedelta(seconds=lease_sec)

        async def tx(conn: AsyncConnection) -> int:
            res = await conn.execute(
                jobs.update()
                .where(
                    jobs.c.tenant_id == job.tenant_id,
                    jobs.c.id == job.id,
                    jobs.c.lease_owner == job.lease_owner,
                    jobs.c.status == "running",
                )
                .values(lease_expires_at=expires, updated_at=now)
            )
            return int(res.rowcount)

        renewed = await self._in_write_tx(tx)
        job.lease_expires_at = expires
        return bool(renewed)

    async def complete_job(self, job: Job, result: dict[str, Any] | None, *, now: datetime) -> None:
        await self.complete_jobs([(job, result)], now=now)

    async def complete_jobs(self, done: Sequence[tuple[Job, dict[str, Any] | None]], *, now: datetime) -> None:
        """A batch of jobs finished together, recorded in one transaction."""
        if not done:
            return

        async def tx(conn: AsyncConnection) -> None:
            for job, result in done:
                await conn.execute(
                    jobs.update()
                    .where(jobs.c.tenant_id == job.tenant_id, jobs.c.id == job.id)
                    .values(
                        status="done",
                        result=result,
                        lease_owner=None,
                        lease_expires_at=None,
                        updated_at=now,
                        last_error=None,
                    )
                )

        await self._in_write_tx(tx)

    async def fail_job(self, job: Job, error: str, *, retry_at: datetime | None, now: datetime) -> None:
        values: dict[str, Any] = {
            "last_error": error[:4000],
            "lease_owner": None,
            "lease_expires_at": None,
            "updated_at": now,
        }
        if retry_at is not None and job.attempts < job.max_attempts:
            values.update(status="queued", run_after=retry_at)
        else:
            values.update(status="failed")
        await self._update_job(job, **values)

    async def update_job_progress(self, job: Job, progress: dict[str, Any], *, now: datetime) -> None:
        await self._update_job(job, progress=progress, updated_at=now)

    async def _update_job(self, job: Job, **values: Any) -> None:
        update = jobs.update().where(jobs.c.tenant_id == job.tenant_id, jobs.c.id == job.id).values(**values)
        await self._in_write_tx(lambda conn: conn.execute(update))

    async def get_job(self, tenant_id: str, job_id: str) -> Job | None:
        async with self._read() as conn:
            row = (
                await conn.execute(sa.select(jobs).where(jobs.c.tenant_id == tenant_id, jobs.c.id == job_id))
            ).first()
        return job_from_row(row) if row else None

    async def delete_finished_jobs_before(self, cutoff: datetime, *, limit: int) -> int:
        """Delete up to ``limit`` jobs that ended (``done`` or ``failed``) before ``cutoff``, of
        every tenant and kind; queued and running jobs are never touched. Returns how many."""
        key = sa.tuple_(jobs.c.tenant_id, jobs.c.id)
        async with self._write_tx() as conn:
            found = (
                await conn.execute(
                    sa.select(jobs.c.tenant_id, jobs.c.id)
                    .where(jobs.c.status.in_(FINISHED), jobs.c.updated_at < cutoff)
                    .limit(limit)
                )
            ).all()
            if found:
                await conn.execute(jobs.delete().where(key.in_([tuple(r) for r in found]), jobs.c.status.in_(FINISHED)))
        return len(found)

    async def count_due_jobs(self, *, now: datetime) -> int:
        """Queued jobs whose time has come: the backlog a worker has yet to start."""
        q = sa.select(sa.func.count()).select_from(jobs).where(jobs.c.status == "queued", jobs.c.run_after <= now)
        async with self._read() as conn:
            return int((await conn.execute(q)).scalar_one())

    async def count_due_jobs_by_tenant(self, *, now: datetime) -> dict[str, int]:
        """``count_due_jobs`` per tenant (tenants with none left out): each tenant's share of
        the backlog (services/backlog.py)."""
        q = (
            sa.select(jobs.c.tenant_id, sa.func.count())
            .where(jobs.c.status == "queued", jobs.c.run_after <= now)
            .group_by(jobs.c.tenant_id)
        )
        async with self._read() as conn:
            return {str(r[0]): int(r[1]) for r in await conn.execute(q)}

    async def count_jobs(self, status: str | None = None) -> int:
        q = sa.select(sa.func.count()).select_from(jobs)
        if status is not None:
            q = q.where(jobs.c.status == status)
        async with self._read() as conn:
            return int((await conn.execute(q)).scalar_one())

    async def job_counts(self) -> dict[tuple[str, str], int]:
        q = sa.select(jobs.c.kind, jobs.c.status, sa.func.count()).group_by(jobs.c.kind, jobs.c.status)
        async with self._read() as conn:
            return {(r[0], r[1]): int(r[2]) for r in await conn.execute(q)}


__all__ = ["JobQueue", "fair_turns", "in_turns", "job_row", "key_candidates", "key_heads", "leasable", "stored_job"]
