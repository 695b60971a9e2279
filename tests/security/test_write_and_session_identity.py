"""Behaviours the authorization suite (test_authorization_suite.py) found broken, each pinned
here by name on a real server with API-key auth, on both backends.

* A key that carries a user may name a session (``X-Session-Id``), which only narrows within
  that user: another user's session memories stay hidden even when their session id is named.
* Updating a node keeps its owners and producer: the writer's identity is injected into the
  nodes a write *creates*, never into a node it edits (a team key editing a workspace memory
  used to move it from the system agents' team to its own, hiding it from them).
* A tenant-wide key may update a shared node, or a shared rule it governs, without repeating
  its lane; it still cannot create a private node with no owner.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.support.backends import BACKENDS, fresh_url
from tests.support.memory_api import unit
from tests.support.server import ServerFactory
from tests.support.settings import api_keys

KEYS = {
    "k-u1": {"tenant_id": "acme", "agent_id": "a1", "team_id": "red", "user_id": "u1"},
    "k-u2": {"tenant_id": "acme", "agent_id": "a2", "team_id": "red", "user_id": "u2"},
    "k-red-guardian": {"tenant_id": "acme", "team_id": "red", "role": "guardian"},
    "k-planner": {"tenant_id": "acme", "agent_id": "p1", "role": "planner"},
    "k-manager": {"tenant_id": "acme", "role": "manager"},
    "k-wide": {"tenant_id": "acme"},
}


@pytest.fixture(scope="module", params=BACKENDS)
def c(request: pytest.FixtureRequest, live_server_factory: ServerFactory) -> Iterator[httpx.Client]:
    with (
        live_server_factory(fresh_url(request), **api_keys(KEYS)) as server,
        httpx.Client(base_url=server.url, timeout=30) as client,
    ):
        yield client


def key(name: str, **headers: str) -> dict[str, str]:
    return {"X-Api-Key": name, **headers}


def write(c: httpx.Client, who: str, scope: str, node: dict[str, Any], **body: Any) -> httpx.Response:
    return c.post(
        "/v1/memory/write", headers=key(who), json={"scope": scope, "input_text": "x", "nodes": [node], **body}
    )


def stored(c: httpx.Client, node_id: str, scope: str) -> dict[str, Any]:
    """The node with its owners, as graph recall's metadata show it."""
    r = c.post(
        "/v1/memory/recall",
        headers=key("k-u1"),
        json={"scope": scope, "query_embedding": unit(1), "include_meta": True, "limit": 50},
    )
    assert r.status_code == 200, r.text
    return next(n for n in r.json()["subgraph"]["nodes"] if n["id"] == node_id)


def test_naming_another_users_session_id_opens_none_of_its_memories(c: httpx.Client) -> None:
    added = c.post(
        "/v1/tools/memory_add",
        headers=key("k-u1", **{"X-Session-Id": "s-u1"}),
        json={"content": "the session ledger of user one", "layer": "session"},
    )
    assert added.status_code == 200, added.text
    memory_id = added.json()["memoryId"]
    query = {"query": "session ledger of user one", "threshold": 0, "layers": ["session"]}

    mine = c.post("/v1/tools/memory_search", headers=key("k-u1", **{"X-Session-Id": "s-u1"}), json=query)
    assert [r["memoryId"] for r in mine.json()["results"]] == [memory_id]
    other = c.post("/v1/tools/memory_search", headers=key("k-u2", **{"X-Session-Id": "s-u1"}), json=query)
    assert other.status_code == 200 and other.json()["results"] == []
    assert "ledger" not in other.text
    gone = c.post(
        "/v1/tools/memory_delete", headers=key("k-u2", **{"X-Session-Id": "s-u1"}), json={"memoryId": memory_id}
    )
    assert gone.status_code == 404
    assert c.post("/v1/tools/memory_search", headers=key("k-u1", **{"X-Session-Id": "s-u1"}), json=query).json()[
        "results"
    ]


def test_updating_a_node_keeps_its_owners_and_producer(c: httpx.Client) -> None:
    r = write(c, "k-red-guardian", "own", {"type": "event", "title": "team ledger", "embedding": unit(1)})
    assert r.status_code == 200, r.text
    node_id = r.json()["nodes"][0]["id"]
    edit = write(
        c, "k-u1", "own", {"id": node_id, "type": "event", "title": "team ledger, edited", "embedding": unit(1)}
    )
    assert edit.status_code == 200, edit.text
    node = stored(c, node_id, "own")
    assert node["title"] == "team ledger, edited"
    assert (node["owner_agent_id"], node["owner_team_id"], node["producer_agent_id"]) == (None, "red", None)
    # naming an owner is still how a writer moves a node it may see
    moved = write(c, "k-u1", "own", {"id": node_id, "type": "event", "owner_agent_id": "a1"})
    assert moved.status_code == 200
    assert stored(c, node_id, "own")["owner_agent_id"] == "a1"


def test_a_team_key_editing_a_workspace_memory_leaves_it_to_the_system_agents(c: httpx.Client) -> None:
    ws = c.post(
        "/v1/layers/write",
        headers=key("k-planner"),
        json={
            "scope": "plan",
            "layer": "workspace",
            "title": "draft plan",
            "content": "step one",
            "metadata": {"task_id": "t-1"},
        },
    )
    assert ws.status_code == 200, ws.text
    memory_id = ws.json()["id"]
    edit = write(
        c,
        "k-red-guardian",
        "plan#workspace",
        {"id": memory_id.removeprefix("mem_"), "type": "concept", "title": "draft plan, reviewed"},
    )
    assert edit.status_code == 200, edit.text
    read = c.post(
        "/v1/layers/read", headers=key("k-manager"), json={"scope": "plan", "layer": "workspace", "id": memory_id}
    )
    assert read.status_code == 200, read.text
    assert read.json()["results"][0]["title"] == "draft plan, reviewed"


def test_a_tenant_wide_key_updates_a_shared_node_or_rule_without_repeating_its_lane(c: httpx.Client) -> None:
    # a rule written by a key with no agent or team is nobody's: the manager governs it (a plain
    # tenant-wide key may not change it, docs/rules.md), and its key is tenant-wide too
    for who, node in (
        ("k-wide", {"type": "event", "title": "shared ledger"}),
        ("k-manager", {"type": "rule", "title": "shared rule", "slots": {"then": {"output": {"strict": True}}}}),
    ):
        r = write(c, who, "wide", node, memory_lane="shared")
        assert r.status_code == 200, r.text
        node_id = r.json()["nodes"][0]["id"]
        edit = write(c, who, "wide", {"id": node_id, "type": node["type"], "title": f"{node['title']}, edited"})
        assert edit.status_code == 200, edit.text
    refused = write(c, "k-wide", "wide", {"id": node_id, "type": "rule", "title": "mine now"})
    assert refused.status_code == 403 and refused.json()["error"] == "rule_governance_required", refused.text
    # creating a private node no one but an admin could read is still refused
    private = write(c, "k-wide", "wide", {"type": "event", "title": "nobody's"})
    assert private.status_code == 400 and private.json()["error"] == "invalid_private_owner"
