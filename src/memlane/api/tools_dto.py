"""Shapes of the tools surface's HTTP adapters: knowledge item CRUD and the item DTO."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from memlane.services.knowledge.views import item_view, version_view
from memlane.store.knowledge import KnowledgeRecord, VersionRecord

ShortText = Annotated[str, Field(min_length=1, max_length=256)]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)


class KnowledgeItemIn(Strict):
    id: str = Field(..., min_length=1, max_length=200)
    type: str
    layer: str
    title: str = Field(..., min_length=1, max_length=2000)
    summary: str = Field("", max_length=10_000)
    content: str = Field("", max_length=1_000_000)
    status: str = "draft"
    severity: str = "warn"
    tags: list[Annotated[str, Field(min_length=1, max_length=128)]] = Field(default_factory=list, max_length=100)
    constraints: list[dict[str, Any]] = Field(default_factory=list, max_length=200)
    metadata: dict[str, Any] = Field(default_factory=dict)
    supersedes: str | None = Field(None, max_length=200)
    message: str | None = Field(None, max_length=2000, description="version history message")


class KnowledgeItemPatch(Strict):
    type: str | None = None
    layer: str | None = None
    title: str | None = Field(None, min_length=1, max_length=2000)
    summary: str | None = Field(None, max_length=10_000)
    content: str | None = Field(None, max_length=1_000_000)
    status: str | None = None
    severity: str | None = None
    tags: list[Annotated[str, Field(min_length=1, max_length=128)]] | None = Field(None, max_length=100)
    constraints: list[dict[str, Any]] | None = Field(None, max_length=200)
    metadata: dict[str, Any] | None = None
    supersedes: str | None = Field(None, max_length=200)
    message: str | None = Field(None, max_length=2000)


class DocumentIn(Strict):
    path: str = Field(..., min_length=1, max_length=1024)
    content: str = Field(..., min_length=1, max_length=1_000_000)


class ImportIn(Strict):
    documents: list[DocumentIn] = Field(..., min_length=1, max_length=500)


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
