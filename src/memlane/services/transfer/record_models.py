"""The records of an export file as pydantic models: an import holds every line to the rules a
request would be held to (the same types, domain/inputs.py), so nothing a request could not
write arrives by import, and a bad line is a 400 naming its field, never a 500.

Ids made by the server (nodes, edges, commits) are UUIDs; text holds no NUL and no lone
surrogate; names are within their columns; numbers are finite (a weight in 0..1, a vector
component within +-1e6); free-form JSON (``slots``, metadata) is within the limits of the
settings (``MEMLANE_JSON_MAX_*``). A stored scope may be 256 characters (a workspace scope
is its scope plus ``#workspace``).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BeforeValidator, Field

from memlane.domain.inputs import (
    JSON_LIMITS,
    NAME_PATTERN,
    ClientId,
    FreeObject,
    Instant,
    JsonLimits,
    Name,
    Strict,
    TagName,
    TenantName,
    UuidText,
    VersionName,
    check_name,
    object_only,
)
from memlane.domain.model import EdgeType, NodeType, Tier

Unit = Annotated[float, Field(ge=0.0, le=1.0)]
#: a vector component, as on a write: beyond this, float32 sums of squares overflow
Component = Annotated[float, Field(ge=-1e6, le=1e6)]
SHA256_PATTERN = r"^[0-9a-f]{64}$"
Sha256 = Annotated[str, Field(pattern=SHA256_PATTERN)]
#: a stored scope: 256 characters (the column) for ``<scope>#workspace``
StoredScope = Annotated[
    str,
    Field(min_length=1, max_length=256, json_schema_extra={"pattern": NAME_PATTERN}),
    AfterValidator(check_name),
]


#: a node's status, topic state and layer: their columns hold 32, 16 and 32 characters
Status = Annotated[str, Field(min_length=1, max_length=32), AfterValidator(check_name)]
TopicState = Annotated[str, Field(min_length=1, max_length=16), AfterValidator(check_name)]
Layer = Annotated[str, Field(min_length=1, max_length=32), AfterValidator(check_name)]
#: a commit kind (column: 32)
Kind = Annotated[str, Field(min_length=1, max_length=32), AfterValidator(check_name)]


def _seq(value: Any) -> Any:
    """A commit's sequence number: a whole number (``3`` or ``3.0``), not text or a boolean."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


#: a commit diff is the store's own record of a write: as deep as any JSON value may be, but
#: as large as the write (5,000 nodes); its size is bounded by the line's
_DIFF_LIMITS_KEYS = 10**9


def _diff_depth(value: Any) -> Any:
    limits = JSON_LIMITS.get()
    problem = JsonLimits(max_depth=limits.max_depth, max_keys=_DIFF_LIMITS_KEYS, max_bytes=2**62).problem(value)
    if problem is not None:
        raise ValueError(problem)
    return value


Diff = Annotated[dict[str, Any], BeforeValidator(object_only), AfterValidator(_diff_depth)]


class Record(Strict):
    """Every record kind names itself and its tenant."""

    record: str
    tenant_id: TenantName


class HeaderRecord(Strict):
    record: Literal["header"]
    format: Literal["memlane-export"]
    version: Literal[1]
    exported_at: Instant | None = None
    tenant_id: TenantName | None = None
    scope: StoredScope | None = None
    embeddings: bool = False
    embedding_model: Name | None = None
    embedding_dimension: Annotated[int, Field(ge=1, le=65536)] | None = None


class CommitRecord(Record):
    record: Literal["commit"]
    id: UuidText
    scope: StoredScope
    seq: Annotated[int, BeforeValidator(_seq), Field(ge=1, strict=True)]
    parent_id: UuidText | None = None
    parent_hash: Sha256 | None = None
    commit_hash: Sha256
    actor: Name | None = None
    #: empty once an erasure emptied the commit
    input_sha256: Annotated[str, Field(pattern=r"^([0-9a-f]{64})?$")]
    kind: Kind
    model_version: VersionName | None = None
    prompt_version: VersionName | None = None
    diff: Diff
    created_at: Instant
    erased_at: Instant | None = None


