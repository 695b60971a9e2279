"""The layered surface: ``/v1/layers/{write,read,update,delete,search}`` and task completion.

The caller's role is the credentials' ``role`` (API key or JWT), or ``X-Agent-Role`` when auth
is off; no role means the user-facing agent. See docs/api-layers.md.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Path, Request

from memlane.api.auth import principal_of
from memlane.api.deps import admin_authorized, authenticated, quota, resolve_scope, resolve_tenant, services
from memlane.api.json_body import JsonBodyRoute
from memlane.api.layers_dto import DeleteIn, ReadIn, SearchIn, UpdateIn, WriteIn, memory_object
from memlane.domain.errors import Forbidden
from memlane.services.layers.roles import canonical_role
from memlane.services.layers.service import (
    Caller,
    Hit,
    LayeredMemoryService,
    ReadInput,
    SearchInput,
    UpdateInput,
    WriteInput,
)
from memlane.services.tools.surface import surface

router = APIRouter(
    route_class=JsonBodyRoute, prefix="/v1/layers", tags=["layered memory"], dependencies=[Depends(authenticated)]
)


def _service(request: Request) -> LayeredMemoryService:
    return surface(services(request)).layers


def caller_of(request: Request, body_tenant: str | None) -> Caller:
    tenant = resolve_tenant(request, body_tenant)
    principal = principal_of(request)
    if principal.method == "off":
        role = canonical_role(request.headers.get("x-agent-role"))
        agent = request.headers.get("x-agent-id") or None
    else:
        role = canonical_role(principal.role)
        agent = principal.agent_id
    return Caller(tenant_id=tenant, role=role, agent_id=agent)


async def _results(request: Request, caller: Caller, hits: list[Hit], include_embeddings: bool) -> list[dict[str, Any]]:
    vectors: dict[str, Any] = {}
    if include_embeddings:
        if not admin_authorized(request):
            raise Forbidden(
                "embeddings are returned only to admin-authorised callers (X-Admin-Token, or a loopback request "
                "when ADMIN_TOKEN is unset outside production)",
                code="embeddings_forbidden",
                details={"field": "include_embeddings"},
            )
        vectors = await _service(request).embeddings_of(caller, [h.node for h in hits])
    return [memory_object(h.node, score=h.score, embedding=vectors.get(h.node.id)) for h in hits]


@router.post("/write", summary="Store a memory in the identity, project or workspace layer")
async def write(body: WriteIn, request: Request) -> dict[str, Any]:
    caller = caller_of(request, body.tenant_id)
    await quota(request, "write", caller.tenant_id)
    out = await _service(request).write(
        caller,
        WriteInput(
            title=body.title,
            content=body.content,
            scope=resolve_scope(request, body.scope),
            layer=body.layer,
            meta=body.metadata.to_meta(),
            user_instruction=body.user_instruction,
        ),
    )
    response: dict[str, Any] = {"success": True, "id": memory_object(out.node)["id"], "layer": out.node.layer}
    if out.routing is not None:
        response["routing"] = {
            "layer": out.routing.layer,
            "reason": out.routing.reason,
            "classifier": out.routing.classifier,
        }
    return response


@router.post("/read", summary="Read memories of one layer (semantic, keyword, id or task mode)")
async def read(body: ReadIn, request: Request) -> dict[str, Any]:
    caller = caller_of(request, body.tenant_id)
    await quota(request, "recall", caller.tenant_id)
    hits = await _service(request).read(
        caller,
        ReadInput(
            layer=body.layer,
            scope=resolve_scope(request, body.scope),
            query=body.query,
            id=body.id,
            task_id=body.task_id,
            agent=body.agent,
            mode=body.mode,
            limit=body.limit,
            tags=list(body.tags),
        ),
    )
    return {
        "success": True,
        "mode": hits[0].mode if hits else (body.mode or None),
        "results": await _results(request, caller, hits, body.include_embeddings),
    }


@router.post("/update", summary="Modify a memory")
async def update(body: UpdateIn, request: Request) -> dict[str, Any]:
    caller = caller_of(request, body.tenant_id)
    await quota(request, "write", caller.tenant_id)
    await _service(request).update(
        caller,
        UpdateInput(
            id=body.id,
            new_title=body.new_title,
            new_content=body.new_content,
            new_meta=body.new_metadata.to_meta() if body.new_metadata is not None else None,
            user_instruction=body.user_instruction,
            user_confirmed=body.user_confirmed,
            system_refinement=body.system_refinement,
        ),
    )
    return {"success": True}


@router.post("/delete", summary="Remove a memory")
async def delete(body: DeleteIn, request: Request) -> dict[str, Any]:
    caller = caller_of(request, body.tenant_id)
    await quota(request, "write", caller.tenant_id)
    await _service(request).delete(caller, body.id, user_instruction=body.user_instruction)
    return {"success": True}


@router.post("/search", summary="Semantic search in one layer, or every layer the role may see")
async def search(body: SearchIn, request: Request) -> dict[str, Any]:
    caller = caller_of(request, body.tenant_id)
    await quota(request, "recall", caller.tenant_id)
    hits = await _service(request).search(
        caller,
        SearchInput(
            query=body.query,
            scope=resolve_scope(request, body.scope),
            layer=body.layer,
            top_k=body.top_k,
            task_id=body.task_id,
            agent=body.agent,
            tags=list(body.tags),
        ),
    )
    return {"success": True, "results": await _results(request, caller, hits, body.include_embeddings)}


@router.post("/tasks/{task_id}/complete", summary="Mark a task complete: its workspace memories are deleted")
async def complete_task(request: Request, task_id: str = Path(..., min_length=1, max_length=256)) -> dict[str, Any]:
    caller = caller_of(request, None)
    await quota(request, "write", caller.tenant_id)
    deleted = await _service(request).complete_task(caller, task_id)
    return {"success": True, "task_id": task_id, "deleted": deleted}
