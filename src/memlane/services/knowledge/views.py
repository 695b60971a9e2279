"""How a knowledge item and its versions read on the tools surface, for every transport.

The REST routes (``/v1/knowledge/*``) and the ``knowledge_show`` tool (MCP and HTTP) show the
same item; they differ only where the agent-tools contract puts ``version`` and ``source``
(inside ``metadata`` for the tool), so both start from these views.
"""

from __future__ import annotations

from typing import Any

from memlane.domain.clock import iso
from memlane.store.knowledge import KnowledgeRecord, VersionRecord


def item_view(rec: KnowledgeRecord, *, include_constraints: bool = True) -> dict[str, Any]:
    out: dict[str, Any] = {
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


def version_view(v: VersionRecord) -> dict[str, Any]:
    return {
        "version": str(v.version),
        "timestamp": iso(v.created_at),
        "author": v.author or "unknown",
        "message": v.message,
    }
