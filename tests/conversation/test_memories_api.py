"""POST /api/v1/memories through the offline extractor, then query, get, delete, tasks."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from memlane.services.ranking.calibration import RelevanceScale
from tests.conversation.helpers import get_memory, ingest, msg, new_app, query, wait_task


def test_accepted_ingestion_returns_a_task_that_completes_with_cited_notes(api: httpx.Client) -> None:
    app = new_app()
    r = api.post(
        "/api/v1/memories",
        json={
            "app_id": app,
            "user_id": "u1",
            "session_id": "s1",
            "messages": [
                msg("Hey, good to see you!", mid="m-1"),
                msg("I adopted a beagle named Biscuit last week.", mid="m-2", ts="2024-03-04T09:00:00Z"),
                msg("Congrats! What is Biscuit like?", role="assistant", mid="m-3"),
            ],
        },
    )
    assert r.status_code == 202
    body = r.json()
    assert body["status"] == "accepted" and body["app_id"] == app and body["session_id"] == "s1"
    assert body["error"] is None and body["result"] is None
    task = wait_task(api, body["task_id"])
    assert task["status"] == "completed", task
    result = task["result"]
    assert result["pipeline"] == "offline" and result["llm_calls"] == 0 and result["message_count"] == 3
    assert len(result["memories"]) == 1, "greetings and questions are not remembered"
    note = get_memory(api, app, result["memories"][0]["memory_id"])
    assert "Biscuit" in note["document"] and "beagle" in note["document"]
    meta = note["metadata"]
    assert meta["source_messages"][0]["id"] == "m-2"
    assert meta["source_messages"][0]["timestamp"] == "2024-03-04T09:00:00Z"
    assert meta["status"] == "active" and meta["next_id"] is None
    assert meta["user_id"] == "u1" and meta["session_id"] == "s1" and meta["app_id"] == app
    assert meta["event_date"] == "the week of 26 February 2024"


def test_messages_without_ids_get_stable_ids_derived_from_the_task(api: httpx.Client) -> None:
    app = new_app()
    task = ingest(api, app, [msg("I work as a nurse at the Mercy hospital in Denver.")])
    note = get_memory(api, app, task["result"]["memories"][0]["memory_id"])
    assert note["metadata"]["source_messages"][0]["id"] == f"{task['task_id']}:0"


def test_query_ranks_by_composite_score_and_returns_every_component(api: httpx.Client) -> None:
    app = new_app()
    ingest(
        api,
        app,
        [
            msg("I play the violin in the city orchestra every Thursday.", ts="2024-01-01T10:00:00Z"),
            msg("My sister Anna lives in Lisbon and works as an architect.", ts="2024-01-02T10:00:00Z"),
        ],
    )
    found = query(api, app, "violin orchestra")
    assert found, "the violin note must be found"
    top = found[0]
    assert "violin" in top["document"]
    assert top["query_status"] == "completed"
    # the composite ranks on the absolute relevance scale (the cosine alone), so a threshold on
    # similarity_score (which also weighs the other notes) never changes the order
    absolute = RelevanceScale().absolute(top["cosine_similarity"])
    expected = absolute * (1 + top["recency_score"] + top["importance_score"])
    assert top["composite_score"] == pytest.approx(expected, abs=1e-5)
    assert 0 <= top["recency_score"] <= 0.1 and 0 <= top["importance_score"] <= 0.1
    composites = [m["composite_score"] for m in found]
    assert composites == sorted(composites, reverse=True)


def test_query_filters_by_user_and_session_and_threshold(api: httpx.Client) -> None:
    app = new_app()
    ingest(api, app, [msg("I collect vintage fountain pens from Japan.")], user_id="alice", session_id="s-a")
    ingest(api, app, [msg("I collect vintage fountain pens from Germany.")], user_id="bob", session_id="s-b")
    alice = query(api, app, "fountain pens", user_id="alice")
    assert alice and all(m["metadata"]["user_id"] == "alice" for m in alice)
    by_session = query(api, app, "fountain pens", session_id="s-b")
    assert by_session and all(m["metadata"]["session_id"] == "s-b" for m in by_session)
    assert query(api, app, "fountain pens", similarity_threshold=1.0) == []
    assert len(query(api, app, "fountain pens", n_results=1)) == 1


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"n_results": 0}, "n_results"),
        ({"n_results": 101}, "n_results"),
        ({"similarity_threshold": 1.5}, "similarity_threshold"),
        ({"similarity_threshold": -0.1}, "similarity_threshold"),
        ({"query": ""}, "query"),
    ],
)
def test_query_parameters_out_of_bounds_are_a_400_naming_the_field(
    api: httpx.Client, params: dict[str, Any], field: str
) -> None:
    r = api.get("/api/v1/memories/query", params={"app_id": "x", "query": "hello", **params})
    assert r.status_code == 400
    assert set(r.json()) == {"detail"} and field in r.json()["detail"]


def test_query_needs_an_app_id(api: httpx.Client) -> None:
    r = api.get("/api/v1/memories/query", params={"query": "hello"})
    assert r.status_code == 400 and "app_id" in r.json()["detail"]


@pytest.mark.parametrize(
    ("messages", "needle"),
    [
        ([], "between 1 and 30"),
        ([msg(f"message {i}") for i in range(31)], "between 1 and 30"),
        ([{"role": "user", "content": "bad time", "timestamp": "yesterday-ish"}], "ISO-8601"),
        ([{"role": "user", "content": "", "timestamp": "2024-01-01T00:00:00Z"}], "content"),
        ([{"content": "who?", "timestamp": "2024-01-01T00:00:00Z"}], "role"),
        ([msg("one", mid="dup"), msg("two", mid="dup")], "unique"),
    ],
)
def test_invalid_messages_are_a_400_in_the_detail_envelope(
    api: httpx.Client, messages: list[dict[str, object]], needle: str
) -> None:
    r = api.post("/api/v1/memories", json={"app_id": "a", "user_id": "u", "messages": messages})
    assert r.status_code == 400, r.text
    assert set(r.json()) == {"detail"} and needle in r.json()["detail"]


@pytest.mark.parametrize("missing", ["app_id", "user_id", "messages"])
def test_required_fields_are_checked(api: httpx.Client, missing: str) -> None:
    body = {"app_id": "a", "user_id": "u", "messages": [msg("hello there friend")]}
    body.pop(missing)
    r = api.post("/api/v1/memories", json=body)
    assert r.status_code == 400 and missing in r.json()["detail"]


def test_blank_app_id_is_refused(api: httpx.Client) -> None:
    r = api.post("/api/v1/memories", json={"app_id": "  ", "user_id": "u", "messages": [msg("hello friend")]})
    assert r.status_code == 400 and "app_id" in r.json()["detail"]


def test_a_retried_post_with_the_same_idempotency_key_returns_the_first_task(api: httpx.Client) -> None:
    app = new_app()
    body = {"app_id": app, "user_id": "u1", "messages": [msg("I run marathons in Boston every spring.")]}
    first = api.post("/api/v1/memories", json=body, headers={"Idempotency-Key": f"k-{app}"})
    second = api.post("/api/v1/memories", json=body, headers={"Idempotency-Key": f"k-{app}"})
    assert first.status_code == second.status_code == 202
    assert first.json()["task_id"] == second.json()["task_id"]
    wait_task(api, first.json()["task_id"])
    assert len(query(api, app, "marathons Boston")) == 1
    other = {**body, "messages": [msg("Something else entirely happened here.")]}
    reused = api.post("/api/v1/memories", json=other, headers={"Idempotency-Key": f"k-{app}"})
    assert reused.status_code == 409 and "Idempotency-Key" in reused.json()["detail"]


def test_get_and_delete_a_memory(api: httpx.Client) -> None:
    app = new_app()
    task = ingest(api, app, [msg("I am allergic to peanuts and shellfish.")])
    mid = task["result"]["memories"][0]["memory_id"]
    assert get_memory(api, app, mid)["memory_id"] == mid
    assert api.get(f"/api/v1/memories/{mid}", params={"app_id": "another-app"}).status_code == 404
    r = api.delete(f"/api/v1/memories/{mid}", params={"app_id": app})
    assert r.status_code == 200
    assert r.json() == {"success": True, "message": f"Memory {mid} deleted successfully", "data": None}
    missing = api.get(f"/api/v1/memories/{mid}", params={"app_id": app})
    assert missing.status_code == 404 and mid in missing.json()["detail"]
    assert api.delete(f"/api/v1/memories/{mid}", params={"app_id": app}).status_code == 404
    assert query(api, app, "allergic peanuts") == []


def test_tenants_do_not_see_each_others_tasks_or_notes(api: httpx.Client) -> None:
    app = new_app()
    a, b = {"X-Tenant-Id": "tenant-a"}, {"X-Tenant-Id": "tenant-b"}
    r = api.post(
        "/api/v1/memories",
        json={"app_id": app, "user_id": "u", "messages": [msg("I keep bees on my rooftop in Oslo.")]},
        headers=a,
    )
    task = r.json()["task_id"]
    assert api.get(f"/api/v1/tasks/{task}", headers=b).status_code == 404
    mid = wait_task(api, task, headers=a)["result"]["memories"][0]["memory_id"]
    assert api.get(f"/api/v1/memories/{mid}", params={"app_id": app}, headers=a).status_code == 200
    assert api.get(f"/api/v1/memories/{mid}", params={"app_id": app}, headers=b).status_code == 404
    q = api.get("/api/v1/memories/query", params={"app_id": app, "query": "bees rooftop"}, headers=b)
    assert q.status_code == 200 and q.json()["count"] == 0
    assert api.delete(f"/api/v1/memories/{mid}", params={"app_id": app}, headers=b).status_code == 404


def test_unknown_task_is_a_404(api: httpx.Client) -> None:
    r = api.get("/api/v1/tasks/does-not-exist")
    assert r.status_code == 404 and set(r.json()) == {"detail"}


def test_pool_stats_reports_the_real_pool(api: httpx.Client) -> None:
    stats = api.get("/api/v1/system/pool-stats").json()
    assert set(stats) == {"max_connections", "created_handlers", "active_handlers", "available_handlers", "initialized"}
    assert stats["initialized"] is True
    assert stats["max_connections"] >= stats["created_handlers"] >= stats["active_handlers"] >= 0
    assert stats["available_handlers"] == stats["created_handlers"] - stats["active_handlers"]


def test_index_lists_the_conversation_endpoints(api: httpx.Client) -> None:
    body = api.get("/").json()
    assert body["endpoints"]["api"] == "/api/v1"
    assert "/api/v1/memories/query" in body["endpoints"]["conversation"]
    spec = api.get("/openapi.json").json()
    assert {"/api/v1/memories", "/api/v1/memories/query", "/api/v1/agent/summaries"} <= set(spec["paths"])
