"""``/v1/memory/write`` as a translation: request -> writer (identity claims) -> WriteCommand ->
response DTO, each step a small function; the write's authorship is ``WriteService.write_as``'s."""

from __future__ import annotations

from fastapi import Request

from memlane.api.common.auth import principal_of
from memlane.api.common.identity import Claims, header_claims, viewer_of
from memlane.api.graph.requests import WriteEdgeIn, WriteNodeIn, WriteRequest
from memlane.api.graph.responses import GraphWriteReply
from memlane.domain.hashing import sha256_hex
from memlane.domain.model import EdgeRef
from memlane.domain.visibility import Viewer
from memlane.services.writing import WriteCommand, WriteEdgeSpec, WriteNodeSpec, WriteOutcome

#: node fields copied as they are from the request into the write: all but the id (a UUID)
NODE_FIELDS = tuple(name for name in WriteNodeIn.model_fields if name != "id")
#: the interval fields of an edge (the others an edge update always sets)
INTERVAL_FIELDS = frozenset({"valid_at", "invalid_at"})


def write_claims(body: WriteRequest) -> Claims:
    """Every identity the body states, by field name: the writer must be able to speak for it."""
    agents: dict[str, str | None] = {"producer_agent_id": body.producer_agent_id, "owner_agent_id": body.owner_agent_id}
    teams: dict[str, str | None] = {"owner_team_id": body.owner_team_id}
    for i, n in enumerate(body.nodes):
        agents[f"nodes[{i}].producer_agent_id"] = n.producer_agent_id
        agents[f"nodes[{i}].owner_agent_id"] = n.owner_agent_id
        teams[f"nodes[{i}].owner_team_id"] = n.owner_team_id
    return Claims(agent_id=agents, team_id=teams)


def writer_of(request: Request, tenant_id: str, body: WriteRequest) -> Viewer:
    """Who writes. With auth on, the credentials, which must be able to speak for every
    identity the body states; with auth off an anonymous writer acting for ``X-User-Id``
    (headers name nobody else here)."""
    if principal_of(request).authenticated:
        return viewer_of(request, tenant_id, write_claims(body))
    return viewer_of(request, tenant_id, Claims(user_id=header_claims(request).user_id))


def node_spec(n: WriteNodeIn) -> WriteNodeSpec:
    """The node as sent; the user it records is the writer's (``WriteService.write_as``)."""
    return WriteNodeSpec(
        **{name: getattr(n, name) for name in NODE_FIELDS},
        id=str(n.id) if n.id else None,
        fields_set=frozenset(n.model_fields_set),
    )


def edge_spec(e: WriteEdgeIn) -> WriteEdgeSpec:
    return WriteEdgeSpec(
        type=e.type,
        id=str(e.id) if e.id else None,
        scope=e.scope,
        src=EdgeRef(id=str(e.src.id) if e.src.id else None, client_id=e.src.client_id),
        dst=EdgeRef(id=str(e.dst.id) if e.dst.id else None, client_id=e.dst.client_id),
        weight=e.weight,
        confidence=e.confidence,
        decay_rate=e.decay_rate,
        valid_at=e.valid_at,
        invalid_at=e.invalid_at,
        interval_set=frozenset(e.model_fields_set) & INTERVAL_FIELDS,
    )


def write_command(body: WriteRequest, scope: str, tenant_id: str) -> WriteCommand:
    """The request as a command. Who writes it, and so who the nodes it creates belong to, the
    commit's actor and whether lanes hold, is the writer's: ``WriteService.write_as`` derives
    it. The owner fields the request names apply to every node it writes."""
    return WriteCommand(
        tenant_id=tenant_id,
        scope=scope,
        input_sha256=body.input_sha256 or sha256_hex(body.input_text or ""),
        actor=body.actor,
        parent_commit_id=str(body.parent_commit_id) if body.parent_commit_id else None,
        model_version=body.model_version,
        prompt_version=body.prompt_version,
        auto_embed=body.auto_embed,
        force_reembed=body.force_reembed,
        memory_lane=body.memory_lane,
        producer_agent_id=body.producer_agent_id,
        owner_agent_id=body.owner_agent_id,
        owner_team_id=body.owner_team_id,
        nodes=[node_spec(n) for n in body.nodes],
        edges=[edge_spec(e) for e in body.edges],
    )


def write_response(scope: str, tenant_id: str, outcome: WriteOutcome) -> GraphWriteReply:
    res = outcome.result
    response: GraphWriteReply = {
        "tenant_id": tenant_id,
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
