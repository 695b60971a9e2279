"""The memory lifecycle: activation signals, adaptive decay, rehydrate, consolidation and
compression rollups (docs/lifecycle.md).

``build_lifecycle`` makes the services from what they need; ``Lifecycle.handlers()`` gives the
worker its job handlers. Built once per process by ``services/container.py``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from typing_extensions import TypedDict

from memlane.domain.clock import Clock
from memlane.domain.errors import InvalidRequest
from memlane.domain.model import Job
from memlane.jobs.lifecycle_kinds import LIFECYCLE_COMPRESS, LIFECYCLE_CONSOLIDATE, LIFECYCLE_DECAY
from memlane.jobs.worker import Handler
from memlane.services.lifecycle.activation import ActivationService
from memlane.services.lifecycle.compression import CompressionOptions, CompressionService
from memlane.services.lifecycle.consolidation import ConsolidationOptions, ConsolidationService
from memlane.services.lifecycle.decay import DecayPolicy, DecayService
from memlane.services.lifecycle.rehydrate import RehydrateService
from memlane.services.reading import MemoryReader
from memlane.services.writing import WriteService
from memlane.store.contracts import Store
from memlane.store.contracts.jobs import JobProgressOps
from memlane.store.contracts.maintenance import ScopeScanOps

T = TypeVar("T")


class ScopeReports(TypedDict):
    """A consolidation or compression job's result: one report per scope it ran in."""

    scopes: list[dict[str, Any]]


class LifecycleStore(ScopeScanOps, JobProgressOps, Protocol):
    """The scopes a lifecycle job runs over, and where it records how far it got."""


@dataclass(slots=True)
class Lifecycle:
    store: LifecycleStore
    clock: Clock
    activation: ActivationService
    rehydrate: RehydrateService
    decay: DecayService
    consolidation: ConsolidationService
    compression: CompressionService

    def handlers(self) -> dict[str, Handler]:
        """Job handlers; payloads: ``{"scope"?, "apply", "options"}`` for consolidate/compress."""
        return {
            LIFECYCLE_DECAY: self.decay.run_job,
            LIFECYCLE_CONSOLIDATE: self._consolidate,
            LIFECYCLE_COMPRESS: self._compress,
        }

    async def _scopes(self, job: Job) -> list[str]:
        scope = job.payload.get("scope")
        if isinstance(scope, str) and scope:
            return [scope]
        return [s for _, s in await self.store.list_scopes(job.tenant_id)]

    async def _consolidate(self, job: Job) -> ScopeReports:
        raw = dict(job.payload.get("options") or {})
        if isinstance(raw.get("types"), list):
            raw["types"] = tuple(raw["types"])
        opts = _options(ConsolidationOptions, raw)
        reports: list[dict[str, Any]] = []
        for scope in await self._scopes(job):
            report = await self.consolidation.run(job.tenant_id, scope, opts, apply=bool(job.payload.get("apply")))
            reports.append(report.as_dict())
            await self.store.update_job_progress(job, {"scopes_done": len(reports)}, now=self.clock.now())
        return {"scopes": reports}

    async def _compress(self, job: Job) -> ScopeReports:
        opts = _options(CompressionOptions, dict(job.payload.get("options") or {}))
        reports: list[dict[str, Any]] = []
        for scope in await self._scopes(job):
            report = await self.compression.run(job.tenant_id, scope, opts, apply=bool(job.payload.get("apply")))
            reports.append(report.as_dict())
            await self.store.update_job_progress(job, {"scopes_done": len(reports)}, now=self.clock.now())
        return {"scopes": reports}


def build_lifecycle(
    store: Store, writes: WriteService, *, clock: Clock, decay: DecayPolicy, job_max_attempts: int
) -> Lifecycle:
    return Lifecycle(
        store=store,
        clock=clock,
        activation=ActivationService(MemoryReader(store, clock), writes, clock=clock),
        rehydrate=RehydrateService(MemoryReader(store, clock), writes, clock=clock),
        decay=DecayService(
            store,
            writes,
            clock=clock,
            settings=decay,
            job_max_attempts=job_max_attempts,
        ),
        consolidation=ConsolidationService(store, writes, clock=clock),
        compression=CompressionService(store, writes, clock=clock),
    )


def _options(kind: type[T], raw: dict[str, Any]) -> T:
    """Job options, or a permanent failure (a bad payload does not get better with retries)."""
    try:
        return kind(**raw)
    except (TypeError, ValueError) as exc:
        raise InvalidRequest(f"invalid job options: {exc}", code="invalid_job_payload") from None


__all__ = ["Lifecycle", "build_lifecycle"]
