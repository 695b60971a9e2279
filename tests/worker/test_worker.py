"""The job worker on both backends: a long job keeps its lease alive (the heartbeat), failures
retry after a backoff that doubles, and a permanent failure is not retried."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from memlane.domain.clock import Clock, new_id
from memlane.domain.errors import Conflict, InvalidRequest, MemlaneError, RateLimited, UpstreamError
from memlane.domain.model import Job
from memlane.jobs.worker import Worker, backoff_seconds
from memlane.store.contracts import Store

KIND = "embed_nodes"


def test_the_backoff_doubles_from_one_second_up_to_its_cap() -> None:
    assert [backoff_seconds(n) for n in range(1, 8)] == [1, 2, 4, 8, 16, 32, 64]
    assert backoff_seconds(9) == 256 and backoff_seconds(10) == 300 and backoff_seconds(50) == 300
    assert backoff_seconds(0) == 1, "an attempt count of zero waits like the first"
    assert backoff_seconds(3, base=0.5, cap=1.5) == 1.5


async def test_a_long_job_keeps_its_lease_and_no_other_worker_takes_it(store: Store) -> None:
    lease = 1.5
    started = asyncio.Event()
    release = asyncio.Event()

    async def long_job(job: Job) -> dict[str, Any]:
        started.set()
        await release.wait()
        return {"ok": True}

    job = Job(tenant_id="t1", id=new_id(), kind=KIND, payload={}, max_attempts=3)
    await store.enqueue([job], now=datetime.now(UTC))
    worker = Worker(store, {KIND: long_job}, clock=Clock(), lease_sec=lease, worker_id="owner")
    running = asyncio.create_task(worker.run_once())
    await asyncio.wait_for(started.wait(), 10)
    first = await store.get_job("t1", job.id)
    assert first is not None and first.lease_owner == "owner" and first.lease_expires_at is not None
    # wait past the first lease: only renewals keep it
    await asyncio.sleep(lease * 1.7)
    renewed = await store.get_job("t1", job.id)
    assert renewed is not None and renewed.lease_expires_at is not None
    assert renewed.lease_expires_at > first.lease_expires_at, "the heartbeat pushed the lease forward"
    assert renewed.lease_expires_at > datetime.now(UTC), "the lease is still ahead of now"
    thief = await store.lease_jobs("thief", [KIND], limit=5, lease_sec=lease, now=datetime.now(UTC))
    assert thief == [], "a job under a live lease is not handed to another worker"
    release.set()
    assert await asyncio.wait_for(running, 10) == 1
    done = await store.get_job("t1", job.id)
    assert done is not None and done.status == "done" and done.attempts == 1


async def test_without_its_owner_a_job_is_taken_over_once_the_lease_expires(store: Store) -> None:
    job = Job(tenant_id="t1", id=new_id(), kind=KIND, payload={}, max_attempts=3)
    t0 = datetime(2026, 5, 1, tzinfo=UTC)
    await store.enqueue([job], now=t0)
    [taken] = await store.lease_jobs("dead-worker", [KIND], limit=5, lease_sec=60, now=t0)
    assert await store.lease_jobs("other", [KIND], limit=5, lease_sec=60, now=t0 + timedelta(seconds=59)) == []
    [again] = await store.lease_jobs("other", [KIND], limit=5, lease_sec=60, now=t0 + timedelta(seconds=61))
    assert again.id == taken.id and again.lease_owner == "other" and again.attempts == 2


class Steps:
    def __init__(self) -> None:
        self.now = datetime(2026, 5, 1, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


async def test_failures_retry_after_a_growing_backoff_then_park_as_failed(store: Store) -> None:
    clock = Steps()
    failures: list[datetime] = []

    async def flaky(job: Job) -> dict[str, Any]:
        failures.append(clock.now)
        raise RuntimeError(f"attempt {job.attempts} failed")

    job = Job(tenant_id="t1", id=new_id(), kind=KIND, payload={}, max_attempts=4)
    await store.enqueue([job], now=clock.now)
    worker = Worker(store, {KIND: flaky}, clock=Clock(clock), lease_sec=60)
    waits = []
    for attempt in range(1, 5):
        assert await worker.run_once() == 1
        stored = await store.get_job("t1", job.id)
        assert stored is not None and stored.attempts == attempt
        assert stored.last_error == f"RuntimeError: attempt {attempt} failed"
        if attempt < 4:
            assert stored.status == "queued"
            waits.append((stored.run_after - clock.now).total_seconds())
            assert await worker.run_once() == 0, "not due before its backoff"
            clock.now = stored.run_after
        else:
            assert stored.status == "failed", "parked after max_attempts"
    assert waits == [1.0, 2.0, 4.0]
    assert await worker.run_once() == 0


async def test_a_permanent_failure_is_not_retried(store: Store) -> None:
    async def refuses(job: Job) -> dict[str, Any]:
        raise InvalidRequest("bad payload", code="invalid_job_payload")

    job = Job(tenant_id="t1", id=new_id(), kind=KIND, payload={}, max_attempts=5)
    await store.enqueue([job], now=datetime.now(UTC))
    worker = Worker(store, {KIND: refuses}, clock=Clock(), lease_sec=60)
    assert await worker.run_once() == 1
    stored = await store.get_job("t1", job.id)
    assert stored is not None and (stored.status, stored.attempts) == ("failed", 1)
    assert "bad payload" in (stored.last_error or "")


class ServerError(MemlaneError):
    status = 500
    code = "server_error"


@pytest.mark.parametrize(
    ("error", "retried"),
    [
        (ServerError("boom"), True),
        (UpstreamError("provider down"), True),
        (RateLimited("slow down", retry_after=1), True),
        (Conflict("taken"), False),
        (InvalidRequest("bad"), False),
        (ValueError("a bug"), True),
    ],
)
async def test_what_is_retried_follows_the_status(store: Store, error: Exception, retried: bool) -> None:
    async def fails(job: Job) -> dict[str, Any]:
        raise error

    job = Job(tenant_id="t1", id=new_id(), kind=KIND, payload={}, max_attempts=5)
    await store.enqueue([job], now=datetime.now(UTC))
    assert await Worker(store, {KIND: fails}, clock=Clock(), lease_sec=60).run_once() == 1
    stored = await store.get_job("t1", job.id)
    assert stored is not None and stored.status == ("queued" if retried else "failed")


async def test_a_worker_takes_only_the_kinds_it_handles_and_drain_runs_every_due_job(store: Store) -> None:
    done: list[str] = []

    async def handle(job: Job) -> dict[str, Any]:
        done.append(job.id)
        return {}

    mine = [Job(tenant_id="t1", id=new_id(), kind=KIND, payload={}) for _ in range(3)]
    other = Job(tenant_id="t1", id=new_id(), kind="knowledge_sync", payload={})
    await store.enqueue([*mine, other], now=datetime.now(UTC))
    worker = Worker(store, {KIND: handle}, clock=Clock(), lease_sec=60)
    assert await worker.drain() == 3
    assert sorted(done) == sorted(j.id for j in mine)
    untouched = await store.get_job("t1", other.id)
    assert untouched is not None and untouched.status == "queued" and untouched.attempts == 0


async def test_the_running_loop_polls_wakes_on_notify_and_stops(store: Store) -> None:
    done: asyncio.Queue[str] = asyncio.Queue()

    async def handle(job: Job) -> dict[str, Any]:
        await done.put(job.id)
        return {}

    worker = Worker(store, {KIND: handle}, clock=Clock(), lease_sec=60, poll_interval=0.2)
    worker.start()
    try:
        polled = Job(tenant_id="t1", id=new_id(), kind=KIND, payload={})
        await store.enqueue([polled], now=datetime.now(UTC))  # no notify: found by the poll
        assert await asyncio.wait_for(done.get(), 20) == polled.id
        woken = Job(tenant_id="t1", id=new_id(), kind=KIND, payload={})
        await store.enqueue([woken], now=datetime.now(UTC))
        worker.notify()
        assert await asyncio.wait_for(done.get(), 20) == woken.id
    finally:
        await asyncio.wait_for(worker.stop(), 20)  # returns: the loop ended without an error
    late = Job(tenant_id="t1", id=new_id(), kind=KIND, payload={})
    await store.enqueue([late], now=datetime.now(UTC))
    await asyncio.sleep(0.5)
    assert done.empty(), "a stopped worker runs nothing"
