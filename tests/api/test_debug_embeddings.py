"""The debug-embeddings channel: admission, caps, previews and integrity hashes."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator

import httpx
import pytest

from tests.support.memory_api import new_scope, unit, write
from tests.support.server import LiveServer, ServerFactory


@pytest.fixture(scope="module")
def guarded_server(live_server_factory: ServerFactory) -> Iterator[LiveServer]:
    with live_server_factory(ADMIN_TOKEN="s3cret-admin") as server:
        yield server


@pytest.fixture(scope="module")
def production_server(live_server_factory: ServerFactory) -> Iterator[LiveServer]:
    with live_server_factory(NODE_ENV="production") as server:
        yield server


def debug_request(scope: str, **extra: object) -> dict[str, object]:
    return {
        "scope": scope,
        "query_embedding": unit(1),
        "return_debug": True,
        "include_embeddings": True,
        "limit": 10,
        **extra,
    }


def seed_graph(client: httpx.Client, n: int = 8) -> str:
    scope = new_scope()
    write(client, scope, [{"type": "event", "title": f"n{i}", "embedding": unit(i + 1)} for i in range(n)])
    return scope


def test_loopback_without_admin_token_outside_production_gets_bounded_previews(client: httpx.Client) -> None:
    scope = seed_graph(client)
    r = client.post("/v1/memory/recall", json=debug_request(scope))
    assert r.status_code == 200, r.text
    embeddings = r.json()["debug"]["embeddings"]
    assert 1 <= len(embeddings) <= 5
    top = embeddings[0]
    assert set(top) == {"node_id", "dim", "preview", "sha256"}
    assert len(top["preview"]) == 16 and top["dim"] == 384
    full = unit(1)
    assert top["preview"] == pytest.approx(full[:16], abs=1e-5)
    text = json.dumps([float(x) for x in __import__("numpy").asarray(full, dtype="float32")], separators=(",", ":"))
    assert top["sha256"] == hashlib.sha256(text.encode()).hexdigest()
    for n in r.json()["subgraph"]["nodes"]:
        assert "embedding" not in n and "preview" not in n


def test_debug_embeddings_need_limit_of_at_most_20(client: httpx.Client) -> None:
    r = client.post("/v1/memory/recall", json=debug_request(new_scope(), limit=21))
    assert r.status_code == 400
    assert r.json()["error"] == "debug_embeddings_limit_exceeded"


def test_include_embeddings_without_return_debug_is_refused(client: httpx.Client) -> None:
    r = client.post("/v1/memory/recall", json=debug_request(new_scope(), return_debug=False))
    assert r.status_code == 400 and "include_embeddings" in r.json()["message"]


def test_with_admin_token_set_the_header_is_required_even_from_loopback(guarded_server: LiveServer) -> None:
    with httpx.Client(base_url=guarded_server.url) as c:
        scope = seed_graph(c)
        assert c.post("/v1/memory/recall", json=debug_request(scope)).status_code == 403
        wrong = c.post("/v1/memory/recall", json=debug_request(scope), headers={"X-Admin-Token": "guess"})
        assert wrong.status_code == 403 and wrong.json()["error"] == "debug_embeddings_forbidden"
        ok = c.post("/v1/memory/recall", json=debug_request(scope), headers={"X-Admin-Token": "s3cret-admin"})
        assert ok.status_code == 200 and ok.json()["debug"]["embeddings"]
        plain = c.post("/v1/memory/recall", json={"scope": scope, "query_embedding": unit(1), "return_debug": True})
        assert plain.status_code == 200 and "embeddings" not in plain.json()["debug"]


def test_in_production_loopback_alone_is_not_enough(production_server: LiveServer) -> None:
    with httpx.Client(base_url=production_server.url) as c:
        scope = seed_graph(c)
        r = c.post("/v1/memory/recall", json=debug_request(scope))
        assert r.status_code == 403


def test_debug_embeddings_are_also_available_on_recall_text(client: httpx.Client) -> None:
    scope = seed_graph(client)
    r = client.post(
        "/v1/memory/recall_text",
        json={"scope": scope, "query_text": "n1", "return_debug": True, "include_embeddings": True, "limit": 20},
    )
    assert r.status_code == 200
    embeddings = r.json()["debug"]["embeddings"]
    assert 1 <= len(embeddings) <= 5, "previews of the first results, at most five"
    returned = {n["id"] for n in r.json()["subgraph"]["nodes"]}
    for e in embeddings:
        assert e["node_id"] in returned and e["dim"] == 384 and len(e["preview"]) == 16
