"""POST /v1/memory/archive/rehydrate: archived and cold nodes back into active tiers, upward only."""

from __future__ import annotations

import uuid
from typing import Any

import httpx

from tests.support.memory_api import new_scope, unit, write

REHYDRATED_KEYS = {
    "requested",
    "resolved",
    "moved",
    "noop",
    "missing",
    "node_ids",
    "noop_node_ids",
    "missing_node_ids",
    "missing_client_ids",
}


def rehydrate(client: httpx.Client, scope: str, **body: Any) -> httpx.Response:
    return client.post("/v1/memory/archive/rehydrate", json={"scope": scope, "input_text": "needed again", **body})


def seeds(client: httpx.Client, scope: str, seed: int) -> list[str]:
    r = client.post("/v1/memory/recall", json={"scope": scope, "query_embedding": unit(seed), "limit": 10})
    return [s["id"] for s in r.json()["seeds"]]


def tiered(client: httpx.Client, scope: str) -> dict[str, str]:
    nodes = [
        {"client_id": tier, "type": "event", "title": f"{tier} memory", "tier": tier, "embedding": unit(20 + i)}
        for i, tier in enumerate(("archive", "cold", "warm", "hot"))
    ]
    return {n["client_id"]: n["id"] for n in write(client, scope, nodes)["nodes"]}


def test_archived_nodes_come_back_to_warm_and_recall_sees_them_again(client: httpx.Client) -> None:
    scope = new_scope()
    ids = tiered(client, scope)
    assert ids["archive"] not in seeds(client, scope, 20)
    r = rehydrate(client, scope, node_ids=[ids["archive"], ids["cold"], ids["warm"], ids["hot"]], reason="audit")
    assert r.status_code == 200, r.text
    body = r.json()
    assert set(body) == {"tenant_id", "scope", "target_tier", "commit_id", "commit_hash", "rehydrated"}
    assert body["target_tier"] == "warm" and body["commit_id"] and len(body["commit_hash"]) == 64
    reh = body["rehydrated"]
    assert set(reh) == REHYDRATED_KEYS
    assert reh["requested"] == 4 and reh["resolved"] == 4 and reh["moved"] == 2 and reh["noop"] == 2
    assert reh["missing"] == 0
    assert reh["node_ids"] == [ids["archive"], ids["cold"]]
    assert reh["noop_node_ids"] == [ids["warm"], ids["hot"]]
    assert ids["archive"] in seeds(client, scope, 20)

    view = client.post(
        "/v1/memory/recall",
        json={"scope": scope, "query_embedding": unit(20), "include_slots": True, "include_meta": True, "limit": 1},
    ).json()
    node = next(n for n in view["subgraph"]["nodes"] if n["id"] == ids["archive"])
    slots = node["slots"]
    assert slots["last_rehydrated_from_tier"] == "archive" and slots["last_rehydrated_to_tier"] == "warm"
    assert slots["last_rehydrated_reason"] == "audit" and slots["last_rehydrated_at"].endswith("Z")
    assert slots["last_rehydrated_job"] and len(slots["last_rehydrated_input_sha256"]) == 64
    assert node["last_activated"] is not None and node["commit_id"] == body["commit_id"]


def test_target_hot_lifts_warm_nodes_and_a_second_call_is_a_noop(client: httpx.Client) -> None:
    scope = new_scope()
    ids = tiered(client, scope)
    first = rehydrate(client, scope, client_ids=["warm", "cold"], target_tier="hot").json()
    assert first["target_tier"] == "hot" and first["rehydrated"]["moved"] == 2
    again = rehydrate(client, scope, client_ids=["warm", "cold"], target_tier="hot").json()
    assert again["rehydrated"]["moved"] == 0 and again["rehydrated"]["noop"] == 2
    assert again["commit_id"] is None and again["commit_hash"] is None
    down = rehydrate(client, scope, node_ids=[ids["hot"]], target_tier="warm").json()
    assert down["rehydrated"]["noop_node_ids"] == [ids["hot"]]  # never moved down


def test_missing_references_are_counted(client: httpx.Client) -> None:
    scope = new_scope()
    ids = tiered(client, scope)
    ghost = str(uuid.uuid4())
    reh = rehydrate(client, scope, node_ids=[ghost], client_ids=["archive", "unknown"]).json()["rehydrated"]
    assert reh["requested"] == 3 and reh["resolved"] == 2 and reh["moved"] == 1 and reh["missing"] == 2
    assert reh["node_ids"] == [ids["archive"]]
    assert reh["missing_node_ids"] == [ghost] and reh["missing_client_ids"] == ["unknown"]


def test_rehydrate_requests_are_validated(client: httpx.Client) -> None:
    scope = new_scope()
    for body in (
        {},
        {"node_ids": []},
        {"node_ids": [str(uuid.uuid4())], "target_tier": "cold"},
        {"node_ids": [str(uuid.uuid4())], "target_tier": "archive"},
        {"client_ids": ["x"] * 201},
        {"node_ids": ["x"]},
    ):
        r = rehydrate(client, scope, **body)
        assert r.status_code == 400 and r.json()["error"] == "invalid_request", (body, r.text)
    r = client.post("/v1/memory/archive/rehydrate", json={"scope": scope, "client_ids": ["a"]})
    assert r.status_code == 400 and "input_text or input_sha256" in r.json()["message"]
