"""The knowledge repository's CRUD over HTTP: ``/v1/knowledge/items`` and ``/v1/knowledge/import``.
Errors use the ToolError envelope, like the tools surface the items are synced for.

Knowledge items (ADRs, policies, patterns, specs) are the tenant's documents: every caller of
the tenant reads them (docs/security.md, "Who sees what"); their synced memory nodes are in
the shared lane."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Path, Query, Request
from fastapi.responses import JSONResponse

from memlane.api.common.body import JsonBodyRoute
from memlane.api.common.deps import CurrentViewer, RequestTenant, ServicesDep, authenticated, quota
from memlane.api.knowledge import responses
from memlane.api.knowledge.requests import ImportIn, KnowledgeItemIn, KnowledgeItemPatch
from memlane.api.knowledge.responses import item_dto
from memlane.domain.visibility import Viewer
from memlane.services.knowledge.model import ID_PATTERN, ItemInput
from memlane.services.knowledge.views import version_view
from memlane.store.knowledge import ItemFilter

#: a knowledge item id in a path (services/knowledge/model.py)
ItemId = Annotated[str, Path(min_length=1, max_length=200, pattern=ID_PATTERN.pattern)]

router = APIRouter(
    route_class=JsonBodyRoute,
    prefix="/v1/knowledge",
    tags=["knowledge repository"],
    dependencies=[Depends(authenticated)],
)


def _author(viewer: Viewer) -> dict[str, str | None]:
    """Who writes a version (its agent, else its role), and the user it acts for: an erasure
    of that user or agent erases the item (domain/erasure.py)."""
    return {"author": viewer.agent_id or viewer.role, "user_id": viewer.user_id}


@router.get("/items", response_model=responses.ItemList, summary="List knowledge items")
async def list_items(
    tenant: RequestTenant,
    svc: ServicesDep,
    type: list[str] | None = Query(None),
    layer: list[str] | None = Query(None),
    status: list[str] | None = Query(None),
    limit: int = Query(100, ge=1, le=1000),
) -> responses.ItemList:
    items = await svc.knowledge.list_items(tenant, ItemFilter(types=type, layers=layer, statuses=status), limit=limit)
    return {"success": True, "items": [item_dto(i, include_constraints=True) for i in items], "totalCount": len(items)}


@router.post("/items", response_model=responses.ItemReply, summary="Create a knowledge item", status_code=201)
async def create_item(body: KnowledgeItemIn, viewer: CurrentViewer, request: Request, svc: ServicesDep) -> JSONResponse:
    tenant = viewer.tenant_id
    await quota(request, "write", tenant)
    raw = ItemInput(
        id=body.id,
        type=body.type,
        layer=body.layer,
        title=body.title,
        summary=body.summary,
        content=body.content,
        status=body.status,
        severity=body.severity,
        tags=body.tags,
        constraints=body.constraints,
        metadata=body.metadata,
        supersedes=body.supersedes,
    )
    rec = await svc.knowledge.create(tenant, raw, **_author(viewer), message=body.message)
    return JSONResponse({"success": True, "item": item_dto(rec)}, status_code=201)


@router.get("/items/{item_id}", response_model=responses.ItemReply, summary="One knowledge item")
async def get_item(
    item_id: ItemId, tenant: RequestTenant, svc: ServicesDep, include_history: bool = False
) -> responses.ItemReply:
    rec = await svc.knowledge.get(tenant, item_id)
    out: responses.ItemReply = {"success": True, "item": item_dto(rec)}
    if include_history:
        out["history"] = [version_view(v) for v in await svc.knowledge.history(tenant, item_id)]
    return out


@router.patch("/items/{item_id}", response_model=responses.ItemReply, summary="Change a knowledge item (a new version)")
async def update_item(
    item_id: ItemId, body: KnowledgeItemPatch, viewer: CurrentViewer, request: Request, svc: ServicesDep
) -> responses.ItemReply:
    tenant = viewer.tenant_id
    await quota(request, "write", tenant)
    changes = {k: v for k, v in body.model_dump(exclude_unset=True).items() if k != "message"}
    rec = await svc.knowledge.update(tenant, item_id, changes, **_author(viewer), message=body.message)
    return {"success": True, "item": item_dto(rec)}


@router.delete("/items/{item_id}", response_model=responses.ItemDeleted, summary="Delete a knowledge item")
async def delete_item(
    item_id: ItemId, tenant: RequestTenant, request: Request, svc: ServicesDep
) -> responses.ItemDeleted:
    await quota(request, "write", tenant)
    await svc.knowledge.delete(tenant, item_id)
    return {"success": True, "message": f"Knowledge item {item_id!r} deleted; run sync_now to remove it from memory"}


@router.get("/items/{item_id}/history", response_model=responses.History, summary="Version history of a knowledge item")
async def item_history(item_id: ItemId, tenant: RequestTenant, svc: ServicesDep) -> responses.History:
    return {"success": True, "history": [version_view(v) for v in await svc.knowledge.history(tenant, item_id)]}


@router.post(
    "/import",
    response_model=responses.ImportReply,
    summary="Import Markdown documents with YAML front matter (ADRs etc.)",
)
async def import_documents(
    body: ImportIn, viewer: CurrentViewer, request: Request, svc: ServicesDep
) -> responses.ImportReply:
    tenant = viewer.tenant_id
    await quota(request, "write", tenant)
    saved = await svc.knowledge.import_documents(
        tenant, [(d.path, d.content) for d in body.documents], **_author(viewer)
    )
    return {"success": True, "items": [{"id": r.id, "version": str(r.version), "status": r.status} for r in saved]}
