"""The tools over POST /v1/tools/{name}: schemas as the spec writes them, memory across the
seven layers with identifiers from headers, precedence, thresholds, and the ToolError envelope."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

import httpx

from memlane.services.layers.ids import to_node_id
from memlane.services.tools.schemas import SCHEMAS
from tests.support.memory_api import stored
from tests.support.server import LiveServer

H = {"X-Agent-Id": "agent-a", "X-User-Id": "user-1", "X-Session-Id": "sess-1", "X-Team-Id": "team-x"}


def tenant() -> dict[str, str]:
    return {"X-Tenant-Id": f"tools-{uuid.uuid4().hex[:8]}"}


def call(client: httpx.Client, name: str, args: object, headers: dict[str, str]) -> httpx.Response:
    return client.post(f"/v1/tools/{name}", json=args, headers=headers)


def test_the_tool_list_serves_the_spec_schemas_and_openai_functions(client: httpx.Client) -> None:
    body = client.get("/v1/tools").json()
    names = [t["name"] for t in body["tools"]]
    assert names == [
        "memory_add", "memory_search", "memory_delete", "knowledge_query", "knowledge_check", "knowledge_show",
        "sync_now", "sync_status",
    ]  # fmt: skip
    search = next(t for t in body["tools"] if t["name"] == "memory_search")
    assert search["inputSchema"]["properties"]["threshold"] == {
        "type": "number", "minimum": 0, "maximum": 1, "default": 0.7, "description": "Minimum similarity threshold",
    }  # fmt: skip
    assert search["inputSchema"]["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert search["description"].startswith("Search your memory for relevant past information.")
    fn = next(f for f in body["openai"] if f["function"]["name"] == "memory_add")
    assert fn["type"] == "function"
    assert fn["function"]["parameters"]["required"] == ["content"]
    assert "$schema" not in fn["function"]["parameters"]
    assert body["tools"][0]["inputSchema"] == SCHEMAS["memory_add"]


def test_memory_add_defaults_to_the_user_layer_and_search_finds_it(client: httpx.Client) -> None:
    h = {**tenant(), **H}
    r = call(
        client,
        "memory_add",
        {"content": "User prefers functional programming patterns over OOP", "tags": ["preferences", "coding-style"]},
        h,
    )
    assert r.status_code == 200, r.text
    added = r.json()
    assert added["success"] is True and added["memoryId"].startswith("mem_")
    assert added["message"] == "Memory stored successfully"
    r = call(client, "memory_search", {"query": "User prefers functional programming patterns", "threshold": 0.3}, h)
    body = r.json()
    assert body["success"] is True
    assert body["results"][0] == {
        "content": "User prefers functional programming patterns over OOP",
        "layer": "user",
        "score": body["results"][0]["score"],
        "similarity": body["results"][0]["similarity"],
        "memoryId": added["memoryId"],
        "tags": ["preferences", "coding-style"],
    }
    assert 0.3 <= body["results"][0]["score"] <= 1.0
    assert body["totalCount"] == 1
    assert body["searchedLayers"] == ["agent", "session", "user", "project", "team", "org", "company"]


def test_identifiers_bind_memories_to_their_user_session_and_agent(client: httpx.Client) -> None:
    t = tenant()
    mine = {**t, **H}
    other = {**t, "X-Agent-Id": "agent-b", "X-User-Id": "user-2", "X-Session-Id": "sess-2"}
    for layer in ("agent", "user", "session"):
        assert (
            call(
                client, "memory_add", {"content": f"private {layer} fact about kiwis", "layer": layer}, mine
            ).status_code
            == 200
        )
    assert (
        call(client, "memory_add", {"content": "company fact about kiwis", "layer": "company"}, mine).status_code == 200
    )
    r = call(client, "memory_search", {"query": "fact about kiwis", "threshold": 0.1}, other)
    assert [x["layer"] for x in r.json()["results"]] == ["company"]
    r = call(client, "memory_search", {"query": "fact about kiwis", "threshold": 0.1}, mine)
    assert {x["layer"] for x in r.json()["results"]} == {"agent", "user", "session", "company"}


def test_equal_scores_follow_layer_precedence_and_duplicates_keep_the_most_specific(client: httpx.Client) -> None:
    h = {**tenant(), **H}
    text = "The deploy window is Tuesday afternoon"
    for layer in ("company", "org", "project", "user"):
        call(client, "memory_add", {"content": text, "layer": layer}, h)
    call(client, "memory_add", {"content": "The deploy window is Tuesday afternoon UTC", "layer": "team"}, h)
    r = call(client, "memory_search", {"query": text, "threshold": 0.5}, h)
    layers = [x["layer"] for x in r.json()["results"]]
    assert layers[0] == "user"  # same content in four layers: the most specific wins
    assert layers.count("company") == 0 and layers.count("org") == 0
    assert r.json()["totalCount"] == len(layers)


def test_threshold_layers_tags_and_limit_filter_results(client: httpx.Client) -> None:
    h = {**tenant(), **H}
    call(client, "memory_add", {"content": "Postgres is the main database", "layer": "project", "tags": ["db"]}, h)
    call(client, "memory_add", {"content": "Postgres backups run nightly", "layer": "project", "tags": ["ops"]}, h)
    call(client, "memory_add", {"content": "Postgres version is 16", "layer": "org", "tags": ["db"]}, h)
    r = call(client, "memory_search", {"query": "Postgres", "threshold": 0.0, "layers": ["project"]}, h)
    assert {x["layer"] for x in r.json()["results"]} == {"project"} and r.json()["searchedLayers"] == ["project"]
    r = call(client, "memory_search", {"query": "Postgres", "threshold": 0.0, "tags": ["db"]}, h)
    assert len(r.json()["results"]) == 2
    r = call(client, "memory_search", {"query": "Postgres", "threshold": 0.0, "limit": 1}, h)
    assert len(r.json()["results"]) == 1 and r.json()["totalCount"] == 3
    r = call(client, "memory_search", {"query": "completely unrelated words", "threshold": 0.99}, h)
    assert r.json()["results"] == [] and r.json()["totalCount"] == 0


def test_without_identifiers_the_configured_default_identity_is_used(client: httpx.Client) -> None:
    """Auth off: a call that names no user, agent or session acts for MEMORY_DEFAULT_* ("default")."""
    h = tenant()
    r = call(client, "memory_add", {"content": "the default session prefers short answers", "layer": "session"}, h)
    assert r.status_code == 200, r.text
    r = call(client, "memory_search", {"query": "short answers", "layers": ["session", "company"], "threshold": 0}, h)
    assert r.json()["searchedLayers"] == ["session", "company"]
    assert [m["layer"] for m in r.json()["results"]] == ["session"]
    # another session does not see it
    other = call(client, "memory_search", {"query": "short answers", "threshold": 0}, {**h, "X-Session-Id": "s2"})
    assert all(m["layer"] != "session" for m in other.json()["results"])


def test_memory_delete_removes_only_what_the_caller_can_reach(client: httpx.Client) -> None:
    t = tenant()
    h = {**t, **H}
    mem = call(client, "memory_add", {"content": "temporary note about plums", "layer": "user"}, h).json()["memoryId"]
    r = call(client, "memory_delete", {"memoryId": mem}, {**t, "X-User-Id": "someone-else"})
    assert r.status_code == 404 and r.json()["errorCode"] == "NOT_FOUND" and r.json()["retryable"] is False
    r = call(client, "memory_delete", {"memoryId": mem}, h)
    assert r.status_code == 200 and r.json()["success"] is True
    assert call(client, "memory_delete", {"memoryId": mem}, h).status_code == 404


def test_errors_use_the_tool_error_envelope(client: httpx.Client) -> None:
    h = tenant()
    r = call(client, "memory_add", {"layer": "user"}, h)
    assert r.status_code == 400
    body = r.json()
    assert body["success"] is False and body["errorCode"] == "INVALID_INPUT" and body["retryable"] is False
    assert "content" in body["message"]
    r = call(client, "memory_search", {"query": "x", "limit": 0}, h)
    assert r.json()["details"]["errors"][0]["field"] == "limit"
    r = call(client, "memory_search", {"query": "x", "layers": ["workspace"]}, h)
    assert r.json()["errorCode"] == "INVALID_INPUT"
    r = call(client, "no_such_tool", {}, h)
    assert r.status_code == 404 and r.json()["errorCode"] == "NOT_FOUND"
    r = client.post("/v1/tools/memory_add", content=b"{not json", headers={**h, "content-type": "application/json"})
    assert r.status_code == 400 and r.json()["errorCode"] == "INVALID_INPUT"
    r = call(client, "memory_add", ["a", "list"], h)
    assert r.status_code == 400 and r.json()["errorCode"] == "INVALID_INPUT"


def test_memory_add_honours_an_expiry(client: httpx.Client, live_server: LiveServer) -> None:
    h = {**tenant(), **H}
    r = call(client, "memory_add", {"content": "x", "metadata": {"expiresAt": "2001-01-01T00:00:00Z"}}, h)
    assert r.status_code == 400 and "future" in r.json()["message"]
    r = call(client, "memory_add", {"content": "kept a while", "metadata": {"expiresAt": "2999-01-01T00:00:00Z"}}, h)
    assert r.status_code == 200
    node_id = to_node_id(r.json()["memoryId"])
    [node] = stored(live_server.settings, lambda s: s.get_nodes(h["X-Tenant-Id"], None, [node_id]))
    assert node.expires_at == datetime(2999, 1, 1, tzinfo=UTC), "the expiry is stored, to the second"
    search = call(client, "memory_search", {"query": "kept a while"}, h)
    assert search.status_code == 200 and r.json()["memoryId"] in search.text


def test_each_result_says_which_identity_it_acted_for(client: httpx.Client) -> None:
    t = tenant()
    named = call(client, "memory_add", {"content": "named user fact"}, {**t, "X-User-Id": "user-9"}).json()
    assert named["identity"]["user"] == "user-9" and named["identity"]["source"] == "headers"
    assert named["identity"]["defaulted"] == ["agent", "session"] and named["identity"]["agent"] == "default"
    anonymous = call(client, "sync_status", {}, t).json()
    assert anonymous["identity"]["source"] == "defaults" and anonymous["identity"]["tenant"] == t["X-Tenant-Id"]


def test_filter_tags_narrow_a_search_and_unknown_filters_are_refused(client: httpx.Client) -> None:
    h = {**tenant(), **H}
    call(client, "memory_add", {"content": "Postgres is the main database", "layer": "project", "tags": ["db"]}, h)
    call(client, "memory_add", {"content": "Postgres backups run nightly", "layer": "project", "tags": ["ops"]}, h)
    r = call(client, "memory_search", {"query": "Postgres", "threshold": 0.0, "filter": {"tags": ["ops"]}}, h)
    assert [x["content"] for x in r.json()["results"]] == ["Postgres backups run nightly"]
    both = {"query": "Postgres", "threshold": 0.0, "tags": ["db"], "filter": {"tags": ["ops"]}}
    assert call(client, "memory_search", both, h).json()["results"] == []
    r = call(client, "memory_search", {"query": "Postgres", "filter": {"kind": "x"}}, h)
    assert r.status_code == 400 and r.json()["errorCode"] == "INVALID_INPUT"
    assert r.json()["details"]["errors"][0]["field"] == "filter"
