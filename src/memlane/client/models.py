"""Typed results of the four surfaces. Each model names the fields the surface documents;
fields a newer server adds are kept too (``extra="allow"``: read them as attributes or with
``model_extra``), so an older client never breaks on a newer server."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class Result(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)


# --- graph (/v1/memory) -------------------------------------------------------------------
class WrittenNode(Result):
    id: str
    client_id: str | None = None
    type: str


class WrittenEdge(Result):
    id: str
    type: str
    src_id: str
    dst_id: str


class WriteResult(Result):
    tenant_id: str
    scope: str
    commit_id: str
    commit_hash: str
    nodes: list[WrittenNode] = Field(default_factory=list)
    edges: list[WrittenEdge] = Field(default_factory=list)
    embedding_backfill: dict[str, Any] | None = None


class Seed(Result):
    id: str
    type: str
    title: str | None = None
    text_summary: str | None = None
    tier: str | None = None
    salience: float | None = None
    confidence: float | None = None
    similarity: float
    #: the calibrated relevance, when the recall asked for ``include_meta``
    relevance: float | None = None


class RankedNode(Result):
    id: str
    activation: float
    score: float


class GraphNode(Result):
    id: str
    type: str
    title: str | None = None
    text_summary: str | None = None


class GraphEdge(Result):
    from_id: str
    to_id: str
    type: str
    weight: float


class Subgraph(Result):
    nodes: list[GraphNode] = Field(default_factory=list)
    edges: list[GraphEdge] = Field(default_factory=list)


class RecallContext(Result):
    text: str = ""
    items: list[Any] = Field(default_factory=list)
    citations: list[Any] = Field(default_factory=list)


class RecallResult(Result):
    tenant_id: str
    scope: str
    seeds: list[Seed] = Field(default_factory=list)
    ranked: list[RankedNode] = Field(default_factory=list)
    subgraph: Subgraph = Field(default_factory=Subgraph)
    context: RecallContext = Field(default_factory=RecallContext)
    query: dict[str, Any] | None = None
    rules: dict[str, Any] | None = None
    debug: dict[str, Any] | None = None


class RulesEvaluation(Result):
    """``POST /v1/memory/rules/evaluate``: the matching rules and the merged policy."""

    tenant_id: str
    scope: str
    considered: int = 0
    matched: int = 0
    active: list[dict[str, Any]] = Field(default_factory=list)
    shadow: list[dict[str, Any]] = Field(default_factory=list)
    applied: dict[str, Any] = Field(default_factory=dict)


class Selection(Result):
    candidates: list[str] = Field(default_factory=list)
    allowed: list[str] = Field(default_factory=list)
    denied: list[Any] = Field(default_factory=list)
    preferred: list[Any] = Field(default_factory=list)
    ordered: list[str] = Field(default_factory=list)
    selected: str | None = None


class ToolSelection(Result):
    """``POST /v1/memory/tools/select``: the candidates the ACTIVE rules allow, in order."""

    tenant_id: str
    scope: str
    candidates: list[str] = Field(default_factory=list)
    selection: Selection
    rules: dict[str, Any] = Field(default_factory=dict)


class FeedbackResult(Result):
    """Answers of ``feedback``, ``tools/feedback`` and ``rules/state``."""


class LifecycleResult(Result):
    """Answers of ``nodes/activate`` and ``archive/rehydrate``."""


# --- conversation (/api/v1) ---------------------------------------------------------------
class TaskAccepted(Result):
    task_id: str
    status: str
    message: str
    app_id: str
    user_id: str
    session_id: str | None = None


class QueriedMemory(Result):
    memory_id: str
    document: str
    metadata: dict[str, Any] = Field(default_factory=dict)
    composite_score: float
    similarity_score: float
    recency_score: float
    importance_score: float
    cosine_similarity: float | None = None
    query_status: str = "completed"


class MemoryQueryResult(Result):
    memories: list[QueriedMemory] = Field(default_factory=list)
    count: int


class Memory(Result):
    memory_id: str
    document: str
    metadata: dict[str, Any] = Field(default_factory=dict)


class EvolutionChain(Result):
    memories: list[Memory] = Field(default_factory=list)
    count: int
    cycle_detected: bool = False
    missing_link: str | None = None


class DeleteResult(Result):
    success: bool
    message: str
    data: Any = None


class Summary(Result):
    app_id: str
    user_id: str
    session_id: str | None = None
    summary: str
    key_points: str = ""
    tags: list[str] = Field(default_factory=list)
    keywords: list[str] = Field(default_factory=list)
    semantic_queries: list[str] = Field(default_factory=list)
    metadata: dict[str, Any] = Field(default_factory=dict)
    generated_at: str | None = None


class Task(Result):
    task_id: str
    kind: str
    status: str
    error: str | None = None
    result: dict[str, Any] | None = None
    attempts: int = 0
    app_id: str | None = None
    user_id: str | None = None
    session_id: str | None = None


class BatcherState(Result):
    app_id: str
    user_id: str
    session_id: str | None = None
    pending_messages: int
    batch_size: int
    status: str
    last_delivery: str | None = None
    last_task_id: str | None = None


class PoolStats(Result):
    max_connections: int
    created_handlers: int
    active_handlers: int
    available_handlers: int
    initialized: bool


class Health(Result):
    status: str
    sdk_initialized: bool
    service: str


# --- layered (/v1/layers) -----------------------------------------------------------------
class MemoryObject(Result):
    id: str
    layer: str | None = None
    title: str | None = None
    content: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    score: float | None = None


class LayerWriteResult(Result):
    success: bool
    id: str
    layer: str | None = None


class LayerReadResult(Result):
    success: bool
    mode: str | None = None
    results: list[MemoryObject] = Field(default_factory=list)


class LayerSearchResult(Result):
    success: bool
    results: list[MemoryObject] = Field(default_factory=list)


class Success(Result):
    success: bool


class TaskCompletion(Result):
    success: bool
    task_id: str
    deleted: int


# --- agent tools (/v1/tools) and the knowledge repository (/v1/knowledge) ----------------
class ToolIdentity(Result):
    """Whom a tool call acted for, and where that came from (credentials, headers, defaults)."""

    tenant: str
    agent: str | None = None
    user: str | None = None
    session: str | None = None
    team: str | None = None
    source: str


class ToolResult(Result):
    identity: ToolIdentity | None = None


class MemoryAddResult(ToolResult):
    success: bool
    memory_id: str = Field(alias="memoryId")
    message: str


class MemoryHit(Result):
    content: str
    layer: str
    score: float
    memory_id: str = Field(alias="memoryId")
    tags: list[str] = Field(default_factory=list)
    similarity: float | None = None


class MemorySearchResult(ToolResult):
    success: bool
    results: list[MemoryHit] = Field(default_factory=list)
    total_count: int = Field(alias="totalCount")
    searched_layers: list[str] = Field(alias="searchedLayers")
    skipped_layers: list[dict[str, Any]] = Field(default_factory=list, alias="skippedLayers")


class MemoryDeleteResult(ToolResult):
    success: bool
    message: str


class KnowledgeSummary(Result):
    id: str
    type: str
    layer: str
    title: str
    summary: str
    status: str
    tags: list[str] = Field(default_factory=list)
    has_constraints: bool = Field(alias="hasConstraints")


class KnowledgeQueryResult(ToolResult):
    success: bool
    items: list[KnowledgeSummary] = Field(default_factory=list)
    total_count: int = Field(alias="totalCount")


class Violation(Result):
    knowledge_item_id: str = Field(alias="knowledgeItemId")
    knowledge_item_title: str = Field(alias="knowledgeItemTitle")
    constraint: dict[str, Any]
    severity: str
    message: str
    location: dict[str, Any] | None = None


class KnowledgeCheckResult(ToolResult):
    passed: bool
    violations: list[Violation] = Field(default_factory=list)
    summary: dict[str, int]


class KnowledgeItem(Result):
    id: str
    type: str
    layer: str
    title: str
    summary: str = ""
    content: str = ""
    status: str
    severity: str | None = None
    tags: list[str] = Field(default_factory=list)
    constraints: list[dict[str, Any]] = Field(default_factory=list)
    metadata: dict[str, Any] = Field(default_factory=dict)
    created_at: str | None = Field(None, alias="createdAt")
    updated_at: str | None = Field(None, alias="updatedAt")
    supersedes: str | None = None
    superseded_by: list[str] = Field(default_factory=list, alias="supersededBy")


class ItemVersion(Result):
    version: str
    timestamp: str
    author: str
    message: str


class KnowledgeShowResult(ToolResult):
    success: bool
    item: KnowledgeItem | None = None
    history: list[ItemVersion] | None = None


class SyncCounts(Result):
    added: int
    updated: int
    deleted: int
    unchanged: int
    failures: int


class SyncNowResult(ToolResult):
    success: bool
    result: SyncCounts
    duration_ms: float = Field(alias="durationMs")
    message: str


class SyncStatus(ToolResult):
    healthy: bool
    last_sync_at: str | None = Field(None, alias="lastSyncAt")
    time_since_sync: str = Field(alias="timeSinceSync")
    failed_items: int = Field(alias="failedItems")
    stats: dict[str, Any] = Field(default_factory=dict)


class ToolList(Result):
    tools: list[dict[str, Any]] = Field(default_factory=list)
    openai: list[dict[str, Any]] = Field(default_factory=list)


class KnowledgeItemResult(Result):
    success: bool
    item: KnowledgeItem


class KnowledgeItemList(Result):
    success: bool
    items: list[KnowledgeItem] = Field(default_factory=list)
    total_count: int = Field(alias="totalCount")


class KnowledgeHistory(Result):
    success: bool
    history: list[ItemVersion] = Field(default_factory=list)


class ImportResult(Result):
    success: bool
    items: list[dict[str, Any]] = Field(default_factory=list)
