"""Success responses of the graph surface (``/v1/memory/*``), as built by api/graph*.py,
api/rules.py and api/lifecycle.py. Parts computed by the rules engine (match details, tool
selection) are objects whose shape docs/rules.md describes."""

from __future__ import annotations

from typing import Any, NotRequired

from typing_extensions import TypedDict

from memlane.api.common.responses import closed


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
class RuleCounts(TypedDict):
    """What every rule evaluation reports: how many rules were considered and matched, and
    the merged policy that applies."""

    considered: int
    matched: int
    skipped_invalid_then: int
    invalid_then_sample: list[dict[str, Any]]
    applied: dict[str, Any]


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


@closed
class EvaluateReply(RuleCounts):
    tenant_id: str
    scope: str
    agent_visibility_summary: dict[str, Any]
    active: list[dict[str, Any]]
    shadow: list[dict[str, Any]]


@closed
class SelectionRules(RuleCounts):
    agent_visibility_summary: dict[str, Any]
    tool_conflicts_summary: list[str]
    shadow_selection: NotRequired[dict[str, Any]]
    shadow_tool_conflicts_summary: NotRequired[list[str]]


@closed
class ToolsSelectReply(TypedDict):
    tenant_id: str
    scope: str
    candidates: list[str]
    selection: dict[str, Any]
    rules: SelectionRules


@closed
class ToolsFeedbackReply(TypedDict):
    ok: bool
    tenant_id: str
    scope: str
    updated_rules: int
    rule_node_ids: list[str]
    commit_id: str | None
    commit_hash: str | None


@closed
class RuleFeedbackReply(TypedDict):
    ok: bool
    tenant_id: str
    scope: str
    rule_node_id: str
    outcome: str
    stats: dict[str, Any]
    commit_id: str
    commit_hash: str


@closed
class RuleStateReply(TypedDict):
    ok: bool
    tenant_id: str
    scope: str
    rule_node_id: str
    previous_state: str | None
    state: str
    changed: bool
    commit_id: str | None
    commit_hash: str | None


@closed
class Activated(TypedDict):
    requested: int
    resolved: int
    found: int
    updated: int
    missing: int
    node_ids: list[str]
    missing_node_ids: list[str]
    missing_client_ids: list[str]


@closed
class ActivateReply(TypedDict):
    tenant_id: str
    scope: str
    commit_id: str | None
    commit_hash: str | None
    activated: Activated


@closed
class Rehydrated(TypedDict):
    requested: int
    resolved: int
    moved: int
    noop: int
    missing: int
    node_ids: list[str]
    noop_node_ids: list[str]
    missing_node_ids: list[str]
    missing_client_ids: list[str]


@closed
class RehydrateReply(TypedDict):
    tenant_id: str
    scope: str
    target_tier: str
    commit_id: str | None
    commit_hash: str | None
    rehydrated: Rehydrated


@closed
class ErasureSubjectDigest(TypedDict):
    """What was erased, named only by an HMAC-SHA256 under the server's erasure key: the
    receipt keeps no content, and holding it does not confirm a guessed id."""

    kind: str
    hmac_sha256: str


@closed
class ErasureReply(TypedDict):
    erasure_id: str
    tenant_id: str
    subject: ErasureSubjectDigest
    counts: dict[str, Any]
    scopes: int
    erased_at: str | None
