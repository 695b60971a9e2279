"""Rule nodes for tests, built the way the store hands them to the rules package."""

from __future__ import annotations

from typing import Any

from memlane.domain.model import Node


def rule_node(
    rule_id: str,
    *,
    state: str | None = "active",
    if_: Any = None,
    then: Any = None,
    exceptions: Any = None,
    scope: str | None = None,
    target_team_id: str | None = None,
    target_agent_id: str | None = None,
    lane: str = "shared",
    owner_agent_id: str | None = None,
    owner_team_id: str | None = None,
    priority: Any = None,
    weight: Any = None,
    positive: int = 0,
    negative: int = 0,
    summary: str | None = None,
    commit_id: str | None = None,
) -> Node:
    slots: dict[str, Any] = {"then": {} if then is None else then}
    if state is not None:
        slots["state"] = state
    if if_ is not None:
        slots["if"] = if_
    if exceptions is not None:
        slots["exceptions"] = exceptions
    if scope is not None:
        slots["rule_scope"] = scope
    if target_team_id is not None:
        slots["target_team_id"] = target_team_id
    if target_agent_id is not None:
        slots["target_agent_id"] = target_agent_id
    meta: dict[str, Any] = {}
    if priority is not None:
        meta["priority"] = priority
    if weight is not None:
        meta["weight"] = weight
    if meta:
        slots["rule_meta"] = meta
    if positive or negative:
        slots["stats"] = {"positive": positive, "negative": negative}
    return Node(
        tenant_id="default",
        id=rule_id,
        scope="default",
        type="rule",
        text_summary=summary,
        slots=slots,
        memory_lane=lane,
        owner_agent_id=owner_agent_id,
        owner_team_id=owner_team_id,
        commit_id=commit_id,
    )
