"""The tools surface over HTTP, for frameworks without MCP: ``GET /v1/tools`` (schemas, also as
OpenAI functions), ``POST /v1/tools/{name}`` (body = the tool's arguments), and the knowledge
repository's CRUD under ``/v1/knowledge``. Errors use the ToolError envelope.

Each tool is its own operation in ``/openapi.json`` (``POST /v1/tools/memory_add``...), with
its own request schema (api/tool_requests.py); a route for any other name, left out of the
document, answers the ToolError 404 that lists the tools there are."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Query, Request
from fastapi.responses import JSONResponse

from memlane.api.common.body import JsonBodyRoute
from memlane.api.common.deps import ServicesDep, authenticated, get_services, quota, resolve_tenant
from memlane.api.common.identity import DIMENSIONS, NOUNS, header_claims, header_name, viewer_of
from memlane.api.knowledge.requests import ImportIn, KnowledgeItemIn, KnowledgeItemPatch, item_dto, version_dto
from memlane.api.tools import responses as t
from memlane.api.tools.requests import request_body
from memlane.domain.errors import InvalidRequest
from memlane.services.knowledge.model import ID_PATTERN, ItemInput
from memlane.services.tools.context import IdentitySource, ToolContext
from memlane.services.tools.schemas import DESCRIPTIONS, SCHEMAS, TOOL_NAMES, openai_functions
from memlane.store.knowledge import ItemFilter

#: a knowledge item id in a path (services/knowledge/model.py)
ItemId = Annotated[str, Path(min_length=1, max_length=200, pattern=ID_PATTERN.pattern)]

router = APIRouter(
    route_class=JsonBodyRoute, prefix="/v1/tools", tags=["agent tools"], dependencies=[Depends(authenticated)]
)
knowledge_router = APIRouter(
    route_class=JsonBodyRoute,
    prefix="/v1/knowledge",
    tags=["knowledge repository"],
    dependencies=[Depends(authenticated)],
)


def tool_context(request: Request) -> ToolContext:
    """The caller (credentials, or with auth off the ``X-*`` headers, then the configured
    ``MEMORY_DEFAULT_*`` identity) and the project and org labels it works in; the context
    also records where the identity came from, for the ``identity`` of every result."""
    settings = get_services(request).settings
    claims = header_claims(request)
    defaults = {
        "agent_id": settings.default_agent_id,
        "user_id": settings.default_user_id,
        "session_id": settings.default_session_id,
    }
    viewer = viewer_of(request, resolve_tenant(request, None), claims, defaults=defaults)
    named = [d for d in DIMENSIONS if claims.given(d)]
    defaulted: tuple[str, ...] = ()
    source: IdentitySource = "credentials"
    if not viewer.authenticated:
        defaulted = tuple(NOUNS[d] for d in defaults if not claims.given(d))
        source = "headers" if named else "defaults"
    return ToolContext(
        viewer=viewer,
        project_id=header_name(request, "X-Project-Id"),
        org_id=header_name(request, "X-Org-Id"),
        source=source,
        defaulted=defaulted,
    )


@router.get(
    "", response_model=t.ToolList, summary="The tools with their JSON Schemas, also in OpenAI function-calling form"
)
async def list_tools() -> dict[str, Any]:
    return {
        "tools": [{"name": n, "description": DESCRIPTIONS[n], "inputSchema": SCHEMAS[n]} for n in TOOL_NAMES],
        "openai": openai_functions(),
    }


async def _call(name: str, request: Request, svc: ServicesDep) -> dict[str, Any]:
    ctx = tool_context(request)
    raw = await request.body()
    args: Any = {}
    if raw.strip():
        try:
            args = await request.json()
        except ValueError:
            raise InvalidRequest("request body is not valid JSON", code="INVALID_INPUT") from None
    return await svc.tools.call(name, args, ctx)


def _tool_route(name: str) -> None:
    async def call(request: Request, svc: ServicesDep) -> dict[str, Any]:
        return await _call(name, request, svc)

    router.add_api_route(
        f"/{name}",
        call,
        methods=["POST"],
        name=f"tool_{name}",
        response_model=t.ToolResult,
        summary=f"Call {name}; the body is its arguments object",
        description=DESCRIPTIONS[name],
        openapi_extra=request_body(name),
    )


for _name in TOOL_NAMES:
    _tool_route(_name)


@router.post("/{name}", response_model=t.ToolResult, include_in_schema=False)
async def call_unknown_tool(name: str, request: Request, svc: ServicesDep) -> dict[str, Any]:
    """Any other name: the tool service's 404 naming the tools there are."""
    return await _call(name, request, svc)


