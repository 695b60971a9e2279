"""Retention: recall audits and finished jobs past their age are deleted by a durable periodic
job, on both backends; queued and running jobs, recent rows and other tables stay."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from memlane.domain.clock import Clock, new_id
from memlane.domain.model import Job, RecallAudit
from memlane.embed.hashing import HashingEmbedder
from memlane.jobs.kinds import RETENTION_SWEEP
from memlane.jobs.lifecycle_kinds import LIFECYCLE_DECAY, SYSTEM_TENANT
from memlane.services.container import Services, open_services
from memlane.services.retention import BATCH
from memlane.store.contracts import Store
from tests.support.settings import DIM, make_settings
from tests.support.timeline import Timeline

START = datetime(2026, 3, 1, tzinfo=UTC)


@pytest.fixture
def timeline() -> Timeline:
    return Timeline(START)


async def open_svc(db_url: str, timeline: Timeline, **env: Any) -> Services:
    defaults: dict[str, Any] = {"MEMLANE_RECALL_AUDIT_RETENTION_DAYS": 30, "MEMLANE_JOB_RETENTION_DAYS": 7}
    settings = make_settings(db_url, MEMLANE_DECAY_INTERVAL_SEC=0, **{**defaults, **env})
    return await open_services(settings, clock=Clock(timeline), embedder=HashingEmbedder(DIM))


@pytest.fixture
async def svc(db_url: str, timeline: Timeline) -> AsyncIterator[Services]:
    s = await open_svc(db_url, timeline)
    try:
        yield s
    finally:
        await s.close()


def audit(tenant: str, at: datetime, scope: str = "s") -> RecallAudit:
    return RecallAudit(tenant, scope, "recall", None, None, "0" * 64, ["n1"], 1, at)


async def audits(store: Store, tenant: str, scope: str = "s") -> list[datetime]:
    return sorted(r["created_at"] for r in await store.list_recall_audit(tenant, scope, limit=100_000))


async def job_in(store: Store, tenant: str, status: str, at: datetime, kind: str = "embed_nodes") -> str:
    """A job that reached ``status`` at ``at``, through the queue's own transitions."""
    job = Job(tenant_id=tenant, id=new_id(), kind=kind, payload={}, max_attempts=1)
    await store.enqueue([job], now=at)
    if status == "queued":
        return job.id
    [leased] = [j for j in await store.lease_jobs("w", [kind], limit=10, lease_sec=60, now=at) if j.id == job.id]
    if status == "done":
        await store.complete_job(leased, {"ok": True}, now=at)
    elif status == "failed":
        await store.fail_job(leased, "boom", retry_at=None, now=at)
    return job.id


async def statuses(store: Store, ids: dict[str, tuple[str, str]]) -> dict[str, str | None]:
    out: dict[str, str | None] = {}
    for name, (tenant, job_id) in ids.items():
        job = await store.get_job(tenant, job_id)
        out[name] = job.status if job is not None else None
    return out


async def test_old_audits_and_finished_jobs_go_and_everything_else_stays(svc: Services, timeline: Timeline) -> None:
    store = svc.store
    old, recent = START - timedelta(days=40), START - timedelta(days=2)
    await store.record_recall_audits([audit("t1", old), audit("t2", old, "other"), audit("t1", recent)])
    ids = {
        "old done": ("t1", await job_in(store, "t1", "done", START - timedelta(days=8))),
        "old failed": ("t2", await job_in(store, "t2", "failed", START - timedelta(days=9))),
        "old periodic": ("t1", await job_in(store, SYSTEM_TENANT, "done", START - timedelta(days=8), LIFECYCLE_DECAY)),
        "old running": ("t1", await job_in(store, "t1", "running", START - timedelta(days=30))),
        # another kind, so that leasing the jobs made after it leaves it queued
        "old queued": ("t1", await job_in(store, "t1", "queued", START - timedelta(days=30), "knowledge_sync")),
        "recent done": ("t1", await job_in(store, "t1", "done", START - timedelta(days=6))),
    }
    ids["old periodic"] = (SYSTEM_TENANT, ids["old periodic"][1])

    removed = await svc.retention.sweep()

    assert removed == {"recall_audits": 2, "jobs": 3}
    assert await audits(store, "t1") == [recent]
    assert await audits(store, "t2", "other") == []
    assert await statuses(store, ids) == {
        "old done": None,
        "old failed": None,
        "old periodic": None,
        "old queued": "queued",
        "old running": "running",
        "recent done": "done",
    }


async def test_large_backlogs_are_removed_in_batches(svc: Services) -> None:
    old = START - timedelta(days=31)
    await svc.store.record_recall_audits([audit("t1", old) for _ in range(2 * BATCH + 17)])
    assert len(await audits(svc.store, "t1")) == 2 * BATCH + 17
    assert (await svc.retention.sweep())["recall_audits"] == 2 * BATCH + 17
    assert await audits(svc.store, "t1") == []


async def test_a_zero_retention_keeps_rows_forever(db_url: str, timeline: Timeline) -> None:
    svc = await open_svc(db_url, timeline, MEMLANE_RECALL_AUDIT_RETENTION_DAYS=0, MEMLANE_JOB_RETENTION_DAYS=0)
    try:
        ancient = START - timedelta(days=3650)
        await svc.store.record_recall_audits([audit("t1", ancient)])
        done = await job_in(svc.store, "t1", "done", ancient)
        assert await svc.retention.sweep() == {"recall_audits": 0, "jobs": 0}
        assert await audits(svc.store, "t1") == [ancient]
        assert await statuses(svc.store, {"done": ("t1", done)}) == {"done": "done"}
    finally:
        await svc.close()


async def test_the_periodic_job_sweeps_and_schedules_the_next_period(svc: Services, timeline: Timeline) -> None:
    await svc.store.record_recall_audits([audit("t1", START - timedelta(days=31)), audit("t1", START)])
    first = await svc.retention.ensure_scheduled()
    assert first is not None and first.kind == RETENTION_SWEEP and first.tenant_id == SYSTEM_TENANT
    again = await svc.retention.ensure_scheduled()
    assert again is not None and again.id == first.id, "one job per period, however often asked"
    assert first.run_after > timeline.now and await svc.worker.drain() == 0, "the first run is next period"

    timeline.now = first.run_after
    assert await svc.worker.drain() == 1
    ran = await svc.store.get_job(SYSTEM_TENANT, first.id)
    assert ran is not None and ran.status == "done" and ran.result is not None
    assert (ran.result["recall_audits"], ran.result["jobs"]) == (1, 0)
    assert await audits(svc.store, "t1") == [START]
    next_run = datetime.fromisoformat(ran.result["next_run_after"].replace("Z", "+00:00"))
    assert timeline.now < next_run <= timeline.now + timedelta(hours=1)
    assert await svc.worker.drain() == 0, "the next run is not due yet"

    # a week and a day later the finished sweep itself is past its retention and goes too
    timeline.days(8)
    assert await svc.worker.drain() >= 1
    assert await svc.store.get_job(SYSTEM_TENANT, first.id) is None


async def test_retention_can_be_switched_off(db_url: str, timeline: Timeline) -> None:
    svc = await open_svc(db_url, timeline, MEMLANE_RETENTION_INTERVAL_SEC=0)
    try:
        assert await svc.retention.ensure_scheduled() is None
    finally:
        await svc.close()
