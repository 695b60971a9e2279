"""An expired memory is gone from every read surface the moment it expires, on both backends,
with the expiry sweep far away: graph recall (seed and neighbour), recall_text, the layered
API (by id, by query, search), the tools' memory_search over HTTP and MCP, and the /ui
fragments (search, memory, layers). Each memory that expires has a twin that does not, read
by the same request, so a surface that returns nothing at all cannot pass.

The memories are written with an expiry two seconds ahead and read a second after it: the
server's reads are the first thing to learn of it (no write, no sweep in between), which is
also what the SQLite scope cache has to notice on its own.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import httpx2
import pytest
from mcp.client.streamable_http import streamable_http_client

from mcp import ClientSession
from tests.mcp.session_checks import call
from tests.support.backends import BACKENDS, fresh_url
from tests.support.memory_api import unit
from tests.support.server import ServerFactory

#: how far ahead the expiring memories expire, and how long after that they are read
AHEAD = timedelta(seconds=2)
PAST_IT = 1.0
#: the twins' expiry: far away
LATER = "2999-01-01T00:00:00Z"
#: the sweep's period: it never runs during the module (the sweep only reclaims space)
NO_SWEEP_SEC = 10_000_000
WORD = "quokkaberry"


@dataclass(frozen=True)
class World:
    url: str
    tenant: str
    scope: str
    user: str
    hub: str
    #: layered identity memories: expired, and its twin
    layered: str
    layered_twin: str
    #: tool memories (user layer): expired, and its twin
    tool: str
    tool_twin: str
    #: when the expiring ones expired
    expired_at: datetime

    def headers(self, **extra: str) -> dict[str, str]:
        return {"X-Tenant-Id": self.tenant, "X-Agent-Role": "manager", "X-User-Id": self.user, **extra}


def _expiry() -> str:
    return (datetime.now(UTC) + AHEAD).isoformat().replace("+00:00", "Z")


def _layered(c: httpx.Client, w: dict[str, str], scope: str, text: str, expiry: str) -> str:
    body = {
        "scope": scope,
        "layer": "identity",
        "title": text,
        "content": f"{text} {WORD}",
        "metadata": {"expiry": expiry},
    }
    r = c.post("/v1/layers/write", json=body, headers=w)
    assert r.status_code == 200, r.text
    return str(r.json()["id"]).removeprefix("mem_")


def _graph(
    c: httpx.Client, w: dict[str, str], scope: str, nodes: list[dict[str, Any]], edges: list[dict[str, Any]]
) -> str:
    body = {"scope": scope, "input_text": "expiry test", "memory_lane": "shared", "nodes": nodes, "edges": edges}
    r = c.post("/v1/memory/write", json=body, headers=w)
    assert r.status_code == 200, r.text
    return str(r.json()["nodes"][0]["id"])


def _tool(c: httpx.Client, w: dict[str, str], text: str, expiry: str) -> str:
    args = {"content": f"{text} {WORD}", "layer": "user", "metadata": {"expiresAt": expiry}}
    r = c.post("/v1/tools/memory_add", json=args, headers=w)
    assert r.status_code == 200 and r.json()["success"], r.text
    return str(r.json()["memoryId"]).removeprefix("mem_")


@pytest.fixture(scope="module", params=BACKENDS)
def world(request: pytest.FixtureRequest, live_server_factory: ServerFactory) -> Iterator[World]:
    with (
        live_server_factory(fresh_url(request), MEMLANE_LAYERS_SWEEP_INTERVAL_SEC=NO_SWEEP_SEC) as server,
        httpx.Client(base_url=server.url, timeout=30) as c,
    ):
        tenant, scope, user = f"t-{uuid.uuid4().hex[:8]}", f"s-{uuid.uuid4().hex[:8]}", "u-exp"
        w = {"X-Tenant-Id": tenant, "X-Agent-Role": "manager", "X-User-Id": user}
        expiries = [_expiry()]
        layered = _layered(c, w, scope, "The user is in Lisbon this week", expiries[-1])
        layered_twin = _layered(c, w, scope, "The user lives in Porto for good", LATER)
        # a graph node with its own vector (a recall by that vector seeds from it alone),
        # linked to both layered memories
        hub = _graph(
            c,
            w,
            scope,
            [{"client_id": "hub", "type": "entity", "title": "Trip hub", "embedding": unit(7)}],
            [
                {"type": "related_to", "src": {"client_id": "hub"}, "dst": {"id": layered}, "weight": 0.9},
                {"type": "related_to", "src": {"client_id": "hub"}, "dst": {"id": layered_twin}, "weight": 0.9},
            ],
        )
        expiries.append(_expiry())
        tool = _tool(c, w, "My parking spot this week is B7", expiries[-1])
        tool_twin = _tool(c, w, "My favourite parking garage is the one on Rua Augusta", LATER)
        # read once before the expiry, so the SQLite scope cache holds the memories
        c.post("/v1/memory/recall_text", json={"scope": scope, "query_text": WORD}, headers=w)
        expired_at = max(datetime.fromisoformat(e) for e in expiries)
        time.sleep(max((expired_at - datetime.now(UTC)).total_seconds(), 0) + PAST_IT)
        yield World(server.url, tenant, scope, user, hub, layered, layered_twin, tool, tool_twin, expired_at)


@pytest.fixture
def c(world: World) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=world.url, timeout=30, headers=world.headers()) as client:
        yield client


def _recall_text(c: httpx.Client, world: World, **extra: Any) -> dict[str, Any]:
    body = {"scope": world.scope, "query_text": f"where is the user {WORD}", "limit": 20, **extra}
    r = c.post("/v1/memory/recall_text", json=body)
    assert r.status_code == 200, r.text
    return dict(r.json())


def _all_ids(reply: dict[str, Any]) -> set[str]:
    return (
        {s["id"] for s in reply["seeds"]}
        | {n["id"] for n in reply["subgraph"]["nodes"]}
        | {r["id"] for r in reply["ranked"]}
        | {i["id"] for i in reply["context"]["items"]}
    )


def test_recall_text_never_seeds_or_returns_an_expired_memory(c: httpx.Client, world: World) -> None:
    found = _all_ids(_recall_text(c, world))
    assert world.layered_twin in found
    assert world.layered not in found


def test_recall_does_not_reach_an_expired_memory_through_an_edge(c: httpx.Client, world: World) -> None:
    body = {"scope": world.scope, "query_embedding": unit(7), "limit": 1, "neighborhood_hops": 2}
    r = c.post("/v1/memory/recall", json=body)
    assert r.status_code == 200, r.text
    reply = r.json()
    assert [s["id"] for s in reply["seeds"]] == [world.hub]
    assert world.layered_twin in _all_ids(reply), "the twin is the hub's neighbour"
    assert world.layered not in _all_ids(reply)
    assert all(world.layered not in (e["from_id"], e["to_id"]) for e in reply["subgraph"]["edges"])


def test_a_history_recall_still_finds_an_expired_memory_until_the_sweep_deletes_it(
    c: httpx.Client, world: World
) -> None:
    history = _all_ids(_recall_text(c, world, include_invalid=True))
    assert world.layered in history
    before = (world.expired_at - timedelta(seconds=1)).isoformat()
    assert world.layered in _all_ids(_recall_text(c, world, as_of=before))


def _layers(c: httpx.Client, path: str, body: dict[str, Any]) -> httpx.Response:
    return c.post(f"/v1/layers/{path}", json=body)


def test_the_layered_api_answers_an_expired_memory_not_found_and_never_returns_it(
    c: httpx.Client, world: World
) -> None:
    gone = _layers(c, "read", {"scope": world.scope, "layer": "identity", "id": world.layered})
    assert gone.status_code == 404 and gone.json()["error_type"] == "memory_not_found"
    twin = _layers(c, "read", {"scope": world.scope, "layer": "identity", "id": world.layered_twin})
    assert twin.status_code == 200, twin.text
    query = {"scope": world.scope, "layer": "identity", "query": f"where does the user live {WORD}"}
    read = _layers(c, "read", query)
    searched = _layers(c, "search", {**query, "top_k": 20})
    for r in (read, searched):
        assert r.status_code == 200, r.text
        ids = {m["id"].removeprefix("mem_") for m in r.json()["results"]}
        assert world.layered_twin in ids and world.layered not in ids
    history = _layers(c, "search", {**query, "top_k": 20, "include_invalid": True})
    shown = {m["id"].removeprefix("mem_"): m for m in history.json()["results"]}
    assert world.layered in shown, "a history read shows it, with its past expiry"
    assert datetime.fromisoformat(shown[world.layered]["metadata"]["expiry"]) <= datetime.now(UTC)


def _tool_search(c: httpx.Client, **extra: Any) -> dict[str, Any]:
    r = c.post("/v1/tools/memory_search", json={"query": f"parking {WORD}", "threshold": 0, **extra})
    assert r.status_code == 200 and r.json()["success"], r.text
    return dict(r.json())


def test_memory_search_never_returns_an_expired_memory(c: httpx.Client, world: World) -> None:
    ids = {m["memoryId"].removeprefix("mem_") for m in _tool_search(c)["results"]}
    assert world.tool_twin in ids and world.tool not in ids
    history = {m["memoryId"].removeprefix("mem_"): m for m in _tool_search(c, includeInvalid=True)["results"]}
    assert world.tool in history, "a history read shows it, with its past expiresAt"
    assert datetime.fromisoformat(history[world.tool]["expiresAt"]) <= datetime.now(UTC)
    assert history[world.tool_twin]["expiresAt"].startswith("2999-01-01")
    gone = c.post("/v1/tools/memory_delete", json={"memoryId": world.tool})
    assert gone.json()["success"] is False and gone.json()["errorCode"] == "NOT_FOUND"


async def test_memory_search_over_mcp_never_returns_an_expired_memory(world: World) -> None:
    async with (
        httpx2.AsyncClient(headers=world.headers(), timeout=60) as http,
        streamable_http_client(f"{world.url}/mcp", http_client=http) as (read, send),
        ClientSession(read, send) as session,
    ):
        await session.initialize()
        failed, out = await call(session, "memory_search", {"query": f"parking {WORD}", "threshold": 0})
    assert not failed, out
    ids = {m["memoryId"].removeprefix("mem_") for m in out["results"]}
    assert world.tool_twin in ids and world.tool not in ids


def test_the_ui_never_shows_an_expired_memory(c: httpx.Client, world: World) -> None:
    search = c.get("/ui/part/search", params={"scope": world.scope, "q": f"where is the user {WORD}"})
    assert search.status_code == 200, search.text
    assert world.layered_twin in search.text and world.layered not in search.text
    layers = c.get("/ui/part/layers")
    assert layers.status_code == 200, layers.text
    for shown in (world.layered_twin, world.tool_twin):
        assert shown in layers.text
    for gone in (world.layered, world.tool):
        assert gone not in layers.text
    page = c.get(f"/ui/part/memory/{world.layered}", params={"scope": world.scope})
    assert page.status_code == 404 and "valid" not in page.text
    twin = c.get(f"/ui/part/memory/{world.layered_twin}", params={"scope": world.scope})
    assert twin.status_code == 200 and "valid; expires 2999-01-01" in twin.text
