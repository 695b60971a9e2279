"""``/v1/admin``: export and import of one tenant's memory (the CLI's ``memlane export`` and
``memlane import`` over HTTP).

Who may: with auth on, a caller whose credentials carry the ``admin`` role, for its own
tenant; with auth off, the admin channel (``X-Admin-Token``, or loopback without a token
set), for the tenant the request names. Errors use the plain ``{"error", "message"}``
envelope. Imports larger than ``MEMLANE_MAX_REQUEST_BYTES`` go through the CLI. An import is
admitted batch by batch like a write that queues work (503 ``backlog_full`` past the tenant's
share of the job backlog); an export streams, a page of records at a time.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import StreamingResponse

from memlane.api.common.auth import principal_of
from memlane.api.common.body import JsonBodyRoute
from memlane.api.common.deps import ServicesDep, admin_authorized, resolve_tenant
from memlane.api.common.identity import viewer_of
from memlane.domain.errors import Forbidden
from memlane.domain.inputs import MAX_SCOPE_LENGTH, MAX_TENANT_LENGTH, NAME_PATTERN
from memlane.services.transfer.export import ExportRequest
from memlane.services.transfer.importer import ImportReportView

router = APIRouter(route_class=JsonBodyRoute, prefix="/v1/admin", tags=["admin"])

NDJSON = "application/x-ndjson"


def TenantQ(description: str) -> Any:
    return Query(min_length=1, max_length=MAX_TENANT_LENGTH, pattern=NAME_PATTERN, description=description)


def ScopeQ(description: str) -> Any:
    return Query(min_length=1, max_length=MAX_SCOPE_LENGTH, pattern=NAME_PATTERN, description=description)


def admin_tenant(request: Request, tenant_id: str | None) -> str:
    """The tenant an admin request acts on, or 403."""
    tenant = resolve_tenant(request, tenant_id)
    if principal_of(request).authenticated:
        if not viewer_of(request, tenant).admin:
            raise Forbidden("export and import need credentials with the admin role", code="admin_required")
    elif not admin_authorized(request):
        raise Forbidden(
            "export and import are on the admin channel (X-Admin-Token matching ADMIN_TOKEN; with auth off "
            "and no token set, outside production, a loopback request)",
            code="admin_required",
        )
    return tenant


@router.get("/export", summary="Export one tenant's memory as JSONL (admin)", response_class=StreamingResponse)
async def export(
    request: Request,
    svc: ServicesDep,
    tenant_id: Annotated[str | None, TenantQ(description="default: X-Tenant-Id, then MEMORY_TENANT_ID")] = None,
    scope: Annotated[str | None, ScopeQ(description="one scope; default every scope and the knowledge items")] = None,
    embeddings: Annotated[bool, Query(description="include vectors, with the model recorded")] = False,
) -> StreamingResponse:
    tenant = admin_tenant(request, tenant_id)
    req = ExportRequest(tenant_id=tenant, scope=scope, embeddings=embeddings)

    async def body() -> AsyncIterator[bytes]:
        async for record in svc.exporter.records(req):
            yield (json.dumps(record, separators=(",", ":"), ensure_ascii=False) + "\n").encode()

    # a header is latin-1: any other character of a tenant or scope name would be a 500
    filename = re.sub(r"[^A-Za-z0-9._-]", "_", f"memlane-{tenant}{'-' + scope if scope else ''}") + ".jsonl"
    return StreamingResponse(
        body(), media_type=NDJSON, headers={"content-disposition": f'attachment; filename="{filename}"'}
    )


@router.post(
    "/import",
    # an open object in the document: the report (ImportReportView) is the CLI's as well
    response_model=dict[str, Any],
    summary="Import a JSONL export into this store, idempotently (admin)",
    openapi_extra={"requestBody": {"content": {NDJSON: {"schema": {"type": "string"}}}, "required": True}},
)
async def import_(
    request: Request,
    svc: ServicesDep,
    tenant_id: Annotated[str | None, TenantQ(description="every record must be of this tenant")] = None,
) -> ImportReportView:
    tenant = admin_tenant(request, tenant_id)
    principal = principal_of(request)
    actor = viewer_of(request, tenant).actor if principal.authenticated else "admin channel"

    async def lines() -> AsyncIterator[str]:
        # bytes that are not UTF-8 stay visible as such (surrogate escapes): the importer
        # refuses the line instead of storing replacement characters
        pending = b""
        async for chunk in request.stream():
            pending += chunk
            *complete, pending = pending.split(b"\n")
            for line in complete:
                yield line.decode("utf-8", errors="surrogateescape")
        if pending:
            yield pending.decode("utf-8", errors="surrogateescape")

    # each batch that queues embedding is admitted like a write: held to the tenant's share of
    # the job backlog, a 503 + Retry-After past it (services/backlog.py)
    report = await svc.importer.run(lines(), only_tenant=tenant, actor=actor, admit=svc.backlog.admit)
    return report.to_dict()
