"""The layered surface: ``/v1/layers/{write,read,update,delete,search}`` and task completion.

The caller's role is the credentials' ``role`` (API key or JWT), or ``X-Agent-Role`` when auth
is off; no role means the user-facing agent. See docs/api-layers.md.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Path, Request

from memlane.api.common.body import JsonBodyRoute
from memlane.api.common.deps import (
    DebugEmbeddingsAllowed,
    DebugEmbeddingsGate,
    ServicesDep,
    authenticated,
    quota,
    resolve_scope,
    resolve_tenant,
)
from memlane.api.common.identity import header_claims, viewer_of
from memlane.api.common.read_routing import RoutedRead
from memlane.api.layers import responses as r
from memlane.api.layers.requests import DeleteIn, ReadIn, SearchIn, UpdateIn, WriteIn
from memlane.api.layers.responses import memory_object
from memlane.domain.inputs import NAME_PATTERN
from memlane.domain.visibility import Viewer
from memlane.services.layers.service import Hit, ReadInput, SearchInput, UpdateInput, WriteInput
from memlane.services.recall.debug import embedding_preview

router = APIRouter(
    route_class=JsonBodyRoute, prefix="/v1/layers", tags=["layered memory"], dependencies=[Depends(authenticated)]
)


def caller_of(request: Request, body_tenant: str | None) -> Viewer:
    return viewer_of(request, resolve_tenant(request, body_tenant), header_claims(request))


async def _results(
    svc: ServicesDep, caller: Viewer, hits: list[Hit], include_embeddings: bool, debug: DebugEmbeddingsGate
) -> list[r.MemoryObject]:
    """MemoryObjects; with ``include_embeddings`` (admin only), the debug channel's view of the
    first results' vectors: a preview of their leading dimensions, their length and sha256,
    never the whole vector (docs/security.md)."""
    previews: dict[str, dict[str, Any]] = {}
    if include_embeddings:
        await debug.admit(caller.tenant_id, code="embeddings_forbidden", field="include_embeddings")
        vectors = await svc.layers.embeddings_of(caller, [h.node for h in hits])
        previews = embedding_preview(vectors, [h.node.id for h in hits])
    return [memory_object(h.node, score=h.score, embedding=previews.get(h.node.id)) for h in hits]


@router.post(
    "/write", response_model=r.LayersWriteReply, summary="Store a memory in the identity, project or workspace layer"
)
async def write(body: WriteIn, request: Request, svc: ServicesDep) -> r.LayersWriteReply:
    caller = caller_of(request, body.tenant_id)
    await quota(request, "write", caller.tenant_id)
    out = await svc.layers.write(
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
    response: r.LayersWriteReply = {"success": True, "id": memory_object(out.node)["id"], "layer": out.node.layer}
    if out.routing is not None:
        response["routing"] = {
            "layer": out.routing.layer,
            "reason": out.routing.reason,
            "classifier": out.routing.classifier,
        }
    return response


@router.post(
    "/read",
    response_model=r.ReadReply,
    summary="Read memories of one layer (semantic, keyword, id or task mode)",
    dependencies=[RoutedRead],
)
async def read(body: ReadIn, request: Request, svc: ServicesDep, debug: DebugEmbeddingsAllowed) -> r.ReadReply:
    caller = caller_of(request, body.tenant_id)
    await quota(request, "recall", caller.tenant_id)
    hits = await svc.layers.read(
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
        "results": await _results(svc, caller, hits, body.include_embeddings, debug),
    }


@router.post("/update", response_model=r.Done, summary="Modify a memory")
async def update(body: UpdateIn, request: Request, svc: ServicesDep) -> r.Done:
    caller = caller_of(request, body.tenant_id)
    await quota(request, "write", caller.tenant_id)
    await svc.layers.update(
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


@router.post("/delete", response_model=r.Done, summary="Remove a memory")
async def delete(body: DeleteIn, request: Request, svc: ServicesDep) -> r.Done:
    caller = caller_of(request, body.tenant_id)
    await quota(request, "write", caller.tenant_id)
    await svc.layers.delete(caller, body.id, user_instruction=body.user_instruction)
    return {"success": True}


@router.post(
    "/search",
    response_model=r.SearchReply,
    summary="Semantic search in one layer, or every layer the role may see",
    dependencies=[RoutedRead],
)
async def search(body: SearchIn, request: Request, svc: ServicesDep, debug: DebugEmbeddingsAllowed) -> r.SearchReply:
    caller = caller_of(request, body.tenant_id)
    await quota(request, "recall", caller.tenant_id)
    hits = await svc.layers.search(
        caller,
        SearchInput(
            query=body.query,
            scope=resolve_scope(request, body.scope),
            layer=body.layer,
            top_k=body.top_k,
            task_id=body.task_id,
            agent=body.agent,
            tags=list(body.tags),
            when=body.when,
        ),
    )
    return {"success": True, "results": await _results(svc, caller, hits, body.include_embeddings, debug)}


@router.post(
    "/tasks/{task_id}/complete",
    response_model=r.TaskCompleted,
    summary="Mark a task complete: its workspace memories are deleted",
)
async def complete_task(
    request: Request, svc: ServicesDep, task_id: str = Path(..., min_length=1, max_length=256, pattern=NAME_PATTERN)
) -> r.TaskCompleted:
    caller = caller_of(request, None)
    await quota(request, "write", caller.tenant_id)
    deleted = await svc.layers.complete_task(caller, task_id)
    return {"success": True, "task_id": task_id, "deleted": deleted}
