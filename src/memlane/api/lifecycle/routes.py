"""The graph surface's lifecycle endpoints: ``/v1/memory/nodes/activate`` and
``/v1/memory/archive/rehydrate``.

The periodic decay and retention jobs are queued by the services at start-up
(``Services.start_periodic``, called from the app's lifespan), not by this router.
"""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request

from memlane.api.common.body import JsonBodyRoute
from memlane.api.common.deps import CurrentActor, ServicesDep, authenticated, quota, resolve_scope, resolve_tenant
from memlane.api.common.identity import viewer_of
from memlane.api.lifecycle import responses as r
from memlane.api.lifecycle.requests import ActivateRequest, RehydrateRequest
from memlane.domain.hashing import sha256_hex
from memlane.domain.visibility import Viewer

router = APIRouter(
    route_class=JsonBodyRoute,
    prefix="/v1/memory",
    tags=["graph memory: lifecycle"],
    dependencies=[Depends(authenticated)],
)


def _common(request: Request, body: ActivateRequest | RehydrateRequest) -> tuple[Viewer, str, str]:
    viewer = viewer_of(request, resolve_tenant(request, body.tenant_id))
    scope = resolve_scope(request, body.scope)
    input_sha = body.input_sha256 or sha256_hex(body.input_text or "")
    return viewer, scope, input_sha


@router.post(
    "/nodes/activate",
    response_model=r.ActivateReply,
    summary="Record node activity and feedback (adaptive decay signals)",
)
async def activate(body: ActivateRequest, request: Request, svc: ServicesDep, actor: CurrentActor) -> r.ActivateReply:
    viewer, scope, input_sha = _common(request, body)
    tenant = viewer.tenant_id
    await quota(request, "write", tenant)
    result = await svc.lifecycle.activation.activate(
        viewer,
        scope,
        node_ids=body.ids(),
        client_ids=body.client_ids or [],
        outcome=body.outcome,
        activate=body.activate,
        run_id=body.run_id,
        reason=body.reason,
        actor=actor.of(body.actor),
        input_sha256=input_sha,
    )
    return r.activate_reply(tenant, scope, result)


@router.post(
    "/archive/rehydrate",
    response_model=r.RehydrateReply,
    summary="Move cold or archived nodes back into an active tier",
)
async def rehydrate(
    body: RehydrateRequest, request: Request, svc: ServicesDep, actor: CurrentActor
) -> r.RehydrateReply:
    viewer, scope, input_sha = _common(request, body)
    tenant = viewer.tenant_id
    await quota(request, "write", tenant)
    result = await svc.lifecycle.rehydrate.rehydrate(
        viewer,
        scope,
        node_ids=body.ids(),
        client_ids=body.client_ids or [],
        target_tier=body.target_tier,
        reason=body.reason,
        actor=actor.of(body.actor),
        input_sha256=input_sha,
    )
    return r.rehydrate_reply(tenant, scope, body.target_tier, result)
