"""Success responses of the conversation surface (``/api/v1/*``), as built by
api/conversation/routes.py and services/conversation/."""

from __future__ import annotations

from typing import Any, NotRequired

from typing_extensions import TypedDict

from memlane.api.common.responses import closed


@closed
class Accepted(TypedDict):
    """202: the task is durably queued; poll ``Location`` (``/api/v1/tasks/{task_id}``)."""

    task_id: str
    status: str
    message: str
    app_id: str
    user_id: str
    session_id: str | None
    error: NotRequired[None]
    result: NotRequired[None]


@closed
class Memory(TypedDict):
    memory_id: str
    document: str
    metadata: dict[str, Any]


@closed
class ScoredMemory(Memory):
    composite_score: float
    similarity_score: float
    cosine_similarity: float
    recency_score: float
    importance_score: float
    query_status: str


@closed
class QueryReply(TypedDict):
    memories: list[ScoredMemory]
    count: int


@closed
class Deleted(TypedDict):
    success: bool
    message: str
    data: None


@closed
class EvolutionReply(TypedDict):
    """A memory's chain, oldest to newest; ``missing_link`` names a link that no longer resolves."""

    memories: list[Memory]
    count: int
    cycle_detected: bool
    missing_link: Any


@closed
class Summary(TypedDict):
    app_id: str
    user_id: str
    session_id: str | None
    summary: str
    key_points: str
    tags: list[str]
    keywords: list[str]
    semantic_queries: list[str]
    metadata: dict[str, Any]
    generated_at: str | None


@closed
class Task(TypedDict):
    task_id: str
    kind: str
    status: str
    error: str | None
    result: dict[str, Any] | None
    attempts: int
    last_error: str | None
    app_id: str | None
    user_id: str | None
    session_id: str | None
    created_at: str | None
    updated_at: str | None


@closed
class PoolStats(TypedDict):
    max_connections: int
    created_handlers: int
    active_handlers: int
    available_handlers: int
    initialized: bool


@closed
class BatcherReply(TypedDict):
    """One memory batcher buffer after the request (OmniMemory's fields first)."""

    app_id: str
    user_id: str
    session_id: str | None
    pending_messages: int
    batch_size: int
    status: str
    last_delivery: str | None
    last_task_id: str | None
    flushed_task_ids: list[str]
    last_flush_at: str | None
    last_flush_reason: str | None
    flushed_messages: int
    idle_flush_at: str | None
