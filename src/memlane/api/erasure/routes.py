"""``POST /v1/erasure``: erase a scope, a user, an agent or a whole tenant (docs/security.md,
"Erasure"). Errors use the graph surface's envelope; the answer is the receipt."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request

from memlane.api.common.body import JsonBodyRoute
from memlane.api.common.deps import ServicesDep, admin_authorized, authenticated, quota, resolve_tenant
from memlane.api.common.identity import header_claims, viewer_of
from memlane.api.erasure.requests import ErasureRequest
from memlane.api.erasure.responses import ErasureReply, erasure_reply

router = APIRouter(route_class=JsonBodyRoute, prefix="/v1", tags=["erasure"], dependencies=[Depends(authenticated)])


@router.post(
    "/erasure",
    summary="Erase everything of a scope, user, agent or tenant; answers a receipt",
    response_model=ErasureReply,
)
async def erase(body: ErasureRequest, request: Request, svc: ServicesDep) -> ErasureReply:
    tenant = resolve_tenant(request, body.tenant_id)
    viewer = viewer_of(request, tenant, header_claims(request))
    subject = body.subject(tenant)
    svc.erasure.check_allowed(viewer, subject, admin_channel=admin_authorized(request))
    await quota(request, "write", tenant)
    receipt = await svc.erasure.erase(viewer, subject)
    return erasure_reply(receipt)
