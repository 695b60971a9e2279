"""Writing rule nodes through the real API, the way a planner author would."""

from __future__ import annotations

from typing import Any

import httpx

from tests.api.helpers import write


def rule(
    client_id: str,
    *,
    then: Any,
    if_: Any = None,
    state: str | None = "active",
    priority: int | None = None,
    weight: float | None = None,
    exceptions: Any = None,
    rule_scope: str | None = None,
    target_team_id: str | None = None,
    target_agent_id: str | None = None,
    summary: str | None = None,
    **node: Any,
) -> dict[str, Any]:
    """A WriteNode of type rule with its definition in slots."""
    slots: dict[str, Any] = {"then": then}
    if if_ is not None:
        slots["if"] = if_
    if state is not None:
        slots["state"] = state
    if exceptions is not None:
        slots["exceptions"] = exceptions
    meta = {k: v for k, v in (("priority", priority), ("weight", weight)) if v is not None}
    if meta:
        slots["rule_meta"] = meta
    if rule_scope is not None:
        slots["rule_scope"] = rule_scope
    if target_team_id is not None:
        slots["target_team_id"] = target_team_id
    if target_agent_id is not None:
        slots["target_agent_id"] = target_agent_id
    return {"client_id": client_id, "type": "rule", "text_summary": summary or client_id, "slots": slots, **node}


def write_rules(client: httpx.Client, scope: str, rules: list[dict[str, Any]], **extra: Any) -> dict[str, str]:
    """Write rules (shared lane unless a rule says otherwise); returns client_id -> node id."""
    body = write(client, scope, rules, **extra)
    return {n["client_id"]: n["id"] for n in body["nodes"]}


def evaluate(client: httpx.Client, scope: str, context: Any, **extra: Any) -> dict[str, Any]:
    r = client.post("/v1/memory/rules/evaluate", json={"scope": scope, "context": context, **extra})
    assert r.status_code == 200, r.text
    return dict(r.json())


def select(client: httpx.Client, scope: str, context: Any, candidates: list[str], **extra: Any) -> httpx.Response:
    return client.post(
        "/v1/memory/tools/select", json={"scope": scope, "context": context, "candidates": candidates, **extra}
    )


def set_state(client: httpx.Client, scope: str, rule_id: str, state: str, **extra: Any) -> httpx.Response:
    return client.post(
        "/v1/memory/rules/state",
        json={"scope": scope, "rule_node_id": rule_id, "state": state, "input_text": f"set {state}", **extra},
    )


def feedback(client: httpx.Client, scope: str, rule_id: str, outcome: str, **extra: Any) -> httpx.Response:
    return client.post(
        "/v1/memory/feedback",
        json={"scope": scope, "rule_node_id": rule_id, "outcome": outcome, "input_text": "outcome", **extra},
    )


def tools_feedback(
    client: httpx.Client, scope: str, context: Any, candidates: list[str], selected: str, outcome: str, **extra: Any
) -> httpx.Response:
    return client.post(
        "/v1/memory/tools/feedback",
        json={
            "scope": scope,
            "context": context,
            "candidates": candidates,
            "selected_tool": selected,
            "outcome": outcome,
            "input_text": "tool run",
            **extra,
        },
    )
