"""The expiry sweep: a durable, periodic job per tenant.

Each run deletes memories whose ``expires_at`` has passed (a layered memory's ``expiry``, a tool
memory's ``expiresAt``, any node that carries one) and workspace memories idle for
``MEMLANE_WORKSPACE_TTL_HOURS`` (a task's items go together, once none of them changed for that
long), then enqueues the next run ``MEMLANE_LAYERS_SWEEP_INTERVAL_SEC`` later. The idempotency
key names the time slot, so any number of writers and workers scheduling the sweep produce one
job per tenant per slot.

Expiry itself does not wait for this job: every read leaves out a node expired at its instant
(``unexpired_term``, domain/validity.py), so what a caller sees never depends on when the sweep
last ran. Deleting expired rows only reclaims their space (and bumps the scopes' epochs, as any
delete does). Before, reads checked expiry on some paths only, and graph recall and the UI
returned expired memories for up to a sweep interval.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta

from typing_extensions import TypedDict

from memlane.domain.clock import Clock, new_id
from memlane.domain.hashing import canonical_json, sha256_hex
from memlane.domain.model import CommitInfo, Job
from memlane.jobs.layers_kinds import LAYERS_SWEEP
from memlane.services.writing import WriteService
from memlane.store.contracts.jobs import JobSubmitOps
from memlane.store.knowledge import KnowledgeStore

BATCH = 500


class Swept(TypedDict):
    """What one sweep deleted: expired memories, and idle workspace memories."""

    expired: int
    idle_workspace: int


class SweepRun(Swept):
    """A sweep job's result: what it deleted, and the slot of the next sweep it queued."""

    next_slot: int


class ExpirySweeper:
    def __init__(
        self,
        store: JobSubmitOps,
        kstore: KnowledgeStore,
        *,
        writes: WriteService,
        clock: Clock,
        ttl_hours: float,
        interval_sec: float,
        job_max_attempts: int,
        notify: Callable[[], None] | None = None,
    ):
        self.store = store
        self.kstore = kstore
        self.writes = writes
        self.job_max_attempts = job_max_attempts
        self.clock = clock
        self.ttl = timedelta(hours=ttl_hours)
        self.interval = interval_sec
        self._notify = notify
        self._scheduled: set[tuple[str, int]] = set()

    def _slot(self, ts: datetime) -> int:
        return math.floor(ts.timestamp() / self.interval)

    def _slot_start(self, slot: int) -> datetime:
        return datetime.fromtimestamp(slot * self.interval, tz=UTC)

    async def ensure_scheduled(self, tenant_id: str) -> None:
        """Called after writes: make sure the tenant has a sweep queued (once per process and slot)."""
        slot = self._slot(self.clock.now()) + 1
        if (tenant_id, slot) in self._scheduled:
            return
        await self._enqueue(tenant_id, slot)
        self._scheduled.add((tenant_id, slot))

    async def _enqueue(self, tenant_id: str, slot: int) -> None:
        job = Job(
            tenant_id=tenant_id,
            id=new_id(),
            kind=LAYERS_SWEEP,
            payload={"slot": slot},
            idempotency_key=f"sweep:{slot}",
            run_after=self._slot_start(slot),
            max_attempts=self.job_max_attempts,
        )
        await self.store.enqueue([job], now=self.clock.now())

    async def sweep(self, tenant_id: str) -> Swept:
        now = self.clock.now()
        expired = await self._delete_all(
            tenant_id,
            lambda: self.kstore.expired_nodes(tenant_id, now=now, limit=BATCH),
            "expiry",
        )
        idle = await self._delete_all(
            tenant_id,
            lambda: self.kstore.inactive_workspace_nodes(tenant_id, idle_before=now - self.ttl, limit=BATCH),
            "workspace_ttl",
        )
        return {"expired": expired, "idle_workspace": idle}

    async def _delete_all(
        self, tenant_id: str, find: Callable[[], Awaitable[list[tuple[str, str]]]], reason: str
    ) -> int:
        total = 0
        while True:
            found: list[tuple[str, str]] = await find()
            if not found:
                return total
            ids = sorted(nid for nid, _ in found)
            info = CommitInfo(
                actor="memlane:expiry-sweep", input_sha256=sha256_hex(canonical_json({reason: ids})), kind=reason
            )
            gone = await self.writes.delete(tenant_id, None, ids, info)
            total += len(gone)
            if not gone:
                return total

    async def run_job(self, job: Job) -> SweepRun:
        swept = await self.sweep(job.tenant_id)
        slot = int(job.payload.get("slot", self._slot(self.clock.now())))
        nxt = max(slot, self._slot(self.clock.now())) + 1
        await self._enqueue(job.tenant_id, nxt)
        result: SweepRun = {**swept, "next_slot": nxt}
        if self._notify is not None:
            self._notify()
        return result