# --- knowledge repository -------------------------------------------------------------------
# Knowledge items (ADRs, policies, patterns, specs) are the tenant's documents: every caller of
# the tenant reads them (docs/security.md, "Who sees what"); their synced memory nodes are in
# the shared lane.
def _author(request: Request, tenant: str) -> dict[str, str | None]:
    """Who writes a version (its agent, else its role), and the user it acts for: an erasure
    of that user or agent erases the item (domain/erasure.py)."""
    viewer = viewer_of(request, tenant, header_claims(request))
    return {"author": viewer.agent_id or viewer.role, "user_id": viewer.user_id}


@knowledge_router.get("/items", response_model=t.ItemList, summary="List knowledge items")
async def list_items(
    request: Request,
    svc: ServicesDep,
    type: list[str] | None = Query(None),
    layer: list[str] | None = Query(None),
    status: list[str] | None = Query(None),
    limit: int = Query(100, ge=1, le=1000),
) -> dict[str, Any]:
    tenant = resolve_tenant(request, None)
    items = await svc.knowledge.list_items(tenant, ItemFilter(types=type, layers=layer, statuses=status), limit=limit)
    return {"success": True, "items": [item_dto(i, include_constraints=True) for i in items], "totalCount": len(items)}


@knowledge_router.post("/items", response_model=t.ItemReply, summary="Create a knowledge item", status_code=201)
async def create_item(body: KnowledgeItemIn, request: Request, svc: ServicesDep) -> JSONResponse:
    tenant = resolve_tenant(request, None)
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
    rec = await svc.knowledge.create(tenant, raw, **_author(request, tenant), message=body.message)
    return JSONResponse({"success": True, "item": item_dto(rec)}, status_code=201)


@knowledge_router.get("/items/{item_id}", response_model=t.ItemReply, summary="One knowledge item")
async def get_item(
    item_id: ItemId, request: Request, svc: ServicesDep, include_history: bool = False
) -> dict[str, Any]:
    tenant = resolve_tenant(request, None)
    rec = await svc.knowledge.get(tenant, item_id)
    out: dict[str, Any] = {"success": True, "item": item_dto(rec)}
    if include_history:
        out["history"] = [version_dto(v) for v in await svc.knowledge.history(tenant, item_id)]
    return out


@knowledge_router.patch(
    "/items/{item_id}", response_model=t.ItemReply, summary="Change a knowledge item (a new version)"
)
async def update_item(item_id: ItemId, body: KnowledgeItemPatch, request: Request, svc: ServicesDep) -> dict[str, Any]:
    tenant = resolve_tenant(request, None)
    await quota(request, "write", tenant)
    changes = {k: v for k, v in body.model_dump(exclude_unset=True).items() if k != "message"}
    rec = await svc.knowledge.update(tenant, item_id, changes, **_author(request, tenant), message=body.message)
    return {"success": True, "item": item_dto(rec)}


@knowledge_router.delete("/items/{item_id}", response_model=t.ItemDeleted, summary="Delete a knowledge item")
async def delete_item(item_id: ItemId, request: Request, svc: ServicesDep) -> dict[str, Any]:
    tenant = resolve_tenant(request, None)
    await quota(request, "write", tenant)
    await svc.knowledge.delete(tenant, item_id)
    return {"success": True, "message": f"Knowledge item {item_id!r} deleted; run sync_now to remove it from memory"}


@knowledge_router.get(
    "/items/{item_id}/history", response_model=t.History, summary="Version history of a knowledge item"
)
async def item_history(item_id: ItemId, request: Request, svc: ServicesDep) -> dict[str, Any]:
    tenant = resolve_tenant(request, None)
    return {"success": True, "history": [version_dto(v) for v in await svc.knowledge.history(tenant, item_id)]}


@knowledge_router.post(
    "/import", response_model=t.ImportReply, summary="Import Markdown documents with YAML front matter (ADRs etc.)"
)
async def import_documents(body: ImportIn, request: Request, svc: ServicesDep) -> dict[str, Any]:
    tenant = resolve_tenant(request, None)
    await quota(request, "write", tenant)
    saved = await svc.knowledge.import_documents(
        tenant, [(d.path, d.content) for d in body.documents], **_author(request, tenant)
    )
    return {"success": True, "items": [{"id": r.id, "version": str(r.version), "status": r.status} for r in saved]}