class NodeRecord(Record):
    record: Literal["node"]
    id: UuidText
    scope: StoredScope
    type: NodeType
    client_id: ClientId | None = None
    tier: Tier = "hot"
    title: Annotated[str, Field(max_length=2000)] | None = None
    #: a knowledge item's memory holds its summary and constraints, so more than a write's 100,000
    text_summary: Annotated[str, Field(max_length=1_000_000)] | None = None
    slots: FreeObject = Field(default_factory=dict)
    raw_ref: Annotated[str, Field(max_length=4000)] | None = None
    evidence_ref: Annotated[str, Field(max_length=4000)] | None = None
    memory_lane: Literal["private", "shared"] = "private"
    producer_agent_id: Name | None = None
    owner_agent_id: Name | None = None
    owner_team_id: Name | None = None
    salience: Unit = 0.5
    importance: Unit = 0.5
    confidence: Unit = 0.5
    embedding_status: Literal["pending", "ready", "failed"] = "pending"
    embedding_model: Name | None = None
    status: Status = "active"
    topic_state: TopicState | None = None
    layer: Layer | None = None
    user_id: Name | None = None
    session_id: Name | None = None
    task_id: Name | None = None
    agent: Name | None = None
    tags: list[TagName] = Field(default_factory=list, max_length=200)
    expires_at: Instant | None = None
    created_at: Instant | None = None
    updated_at: Instant | None = None
    last_activated: Instant | None = None
    commit_id: UuidText | None = None
    valid_at: Instant | None = None
    invalid_at: Instant | None = None
    expired_at: Instant | None = None
    embedding: list[Component] | None = Field(None, min_length=1, max_length=65536)


class EdgeRecord(Record):
    record: Literal["edge"]
    id: UuidText
    scope: StoredScope
    type: EdgeType
    src_id: UuidText
    dst_id: UuidText
    weight: Unit = 1.0
    confidence: Unit = 1.0
    decay_rate: Unit = 0.0
    created_at: Instant | None = None
    updated_at: Instant | None = None
    commit_id: UuidText | None = None
    valid_at: Instant | None = None
    invalid_at: Instant | None = None
    expired_at: Instant | None = None


class BufferedMessage(Strict):
    """A message waiting in the memory batcher, as ``POST /api/v1/memory-batcher/messages``
    took it (api/conversation/requests.py MessageIn), with its place in the buffer."""

    seq: Annotated[int, Field(ge=0)]
    role: Annotated[str, Field(min_length=1, max_length=64), AfterValidator(check_name)]
    content: Annotated[str, Field(min_length=1, max_length=50_000)]
    timestamp: Annotated[str, Field(max_length=64)] | None = None
    id: Annotated[str, Field(max_length=200), AfterValidator(check_name)] | None = None


class BufferViewer(Strict):
    """Who a buffer's flush acts for (domain/visibility.py ``Viewer.to_payload``)."""

    tenant_id: TenantName
    agent_id: Name | None = None
    team_id: Name | None = None
    user_id: Name | None = None
    session_id: Name | None = None
    role: Name = "user_agent"
    authenticated: bool = False


class BufferRecord(Record):
    record: Literal["batcher_buffer"]
    app_id: Annotated[str, Field(min_length=1, max_length=200), AfterValidator(check_name)]
    user_id: Annotated[str, Field(min_length=1, max_length=200), AfterValidator(check_name)]
    session_id: Annotated[str, Field(max_length=200), AfterValidator(check_name)] | None = None
    messages: list[BufferedMessage] = Field(max_length=1000)
    next_seq: Annotated[int, Field(ge=0)]
    viewer: BufferViewer | None = None
    last_append_at: Instant | None = None
    last_delivery: Annotated[str, Field(max_length=32), AfterValidator(check_name)] | None = None
    last_task_id: UuidText | None = None
    last_flush_at: Instant | None = None
    last_flush_reason: Literal["batch_size", "idle_timeout"] | None = None
    flushed_messages: Annotated[int, Field(ge=0)] = 0


class KnowledgeItemRecord(Record):
    """An item; its content is checked as an item written through the API is
    (services/knowledge/model.py ``build_record``) when it is restored."""

    record: Literal["knowledge_item"]
    id: Annotated[str, Field(min_length=1, max_length=200)]
    type: str
    layer: str
    title: Annotated[str, Field(min_length=1, max_length=2000)]
    summary: Annotated[str, Field(max_length=10_000)] = ""
    content: Annotated[str, Field(max_length=1_000_000)] = ""
    status: str = "draft"
    severity: str = "warn"
    tags: list[TagName] = Field(default_factory=list, max_length=100)
    constraints: list[dict[str, Any]] = Field(default_factory=list, max_length=200)
    metadata: FreeObject = Field(default_factory=dict)
    supersedes: Annotated[str, Field(max_length=200)] | None = None
    superseded_by: list[Annotated[str, Field(min_length=1, max_length=200)]] = Field(
        default_factory=list, max_length=1000
    )
    version: Annotated[int, Field(ge=0)] = 0
    content_hash: Annotated[str, Field(max_length=64)] = ""
    source: Annotated[str, Field(max_length=1024)] | None = None
    created_at: Instant
    updated_at: Instant


class SyncRecord(Record):
    record: Literal["knowledge_sync"]
    item_id: Annotated[str, Field(min_length=1, max_length=200)]
    node_id: UuidText
    scope: StoredScope
    content_hash: Sha256
    synced_at: Instant


__all__ = [
    "BufferRecord",
    "CommitRecord",
    "EdgeRecord",
    "HeaderRecord",
    "KnowledgeItemRecord",
    "NodeRecord",
    "SyncRecord",
]
