"""What each tool answers (docs/api-tools.md), on every transport: MCP's structured content and
``POST /v1/tools/{name}``. ``ToolService.call`` adds the ``identity`` the call was made with;
failures are the ToolError envelope (services/tools/errors.py); sync_status answers the
knowledge sync's ``SyncStatusView``."""

from __future__ import annotations

from typing import Any, Literal, NotRequired

from typing_extensions import TypedDict

from memlane.services.knowledge.sync import SyncStatusView
from memlane.services.knowledge.views import VersionView


class IdentityView(TypedDict):
    """Who the call was made as, and where each part came from (docs/api-tools.md, "Identity")."""

    tenant: str
    agent: str | None
    user: str | None
    session: str | None
    team: str | None
    project: str | None
    org: str | None
    role: str | None
    source: str
    defaulted: list[str]


class MemoryAdded(TypedDict):
    success: Literal[True]
    memoryId: str
    message: str


class MemoryHit(TypedDict):
    content: str
    layer: str | None
    score: float
    similarity: float
    memoryId: str
    tags: list[str]
    validAt: NotRequired[str | None]
    invalidAt: NotRequired[str | None]
    expiresAt: NotRequired[str | None]


class SkippedLayer(TypedDict):
    layer: str
    reason: str


class MemoryFound(TypedDict):
    success: Literal[True]
    results: list[MemoryHit]
    totalCount: int
    searchedLayers: list[str]
    skippedLayers: NotRequired[list[SkippedLayer]]


class MemoryDeleted(TypedDict):
    success: Literal[True]
    message: str


class KnowledgeHit(TypedDict):
    id: str
    type: str
    layer: str
    title: str
    summary: str
    status: str
    tags: list[str]
    hasConstraints: bool
    score: float


class KnowledgeFound(TypedDict):
    success: Literal[True]
    items: list[KnowledgeHit]
    totalCount: int


class KnowledgeChecked(TypedDict):
    passed: bool
    violations: list[dict[str, Any]]
    summary: dict[str, int]
    checked: dict[str, int]


class KnowledgeShown(TypedDict):
    success: Literal[True]
    #: the item view with ``version`` and ``source`` inside its metadata (services/knowledge/views.py)
    item: dict[str, Any]
    history: NotRequired[list[VersionView]]


class SyncDone(TypedDict):
    success: bool
    result: dict[str, Any]
    durationMs: float
    message: str
    jobId: str
    failedItems: NotRequired[list[dict[str, Any]]]


#: what a tool's handler answers, before ``ToolService.call`` adds the identity
ToolResult = (
    MemoryAdded
    | MemoryFound
    | MemoryDeleted
    | KnowledgeFound
    | KnowledgeChecked
    | KnowledgeShown
    | SyncDone
    | SyncStatusView
)
