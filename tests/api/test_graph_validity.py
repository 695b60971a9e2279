"""Facts that change over time on the graph surface: validity intervals written through
``/v1/memory/write``, recalled now, ``as_of`` a past instant, and as history."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.support.memory_api import new_scope, wait_until_recallable, write

QUERY = "where does Alice live city home"


def _recall(client: httpx.Client, scope: str, **extra: Any) -> dict[str, Any]:
    r = client.post("/v1/memory/recall_text", json={"scope": scope, "query_text": QUERY, "limit": 20, **extra})
    assert r.status_code == 200, r.text
    return dict(r.json())


def _ids(body: dict[str, Any]) -> set[str]:
    """Every node a recall shows: seeds and subgraph."""
    return {s["id"] for s in body["seeds"]} | {n["id"] for n in body["subgraph"]["nodes"]}


@pytest.fixture
def moves(client: httpx.Client) -> dict[str, Any]:
    """Alice lived in Paris from 2019 to mid-2023, then moved to Berlin; the edge from her to
    Paris ended with the move."""
    scope = new_scope()
    body = write(
        client,
        scope,
        [
            {"client_id": "alice", "type": "entity", "title": "Alice", "text_summary": "Alice, a person"},
            {
                "client_id": "paris",
                "type": "event",
                "title": "Alice lives in Paris",
                "text_summary": "Alice's home city is Paris",
                "valid_at": "2019-01-01T00:00:00Z",
                "invalid_at": "2023-06-01T00:00:00Z",
            },
            {
                "client_id": "berlin",
                "type": "event",
                "title": "Alice lives in Berlin",
                "text_summary": "Alice's home city is Berlin",
                "valid_at": "2023-06-01T00:00:00+00:00",
            },
        ],
        [
            {
                "type": "related_to",
                "src": {"client_id": "alice"},
                "dst": {"client_id": "paris"},
                "invalid_at": "2023-06-01T00:00:00Z",
            },
            {"type": "related_to", "src": {"client_id": "alice"}, "dst": {"client_id": "berlin"}},
        ],
    )
    ids = {n["client_id"]: n["id"] for n in body["nodes"]}
    wait_until_recallable(client, scope, QUERY, set(ids.values()), include_invalid=True)
    return {"scope": scope, "ids": ids}


def test_recall_returns_the_current_fact_and_not_the_ended_one(client: httpx.Client, moves: dict[str, Any]) -> None:
    ids = moves["ids"]
    for endpoint_body in (
        _recall(client, moves["scope"]),
        _recall(client, moves["scope"], neighborhood_hops=2, max_nodes=50),
    ):
        shown = _ids(endpoint_body)
        assert ids["berlin"] in shown and ids["alice"] in shown
        assert ids["paris"] not in shown
        assert ids["paris"] not in endpoint_body["context"]["text"]
        edges = {(e["from_id"], e["to_id"]) for e in endpoint_body["subgraph"]["edges"]}
        assert (ids["alice"], ids["paris"]) not in edges


def test_as_of_a_past_instant_sees_what_was_true_then(client: httpx.Client, moves: dict[str, Any]) -> None:
    ids = moves["ids"]
    then = _recall(client, moves["scope"], as_of="2021-03-01T12:00:00Z")
    shown = _ids(then)
    assert ids["paris"] in shown and ids["alice"] in shown
    assert ids["berlin"] not in shown
    # an interval begins at valid_at and ends at invalid_at
    at_move = _ids(_recall(client, moves["scope"], as_of="2023-06-01T00:00:00Z"))
    assert ids["berlin"] in at_move and ids["paris"] not in at_move
    # an instant without a zone is UTC
    assert ids["paris"] in _ids(_recall(client, moves["scope"], as_of="2023-05-31T23:59:00"))


def test_include_invalid_returns_history_with_its_intervals(client: httpx.Client, moves: dict[str, Any]) -> None:
    ids = moves["ids"]
    history = _recall(client, moves["scope"], include_invalid=True)
    nodes = {n["id"]: n for n in history["subgraph"]["nodes"]}
    assert {ids["paris"], ids["berlin"], ids["alice"]} <= set(nodes)
    assert nodes[ids["paris"]]["valid_at"] == "2019-01-01T00:00:00Z"
    assert nodes[ids["paris"]]["invalid_at"] == "2023-06-01T00:00:00Z"
    assert nodes[ids["berlin"]]["valid_at"] == "2023-06-01T00:00:00Z"
    assert nodes[ids["berlin"]]["invalid_at"] is None
    # a node without an interval keeps the contract's shape
    assert "valid_at" not in nodes[ids["alice"]]
    seeds = {s["id"]: s for s in history["seeds"]}
    assert seeds[ids["paris"]]["invalid_at"] == "2023-06-01T00:00:00Z"
    edges = {(e["from_id"], e["to_id"]): e for e in history["subgraph"]["edges"]}
    assert edges[(ids["alice"], ids["paris"])]["invalid_at"] == "2023-06-01T00:00:00Z"


def test_closing_a_fact_later_records_when_the_server_learned_it(client: httpx.Client) -> None:
    scope = new_scope()
    node = {"client_id": "job", "type": "event", "title": "Alice works at Acme", "valid_at": "2020-01-01T00:00:00Z"}
    first = write(client, scope, [node])
    wait_until_recallable(client, scope, "Alice works at Acme", {first["nodes"][0]["id"]})
    # the contract's seed by default; the interval with include_meta (or a time question)
    assert "valid_at" not in _recall(client, scope, query_text="Alice works at Acme")["seeds"][0]
    current = _recall(client, scope, query_text="Alice works at Acme", include_meta=True)
    assert current["seeds"][0]["valid_at"] == "2020-01-01T00:00:00Z"
    assert current["seeds"][0]["expired_at"] is None
    # a later commit gives only the end: the start stays, and the server stamps expired_at
    write(client, scope, [{"client_id": "job", "type": "event", "invalid_at": "2024-02-01T00:00:00Z"}])
    assert first["nodes"][0]["id"] not in _ids(_recall(client, scope, query_text="Alice works at Acme"))
    history = _recall(client, scope, query_text="Alice works at Acme", include_invalid=True)
    seed = next(s for s in history["seeds"] if s["id"] == first["nodes"][0]["id"])
    assert seed["valid_at"] == "2020-01-01T00:00:00Z" and seed["invalid_at"] == "2024-02-01T00:00:00Z"
    assert seed["expired_at"] is not None


def test_bad_intervals_and_time_questions_are_400s_naming_the_field(client: httpx.Client) -> None:
    scope = new_scope()
    cases = [
        (
            "/v1/memory/write",
            {
                "input_text": "x",
                "nodes": [{"type": "event", "valid_at": "2024-01-01T00:00:00Z", "invalid_at": "2023-01-01T00:00:00Z"}],
            },
            "nodes[0].invalid_at",
        ),
        ("/v1/memory/write", {"input_text": "x", "nodes": [{"type": "event", "valid_at": "yesterday"}]}, "valid_at"),
        ("/v1/memory/recall_text", {"query_text": "x", "as_of": "not a time"}, "as_of"),
        (
            "/v1/memory/recall_text",
            {"query_text": "x", "as_of": "2024-01-01T00:00:00Z", "include_invalid": True},
            "include_invalid",
        ),
    ]
    for path, body, field in cases:
        r = client.post(path, json={"scope": scope, **body})
        assert r.status_code == 400, (body, r.text)
        err = r.json()
        assert err["error"] == "invalid_request"
        assert field in err["message"], (field, err)


def test_a_stored_fact_cannot_be_closed_before_it_began(client: httpx.Client) -> None:
    scope = new_scope()
    write(client, scope, [{"client_id": "f", "type": "event", "title": "fact", "valid_at": "2024-01-01T00:00:00Z"}])
    r = client.post(
        "/v1/memory/write",
        json={
            "scope": scope,
            "input_text": "x",
            "nodes": [{"client_id": "f", "type": "event", "invalid_at": "2023-01-01T00:00:00Z"}],
        },
    )
    assert r.status_code == 400, r.text
    assert r.json()["error"] == "invalid_interval"
    assert r.json()["details"]["field"] == "nodes[0].invalid_at"
