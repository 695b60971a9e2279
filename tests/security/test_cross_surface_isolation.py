"""One tenant writes through every surface; another tenant reads through every surface.

Nothing of tenant A may come back to tenant B: not by search, not by id, not through a
different surface than the one that wrote it. Runs on both backends with API-key auth.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.support.backends import BACKENDS, fresh_url
from tests.support.memory_api import has_long_float_list, unit
from tests.support.server import LiveServer, ServerFactory
from tests.support.settings import api_keys

KEYS = {
    "key-a": {"tenant_id": "tenant-a", "agent_id": "alpha", "role": "manager"},
    "key-b": {"tenant_id": "tenant-b", "agent_id": "bravo", "role": "manager"},
}
SECRET_WORD = "zanzibar"
#: phrases only tenant A's stored memories contain (queries echo SECRET_WORD itself)
STORED = ("graph secret", "conversation secret", "layered secret", "tool secret")


def leaks(text: str) -> list[str]:
    return [p for p in STORED if p in text]


@pytest.fixture(scope="module", params=BACKENDS)
def server(request: pytest.FixtureRequest, live_server_factory: ServerFactory) -> Iterator[LiveServer]:
    with live_server_factory(fresh_url(request), **api_keys(KEYS)) as s:
        yield s


def as_a() -> dict[str, str]:
    return {"X-Api-Key": "key-a"}


def as_b() -> dict[str, str]:
    return {"X-Api-Key": "key-b"}


def wait_task(c: httpx.Client, task_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        # the manager acts for the user the task was submitted for (docs/security.md)
        body = c.get(f"/api/v1/tasks/{task_id}", headers=as_a(), params={"user_id": "u1"}).json()
        if body.get("status") in ("completed", "done", "failed"):
            return dict(body)
        time.sleep(0.1)
    raise AssertionError("conversation task did not finish")


@pytest.fixture(scope="module")
def written(server: LiveServer) -> dict[str, Any]:
    """Tenant A stores the same secret through the graph, conversation, layered and tool surfaces."""
    scope = f"shared-{uuid.uuid4().hex[:6]}"
    ids: dict[str, str] = {}
    with httpx.Client(base_url=server.url, timeout=60) as c:
        g = c.post(
            "/v1/memory/write",
            headers=as_a(),
            json={
                "scope": scope,
                "input_text": "x",
                "memory_lane": "shared",
                "nodes": [{"type": "event", "title": f"{SECRET_WORD} graph secret", "embedding": unit(3)}],
            },
        )
        assert g.status_code == 200, g.text
        ids["graph"] = g.json()["nodes"][0]["id"]
        conv = c.post(
            "/api/v1/agent/memories",
            headers=as_a(),
            json={"app_id": scope, "user_id": "u1", "messages": f"I keep my {SECRET_WORD} conversation secret."},
        )
        assert conv.status_code == 202, conv.text
        task = wait_task(c, conv.json()["task_id"])
        assert task["status"] in ("completed", "done"), task
        lay = c.post(
            "/v1/layers/write",
            headers=as_a(),
            json={
                "scope": scope,
                "layer": "project",
                "title": "secret",
                "content": f"{SECRET_WORD} layered secret",
                "user_instruction": True,
            },
        )
        assert lay.status_code == 200, lay.text
        ids["layers"] = lay.json()["id"]
        tool = c.post(
            "/v1/tools/memory_add", headers=as_a(), json={"content": f"{SECRET_WORD} tool secret", "layer": "project"}
        )
        assert tool.status_code == 200, tool.text
        ids["tools"] = tool.json()["memoryId"]
        found = c.get(
            "/api/v1/memories/query", headers=as_a(), params={"app_id": scope, "query": SECRET_WORD, "user_id": "u1"}
        )
        assert found.status_code == 200 and found.json()["count"] >= 1, found.text
    return {"scope": scope, "ids": ids}


def reads(c: httpx.Client, scope: str, headers: dict[str, str]) -> list[httpx.Response]:
    """The same searches on every surface, as one tenant."""
    return [
        c.post("/v1/memory/recall_text", headers=headers, json={"scope": scope, "query_text": SECRET_WORD}),
        c.post("/v1/memory/recall", headers=headers, json={"scope": scope, "query_embedding": unit(3)}),
        c.get(
            "/api/v1/memories/query", headers=headers, params={"app_id": scope, "query": SECRET_WORD, "user_id": "u1"}
        ),
        c.post("/v1/layers/search", headers=headers, json={"scope": scope, "query": SECRET_WORD}),
        c.post("/v1/layers/read", headers=headers, json={"scope": scope, "layer": "project", "query": SECRET_WORD}),
        c.post("/v1/tools/memory_search", headers=headers, json={"query": SECRET_WORD, "threshold": 0}),
    ]


def test_tenant_b_finds_nothing_of_tenant_a_through_any_read(server: LiveServer, written: dict[str, Any]) -> None:
    scope = written["scope"]
    with httpx.Client(base_url=server.url, timeout=60) as c:
        # positive control: the very same reads find tenant A's memories for tenant A
        for r in reads(c, scope, as_a()):
            assert r.status_code == 200, (r.request.url, r.text)
            assert leaks(r.text), ("the owner finds its own memory", r.request.url, r.text)
        for r in reads(c, scope, as_b()):
            assert r.status_code == 200, (r.request.url, r.text)
            assert leaks(r.text) == [], (r.request.url, r.text)
            assert not has_long_float_list(r.json())
        for memory_id in written["ids"].values():
            by_id = [
                c.get(f"/api/v1/memories/{memory_id}", headers=as_b(), params={"app_id": scope}),
                c.post("/v1/layers/read", headers=as_b(), json={"scope": scope, "layer": "project", "id": memory_id}),
            ]
            for r in by_id:
                assert leaks(r.text) == [], (r.request.url, r.text)
                assert r.status_code in (200, 404), (r.request.url, r.text)


def test_tenant_b_cannot_delete_or_change_tenant_a_memories(server: LiveServer, written: dict[str, Any]) -> None:
    scope = written["scope"]
    with httpx.Client(base_url=server.url, timeout=60) as c:
        for memory_id in written["ids"].values():
            c.delete(f"/api/v1/memories/{memory_id}", headers=as_b(), params={"app_id": scope})
            c.post("/v1/layers/delete", headers=as_b(), json={"id": memory_id, "user_instruction": True})
            c.post(
                "/v1/layers/update",
                headers=as_b(),
                json={"id": memory_id, "new_content": "overwritten", "user_instruction": True, "user_confirmed": True},
            )
            c.post("/v1/tools/memory_delete", headers=as_b(), json={"memoryId": memory_id})
        still = c.post(
            "/v1/memory/recall_text", headers=as_a(), json={"scope": scope, "query_text": SECRET_WORD, "limit": 50}
        )
        assert written["ids"]["graph"] in {s["id"] for s in still.json()["seeds"]}
        layered = c.post(
            "/v1/layers/read", headers=as_a(), json={"scope": scope, "layer": "project", "id": written["ids"]["layers"]}
        )
        assert "layered secret" in layered.text and "overwritten" not in layered.text
        tool = c.post("/v1/tools/memory_search", headers=as_a(), json={"query": SECRET_WORD, "threshold": 0})
        assert written["ids"]["tools"] in tool.text
