"""The worker runs jobs of different apps (scopes) side by side, and those of one app one at a
time, in the order they were submitted, on both backends; a crashed job is not overtaken.

The handlers are slow on purpose in a way a test controls (events, yields), so overlap is
observed, never timed.
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from datetime import UTC, datetime, timedelta
from typing import Any

from memlane.domain.clock import Clock, new_id
from memlane.domain.model import Job
from memlane.jobs.worker import Worker
from memlane.store.contracts import Store

KIND = "conversation.ingest"
T0 = datetime(2026, 5, 1, tzinfo=UTC)


class Steps:
    """A clock the test moves."""

    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


async def submit(store: Store, scope: str, i: int, *, at: datetime) -> Job:
    job = Job(tenant_id="t1", id=new_id(), kind=KIND, scope=scope, payload={"i": i})
    return (await store.enqueue([job], now=at))[0]


async def test_jobs_of_two_apps_run_side_by_side(store: Store) -> None:
    started = {"app-a": asyncio.Event(), "app-b": asyncio.Event()}
    saw_other_running: list[str] = []

    async def slow(job: Job) -> dict[str, Any]:
        assert job.scope is not None
        started[job.scope].set()
        other = "app-b" if job.scope == "app-a" else "app-a"
        # finishes only once the other app's job has started: run one after the other, the
        # first would wait here for good (the timeout only ends a failing test)
        await asyncio.wait_for(started[other].wait(), 30)
        saw_other_running.append(job.scope)
        return {}

    a = await submit(store, "app-a", 0, at=T0)
    b = await submit(store, "app-b", 0, at=T0 + timedelta(seconds=1))
    worker = Worker(store, {KIND: slow}, clock=Clock(), lease_sec=60, concurrency=4)
    assert await worker.run_once() == 2
    assert sorted(saw_other_running) == ["app-a", "app-b"]
    for job in (a, b):
        stored = await store.get_job("t1", job.id)
        assert stored is not None and stored.status == "done" and stored.attempts == 1


async def test_jobs_of_one_app_never_overlap_and_finish_in_submission_order(store: Store) -> None:
    running: dict[str, int] = defaultdict(int)
    most_at_once: dict[str, int] = defaultdict(int)
    finished: dict[str, list[int]] = defaultdict(list)

    async def slow(job: Job) -> dict[str, Any]:
        assert job.scope is not None
        running[job.scope] += 1
        most_at_once[job.scope] = max(most_at_once[job.scope], running[job.scope])
        for _ in range(5):  # give every other leased job the chance to run meanwhile
            await asyncio.sleep(0)
        finished[job.scope].append(job.payload["i"])
        running[job.scope] -= 1
        return {}

    submitted: dict[str, list[int]] = defaultdict(list)
    at = T0
    for i in range(8):  # the oldest jobs all belong to app-a, as when one app sends a burst
        await submit(store, "app-a", i, at=at)
        submitted["app-a"].append(i)
        at += timedelta(milliseconds=1)
    for i in range(4):
        for scope in ("app-b", "app-c"):
            await submit(store, scope, i, at=at)
            submitted[scope].append(i)
            at += timedelta(milliseconds=1)
    worker = Worker(store, {KIND: slow}, clock=Clock(), lease_sec=60, concurrency=4)
    assert await worker.drain() == 16
    assert dict(most_at_once) == {"app-a": 1, "app-b": 1, "app-c": 1}, "two jobs of one app overlapped"
    assert dict(finished) == dict(submitted), "an app's jobs finished out of submission order"
    assert await store.count_jobs("done") == 16


async def test_a_crashed_job_is_not_overtaken_and_runs_again_once_its_lease_expires(store: Store) -> None:
    clock = Steps(T0)
    ran: list[tuple[str, int, int]] = []

    async def handle(job: Job) -> dict[str, Any]:
        assert job.scope is not None
        ran.append((job.scope, job.payload["i"], job.attempts))
        return {}

    first = await submit(store, "app-a", 0, at=T0)
    second = await submit(store, "app-a", 1, at=T0 + timedelta(milliseconds=1))
    await submit(store, "app-b", 0, at=T0 + timedelta(milliseconds=2))
    # a worker leases app-a's first job and dies without a word
    [lost] = await store.lease_jobs("dead-worker", [KIND], limit=1, lease_sec=60, now=T0, per_key=True)
    assert lost.id == first.id

    worker = Worker(store, {KIND: handle}, clock=Clock(clock), lease_sec=60, concurrency=4)
    clock.now = T0 + timedelta(seconds=30)
    assert await worker.drain() == 1
    assert ran == [("app-b", 0, 1)], "app-a's next job waited behind the leased one"
    waiting = await store.get_job("t1", second.id)
    assert waiting is not None and waiting.status == "queued" and waiting.attempts == 0

    clock.now = T0 + timedelta(seconds=61)  # the dead worker's lease has expired
    assert await worker.drain() == 2
    assert ran[1:] == [("app-a", 0, 2), ("app-a", 1, 1)], "the crashed job ran again first, then the next"
    assert await store.count_jobs("done") == 3


async def test_a_long_job_of_one_app_does_not_hold_up_the_jobs_of_another(store: Store) -> None:
    release = asyncio.Event()
    b_done: list[int] = []
    all_b_done = asyncio.Event()

    async def handle(job: Job) -> dict[str, Any]:
        if job.scope == "app-a":
            await release.wait()  # the long job: it ends only when app-b's jobs are all done
        else:
            b_done.append(job.payload["i"])
            if len(b_done) == 3:
                all_b_done.set()
        return {}

    long_job = await submit(store, "app-a", 0, at=T0)
    for i in range(3):
        await submit(store, "app-b", i, at=T0 + timedelta(seconds=1 + i))
    worker = Worker(store, {KIND: handle}, clock=Clock(), lease_sec=60, concurrency=2, poll_interval=0.2)
    worker.start()
    try:
        # the slot each app-b job frees is filled at once, while app-a's job still runs
        await asyncio.wait_for(all_b_done.wait(), 30)
        assert b_done == [0, 1, 2]
        still = await store.get_job("t1", long_job.id)
        assert still is not None and still.status == "running"
        release.set()
        for _ in range(300):
            done = await store.get_job("t1", long_job.id)
            if done is not None and done.status == "done":
                break
            await asyncio.sleep(0.05)
        assert done is not None and done.status == "done"
    finally:
        release.set()
        await asyncio.wait_for(worker.stop(), 20)
