"""Success responses of the knowledge repository (``/v1/knowledge``), and the functions that
build them from the store's records (services/knowledge/views.py has the shared views)."""

from __future__ import annotations

from typing import Any, Literal, NotRequired

from typing_extensions import TypedDict

from memlane.api.common.responses import closed
from memlane.services.knowledge.views import item_view, version_view
from memlane.store.knowledge import KnowledgeRecord, VersionRecord


@closed
class KnowledgeItem(TypedDict):
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
    version: str
    source: str | None
    supersededBy: list[str]


@closed
class Version(TypedDict):
    version: str
    timestamp: str | None
    author: str
    message: str | None


@closed
class ItemList(TypedDict):
    success: Literal[True]
    items: list[KnowledgeItem]
    totalCount: int


@closed
class ItemReply(TypedDict):
    success: Literal[True]
    item: KnowledgeItem
    history: NotRequired[list[Version]]


@closed
class ItemDeleted(TypedDict):
    success: Literal[True]
    message: str


@closed
class History(TypedDict):
    success: Literal[True]
    history: list[Version]


@closed
class ImportedItem(TypedDict):
    id: str
    version: str
    status: str


@closed
class ImportReply(TypedDict):
    success: Literal[True]
    items: list[ImportedItem]


def item_dto(rec: KnowledgeRecord, *, include_constraints: bool = True) -> dict[str, Any]:
    """The REST view: the item with its version, source and successors at the top level."""
    return {
        **item_view(rec, include_constraints=include_constraints),
        "version": str(rec.version),
        "source": rec.source,
        "supersededBy": list(rec.superseded_by),
    }


def version_dto(v: VersionRecord) -> dict[str, Any]:
    return version_view(v)
