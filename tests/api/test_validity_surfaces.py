"""Facts over time on the other read surfaces, on both backends: conversation ingestion closes
the note a later statement replaces, and conversation query, layers search and the tools'
memory_search answer now, ``as_of`` and with history."""

from __future__ import annotations

import time
import uuid
from typing import Any

import httpx

from tests.conversation.helpers import get_memory, msg, new_app, query, wait_task


def _ingest(client: httpx.Client, app: str, text: str, ts: str) -> dict[str, Any]:
    body = {"app_id": app, "user_id": "u1", "messages": [msg(text, ts=ts)]}
    r = client.post("/api/v1/memories", json=body)
    assert r.status_code == 202, r.text
    task = wait_task(client, r.json()["task_id"])
    assert task["status"] == "completed", task
    return dict(task["result"]["memories"][0])


def test_a_replaced_note_is_closed_when_the_new_one_was_said_and_queried_as_of_then(client: httpx.Client) -> None:
    app = new_app()
    old = _ingest(client, app, "I live in a small flat in Denver near the river.", "2024-01-01T10:00:00Z")
    new = _ingest(
        client, app, "I moved and now I live in a small flat in Seattle near the river.", "2024-05-01T10:00:00Z"
    )
    assert new["operation"] == "UPDATE" and new["targets"] == [old["memory_id"]]
    closed = get_memory(client, app, old["memory_id"])["metadata"]
    assert closed["status"] == "superseded"
    assert closed["invalid_at"] == "2024-05-01T10:00:00Z" and closed["expired_at"] is not None
    assert get_memory(client, app, new["memory_id"])["metadata"]["valid_at"] == "2024-05-01T10:00:00Z"

    question = "where do I live flat river"
    now = [m["memory_id"] for m in query(client, app, question)]
    assert new["memory_id"] in now and old["memory_id"] not in now
    then = [m["memory_id"] for m in query(client, app, question, as_of="2024-03-01T00:00:00Z")]
    assert old["memory_id"] in then and new["memory_id"] not in then
    history = {m["memory_id"]: m for m in query(client, app, question, include_invalid="true")}
    assert {old["memory_id"], new["memory_id"]} <= set(history)
    assert history[old["memory_id"]]["metadata"]["invalid_at"] == "2024-05-01T10:00:00Z"


def test_a_contradiction_closes_the_old_note_instead_of_deleting_it(client: httpx.Client) -> None:
    app = new_app()
    old = _ingest(client, app, "I eat meat and I love steak dinners with friends.", "2024-01-01T10:00:00Z")
    new = _ingest(
        client, app, "I don't eat meat and I love steak dinners with friends no more.", "2024-02-01T10:00:00Z"
    )
    assert new["operation"] == "DELETE"
    kept = get_memory(client, app, old["memory_id"])["metadata"]
    assert kept["status"] == "contradicted" and kept["invalid_at"] == "2024-02-01T10:00:00Z"
    then = [m["memory_id"] for m in query(client, app, "eat meat steak dinners", as_of="2024-01-15T00:00:00Z")]
    assert old["memory_id"] in then


def test_conversation_query_refuses_as_of_with_include_invalid(client: httpx.Client) -> None:
    params = {"app_id": new_app(), "query": "x", "as_of": "2024-01-01T00:00:00Z", "include_invalid": "true"}
    r = client.get("/api/v1/memories/query", params=params)
    assert r.status_code == 400 and "include_invalid" in r.json()["detail"]
    bad = client.get("/api/v1/memories/query", params={"app_id": "a", "query": "x", "as_of": "soon"})
    assert bad.status_code == 400 and "as_of" in str(bad.json()["detail"])


def _search_layers(client: httpx.Client, scope: str, **extra: Any) -> list[dict[str, Any]]:
    body = {"scope": scope, "layer": "project", "query": "deployment target cluster", **extra}
    r = client.post("/v1/layers/search", json=body)
    assert r.status_code == 200, r.text
    return list(r.json()["results"])


