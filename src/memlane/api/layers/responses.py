"""Success responses of the layered surface (``/v1/layers/*``), as built by api/layers.py and
api/layers_dto.py (the spec's MemoryObject)."""

from __future__ import annotations

from typing import Literal, NotRequired

from typing_extensions import TypedDict

from memlane.api.common.responses import closed


@closed
class MemoryMetadata(TypedDict):
    user_visible: bool
    timestamp: str | None
    updated_at: str | None
    tags: list[str]
    agent: NotRequired[str]
    task_id: NotRequired[str]
    expiry: NotRequired[str | None]
    valid_at: NotRequired[str | None]
    invalid_at: NotRequired[str | None]
    expired_at: NotRequired[str | None]


@closed
class MemoryObject(TypedDict):
    """``embeddings`` (a preview), ``embedding_dim`` and ``embedding_sha256`` only for
    admin-authorised callers who ask (include_embeddings)."""

    id: str
    layer: str | None
    title: str | None
    content: str | None
    metadata: MemoryMetadata
    score: NotRequired[float]
    embeddings: NotRequired[list[float]]
    embedding_dim: NotRequired[int]
    embedding_sha256: NotRequired[str]


@closed
class Routing(TypedDict):
    """Why a write without a layer went where it went."""

    layer: str
    reason: str
    classifier: str


@closed
class LayersWriteReply(TypedDict):
    success: Literal[True]
    id: str
    layer: str | None
    routing: NotRequired[Routing]


@closed
class ReadReply(TypedDict):
    success: Literal[True]
    mode: str | None
    results: list[MemoryObject]


@closed
class SearchReply(TypedDict):
    success: Literal[True]
    results: list[MemoryObject]


@closed
class Done(TypedDict):
    success: Literal[True]


@closed
class TaskCompleted(TypedDict):
    success: Literal[True]
    task_id: str
    deleted: int
