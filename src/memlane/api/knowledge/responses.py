"""Success responses of the knowledge repository (``/v1/knowledge``), and the functions that
build them from the store's records (services/knowledge/views.py has the shared views)."""

from __future__ import annotations

from typing import Literal, NotRequired

from typing_extensions import TypedDict

from memlane.api.common.responses import closed
from memlane.services.knowledge.views import ItemView, VersionView, item_view
from memlane.store.knowledge import KnowledgeRecord


@closed
class KnowledgeItem(ItemView):
    version: str
    source: str | None
    supersededBy: list[str]


@closed
class Version(VersionView):
    pass


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


def item_dto(rec: KnowledgeRecord, *, include_constraints: bool = True) -> KnowledgeItem:
    """The REST view: the item with its version, source and successors at the top level."""
    return {
        **item_view(rec, include_constraints=include_constraints),
        "version": str(rec.version),
        "source": rec.source,
        "supersededBy": list(rec.superseded_by),
    }
