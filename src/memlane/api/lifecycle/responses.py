"""Success responses of the lifecycle surface (``/v1/memory/activate``, ``/v1/memory/rehydrate``)."""

from __future__ import annotations

from typing_extensions import TypedDict

from memlane.api.common.responses import closed


@closed
class Activated(TypedDict):
    requested: int
    resolved: int
    found: int
    updated: int
    missing: int
    node_ids: list[str]
    missing_node_ids: list[str]
    missing_client_ids: list[str]


@closed
class ActivateReply(TypedDict):
    tenant_id: str
    scope: str
    commit_id: str | None
    commit_hash: str | None
    activated: Activated


@closed
class Rehydrated(TypedDict):
    requested: int
    resolved: int
    moved: int
    noop: int
    missing: int
    node_ids: list[str]
    noop_node_ids: list[str]
    missing_node_ids: list[str]
    missing_client_ids: list[str]


@closed
class RehydrateReply(TypedDict):
    tenant_id: str
    scope: str
    target_tier: str
    commit_id: str | None
    commit_hash: str | None
    rehydrated: Rehydrated
