"""Request and response shapes of the graph surface (docs/api-graph.md).

Requests are validated here, with the contract's defaults and bounds; responses are built
field by field from whitelists, so a new column can never leak into a response.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field, model_validator

from memlane.domain.clock import iso
from memlane.domain.model import Edge, Node

Unit = Annotated[float, Field(ge=0.0, le=1.0)]
ShortText = Annotated[str, Field(min_length=1, max_length=256)]
SHA256 = re.compile(r"^[0-9a-f]{64}$")
NodeTypeIn = Literal["event", "entity", "topic", "rule", "evidence", "concept", "procedure", "self_model"]
TierIn = Literal["hot", "warm", "cold", "archive"]
LaneIn = Literal["private", "shared"]

MAX_NODES_PER_WRITE = 5000
MAX_EDGES_PER_WRITE = 10000


class Strict(BaseModel):
    """Unknown fields are refused: a misspelt bound should fail loudly, not be ignored."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)


class Provenance(Strict):
    input_text: str | None = Field(None, max_length=1_000_000)
    input_sha256: str | None = None

    @model_validator(mode="after")
    def _one_input(self) -> Provenance:
        if self.input_text is None and self.input_sha256 is None:
            raise ValueError("input_text or input_sha256 is required (provenance of the request)")
        if self.input_sha256 is not None and not SHA256.match(self.input_sha256):
            raise ValueError("input_sha256 must be 64 lowercase hex characters")
        return self


class TenantScoped(Strict):
    tenant_id: ShortText | None = None
    scope: ShortText | None = None


class WriteNodeIn(Strict):
    id: UUID | None = None
    client_id: ShortText | None = None
    scope: ShortText | None = None
    type: NodeTypeIn
    tier: TierIn | None = None
    memory_lane: LaneIn | None = None
    producer_agent_id: ShortText | None = None
    owner_agent_id: ShortText | None = None
    owner_team_id: ShortText | None = None
    title: str | None = Field(None, max_length=2000)
    text_summary: str | None = Field(None, max_length=100_000)
    slots: dict[str, Any] | None = None
    raw_ref: str | None = Field(None, max_length=4000)
    evidence_ref: str | None = Field(None, max_length=4000)
    embedding: list[float] | None = Field(None, min_length=1, max_length=8192)
    embedding_model: ShortText | None = None
    salience: Unit | None = None
    importance: Unit | None = None
    confidence: Unit | None = None


class EdgeEndIn(Strict):
    id: UUID | None = None
    client_id: ShortText | None = None

    @model_validator(mode="after")
    def _one_ref(self) -> EdgeEndIn:
        if (self.id is None) == (self.client_id is None):
            raise ValueError("give exactly one of id or client_id")
        return self


class WriteEdgeIn(Strict):
    id: UUID | None = None
    scope: ShortText | None = None
    type: Literal["part_of", "related_to", "derived_from"]
    src: EdgeEndIn
    dst: EdgeEndIn
    weight: Unit | None = None
    confidence: Unit | None = None
    decay_rate: Unit | None = None


class WriteRequest(TenantScoped, Provenance):
    actor: ShortText | None = None
    parent_commit_id: UUID | None = None
    model_version: ShortText | None = None
    prompt_version: ShortText | None = None
    auto_embed: bool | None = None
    force_reembed: bool = False
    memory_lane: LaneIn | None = None
    producer_agent_id: ShortText | None = None
    owner_agent_id: ShortText | None = None
    owner_team_id: ShortText | None = None
    nodes: list[WriteNodeIn] = Field(default_factory=list, max_length=MAX_NODES_PER_WRITE)
    edges: list[WriteEdgeIn] = Field(default_factory=list, max_length=MAX_EDGES_PER_WRITE)


class RecallBase(TenantScoped):
    consumer_agent_id: ShortText | None = None
    consumer_team_id: ShortText | None = None
    limit: int = Field(30, ge=1, le=200)
    neighborhood_hops: Literal[1, 2] = 2
    max_nodes: int = Field(50, ge=1, le=200)
    max_edges: int = Field(100, ge=0, le=100)
    ranked_limit: int = Field(100, ge=1, le=500)
    min_edge_weight: float = Field(0.0, ge=0.0, le=1.0)
    min_edge_confidence: float = Field(0.0, ge=0.0, le=1.0)
    include_meta: bool = False
    include_slots: bool = False
    include_slots_preview: bool = False
    slots_preview_keys: int = Field(10, ge=1, le=50)
    return_debug: bool = False
    #: per seed, why it ranked: similarity, keyword, fused, entity_boost, time_boost, base, graph, score
    explain: bool = False
    include_embeddings: bool = False
    rules_context: Any = None
    rules_include_shadow: bool = False
    rules_limit: int = Field(50, ge=1, le=200)

    @model_validator(mode="after")
    def _debug_needs_return_debug(self) -> RecallBase:
        if self.include_embeddings and not self.return_debug:
            raise ValueError("include_embeddings=true requires return_debug=true (debug-only channel)")
        return self


class RecallRequest(RecallBase):
    query_embedding: list[float] = Field(..., min_length=1, max_length=8192)


class RecallTextRequest(RecallBase):
    query_text: str = Field(..., min_length=1, max_length=20_000)


# --- responses --------------------------------------------------------------------------
META_FIELDS = (
    "raw_ref",
    "evidence_ref",
    "embedding_status",
    "embedding_model",
    "memory_lane",
    "producer_agent_id",
    "owner_agent_id",
    "owner_team_id",
    "created_at",
    "updated_at",
    "last_activated",
    "salience",
    "importance",
    "confidence",
    "commit_id",
)


def node_dto(
    n: Node, *, include_meta: bool, include_slots: bool, include_slots_preview: bool, slots_preview_keys: int
) -> dict[str, Any]:
    out: dict[str, Any] = {"id": n.id, "type": n.type, "title": n.title, "text_summary": n.text_summary}
    if n.type == "topic":
        if n.topic_state is not None:
            out["topic_state"] = n.topic_state
        member_count = n.slots.get("member_count")
        if isinstance(member_count, int):
            out["member_count"] = member_count
    if include_slots:
        out["slots"] = n.slots
    if include_slots_preview:
        keys = sorted(n.slots)[:slots_preview_keys]
        out["slots_preview"] = {k: n.slots[k] for k in keys}
    if include_meta:
        for name in META_FIELDS:
            value = getattr(n, name)
            out[name] = iso(value) if name in ("created_at", "updated_at", "last_activated") else value
    return out


def edge_dto(e: Edge, *, include_meta: bool) -> dict[str, Any]:
    out: dict[str, Any] = {"from_id": e.src_id, "to_id": e.dst_id, "type": e.type, "weight": e.weight}
    if include_meta:
        out["commit_id"] = e.commit_id
    return out


def seed_dto(n: Node, similarity: float, relevance: float) -> dict[str, Any]:
    """``similarity`` is the raw cosine; ``relevance`` the same on the calibrated 0..1 scale."""
    return {
        "id": n.id,
        "type": n.type,
        "title": n.title,
        "text_summary": n.text_summary,
        "tier": n.tier,
        "salience": n.salience,
        "confidence": n.confidence,
        "similarity": round(similarity, 6),
        "relevance": round(relevance, 6),
    }
