"""The graph surface: ``/v1/memory/write``, ``/recall``, ``/recall_text``."""

from __future__ import annotations

from typing import Any

import numpy as np
from fastapi import APIRouter, Depends, Request

from memlane.api.auth import Principal, check_identity, principal_of
from memlane.api.deps import admin_authorized, authenticated, quota, resolve_scope, resolve_tenant, services
from memlane.api.graph_dto import (
    RecallBase,
    RecallRequest,
    RecallTextRequest,
    WriteRequest,
    edge_dto,
    node_dto,
    seed_dto,
)
from memlane.api.json_body import JsonBodyRoute, json_request_body, validated_body
from memlane.api.rules import recall_rules_block, recall_rules_context
from memlane.domain.errors import Forbidden
from memlane.domain.hashing import sha256_hex
from memlane.domain.model import EdgeRef, Visibility
from memlane.services.layers.roles import WORKSPACE, canonical_role, is_system
from memlane.services.recall import RecallOutcome, RecallParams
from memlane.services.writing import WriteCommand, WriteEdgeSpec, WriteNodeSpec

router = APIRouter(
    route_class=JsonBodyRoute, prefix="/v1/memory", tags=["graph memory"], dependencies=[Depends(authenticated)]
)


@router.post("/write", summary="Write nodes and edges in one commit", openapi_extra=json_request_body(WriteRequest))
async def write(request: Request) -> dict[str, Any]:
    body = await validated_body(request, WriteRequest)
    svc = services(request)
    tenant = resolve_tenant(request, body.tenant_id)
    scope = resolve_scope(request, body.scope)
    principal = principal_of(request)
    producer, owner_agent, owner_team = _write_identity(body, principal)
    await quota(request, "write", tenant)
    cmd = WriteCommand(
        tenant_id=tenant,
        scope=scope,
        input_sha256=body.input_sha256 or sha256_hex(body.input_text or ""),
        actor=body.actor,
        parent_commit_id=str(body.parent_commit_id) if body.parent_commit_id else None,
        model_version=body.model_version,
        prompt_version=body.prompt_version,
        auto_embed=body.auto_embed,
        force_reembed=body.force_reembed,
        memory_lane=body.memory_lane,
        producer_agent_id=producer,
        owner_agent_id=owner_agent,
        owner_team_id=owner_team,
        writer=(Visibility(principal.agent_id, principal.team_id) if principal.agent_id or principal.team_id else None),
        nodes=[
            WriteNodeSpec(
                type=n.type,
                fields_set=frozenset(n.model_fields_set),
                id=str(n.id) if n.id else None,
                client_id=n.client_id,
                scope=n.scope,
                tier=n.tier,
                memory_lane=n.memory_lane,
                producer_agent_id=n.producer_agent_id,
                owner_agent_id=n.owner_agent_id,
                owner_team_id=n.owner_team_id,
                title=n.title,
                text_summary=n.text_summary,
                slots=n.slots,
                raw_ref=n.raw_ref,
                evidence_ref=n.evidence_ref,
                embedding=n.embedding,
                embedding_model=n.embedding_model,
                salience=n.salience,
                importance=n.importance,
                confidence=n.confidence,
            )
            for n in body.nodes
        ],
        edges=[
            WriteEdgeSpec(
                type=e.type,
                id=str(e.id) if e.id else None,
                scope=e.scope,
                src=EdgeRef(id=str(e.src.id) if e.src.id else None, client_id=e.src.client_id),
                dst=EdgeRef(id=str(e.dst.id) if e.dst.id else None, client_id=e.dst.client_id),
                weight=e.weight,
                confidence=e.confidence,
                decay_rate=e.decay_rate,
            )
            for e in body.edges
        ],
    )
    outcome = await svc.writes.write(cmd)
    res = outcome.result
    response: dict[str, Any] = {
        "tenant_id": tenant,
        "scope": scope,
        "commit_id": res.commit.id,
        "commit_hash": res.commit.commit_hash,
        "nodes": [{"id": n.id, "client_id": n.client_id, "type": n.type} for n in res.nodes],
        "edges": [{"id": e.id, "type": e.type, "src_id": e.src_id, "dst_id": e.dst_id} for e in res.edges],
    }
    if res.pending_node_ids:
        response["embedding_backfill"] = {
            "enqueued": outcome.embed_job_id is not None,
            "pending": len(res.pending_node_ids),
        }
    return response


def _write_identity(body: WriteRequest, principal: Principal) -> tuple[str | None, str | None, str | None]:
    """Identity auto-injection for writes: the producer is the caller, and private nodes
    without an owner belong to the caller (its agent, else its team)."""
    agents: dict[str, str | None] = {"producer_agent_id": body.producer_agent_id, "owner_agent_id": body.owner_agent_id}
    teams: dict[str, str | None] = {"owner_team_id": body.owner_team_id}
    for i, n in enumerate(body.nodes):
        agents[f"nodes[{i}].producer_agent_id"] = n.producer_agent_id
        agents[f"nodes[{i}].owner_agent_id"] = n.owner_agent_id
        teams[f"nodes[{i}].owner_team_id"] = n.owner_team_id
    check_identity(principal, agent_fields=agents, team_fields=teams)
    producer = body.producer_agent_id or principal.agent_id
    owner_agent, owner_team = body.owner_agent_id, body.owner_team_id
    if owner_agent is None and owner_team is None:
        owner_agent = principal.agent_id
        owner_team = principal.team_id if principal.agent_id is None else None
    return producer, owner_agent, owner_team


