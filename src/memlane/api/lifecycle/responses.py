"""Success responses of the lifecycle surface (``/v1/memory/activate``, ``/v1/memory/rehydrate``)."""

from __future__ import annotations

from typing_extensions import TypedDict

from memlane.api.common.responses import closed
from memlane.services.lifecycle.activation import ActivationResult
from memlane.services.lifecycle.rehydrate import RehydrateResult


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


def activate_reply(tenant_id: str, scope: str, result: ActivationResult) -> ActivateReply:
    return {
        "tenant_id": tenant_id,
        "scope": scope,
        "commit_id": result.commit.id if result.commit else None,
        "commit_hash": result.commit.commit_hash if result.commit else None,
        "activated": {
            "requested": result.requested,
            "resolved": result.resolved,
            "found": result.found,
            "updated": result.updated,
            "missing": result.missing,
            "node_ids": result.node_ids,
            "missing_node_ids": result.missing_node_ids,
            "missing_client_ids": result.missing_client_ids,
        },
    }


def rehydrate_reply(tenant_id: str, scope: str, target_tier: str, result: RehydrateResult) -> RehydrateReply:
    return {
        "tenant_id": tenant_id,
        "scope": scope,
        "target_tier": target_tier,
        "commit_id": result.commit.id if result.commit else None,
        "commit_hash": result.commit.commit_hash if result.commit else None,
        "rehydrated": {
            "requested": result.requested,
            "resolved": result.resolved,
            "moved": len(result.node_ids),
            "noop": len(result.noop_node_ids),
            "missing": len(result.missing_node_ids) + len(result.missing_client_ids),
            "node_ids": result.node_ids,
            "noop_node_ids": result.noop_node_ids,
            "missing_node_ids": result.missing_node_ids,
            "missing_client_ids": result.missing_client_ids,
        },
    }
