"""Request bodies of the graph surface (docs/api-graph.md), validated here with the
contract's defaults and bounds."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, GetJsonSchemaHandler, model_validator
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema

from memlane.api.common.instants import IntervalIn, TimeQuestionIn
from memlane.api.common.requests import Provenance, ShortText, TenantScoped, UUIDIn
from memlane.api.common.schema_rules import JsonInt, absent, any_of, both, given, value, with_rules
from memlane.domain.inputs import ClientId, FreeObject, ScopeName, Strict, VersionName
from memlane.services.recall.debug import DEBUG_MAX_LIMIT

Unit = Annotated[float, Field(ge=0.0, le=1.0)]
#: a vector component: beyond this, float32 sums of squares overflow and scores become NaN
Component = Annotated[float, Field(ge=-1e6, le=1e6)]
NodeTypeIn = Literal["event", "entity", "topic", "rule", "evidence", "concept", "procedure", "self_model"]
TierIn = Literal["hot", "warm", "cold", "archive"]
LaneIn = Literal["private", "shared"]

MAX_NODES_PER_WRITE = 5000
MAX_EDGES_PER_WRITE = 10000


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
    #: (and members, for a question asking for a category's members)
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
