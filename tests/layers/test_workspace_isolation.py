"""A user-facing agent never reaches workspace memory, whichever door it tries: layered read,
id read, search, update, delete, task completion, the tools, or graph recall. Roles come from
API keys here (auth on), so a forged X-Agent-Role header changes nothing."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.layers.helpers import assert_error
from tests.support.server import LiveServer, ServerFactory
from tests.support.settings import api_keys

KEYS = {
    "user-key": {"tenant_id": "acme", "agent_id": "chat-1", "role": "user"},
    "planner-key": {"tenant_id": "acme", "agent_id": "planner-1", "role": "planner"},
    "manager-key": {"tenant_id": "acme", "agent_id": "mgr-1", "role": "manager"},
    "norole-key": {"tenant_id": "acme", "agent_id": "anon-1"},
}
SECRET = "workspace secret: the migration password rotation is half done"


@pytest.fixture(scope="module")
def server(live_server_factory: ServerFactory) -> Iterator[LiveServer]:
    with live_server_factory(**api_keys(KEYS)) as s:
        yield s


def call(server: LiveServer, key: str, method: str, path: str, body: Any = None, **headers: str) -> httpx.Response:
    with httpx.Client(base_url=server.url, timeout=30) as c:
        return c.request(method, path, json=body, headers={"X-Api-Key": key, **headers})


@pytest.fixture(scope="module")
def workspace_id(server: LiveServer) -> str:
    r = call(
        server,
        "planner-key",
        "POST",
        "/v1/layers/write",
        {"layer": "workspace", "title": "rotation", "content": SECRET, "metadata": {"task_id": "task-secret"}},
    )
    assert r.status_code == 200, r.text
    return str(r.json()["id"])


def never_leaks(r: httpx.Response) -> None:
    assert SECRET not in r.text


def test_system_agents_see_the_workspace_item(server: LiveServer, workspace_id: str) -> None:
    r = call(server, "planner-key", "POST", "/v1/layers/read", {"layer": "workspace", "id": workspace_id})
    assert r.status_code == 200 and r.json()["results"][0]["content"] == SECRET
    r = call(server, "manager-key", "POST", "/v1/layers/search", {"layer": "workspace", "query": "migration password"})
    assert r.json()["results"][0]["id"] == workspace_id


@pytest.mark.parametrize("forged_role", [None, "manager", "planner"])
def test_user_agent_cannot_read_search_update_or_delete_workspace(
    server: LiveServer, workspace_id: str, forged_role: str | None
) -> None:
    extra = {"X-Agent-Role": forged_role} if forged_role else {}
    attempts = [
        ("/v1/layers/read", {"layer": "workspace", "id": workspace_id}),
        ("/v1/layers/read", {"layer": "workspace", "task_id": "task-secret"}),
        ("/v1/layers/read", {"layer": "workspace", "task_id": "task-secret", "mode": "task"}),
        ("/v1/layers/read", {"layer": "identity", "id": workspace_id}),
        ("/v1/layers/read", {"layer": "project", "id": workspace_id}),
        ("/v1/layers/search", {"layer": "workspace", "query": "migration password"}),
        ("/v1/layers/update", {"id": workspace_id, "new_content": "overwritten", "user_instruction": True}),
        ("/v1/layers/delete", {"id": workspace_id, "user_instruction": True}),
        ("/v1/layers/write", {"layer": "workspace", "title": "x", "content": "y", "user_instruction": True}),
        ("/v1/layers/tasks/task-secret/complete", None),
    ]
    for key in ("user-key", "norole-key"):
        for path, body in attempts:
            r = call(server, key, "POST", path, body, **extra)
            assert_error(r, 403, "workspace_restricted")
            never_leaks(r)
    # the item is untouched
    r = call(server, "planner-key", "POST", "/v1/layers/read", {"layer": "workspace", "id": workspace_id})
    assert r.json()["results"][0]["content"] == SECRET


def test_user_agent_search_across_layers_leaves_workspace_out(server: LiveServer, workspace_id: str) -> None:
    r = call(server, "user-key", "POST", "/v1/layers/search", {"query": "migration password rotation", "top_k": 50})
    assert r.status_code == 200, r.text
    assert all(o["layer"] != "workspace" for o in r.json()["results"])
    never_leaks(r)


def test_tools_do_not_reach_workspace_memory(server: LiveServer, workspace_id: str) -> None:
    r = call(
        server, "user-key", "POST", "/v1/tools/memory_search", {"query": "migration password", "layers": ["workspace"]}
    )
    assert r.status_code == 400 and r.json()["errorCode"] == "INVALID_INPUT"
    r = call(
        server,
        "user-key",
        "POST",
        "/v1/tools/memory_search",
        {"query": "migration password rotation", "threshold": 0.0},
    )
    assert r.status_code == 200, r.text
    assert workspace_id not in r.text
    never_leaks(r)
    r = call(server, "user-key", "POST", "/v1/tools/memory_delete", {"memoryId": workspace_id})
    assert r.status_code == 404 and r.json()["errorCode"] == "NOT_FOUND"


def test_graph_recall_does_not_seed_from_workspace(server: LiveServer, workspace_id: str) -> None:
    node_id = workspace_id.removeprefix("mem_")
    for scope in ("default", "default#workspace"):
        r = call(
            server,
            "user-key",
            "POST",
            "/v1/memory/recall_text",
            {"scope": scope, "query_text": "migration password rotation", "limit": 50},
        )
        assert r.status_code == 200, r.text
        assert node_id not in {s["id"] for s in r.json()["seeds"]}
        never_leaks(r)
    # a system agent reads workspace memory on every surface, graph recall included
    r = call(
        server,
        "planner-key",
        "POST",
        "/v1/memory/recall_text",
        {"scope": "default#workspace", "query_text": "migration password rotation", "limit": 50},
    )
    assert node_id in {s["id"] for s in r.json()["seeds"]}
