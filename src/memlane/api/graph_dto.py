"""Request and response shapes of the graph surface (docs/api-graph.md).

Requests are validated here, with the contract's defaults and bounds; responses are built
field by field from whitelists, so a new column can never leak into a response.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal
from uuid import UUID

from pydantic import Field, GetJsonSchemaHandler, model_validator
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema

from memlane.api.instants import IntervalIn, TimeQuestionIn
from memlane.api.schema_rules import JsonInt, absent, any_of, both, given, value, with_rules
from memlane.domain.clock import iso
from memlane.domain.inputs import ClientId, FreeObject, Name, ScopeName, Strict, TenantName, VersionName
from memlane.domain.model import Edge, Node
from memlane.domain.node_fields import META_NODE_FIELDS, NODE_TIME_FIELDS
from memlane.services.recall.debug import DEBUG_MAX_LIMIT

Unit = Annotated[float, Field(ge=0.0, le=1.0)]
#: an agent, team or run id, an actor, a model name (domain/inputs.py: no control characters)
ShortText = Name
#: a vector component: beyond this, float32 sums of squares overflow and scores become NaN
Component = Annotated[float, Field(ge=-1e6, le=1e6)]
SHA256 = re.compile(r"^[0-9a-f]{64}$")
NodeTypeIn = Literal["event", "entity", "topic", "rule", "evidence", "concept", "procedure", "self_model"]
TierIn = Literal["hot", "warm", "cold", "archive"]
LaneIn = Literal["private", "shared"]

MAX_NODES_PER_WRITE = 5000
MAX_EDGES_PER_WRITE = 10000


#: a UUID as JSON carries it (a string): strict mode alone would want a ``UUID`` object
UUIDIn = Annotated[UUID, Field(strict=False)]


class Provenance(Strict):
    input_text: str | None = Field(None, max_length=1_000_000)
    input_sha256: str | None = Field(None, json_schema_extra={"pattern": SHA256.pattern})

    @classmethod
    def __get_pydantic_json_schema__(cls, core: CoreSchema, handler: GetJsonSchemaHandler) -> JsonSchemaValue:
        schema = super().__get_pydantic_json_schema__(core, handler)
        return with_rules(handler, schema, any_of(given("input_text"), given("input_sha256")))

    @model_validator(mode="after")
    def _one_input(self) -> Provenance:
        if self.input_text is None and self.input_sha256 is None:
            raise ValueError("input_text or input_sha256 is required (provenance of the request)")
        if self.input_sha256 is not None and not SHA256.match(self.input_sha256):
            raise ValueError("input_sha256 must be 64 lowercase hex characters")
        return self


class TenantScoped(Strict):
    tenant_id: TenantName | None = None
    scope: ScopeName | None = None


class WriteNodeIn(Strict, IntervalIn):
    id: UUIDIn | None = None
    client_id: ClientId | None = None
    scope: ScopeName | None = None
    type: NodeTypeIn
    tier: TierIn | None = None
    memory_lane: LaneIn | None = None
    producer_agent_id: ShortText | None = None
    owner_agent_id: ShortText | None = None
    owner_team_id: ShortText | None = None
    title: str | None = Field(None, max_length=2000)
    text_summary: str | None = Field(None, max_length=100_000)
    slots: FreeObject | None = None
    raw_ref: str | None = Field(None, max_length=4000)
    evidence_ref: str | None = Field(None, max_length=4000)
    embedding: list[Component] | None = Field(None, min_length=1, max_length=8192)
    embedding_model: ShortText | None = None
    salience: Unit | None = None
    importance: Unit | None = None
    confidence: Unit | None = None


class EdgeEndIn(Strict):
    id: UUIDIn | None = None
    client_id: ClientId | None = None

    @classmethod
    def __get_pydantic_json_schema__(cls, core: CoreSchema, handler: GetJsonSchemaHandler) -> JsonSchemaValue:
        schema = super().__get_pydantic_json_schema__(core, handler)
        one = any_of(both(given("id"), absent("client_id")), both(given("client_id"), absent("id")))
        return with_rules(handler, schema, one)

    @model_validator(mode="after")
    def _one_ref(self) -> EdgeEndIn:
        if (self.id is None) == (self.client_id is None):
            raise ValueError("give exactly one of id or client_id")
        return self


class WriteEdgeIn(Strict, IntervalIn):
    id: UUIDIn | None = None
    scope: ScopeName | None = None
    type: Literal["part_of", "related_to", "derived_from"]
    src: EdgeEndIn
    dst: EdgeEndIn
    weight: Unit | None = None
    confidence: Unit | None = None
    decay_rate: Unit | None = None


class WriteRequest(TenantScoped, Provenance):
    actor: ShortText | None = None
    parent_commit_id: UUIDIn | None = None
    model_version: VersionName | None = None
    prompt_version: VersionName | None = None
    auto_embed: bool | None = None
    force_reembed: bool = False
    memory_lane: LaneIn | None = None
    producer_agent_id: ShortText | None = None
    owner_agent_id: ShortText | None = None
    owner_team_id: ShortText | None = None
    nodes: list[WriteNodeIn] = Field(default_factory=list, max_length=MAX_NODES_PER_WRITE)
    edges: list[WriteEdgeIn] = Field(default_factory=list, max_length=MAX_EDGES_PER_WRITE)


class RecallBase(TenantScoped, TimeQuestionIn):
    consumer_agent_id: ShortText | None = None
    consumer_team_id: ShortText | None = None
    limit: JsonInt = Field(30, ge=1, le=200)
    neighborhood_hops: Literal[1, 2] = 2
    max_nodes: JsonInt = Field(50, ge=1, le=200)
    max_edges: JsonInt = Field(100, ge=0, le=100)
    ranked_limit: JsonInt = Field(100, ge=1, le=500)
    min_edge_weight: float = Field(0.0, ge=0.0, le=1.0)
    min_edge_confidence: float = Field(0.0, ge=0.0, le=1.0)
    include_meta: bool = False
    include_slots: bool = False
    include_slots_preview: bool = False
    slots_preview_keys: JsonInt = Field(10, ge=1, le=50)
    return_debug: bool = False
    #: per seed, why it ranked: similarity, keyword, fused, entity_boost, time_boost, question, base, graph, score
    explain: bool = False
    include_embeddings: bool = False
    rules_context: Any = None
    rules_include_shadow: bool = False
    rules_limit: JsonInt = Field(50, ge=1, le=200)

    @classmethod
    def __get_pydantic_json_schema__(cls, core: CoreSchema, handler: GetJsonSchemaHandler) -> JsonSchemaValue:
        schema = super().__get_pydantic_json_schema__(core, handler)
        debug = both(given("return_debug", {"const": True}), given("limit", {"maximum": DEBUG_MAX_LIMIT}))
        return with_rules(handler, schema, any_of(value("include_embeddings", False), debug))

    @model_validator(mode="after")
    def _debug_needs_return_debug(self) -> RecallBase:
        if self.include_embeddings and not self.return_debug:
            raise ValueError("include_embeddings=true requires return_debug=true (debug-only channel)")
        return self


class RecallRequest(RecallBase):
    query_embedding: list[Component] = Field(..., min_length=1, max_length=8192)


class RecallTextRequest(RecallBase):
    query_text: str = Field(..., min_length=1, max_length=20_000)


# --- responses --------------------------------------------------------------------------
#: what ``include_meta`` shows of a node (domain/node_fields.py), and which of it are times
META_FIELDS = META_NODE_FIELDS
META_TIMES = frozenset(META_NODE_FIELDS) & frozenset(NODE_TIME_FIELDS)


def interval_dto(item: Node | Edge, *, shown: bool = True) -> dict[str, str | None]:
    """When a node or edge with an interval was true (null: that end is open), and when the
    server learned that it ended (``expired_at``); nothing for one without, or when the request
    did not ask (``shown``: it asked about time, or for meta), so a response keeps the contract's
    whitelist unless the caller asked for more."""
    if not shown or (item.valid_at is None and item.invalid_at is None):
        return {}
    return {"valid_at": iso(item.valid_at), "invalid_at": iso(item.invalid_at), "expired_at": iso(item.expired_at)}


def node_dto(
    n: Node,
    *,
    include_meta: bool,
    include_slots: bool,
    include_slots_preview: bool,
    slots_preview_keys: int,
    with_interval: bool = True,
) -> dict[str, Any]:
    out: dict[str, Any] = {"id": n.id, "type": n.type, "title": n.title, "text_summary": n.text_summary}
    out.update(interval_dto(n, shown=with_interval))
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
            out[name] = iso(value) if name in META_TIMES else value
    return out


def edge_dto(e: Edge, *, include_meta: bool, with_interval: bool = True) -> dict[str, Any]:
    out: dict[str, Any] = {"from_id": e.src_id, "to_id": e.dst_id, "type": e.type, "weight": e.weight}
    out.update(interval_dto(e, shown=with_interval))
    if include_meta:
        out["commit_id"] = e.commit_id
    return out


def seed_dto(
    n: Node, similarity: float, relevance: float, *, include_meta: bool, with_interval: bool
) -> dict[str, Any]:
    """The contract's seed whitelist (``similarity`` is the raw cosine). ``include_meta`` adds
    ``relevance``, the same on the calibrated 0..1 scale (docs/retrieval.md); the interval
    fields come as for nodes."""
    out: dict[str, Any] = {
        "id": n.id,
        "type": n.type,
        "title": n.title,
        "text_summary": n.text_summary,
        "tier": n.tier,
        "salience": n.salience,
        "confidence": n.confidence,
        "similarity": round(similarity, 6),
    }
    if include_meta:
        out["relevance"] = round(relevance, 6)
    out.update(interval_dto(n, shown=with_interval))
    return out
