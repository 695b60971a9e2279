"""POST /v1/memory/nodes/activate: activity and feedback signals for adaptive decay."""

from __future__ import annotations

import uuid
from typing import Any

import httpx

from tests.support.memory_api import new_scope, unit, write

ACTIVATED_KEYS = {
    "requested",
    "resolved",
    "found",
    "updated",
    "missing",
    "node_ids",
    "missing_node_ids",
    "missing_client_ids",
}


def activate(client: httpx.Client, scope: str, **body: Any) -> httpx.Response:
    return client.post("/v1/memory/nodes/activate", json={"scope": scope, "input_text": "used it", **body})


def node_view(client: httpx.Client, scope: str, seed: int, node_id: str) -> dict[str, Any]:
    """The node as recall returns it with slots and meta (its own vector finds it)."""
    r = client.post(
        "/v1/memory/recall",
        json={"scope": scope, "query_embedding": unit(seed), "include_slots": True, "include_meta": True, "limit": 5},
    )
    assert r.status_code == 200, r.text
    return next(n for n in r.json()["subgraph"]["nodes"] if n["id"] == node_id)


def test_activation_records_feedback_counters_quality_and_last_activated(client: httpx.Client) -> None:
    scope = new_scope()
    nid = write(client, scope, [{"client_id": "fact", "type": "event", "title": "fact", "embedding": unit(11)}])[
        "nodes"
    ][0]["id"]
    assert node_view(client, scope, 11, nid)["last_activated"] is None

    r = activate(client, scope, node_ids=[nid], outcome="positive", run_id="run-1", reason="cited in answer")
    assert r.status_code == 200, r.text
    body = r.json()
    assert set(body) == {"tenant_id", "scope", "commit_id", "commit_hash", "activated"}
    assert body["commit_id"] and len(body["commit_hash"]) == 64
    assert set(body["activated"]) == ACTIVATED_KEYS
    assert body["activated"] == {
        "requested": 1,
        "resolved": 1,
        "found": 1,
        "updated": 1,
        "missing": 0,
        "node_ids": [nid],
        "missing_node_ids": [],
        "missing_client_ids": [],
    }
    activate(client, scope, client_ids=["fact"], outcome="negative")
    activate(client, scope, client_ids=["fact"], outcome="positive", activate=False)
    view = node_view(client, scope, 11, nid)
    slots = view["slots"]
    assert slots["feedback_positive"] == 2 and slots["feedback_negative"] == 1
    assert slots["feedback_quality"] == round(3 / 5, 6)
    assert slots["last_feedback_outcome"] == "positive" and slots["last_feedback_run_id"] is None
    assert slots["last_feedback_input_sha256"] and slots["activation_count"] == 2
    assert view["last_activated"] is not None and view["commit_id"]


def test_neutral_activation_updates_activity_but_no_counter(client: httpx.Client) -> None:
    scope = new_scope()
    nid = write(client, scope, [{"type": "event", "title": "quiet", "embedding": unit(12)}])["nodes"][0]["id"]
    body = activate(client, scope, node_ids=[nid]).json()
    assert body["activated"]["updated"] == 1
    slots = node_view(client, scope, 12, nid)["slots"]
    assert slots["feedback_positive"] == 0 and slots["feedback_negative"] == 0
    assert slots["feedback_quality"] == 0.5 and slots["last_feedback_outcome"] == "neutral"


def test_counters_report_what_was_found_and_what_is_missing(client: httpx.Client) -> None:
    scope = new_scope()
    ids = {
        n["client_id"]: n["id"]
        for n in write(
            client,
            scope,
            [{"client_id": "a", "type": "event", "title": "a"}, {"client_id": "b", "type": "entity", "title": "b"}],
        )["nodes"]
    }
    ghost = str(uuid.uuid4())
    body = activate(client, scope, node_ids=[ids["a"], ghost, ghost], client_ids=["b", "nope", "a"]).json()
    act = body["activated"]
    assert act["requested"] == 5  # 2 distinct node ids + 3 client ids
    assert act["resolved"] == 3  # a, ghost, b (a named twice)
    assert act["found"] == 2 and act["updated"] == 2 and act["missing"] == 2
    assert sorted(act["node_ids"]) == sorted([ids["a"], ids["b"]])
    assert act["missing_node_ids"] == [ghost] and act["missing_client_ids"] == ["nope"]


def test_nothing_found_means_no_commit(client: httpx.Client) -> None:
    body = activate(client, new_scope(), node_ids=[str(uuid.uuid4())]).json()
    assert body["commit_id"] is None and body["commit_hash"] is None
    assert body["activated"]["found"] == 0 and body["activated"]["missing"] == 1


def test_nodes_of_another_scope_are_missing(client: httpx.Client) -> None:
    scope = new_scope()
    nid = write(client, scope, [{"type": "event", "title": "x"}])["nodes"][0]["id"]
    body = activate(client, new_scope(), node_ids=[nid]).json()
    assert body["activated"]["missing_node_ids"] == [nid]


def test_activate_requests_are_validated(client: httpx.Client) -> None:
    scope = new_scope()
    for body in (
        {},
        {"node_ids": []},
        {"client_ids": []},
        {"node_ids": [str(uuid.uuid4()) for _ in range(201)]},
        {"client_ids": [f"c{i}" for i in range(201)]},
        {"node_ids": ["not-a-uuid"]},
        {"node_ids": [str(uuid.uuid4())], "outcome": "great"},
        {"node_ids": [str(uuid.uuid4())], "reason": "x" * 1001},
        {"node_ids": [str(uuid.uuid4())], "surprise": True},
    ):
        r = activate(client, scope, **body)
        assert r.status_code == 400 and r.json()["error"] == "invalid_request", (body, r.text)
    r = client.post("/v1/memory/nodes/activate", json={"scope": scope, "node_ids": [str(uuid.uuid4())]})
    assert r.status_code == 400 and "input_text or input_sha256" in r.json()["message"]
