"""The worker loop: lease due jobs, run their handler, record the outcome.

A killed worker loses nothing: its leases expire and another worker (or the same one after a
restart) takes the jobs again. Failures retry with exponential backoff; a job that keeps
failing is parked as ``failed`` with its last error. Jobs other than embedding run up to
``concurrency`` at a time, one per ordering key (tenant and scope): the tasks of different
conversation apps side by side, those of one app one after another, in order
(``Store.lease_jobs``, ``per_key``). Both lanes lease tenants in turns, and the batched lane
takes a bounded amount of work per round, shared fairly by tenants (jobs/fair_share.py), so
one tenant's backlog delays another tenant's job by about a round, not by the backlog.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
from collections.abc import Awaitable, Callable, Mapping, Sequence
from datetime import timedelta

from memlane.domain.clock import Clock, new_id
from memlane.domain.errors import MemlaneError
from memlane.domain.model import Job
from memlane.metrics import JOB_RUNS
from memlane.store.base import LeasePicker
from memlane.store.contracts.jobs import JobLeaseOps
from memlane.store.error_text import loggable

log = logging.getLogger(__name__)

Handler = Callable[[Job], Awaitable[Mapping[str, object] | None]]
#: runs many due jobs of one kind together; returns one result per job, in order
BatchHandler = Callable[[list[Job]], Awaitable[Sequence[Mapping[str, object] | None]]]


def backoff_seconds(attempt: int, *, base: float = 1.0, cap: float = 300.0) -> float:
    return float(min(cap, base * (2 ** max(attempt - 1, 0))))


class Worker:
    def __init__(
        self,
        store: JobLeaseOps,
        handlers: dict[str, Handler],
        *,
        clock: Clock,
        poll_interval: float = 0.5,
        lease_sec: float = 60.0,
        concurrency: int = 1,
        worker_id: str | None = None,
        batch_handlers: dict[str, BatchHandler] | None = None,
        batch_limit: int = 64,
        gather_sec: float = 0.0,
        batch_budgets: dict[str, LeasePicker] | None = None,
    ):
        self.store = store
        self.handlers = handlers
        #: kinds whose due jobs are leased and run together, up to ``batch_limit`` at a time:
        #: one model call and one transaction for many one-node writes instead of one each
        self.batch_handlers: dict[str, BatchHandler] = dict(batch_handlers or {})
        self.batch_limit = batch_limit
        #: per batched kind, what one round takes (jobs/fair_share.py, MEMLANE_EMBED_ROUND_NODES):
        #: 64 jobs of an import carry 32,000 nodes, minutes of embedding that every other
        #: tenant's one-node job leased after them waited for
        self.batch_budgets: dict[str, LeasePicker] = dict(batch_budgets or {})
        #: after a wake-up, wait this long so jobs of concurrent or back-to-back writes join one
        #: batch: a lease, a model call and two commits per one-node write otherwise take the
        #: single SQLite writer from the writes themselves
        self.gather_sec = gather_sec
        self.clock = clock
        self.poll_interval = poll_interval
        self.lease_sec = lease_sec
        #: jobs of different ordering keys the other lane runs side by side
        self.concurrency = concurrency
        self.worker_id = worker_id or f"{socket.gethostname()}:{os.getpid()}:{new_id()[:8]}"
        #: one per lane (run_forever): the batched kinds, the others
        self._wakes = (asyncio.Event(), asyncio.Event())
        self._stopping = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self.processed = 0

    def notify(self) -> None:
        """Called after an in-process enqueue so the job starts without waiting for the poll."""
        for wake in self._wakes:
            wake.set()

    def notify_batched(self) -> None:
        """``notify`` after enqueueing jobs of batched kinds only (a write's embedding job):
        waking the other lane too would cost it an empty lease transaction per write."""
        self._wakes[0].set()

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self.run_forever(), name="memlane-worker")

    async def stop(self) -> None:
        self._stopping.set()
        self.notify()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def run_forever(self) -> None:
        """Two lanes, each its own loop: the batched kinds (embedding), which wait
        ``gather_sec`` after a small round so back-to-back writes share a batch, and every other
        kind, which never waits: that wait after each round had capped conversation ingestion
        at a few dozen tasks a second under mixed load, and the backlog it left made writes
        answer 503 (BENCHMARKS.md); it keeps up to ``concurrency`` jobs of different keys
        running. Neither lane waits behind the other's jobs."""
        await asyncio.gather(self._lane(self._run_batched, self._wakes[0], self.gather_sec), self._others_lane())

    async def _lane(self, round_: Callable[[], Awaitable[int]], wake: asyncio.Event, gather_sec: float) -> None:
        while not self._stopping.is_set():
            try:
                ran = await round_()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("worker loop error; retrying after the poll interval")
                ran = 0
            if ran == 0:
                wake.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(wake.wait(), timeout=self.poll_interval)
            if gather_sec > 0 and ran < self.batch_limit and not self._stopping.is_set():
                await asyncio.sleep(gather_sec)

    async def _others_lane(self) -> None:
        """Keeps up to ``concurrency`` other jobs running and fills a slot as soon as it frees
        up, so a long job of one app (an LLM pipeline, a sync) never holds up the others."""
        wake = self._wakes[1]
        running: set[asyncio.Task[None]] = set()
        try:
            while not self._stopping.is_set():
                if len(running) < self.concurrency:
                    wake.clear()
                    try:
                        leased = await self._lease_others(self.concurrency - len(running))
                    except asyncio.CancelledError:
                        raise
                    except Exception:
                        log.exception("worker loop error; retrying after the poll interval")
                        leased = []
                    running.update(asyncio.create_task(self._run(job)) for job in leased)
                # full: wait for a slot; else also for an enqueue (wake) or the next poll
                woken = asyncio.create_task(wake.wait()) if len(running) < self.concurrency else None
                try:
                    done, _ = await asyncio.wait(
                        {*running, *([woken] if woken else [])},
                        timeout=self.poll_interval if woken else None,
                        return_when=asyncio.FIRST_COMPLETED,
                    )
                finally:
                    if woken is not None:
                        woken.cancel()
                for task in done & running:
                    running.discard(task)
                    if not task.cancelled() and task.exception() is not None:
                        log.error("job run failed outside its handler", exc_info=task.exception())
        finally:
            for task in running:
                task.cancel()
            await asyncio.gather(*running, return_exceptions=True)

    async def run_once(self) -> int:
        """One round: a batch of each batched kind, then up to ``concurrency`` other jobs, so a
        stream of small embedding jobs never starves the other kinds (nor they it)."""
        return await self._run_batched() + await self._run_others()

    async def _run_batched(self) -> int:
        ran = 0
        for kind, handler in self.batch_handlers.items():
            if kind not in self.handlers:
                continue
            group = await self.store.lease_jobs(
                self.worker_id,
                [kind],
                limit=self.batch_limit,
                lease_sec=self.lease_sec,
                now=self.clock.now(),
                budget=self.batch_budgets.get(kind),
            )
            if group:
                await self._run_batch(group, handler)
                ran += len(group)
        return ran

    async def _run_others(self) -> int:
        """The oldest due job of up to ``concurrency`` keys, run side by side: the oldest jobs
        overall mostly belong to one app, whose jobs must not overlap."""
        leased = await self._lease_others(self.concurrency)
        await asyncio.gather(*(self._run(job) for job in leased))
        return len(leased)

    async def _lease_others(self, limit: int) -> list[Job]:
        others = [k for k in self.handlers if k not in self.batch_handlers]
        if not others:
            return []
        return await self.store.lease_jobs(
            self.worker_id, others, limit=limit, lease_sec=self.lease_sec, now=self.clock.now(), per_key=True
        )

    async def drain(self, *, max_rounds: int = 1000) -> int:
        """Run until nothing is due; for tests and one-shot CLI use."""
        total = 0
        for _ in range(max_rounds):
            ran = await self.run_once()
            total += ran
            if ran == 0:
                break
        return total

    async def _heartbeat(self, job: Job) -> None:
        """Keep the lease of a long job alive; a dead worker stops renewing and loses it."""
        while True:
            await asyncio.sleep(self.lease_sec / 3)
            try:
                if not await self.store.renew_lease(job, lease_sec=self.lease_sec, now=self.clock.now()):
                    log.warning("job %s: lease lost to another worker", job.id)
                    return
            except Exception:
                log.warning("job %s: lease renewal failed", job.id, exc_info=True)

    async def _run_batch(self, group: list[Job], handler: BatchHandler) -> None:
        """All jobs of the group succeed together; if the batch fails, each job runs alone so
        one bad job fails (and backs off) by itself."""
        if len(group) == 1:
            await self._run(group[0])
            return
        loop = asyncio.get_running_loop()
        heartbeats = [loop.create_task(self._heartbeat(job)) for job in group]
        try:
            results = await handler(group)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.warning("batch of %d %s jobs failed (%s); running them one by one", len(group), group[0].kind, exc)
            results = None
        finally:
            for hb in heartbeats:
                hb.cancel()
        if results is None:
            for job in group:
                await self._run(job)
            return
        done = [(job, None if r is None else dict(r)) for job, r in zip(group, results, strict=True)]
        await self.store.complete_jobs(done, now=self.clock.now())
        JOB_RUNS.labels(group[0].kind, "completed").inc(len(group))
        self.processed += len(group)

    async def _run(self, job: Job) -> None:
        handler = self.handlers[job.kind]
        heartbeat = asyncio.get_running_loop().create_task(self._heartbeat(job))
        try:
            result = await handler(job)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            permanent = isinstance(exc, MemlaneError) and exc.status < 500 and exc.status != 429
            retry_at = None if permanent else self.clock.now() + timedelta(seconds=backoff_seconds(job.attempts))
            message = loggable(exc)  # a database error without the values it may quote
            log.warning("job %s (%s) attempt %d failed: %s", job.id, job.kind, job.attempts, message)
            await self.store.fail_job(job, message, retry_at=retry_at, now=self.clock.now())
            retrying = retry_at is not None and job.attempts < job.max_attempts  # as fail_job decides
            JOB_RUNS.labels(job.kind, "retrying" if retrying else "failed").inc()
            return
        finally:
            heartbeat.cancel()
        await self.store.complete_job(job, None if result is None else dict(result), now=self.clock.now())
        JOB_RUNS.labels(job.kind, "completed").inc()
        self.processed += 1
