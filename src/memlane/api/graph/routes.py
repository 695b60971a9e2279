"""The graph surface: ``/v1/memory/write``, ``/recall``, ``/recall_text``."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Request

from memlane.api.common.body import JsonBodyRoute, json_request_body, validated_body
from memlane.api.common.deps import (
    DebugEmbeddingsAllowed,
    DebugEmbeddingsGate,
    ServicesDep,
    admit_queued_write,
    authenticated,
    quota,
    resolve_scope,
    resolve_tenant,
)
from memlane.api.common.identity import Claims, viewer_of
from memlane.api.common.read_routing import RoutedRead
from memlane.api.graph import responses as g
from memlane.api.graph.requests import (
    RecallBase,
    RecallRequest,
    RecallTextRequest,
    WriteRequest,
)
from memlane.api.graph.responses import edge_dto, node_dto, seed_dto
from memlane.api.graph.write import write_command, write_response, writer_of
from memlane.api.rules.routes import recall_rules_question
from memlane.services.recall.graph_recall import GraphRecallOutcome
from memlane.services.recall.model import RecallParams

router = APIRouter(
    route_class=JsonBodyRoute, prefix="/v1/memory", tags=["graph memory"], dependencies=[Depends(authenticated)]
)


@router.post(
    "/write",
    response_model=g.GraphWriteReply,
    summary="Write nodes and edges in one commit",
    openapi_extra=json_request_body(WriteRequest),
)
async def write(request: Request, svc: ServicesDep) -> g.GraphWriteReply:
    body = await validated_body(request, WriteRequest)
    tenant = resolve_tenant(request, body.tenant_id)
    scope = resolve_scope(request, body.scope)
    writer = writer_of(request, tenant, body)
    await quota(request, "write", tenant)
    await admit_queued_write(request, tenant)
    outcome = await svc.writes.write_as(writer, write_command(body, scope, tenant))
    return write_response(scope, tenant, outcome)


async def _params(
    body: RecallBase, request: Request, debug: DebugEmbeddingsGate, endpoint: str, query_text: str | None
) -> RecallParams:
    tenant = resolve_tenant(request, body.tenant_id)
    claims = Claims(
        agent_id={"consumer_agent_id": body.consumer_agent_id}, team_id={"consumer_team_id": body.consumer_team_id}
    )
    viewer = viewer_of(request, tenant, claims)
    await quota(request, "recall", tenant)
    if body.include_embeddings:
        await debug.admit(tenant, code="debug_embeddings_forbidden")
    return RecallParams(
        viewer=viewer,
        scope=resolve_scope(request, body.scope),
        limit=body.limit,
        neighborhood_hops=body.neighborhood_hops,
        max_nodes=body.max_nodes,
        max_edges=body.max_edges,
        ranked_limit=body.ranked_limit,
        min_edge_weight=body.min_edge_weight,
        min_edge_confidence=body.min_edge_confidence,
        include_embeddings=body.include_embeddings,
        debug_embeddings_allowed=body.include_embeddings,
        endpoint=endpoint,
        query_text=query_text,
        when=body.when,
        explain=body.explain,
    )


def _response(body: RecallBase, p: RecallParams, answer: GraphRecallOutcome) -> g.RecallReply:
    out = answer.recall
    # intervals are shown to a caller who asked about time (as_of, include_invalid) or for meta;
    # otherwise every DTO is the contract's whitelist (docs/api-graph.md)
    with_interval = body.include_meta or body.as_of is not None or body.include_invalid
    opts: dict[str, Any] = {
        "include_meta": body.include_meta,
        "include_slots": body.include_slots,
        "include_slots_preview": body.include_slots_preview,
        "slots_preview_keys": body.slots_preview_keys,
        "with_interval": with_interval,
    }
    seed_opts = {"include_meta": body.include_meta, "with_interval": with_interval}
    response: g.RecallReply = {
        "tenant_id": p.tenant_id,
        "scope": p.scope,
        "seeds": [seed_dto(s.node, s.similarity, out.seed_relevance[s.node.id], **seed_opts) for s in out.seeds],
        "ranked": [{"id": r.id, "activation": round(r.activation, 6), "score": round(r.score, 6)} for r in out.ranked],
        "subgraph": {
            "nodes": [node_dto(n, **opts) for n in out.nodes],
            "edges": [edge_dto(e, include_meta=body.include_meta, with_interval=with_interval) for e in out.edges],
        },
        "context": {"text": out.context.text, "items": out.context.items, "citations": out.context.citations},
    }
    if body.explain:
        response["explain"] = {nid: {k: round(v, 6) for k, v in why.items()} for nid, why in out.signals.items()}
    if body.return_debug:
        debug: g.RecallDebug = {"neighborhood_counts": out.neighborhood_counts}
        if out.debug_embeddings is not None:
            debug["embeddings"] = out.debug_embeddings
        response["debug"] = debug
    if answer.rules is not None:
        response["rules"] = answer.rules
    return response


@router.post(
    "/recall",
    response_model=g.RecallReply,
    summary="Recall a subgraph by query embedding",
    dependencies=[RoutedRead],
)
async def recall(
    body: RecallRequest, request: Request, svc: ServicesDep, debug: DebugEmbeddingsAllowed
) -> g.RecallReply:
    p = await _params(body, request, debug, "recall", None)
    rules = recall_rules_question(request, p.tenant_id, body)
    return _response(body, p, await svc.graph_recall.by_vector(body.query_embedding, p, rules))


@router.post(
    "/recall_text",
    response_model=g.RecallTextReply,
    summary="Recall a subgraph by query text, embedded by the server",
    dependencies=[RoutedRead],
)
async def recall_text(
    body: RecallTextRequest, request: Request, svc: ServicesDep, debug: DebugEmbeddingsAllowed
) -> g.RecallTextReply:
    p = await _params(body, request, debug, "recall_text", body.query_text)
    rules = recall_rules_question(request, p.tenant_id, body)
    answer = await svc.graph_recall.by_text(body.query_text, p, rules)
    return {
        **_response(body, p, answer),
        "query": {"text": body.query_text, "embedding_provider": answer.embedding_provider},
    }
