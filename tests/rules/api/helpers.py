"""Writing rule nodes through the real API, the way a planner author would: a write creates
drafts, ``POST /v1/memory/rules/state`` moves them on (a write cannot set a state)."""

from __future__ import annotations

import json
import uuid
from typing import Any

import httpx

from memlane.domain.model import Node
from tests.support.memory_api import stored, write
from tests.support.server import LiveServer

#: the rules/state moves that take a new (draft) rule to each state
PATH_TO: dict[str, tuple[str, ...]] = {
    "draft": (),
    "shadow": ("shadow",),
    "active": ("shadow", "active"),
    "disabled": ("disabled",),
}


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
    """A WriteNode of type rule with its definition in slots; ``state`` is the state the rule
    should reach (``write_rules`` takes it there through rules/state)."""
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


def as_drafts(nodes: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """The nodes without the ``slots.state`` of their rules, and client_id -> that state."""
    out: list[dict[str, Any]] = []
    wanted: dict[str, str] = {}
    for n in nodes:
        slots = n.get("slots")
        if n.get("type") == "rule" and isinstance(slots, dict) and "state" in slots:
            wanted[n["client_id"]] = slots["state"]
            n = {**n, "slots": {k: v for k, v in slots.items() if k != "state"}}
        out.append(n)
    return out, wanted


def move_to(client: httpx.Client, scope: str, rule_id: str, state: str, headers: dict[str, str] | None = None) -> None:
    """Take a draft rule to ``state`` through rules/state, as a reviewer would."""
    for step in PATH_TO[state]:
        r = set_state(client, scope, rule_id, step, headers=headers)
        assert r.status_code == 200, r.text


def write_rules(
    client: httpx.Client,
    scope: str,
    rules: list[dict[str, Any]],
    headers: dict[str, str] | None = None,
    **extra: Any,
) -> dict[str, str]:
    """Write rules (shared lane unless a rule says otherwise) as drafts, then move each to the
    state its ``slots.state`` names; returns client_id -> node id."""
    drafts, wanted = as_drafts(rules)
    if headers is None:
        body = write(client, scope, drafts, **extra)
    else:
        payload = {"scope": scope, "input_text": "rules", "nodes": drafts, **extra}
        r = client.post("/v1/memory/write", json=payload, headers=headers)
        assert r.status_code == 200, r.text
        body = r.json()
    ids = {n["client_id"]: n["id"] for n in body["nodes"]}
    for client_id, state in wanted.items():
        move_to(client, scope, ids[client_id], state, headers)
    return ids


def import_rules(client: httpx.Client, scope: str, rules: list[dict[str, Any]]) -> dict[str, str]:
    """Rules as a store holds them from before the lifecycle was enforced (an active rule with a
    broken ``then``, say), brought in the one way that writes nodes as they are: an import of an
    export file (tenant ``default``, admin channel of a loopback request). Returns client_id ->
    node id."""
    header = {"record": "header", "format": "memlane-export", "version": 1, "embeddings": False}
    ids = {r["client_id"]: str(uuid.uuid4()) for r in rules}
    base = {"record": "node", "tenant_id": "default", "scope": scope, "memory_lane": "shared"}
    records = [header] + [{**base, "id": ids[r["client_id"]], **r} for r in rules]
    body = "\n".join(json.dumps(x) for x in records)
    r = client.post("/v1/admin/import", content=body, headers={"content-type": "application/x-ndjson"})
    assert r.status_code == 200, r.text
    return ids


def evaluate(client: httpx.Client, scope: str, context: Any, **extra: Any) -> dict[str, Any]:
    r = client.post("/v1/memory/rules/evaluate", json={"scope": scope, "context": context, **extra})
    assert r.status_code == 200, r.text
    return dict(r.json())


def select(client: httpx.Client, scope: str, context: Any, candidates: list[str], **extra: Any) -> httpx.Response:
    return client.post(
        "/v1/memory/tools/select", json={"scope": scope, "context": context, "candidates": candidates, **extra}
    )


def set_state(
    client: httpx.Client, scope: str, rule_id: str, state: str, headers: dict[str, str] | None = None, **extra: Any
) -> httpx.Response:
    return client.post(
        "/v1/memory/rules/state",
        json={"scope": scope, "rule_node_id": rule_id, "state": state, "input_text": f"set {state}", **extra},
        headers=headers,
    )


def feedback(
    client: httpx.Client,
    scope: str,
    rule_id: str,
    outcome: str,
    headers: dict[str, str] | None = None,
    **extra: Any,
) -> httpx.Response:
    return client.post(
        "/v1/memory/feedback",
        json={"scope": scope, "rule_node_id": rule_id, "outcome": outcome, "input_text": "outcome", **extra},
        headers=headers,
    )


def tools_feedback(
    client: httpx.Client,
    scope: str,
    context: Any,
    candidates: list[str],
    selected: str,
    outcome: str,
    headers: dict[str, str] | None = None,
    **extra: Any,
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
        headers=headers,
    )


def exported(client: httpx.Client, scope: str, headers: dict[str, str] | None = None) -> dict[str, Any]:
    """The scope as an export holds it (the admin channel): nodes by id, commits oldest first."""
    r = client.get("/v1/admin/export", params={"scope": scope}, headers=headers)
    assert r.status_code == 200, r.text
    records = [json.loads(line) for line in r.text.splitlines() if line]
    return {
        "nodes": {n["id"]: n for n in records if n["record"] == "node"},
        "commits": [c for c in records if c["record"] == "commit"],
    }


#: what the embedding worker changes on its own, whenever it runs
EMBEDDER_FIELDS = ("embedding_status", "embedding_model")


def stored_rows(client: httpx.Client, scope: str, headers: dict[str, str] | None = None) -> dict[str, Any]:
    """The scope's nodes by id, as written (without what the embedding worker sets later), to
    tell whether a refused request changed anything."""
    nodes = exported(client, scope, headers)["nodes"]
    return {nid: {k: v for k, v in n.items() if k not in EMBEDDER_FIELDS} for nid, n in nodes.items()}


def slots_of(client: httpx.Client, scope: str, node_id: str, headers: dict[str, str] | None = None) -> dict[str, Any]:
    return dict(exported(client, scope, headers)["nodes"][node_id]["slots"])


def write_raw(
    client: httpx.Client,
    scope: str,
    nodes: list[dict[str, Any]],
    headers: dict[str, str] | None = None,
    **extra: Any,
) -> httpx.Response:
    """A write as sent, refused or not (shared lane unless ``extra`` says otherwise)."""
    body = {"scope": scope, "input_text": "rules", "memory_lane": "shared", "nodes": nodes, **extra}
    return client.post("/v1/memory/write", json=body, headers=headers)


def refused(r: httpx.Response, status: int, code: str, field: str) -> dict[str, Any]:
    """The graph envelope of a refusal, naming ``field`` in its details and its message."""
    assert r.status_code == status, r.text
    body: dict[str, Any] = r.json()
    assert body["error"] == code and body["details"]["field"] == field, body
    assert field in body["message"]
    return body


def read_node(server: LiveServer, scope: str, node_id: str) -> Node:
    """The stored node, read with a store of our own on the server's database."""
    return stored(server.settings, lambda s: s.get_nodes("default", scope, [node_id]))[0]
