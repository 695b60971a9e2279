"""Success responses of the graph surface (``/v1/memory/write``, ``/recall``, ``/recall_text``);
recall's ``rules`` block counts what the rules surface's evaluation counts."""

from __future__ import annotations

from typing import Any, NotRequired

from typing_extensions import TypedDict

from memlane.api.common.responses import closed
from memlane.api.rules.responses import RuleCounts


@closed
class WrittenNode(TypedDict):
    id: str
    client_id: str | None
    type: str


@closed
class WrittenEdge(TypedDict):
    id: str
    type: str
    src_id: str
    dst_id: str


@closed
class EmbeddingBackfill(TypedDict):
    """Nodes written without an embedding, queued for the server to embed."""

    enqueued: bool
    pending: int


@closed
class GraphWriteReply(TypedDict):
    tenant_id: str
    scope: str
    commit_id: str
    commit_hash: str
    nodes: list[WrittenNode]
    edges: list[WrittenEdge]
    embedding_backfill: NotRequired[EmbeddingBackfill]


class Interval(TypedDict):
    """When a fact with an interval was true (null: that end is open) and when the server
    learned that it ended; absent for facts that never had an interval, and unless the request
    asked about time (``as_of``, ``include_invalid``) or for ``include_meta``."""

    valid_at: NotRequired[str | None]
    invalid_at: NotRequired[str | None]
    expired_at: NotRequired[str | None]


@closed
class Seed(Interval):
    """``similarity`` is the raw cosine; ``relevance`` (with ``include_meta``) the same on the
    calibrated 0..1 scale."""

    id: str
    type: str
    title: str | None
    text_summary: str | None
    tier: str
    salience: float | None
    confidence: float | None
    similarity: float
    relevance: NotRequired[float]


@closed
class Ranked(TypedDict):
    id: str
    activation: float
    score: float


@closed
class GraphNode(Interval):
    """A node of the recalled subgraph; the optional parts follow the request's include_* flags."""

    id: str
    type: str
    title: str | None
    text_summary: str | None
    topic_state: NotRequired[str]
    member_count: NotRequired[int]
    slots: NotRequired[dict[str, Any]]
    slots_preview: NotRequired[dict[str, Any]]
    raw_ref: NotRequired[str | None]
    evidence_ref: NotRequired[str | None]
    embedding_status: NotRequired[str | None]
    embedding_model: NotRequired[str | None]
    memory_lane: NotRequired[str | None]
    producer_agent_id: NotRequired[str | None]
    owner_agent_id: NotRequired[str | None]
    owner_team_id: NotRequired[str | None]
    created_at: NotRequired[str | None]
    updated_at: NotRequired[str | None]
    last_activated: NotRequired[str | None]
    salience: NotRequired[float | None]
    importance: NotRequired[float | None]
    confidence: NotRequired[float | None]
    commit_id: NotRequired[str | None]


@closed
class GraphEdge(Interval):
    from_id: str
    to_id: str
    type: str
    weight: float
    commit_id: NotRequired[str | None]


@closed
class Subgraph(TypedDict):
    nodes: list[GraphNode]
    edges: list[GraphEdge]


@closed
class RecallContext(TypedDict):
    """The recalled memory as prompt-ready text, its items and their citations."""

    text: str
    items: list[dict[str, Any]]
    citations: list[dict[str, Any]]


@closed
class RecallDebug(TypedDict):
    neighborhood_counts: dict[str, Any]
    embeddings: NotRequired[list[dict[str, Any]]]


@closed
class RulesBlock(RuleCounts):
    """The rules matched against ``rules_context``, when the recall sent one."""

    scope: str


@closed
class RecallReply(TypedDict):
    tenant_id: str
    scope: str
    seeds: list[Seed]
    ranked: list[Ranked]
    subgraph: Subgraph
    context: RecallContext
    debug: NotRequired[RecallDebug]
    rules: NotRequired[RulesBlock]
    #: with ``explain``: per node id, the signals behind its rank
    explain: NotRequired[dict[str, dict[str, float]]]


@closed
class QueryInfo(TypedDict):
    text: str
    embedding_provider: str


@closed
class RecallTextReply(RecallReply):
    query: QueryInfo
