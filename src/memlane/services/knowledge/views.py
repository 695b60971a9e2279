"""How a knowledge item and its versions read on the tools surface, for every transport.

The REST routes (``/v1/knowledge/*``) and the ``knowledge_show`` tool (MCP and HTTP) show the
same item; they differ only where the agent-tools contract puts ``version`` and ``source``
(inside ``metadata`` for the tool), so both start from these views.
"""

from __future__ import annotations

from typing import Any, NotRequired

from typing_extensions import TypedDict

from memlane.domain.clock import iso
from memlane.store.knowledge import KnowledgeRecord, VersionRecord


class ItemView(TypedDict):
    """An item as every transport shows it; the REST model (api/knowledge/responses.py)
    adds its version, source and successors."""

    id: str
    type: str
    layer: str
    title: str
    summary: str
    content: str
    status: str
    severity: str
    tags: list[str]
    metadata: dict[str, Any]
    createdAt: str | None
    updatedAt: str | None
    supersedes: NotRequired[str]
    constraints: NotRequired[list[dict[str, Any]]]


class VersionView(TypedDict):
    version: str
    timestamp: str | None
    author: str
    message: str | None


def item_view(rec: KnowledgeRecord, *, include_constraints: bool = True) -> ItemView:
    out: ItemView = {
        "id": rec.id,
        "type": rec.type,
        "layer": rec.layer,
        "title": rec.title,
        "summary": rec.summary,
        "content": rec.content,
        "status": rec.status,
        "severity": rec.severity,
        "tags": list(rec.tags),
        "metadata": dict(rec.metadata),
        "createdAt": iso(rec.created_at),
        "updatedAt": iso(rec.updated_at),
    }
    if rec.supersedes:
        out["supersedes"] = rec.supersedes
    if include_constraints:
        out["constraints"] = rec.constraints
    return out


def version_view(v: VersionRecord) -> VersionView:
    return {
        "version": str(v.version),
        "timestamp": iso(v.created_at),
        "author": v.author or "unknown",
        "message": v.message,
    }
