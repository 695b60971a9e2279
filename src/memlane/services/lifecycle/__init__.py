"""The memory lifecycle: activation signals, adaptive decay, rehydrate, consolidation and
compression rollups (docs/lifecycle.md).

``lifecycle(services)`` builds the lifecycle services once per process and keeps them in
``Services.extras``; ``lifecycle_handlers(services)`` gives the worker its job handlers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from memlane.domain.errors import InvalidRequest
from memlane.domain.model import Job
from memlane.jobs.lifecycle_kinds import LIFECYCLE_COMPRESS, LIFECYCLE_CONSOLIDATE, LIFECYCLE_DECAY
from memlane.services.lifecycle.activation import ActivationService
from memlane.services.lifecycle.compression import CompressionOptions, CompressionService
from memlane.services.lifecycle.consolidation import ConsolidationOptions, ConsolidationService
from memlane.services.lifecycle.decay import DecayService, DecaySettings
from memlane.services.lifecycle.rehydrate import RehydrateService

if TYPE_CHECKING:
    from memlane.jobs.worker import Handler
    from memlane.services.container import Services


T = TypeVar("T")


@dataclass(slots=True)
class Lifecycle:
    activation: ActivationService
    rehydrate: RehydrateService
    decay: DecayService
    consolidation: ConsolidationService
    compression: CompressionService


def lifecycle(svc: Services) -> Lifecycle:
    found = svc.extras.get("lifecycle")
    if isinstance(found, Lifecycle):
        return found
    built = Lifecycle(
        activation=ActivationService(svc.store, clock=svc.clock),
        rehydrate=RehydrateService(svc.store, clock=svc.clock),
        decay=DecayService(
            svc.store, clock=svc.clock, settings=DecaySettings(), job_max_attempts=svc.settings.job_max_attempts
        ),
        consolidation=ConsolidationService(svc.store, clock=svc.clock),
        compression=CompressionService(svc.store, svc.writes, clock=svc.clock),
    )
    svc.extras["lifecycle"] = built
    return built


async def _scopes(svc: Services, job: Job) -> list[str]:
    scope = job.payload.get("scope")
    if isinstance(scope, str) and scope:
        return [scope]
    return [s for _, s in await svc.store.list_scopes(job.tenant_id)]


def _options(kind: type[T], raw: dict[str, Any]) -> T:
    """Job options, or a permanent failure (a bad payload does not get better with retries)."""
    try:
        return kind(**raw)
    except (TypeError, ValueError) as exc:
        raise InvalidRequest(f"invalid job options: {exc}", code="invalid_job_payload") from None


def lifecycle_handlers(svc: Services) -> dict[str, Handler]:
    """Job handlers; payloads: ``{"scope"?, "apply", "options"}`` for consolidate/compress.

    The services are built here, when the process wires its worker, so a bad
    ``MEMLANE_DECAY_*`` setting stops every process at start-up instead of failing jobs later.
    """
    lifecycle(svc)

    async def decay(job: Job) -> dict[str, Any]:
        return await lifecycle(svc).decay.run_job(job)

    async def consolidate(job: Job) -> dict[str, Any]:
        raw = dict(job.payload.get("options") or {})
        if isinstance(raw.get("types"), list):
            raw["types"] = tuple(raw["types"])
        opts = _options(ConsolidationOptions, raw)
        reports = []
        for scope in await _scopes(svc, job):
            report = await lifecycle(svc).consolidation.run(
                job.tenant_id, scope, opts, apply=bool(job.payload.get("apply"))
            )
            reports.append(report.as_dict())
            await svc.store.update_job_progress(job, {"scopes_done": len(reports)}, now=svc.clock.now())
        return {"scopes": reports}

    async def compress(job: Job) -> dict[str, Any]:
        opts = _options(CompressionOptions, dict(job.payload.get("options") or {}))
        reports = []
        for scope in await _scopes(svc, job):
            report = await lifecycle(svc).compression.run(
                job.tenant_id, scope, opts, apply=bool(job.payload.get("apply"))
            )
            reports.append(report.as_dict())
            await svc.store.update_job_progress(job, {"scopes_done": len(reports)}, now=svc.clock.now())
        return {"scopes": reports}

    return {LIFECYCLE_DECAY: decay, LIFECYCLE_CONSOLIDATE: consolidate, LIFECYCLE_COMPRESS: compress}


__all__ = ["Lifecycle", "lifecycle", "lifecycle_handlers"]