def _system_agent(request: Request, principal: Principal) -> bool:
    """Workspace memory is for system agents only, on every surface: the role comes from the
    credentials, or from ``X-Agent-Role`` when auth is off; no role is the user-facing agent."""
    raw = principal.role if principal.method != "off" else request.headers.get("x-agent-role")
    return is_system(canonical_role(raw))


async def _params(body: RecallBase, request: Request, endpoint: str, query_text: str | None) -> RecallParams:
    principal = principal_of(request)
    check_identity(
        principal,
        agent_fields={"consumer_agent_id": body.consumer_agent_id},
        team_fields={"consumer_team_id": body.consumer_team_id},
    )
    tenant = resolve_tenant(request, body.tenant_id)
    await quota(request, "recall", tenant)
    allowed = False
    if body.include_embeddings:
        await quota(request, "debug_embeddings", tenant)
        allowed = admin_authorized(request)
        if not allowed:
            raise Forbidden(
                "debug embeddings need X-Admin-Token (or, with ADMIN_TOKEN unset outside production, a "
                "loopback request)",
                code="debug_embeddings_forbidden",
            )
    return RecallParams(
        tenant_id=tenant,
        scope=resolve_scope(request, body.scope),
        limit=body.limit,
        neighborhood_hops=body.neighborhood_hops,
        max_nodes=body.max_nodes,
        max_edges=body.max_edges,
        ranked_limit=body.ranked_limit,
        min_edge_weight=body.min_edge_weight,
        min_edge_confidence=body.min_edge_confidence,
        consumer_agent_id=body.consumer_agent_id or principal.agent_id,
        consumer_team_id=body.consumer_team_id or principal.team_id,
        include_embeddings=body.include_embeddings,
        debug_embeddings_allowed=allowed,
        endpoint=endpoint,
        query_text=query_text,
        exclude_layers=() if _system_agent(request, principal) else (WORKSPACE,),
    )


def _response(body: RecallBase, p: RecallParams, out: RecallOutcome) -> dict[str, Any]:
    opts: dict[str, Any] = {
        "include_meta": body.include_meta,
        "include_slots": body.include_slots,
        "include_slots_preview": body.include_slots_preview,
        "slots_preview_keys": body.slots_preview_keys,
    }
    response: dict[str, Any] = {
        "tenant_id": p.tenant_id,
        "scope": p.scope,
        "seeds": [seed_dto(n, s) for n, s in out.seeds],
        "ranked": [
            {"id": nid, "activation": round(act, 6), "score": round(score, 6)} for nid, act, score in out.ranked
        ],
        "subgraph": {
            "nodes": [node_dto(n, **opts) for n in out.nodes],
            "edges": [edge_dto(e, include_meta=body.include_meta) for e in out.edges],
        },
        "context": {"text": out.context_text, "items": out.context_items, "citations": out.citations},
    }
    if body.return_debug:
        debug: dict[str, Any] = {"neighborhood_counts": out.neighborhood_counts}
        if out.debug_embeddings is not None:
            debug["embeddings"] = out.debug_embeddings
        response["debug"] = debug
    return response


@router.post("/recall", summary="Recall a subgraph by query embedding")
async def recall(body: RecallRequest, request: Request) -> dict[str, Any]:
    svc = services(request)
    p = await _params(body, request, "recall", None)
    rules_context = recall_rules_context(request, body)
    svc.recall.check_dimension(body.query_embedding)
    out = await svc.recall.recall(np.asarray(body.query_embedding, dtype=np.float32), p)
    response = _response(body, p, out)
    if rules_context is not None:
        response["rules"] = await recall_rules_block(
            request,
            p.tenant_id,
            p.scope,
            rules_context,
            include_shadow=body.rules_include_shadow,
            limit=body.rules_limit,
        )
    return response


@router.post("/recall_text", summary="Recall a subgraph by query text, embedded by the server")
async def recall_text(body: RecallTextRequest, request: Request) -> dict[str, Any]:
    svc = services(request)
    p = await _params(body, request, "recall_text", body.query_text)
    rules_context = recall_rules_context(request, body)
    vector = (await svc.embedding.embed_query(body.query_text))[0]
    out = await svc.recall.recall(vector, p)
    response = _response(body, p, out)
    response["query"] = {"text": body.query_text, "embedding_provider": svc.embedder.provider}
    if rules_context is not None:
        response["rules"] = await recall_rules_block(
            request,
            p.tenant_id,
            p.scope,
            rules_context,
            include_shadow=body.rules_include_shadow,
            limit=body.rules_limit,
        )
    return response