def test_layers_search_answers_now_as_of_and_with_history(client: httpx.Client) -> None:
    scope = f"layers-{uuid.uuid4().hex[:8]}"
    written = {}
    for name, meta in (
        ("old", {"valid_at": "2023-01-01T00:00:00Z", "invalid_at": "2024-01-01T00:00:00Z"}),
        ("new", {"valid_at": "2024-01-01T00:00:00Z"}),
    ):
        body = {
            "scope": scope,
            "layer": "project",
            "title": f"Deployment target ({name})",
            "content": f"The deployment target cluster is the {name} one",
            "metadata": meta,
            "user_instruction": True,
        }
        r = client.post("/v1/layers/write", json=body)
        assert r.status_code == 200, r.text
        written[name] = r.json()["memory"]["id"] if "memory" in r.json() else r.json()["id"]
    now = {m["id"] for m in _search_layers(client, scope)}
    assert written["new"] in now and written["old"] not in now
    then = {m["id"] for m in _search_layers(client, scope, as_of="2023-06-01T00:00:00Z")}
    assert written["old"] in then and written["new"] not in then
    history = {m["id"]: m for m in _search_layers(client, scope, include_invalid=True)}
    assert history[written["old"]]["metadata"]["invalid_at"] == "2024-01-01T00:00:00Z"
    both = client.post(
        "/v1/layers/search",
        json={"scope": scope, "query": "x", "as_of": "2023-06-01T00:00:00Z", "include_invalid": True},
    )
    assert both.status_code == 400 and both.json()["success"] is False


def _tool(client: httpx.Client, name: str, args: dict[str, Any]) -> dict[str, Any]:
    r = client.post(f"/v1/tools/{name}", json=args, headers={"X-User-Id": "u-tools"})
    return dict(r.json())


def test_memory_search_answers_now_as_of_and_with_history(client: httpx.Client) -> None:
    tag = uuid.uuid4().hex[:8]
    old = _tool(
        client,
        "memory_add",
        {
            "content": f"My favourite editor {tag} is vim",
            "layer": "user",
            "validAt": "2020-01-01T00:00:00Z",
            "invalidAt": "2024-01-01T00:00:00Z",
        },
    )
    new = _tool(
        client,
        "memory_add",
        {"content": f"My favourite editor {tag} is emacs", "layer": "user", "validAt": "2024-01-01T00:00:00Z"},
    )
    timeless = _tool(client, "memory_add", {"content": f"My favourite editor {tag} font is mono", "layer": "user"})
    assert old["success"] and new["success"] and timeless["success"]

    def ids(**extra: Any) -> dict[str, dict[str, Any]]:
        deadline = time.monotonic() + 10
        while True:
            out = _tool(client, "memory_search", {"query": f"favourite editor {tag}", "threshold": 0, **extra})
            assert out["success"], out
            if out["results"] or time.monotonic() > deadline:
                return {r["memoryId"]: r for r in out["results"]}
            time.sleep(0.1)

    now = ids()
    assert new["memoryId"] in now and old["memoryId"] not in now
    then = ids(asOf="2022-01-01T00:00:00Z")
    assert old["memoryId"] in then and new["memoryId"] not in then
    assert timeless["memoryId"] in now and timeless["memoryId"] in then, "no interval: valid as far as is known"
    history = ids(includeInvalid=True)
    assert history[old["memoryId"]]["invalidAt"] == "2024-01-01T00:00:00Z"
    assert "validAt" not in history[timeless["memoryId"]], "no interval, the spec's shape"
    bad = _tool(client, "memory_search", {"query": "x", "asOf": "later"})
    assert bad["success"] is False and bad["errorCode"] == "INVALID_INPUT"
    reversed_interval = _tool(
        client,
        "memory_add",
        {"content": "x", "layer": "user", "validAt": "2024-01-01T00:00:00Z", "invalidAt": "2023-01-01T00:00:00Z"},
    )
    assert reversed_interval["success"] is False and "invalidAt" in reversed_interval["message"]
