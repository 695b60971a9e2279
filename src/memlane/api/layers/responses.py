"""Success responses of the layered surface (``/v1/layers/*``), as built by api/layers/routes.py,
and ``memory_object``, which builds the spec's MemoryObject from a node."""

from __future__ import annotations

from typing import Any, Literal, NotRequired

from typing_extensions import TypedDict

from memlane.api.common.responses import closed
from memlane.domain.clock import iso
from memlane.domain.model import Node
from memlane.services.layers.ids import to_public


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


def memory_object(n: Node, *, score: float | None = None, embedding: dict[str, Any] | None = None) -> MemoryObject:
    """The spec's MemoryObject. ``embeddings`` only for admin-authorised callers who ask, and
    only as the debug channel shows vectors: the first values (``embeddings``), the length
    (``embedding_dim``) and a sha256 of the whole vector (``embedding_sha256``)."""
    meta: MemoryMetadata = {
        "user_visible": bool(n.slots.get("user_visible", n.layer != "workspace")),
        "timestamp": iso(n.created_at),
        "updated_at": iso(n.updated_at),
        "tags": list(n.tags),
    }
    if n.agent is not None:
        meta["agent"] = n.agent
    if n.task_id is not None:
        meta["task_id"] = n.task_id
    if n.expires_at is not None:
        meta["expiry"] = iso(n.expires_at)
    if n.valid_at is not None or n.invalid_at is not None:
        meta["valid_at"] = iso(n.valid_at)
        meta["invalid_at"] = iso(n.invalid_at)
        meta["expired_at"] = iso(n.expired_at)
    out: MemoryObject = {
        "id": to_public(n.id),
        "layer": n.layer,
        "title": n.title,
        "content": n.text_summary,
        "metadata": meta,
    }
    if score is not None:
        out["score"] = round(score, 6)
    if embedding is not None:
        out["embeddings"] = embedding["preview"]
        out["embedding_dim"] = embedding["dim"]
        out["embedding_sha256"] = embedding["sha256"]
    return out
