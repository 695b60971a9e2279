"""``/v1/memory/write`` as a translation: request DTO -> identity claims -> WriteCommand ->
response DTO, each step a small pure function."""

from __future__ import annotations

from typing import Any

from memlane.api.common.identity import Claims
from memlane.api.graph.requests import WriteEdgeIn, WriteNodeIn, WriteRequest
from memlane.domain.hashing import sha256_hex
from memlane.domain.model import EdgeRef
from memlane.domain.visibility import Viewer
from memlane.services.writing import Authorship, WriteCommand, WriteEdgeSpec, WriteNodeSpec, WriteOutcome

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


def author_of(writer: Viewer) -> Authorship:
    """Identity auto-injection: nodes the write creates without an owner belong to the writer
    (its agent, else its team), and the writer produced them."""
    return Authorship(
        producer_agent_id=writer.agent_id,
        owner_agent_id=writer.agent_id,
        owner_team_id=writer.team_id if writer.agent_id is None else None,
    )


def node_spec(n: WriteNodeIn, user_id: str | None = None) -> WriteNodeSpec:
    """``user_id``: the user the writer acts for, recorded on a node the write creates, so that
    an erasure of that user finds it (domain/erasure.py) and only that user's callers see it
    (domain/visibility.py). Like the owners, it shapes a created node only: an update keeps the
    stored user, so editing a node never hands it to the editor's user."""
    return WriteNodeSpec(
        **{name: getattr(n, name) for name in NODE_FIELDS},
        id=str(n.id) if n.id else None,
        user_id=user_id,
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


def write_command(body: WriteRequest, scope: str, writer: Viewer) -> WriteCommand:
    """With auth on, lanes hold for the writer's upserts and edge endpoints; with auth off the
    writer is anonymous and identities are taken at their word (the contract's default). The
    owner fields the request names apply to every node it writes; the writer's own identity
    only to the nodes it creates without one."""
    return WriteCommand(
        tenant_id=writer.tenant_id,
        scope=scope,
        input_sha256=body.input_sha256 or sha256_hex(body.input_text or ""),
        # as on rules/state and feedback: the credentials' agent when the body names no actor
        actor=body.actor or (writer.agent_id if writer.authenticated else None),
        parent_commit_id=str(body.parent_commit_id) if body.parent_commit_id else None,
        model_version=body.model_version,
        prompt_version=body.prompt_version,
        auto_embed=body.auto_embed,
        force_reembed=body.force_reembed,
        memory_lane=body.memory_lane,
        producer_agent_id=body.producer_agent_id,
        owner_agent_id=body.owner_agent_id,
        owner_team_id=body.owner_team_id,
        viewer=writer if writer.authenticated else None,
        author=author_of(writer),
        nodes=[node_spec(n, writer.user_id) for n in body.nodes],
        edges=[edge_spec(e) for e in body.edges],
    )


def write_response(scope: str, tenant_id: str, outcome: WriteOutcome) -> dict[str, Any]:
    res = outcome.result
    response: dict[str, Any] = {
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
