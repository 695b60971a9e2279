"""The graph surface's lifecycle endpoints: ``/v1/memory/nodes/activate`` and
``/v1/memory/archive/rehydrate``.

The router's lifespan also makes sure the periodic decay job is queued (docs/lifecycle.md):
the job is a database row, so any worker process runs it, whether or not this API process
runs one.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator
from typing import Any

from fastapi import APIRouter, Depends, FastAPI, Request

from memlane.api.auth import principal_of
from memlane.api.deps import authenticated, quota, resolve_scope, resolve_tenant, services
from memlane.api.json_body import JsonBodyRoute
from memlane.api.lifecycle_dto import ActivateRequest, RehydrateRequest
from memlane.domain.hashing import sha256_hex
from memlane.domain.model import Visibility
from memlane.services.container import Services
from memlane.services.lifecycle import lifecycle

log = logging.getLogger(__name__)


@contextlib.asynccontextmanager
async def _schedule_decay(app: FastAPI) -> AsyncIterator[None]:
    svc: Services | None = getattr(app.state, "services", None)
    if svc is not None:
        decay = lifecycle(svc).decay  # a bad MEMLANE_DECAY_* setting stops start-up here
        try:
            job = await decay.ensure_scheduled()
            if job is not None:
                svc.worker.notify()
        except Exception:  # a database hiccup must not stop start-up; the next start retries
            log.warning("could not schedule the periodic decay job", exc_info=True)
    yield


router = APIRouter(
    route_class=JsonBodyRoute,
    prefix="/v1/memory",
    tags=["graph memory: lifecycle"],
    dependencies=[Depends(authenticated)],
    lifespan=_schedule_decay,
)


def _common(request: Request, body: ActivateRequest | RehydrateRequest) -> tuple[str, str, str, str | None, Visibility]:
    principal = principal_of(request)
    tenant = resolve_tenant(request, body.tenant_id)
    scope = resolve_scope(request, body.scope)
    input_sha = body.input_sha256 or sha256_hex(body.input_text or "")
    return tenant, scope, input_sha, body.actor or principal.agent_id, Visibility(principal.agent_id, principal.team_id)


@router.post("/nodes/activate", summary="Record node activity and feedback (adaptive decay signals)")
async def activate(body: ActivateRequest, request: Request) -> dict[str, Any]:
    tenant, scope, input_sha, actor, viewer = _common(request, body)
    await quota(request, "write", tenant)
    result = await lifecycle(services(request)).activation.activate(
        tenant,
        scope,
        node_ids=body.ids(),
        client_ids=body.client_ids or [],
        outcome=body.outcome,
        activate=body.activate,
        run_id=body.run_id,
        reason=body.reason,
        actor=actor,
        input_sha256=input_sha,
        viewer=viewer,
    )
    return {
        "tenant_id": tenant,
        "scope": scope,
        "commit_id": result.commit.id if result.commit else None,
        "commit_hash": result.commit.commit_hash if result.commit else None,
        "activated": result.as_dict(),
    }


@router.post("/archive/rehydrate", summary="Move cold or archived nodes back into an active tier")
async def rehydrate(body: RehydrateRequest, request: Request) -> dict[str, Any]:
    tenant, scope, input_sha, actor, viewer = _common(request, body)
    await quota(request, "write", tenant)
    result = await lifecycle(services(request)).rehydrate.rehydrate(
        tenant,
        scope,
        node_ids=body.ids(),
        client_ids=body.client_ids or [],
        target_tier=body.target_tier,
        reason=body.reason,
        actor=actor,
        input_sha256=input_sha,
        viewer=viewer,
    )
    return {
        "tenant_id": tenant,
        "scope": scope,
        "target_tier": body.target_tier,
        "commit_id": result.commit.id if result.commit else None,
        "commit_hash": result.commit.commit_hash if result.commit else None,
        "rehydrated": result.as_dict(),
    }
