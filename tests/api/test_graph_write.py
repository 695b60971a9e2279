"""POST /v1/memory/write over real HTTP: shapes, upserts, edges, commits, refusals."""

from __future__ import annotations

import asyncio
import hashlib

import httpx

from memlane.domain.hashing import canonical_json
from memlane.domain.model import Commit
from memlane.services.container import build_store
from tests.support.memory_api import new_scope, stored, stored_nodes, unit, wait_until_recallable, write
from tests.support.server import LiveServer
from tests.support.settings import DIM


def test_write_returns_ids_commit_and_backfill_for_nodes_without_embeddings(client: httpx.Client) -> None:
    scope = new_scope()
    body = write(
        client,
        scope,
        [
            {"client_id": "alice", "type": "entity", "title": "Alice", "text_summary": "Alice is a climber"},
            {"client_id": "e1", "type": "event", "title": "Climb", "embedding": unit(1)},
        ],
        [{"type": "part_of", "src": {"client_id": "e1"}, "dst": {"client_id": "alice"}}],
    )
    assert set(body) == {"tenant_id", "scope", "commit_id", "commit_hash", "nodes", "edges", "embedding_backfill"}
    assert body["tenant_id"] == "default" and body["scope"] == scope
    assert [n["client_id"] for n in body["nodes"]] == ["alice", "e1"]
    assert set(body["nodes"][0]) == {"id", "client_id", "type"}
    [edge] = body["edges"]
    assert set(edge) == {"id", "type", "src_id", "dst_id"}
    assert (edge["src_id"], edge["dst_id"]) == (body["nodes"][1]["id"], body["nodes"][0]["id"])
    assert body["embedding_backfill"] == {"enqueued": True, "pending": 1}
    assert len(body["commit_hash"]) == 64


def test_writing_the_same_client_id_again_updates_that_node(client: httpx.Client) -> None:
    scope = new_scope()
    first = write(client, scope, [{"client_id": "pref", "type": "concept", "title": "likes tea"}])
    second = write(client, scope, [{"client_id": "pref", "type": "concept", "title": "likes coffee"}])
    assert first["nodes"][0]["id"] == second["nodes"][0]["id"]
    recalled = wait_until_recallable(client, scope, "coffee", {first["nodes"][0]["id"]})
    assert [s["title"] for s in recalled["seeds"]] == ["likes coffee"]


def test_edges_may_point_at_nodes_stored_by_earlier_writes(client: httpx.Client) -> None:
    scope = new_scope()
    hub = write(client, scope, [{"client_id": "hub", "type": "topic", "title": "Hiking"}])
    later = write(
        client,
        scope,
        [{"client_id": "trip", "type": "event", "title": "Trip to the Alps"}],
        [{"type": "part_of", "src": {"client_id": "trip"}, "dst": {"id": hub["nodes"][0]["id"]}}],
    )
    assert later["edges"][0]["dst_id"] == hub["nodes"][0]["id"]


def test_commits_chain_with_sha256_of_parent_hash_and_diff(client: httpx.Client) -> None:
    scope = new_scope()
    c1 = write(client, scope, [{"type": "event", "title": "one"}])
    c2 = write(client, scope, [{"type": "event", "title": "two"}], parent_commit_id=c1["commit_id"])
    assert c1["commit_hash"] != c2["commit_hash"]
    stale = client.post(
        "/v1/memory/write",
        json={
            "scope": scope,
            "input_text": "x",
            "parent_commit_id": c1["commit_id"],
            "nodes": [{"type": "event", "title": "3"}],
        },
    )
    assert stale.status_code == 409
    assert stale.json()["error"] == "parent_commit_mismatch"


def test_input_sha256_is_kept_as_the_commit_provenance(client: httpx.Client, live_server: LiveServer) -> None:
    sha = hashlib.sha256(b"original input").hexdigest()
    r = client.post(
        "/v1/memory/write",
        json={
            "scope": new_scope(),
            "input_sha256": sha,
            "actor": "importer",
            "nodes": [{"type": "event", "title": "x"}],
        },
    )
    assert r.status_code == 200
    commit = stored(live_server.settings, lambda s: s.get_commit("default", r.json()["commit_id"]))
    assert commit is not None and (commit.input_sha256, commit.actor) == (sha, "importer")
    # input_text is hashed the same way when no digest is given
    text = client.post("/v1/memory/write", json={"scope": new_scope(), "input_text": "original input", "nodes": []})
    from_text = stored(live_server.settings, lambda s: s.get_commit("default", text.json()["commit_id"]))
    assert from_text is not None and from_text.input_sha256 == sha


def test_private_rule_without_owner_is_refused_and_not_stored(client: httpx.Client, live_server: LiveServer) -> None:
    scope = new_scope()
    r = client.post(
        "/v1/memory/write",
        json={
            "scope": scope,
            "input_text": "x",
            "memory_lane": "private",
            "nodes": [{"type": "event", "title": "fine"}, {"type": "rule", "title": "never use tool X"}],
        },
    )
    assert r.status_code == 400
    assert r.json()["error"] == "invalid_private_rule_owner"
    assert stored_nodes(live_server.settings, scope) == [], "refused whole: not even the valid node"
    ok = client.post(
        "/v1/memory/write",
        json={"scope": scope, "input_text": "x", "nodes": [{"type": "rule", "title": "r", "owner_agent_id": "a1"}]},
    )
    assert ok.status_code == 200
    [rule] = stored_nodes(live_server.settings, scope)
    assert (rule.type, rule.memory_lane, rule.owner_agent_id) == ("rule", "private", "a1")


def test_a_client_id_given_twice_in_one_write_is_a_400_and_nothing_is_stored(
    client: httpx.Client, live_server: LiveServer
) -> None:
    scope = new_scope()
    nodes = [
        {"client_id": "a", "type": "event", "title": "first"},
        {"client_id": "b", "type": "event", "title": "other"},
        {"client_id": "a", "type": "event", "title": "again"},
    ]
    r = client.post("/v1/memory/write", json={"scope": scope, "input_text": "x", "nodes": nodes})
    assert r.status_code == 400, r.text
    err = r.json()
    assert err["error"] == "duplicate_client_id" and err["details"]["field"] == "nodes[2].client_id"
    assert "nodes[0].client_id" in err["message"]
    assert stored_nodes(live_server.settings, scope) == []
    # the same connection goes on: the next request is answered (it used to be reset)
    ok = write(client, scope, nodes[:2])
    assert sorted(n.client_id or "" for n in stored_nodes(live_server.settings, scope)) == ["a", "b"]
    assert [n["client_id"] for n in ok["nodes"]] == ["a", "b"]


def test_bad_write_input_is_a_400_naming_the_field(client: httpx.Client) -> None:
    cases = [
        ({"nodes": [{"type": "event"}]}, "input_text"),
        ({"input_text": "x", "nodes": [{"type": "planet"}]}, "nodes[0].type"),
        ({"input_text": "x", "nodes": [{"type": "event", "salience": 1.5}]}, "nodes[0].salience"),
        ({"input_text": "x", "input_sha256": "XYZ"}, "input_sha256"),
        ({"input_text": "x", "nodes": [{"type": "event", "tier": "lukewarm"}]}, "nodes[0].tier"),
        ({"input_text": "x", "edges": [{"type": "part_of", "src": {}, "dst": {"client_id": "a"}}]}, "edges[0].src"),
        ({"input_text": "x", "nodes": [{"type": "event", "titel": "typo"}]}, "nodes[0].titel"),
    ]
    for body, field in cases:
        r = client.post("/v1/memory/write", json={"scope": new_scope(), **body})
        assert r.status_code == 400, (body, r.text)
        err = r.json()
        assert err["error"] == "invalid_request"
        assert field in err["message"], (field, err)


def test_unknown_edge_endpoint_is_a_400_naming_the_edge(client: httpx.Client) -> None:
    r = client.post(
        "/v1/memory/write",
        json={
            "scope": new_scope(),
            "input_text": "x",
            "nodes": [{"client_id": "a", "type": "event"}],
            "edges": [{"type": "related_to", "src": {"client_id": "a"}, "dst": {"client_id": "ghost"}}],
        },
    )
    assert r.status_code == 400
    assert r.json()["error"] == "edge_endpoint_not_found"
    assert r.json()["details"]["field"] == "edges[0].dst"


def test_embedding_of_the_wrong_length_names_both_numbers(client: httpx.Client) -> None:
    r = client.post(
        "/v1/memory/write",
        json={"scope": new_scope(), "input_text": "x", "nodes": [{"type": "event", "embedding": [0.1] * 1536}]},
    )
    assert r.status_code == 400
    assert "1536" in r.json()["message"] and str(DIM) in r.json()["message"]


def test_malformed_json_is_a_400_not_a_500(client: httpx.Client) -> None:
    r = client.post("/v1/memory/write", content=b"{not json", headers={"content-type": "application/json"})
    assert r.status_code == 400
    assert r.json()["error"] in {"invalid_json", "invalid_request"}


def test_node_scope_other_than_the_request_scope_is_refused(client: httpx.Client) -> None:
    r = client.post(
        "/v1/memory/write", json={"scope": "a", "input_text": "x", "nodes": [{"type": "event", "scope": "b"}]}
    )
    assert r.status_code == 400 and r.json()["error"] == "scope_mismatch"


def test_force_reembed_replaces_client_vectors_with_server_embeddings(client: httpx.Client) -> None:
    scope = new_scope()
    first = write(
        client, scope, [{"client_id": "n", "type": "event", "title": "sunrise over the lake", "embedding": unit(3)}]
    )
    again = write(
        client, scope, [{"client_id": "n", "type": "event", "title": "sunrise over the lake"}], force_reembed=True
    )
    assert again["embedding_backfill"]["pending"] == 1
    recalled = wait_until_recallable(
        client, scope, "sunrise over the lake", {first["nodes"][0]["id"]}, include_meta=True
    )
    [node] = [n for n in recalled["subgraph"]["nodes"] if n["id"] == first["nodes"][0]["id"]]
    assert node["embedding_model"].startswith("hashing")


def test_commit_hash_is_reproducible_from_the_documented_formula(client: httpx.Client, live_server: LiveServer) -> None:
    """sha256(parent_hash + canonical diff): read the stored commit back and recompute it."""
    scope = new_scope()
    first = write(client, scope, [{"type": "event", "title": "audit me"}])
    second = write(client, scope, [{"type": "event", "title": "and me"}])

    async def read() -> list[Commit | None]:
        store = build_store(live_server.settings, dimension=DIM)
        await store.open()
        try:
            return [await store.get_commit("default", b["commit_id"]) for b in (first, second)]
        finally:
            await store.close()

    c1, c2 = asyncio.run(read())
    assert c1 is not None and c2 is not None
    assert first["commit_hash"] == hashlib.sha256(canonical_json(c1.diff).encode()).hexdigest()
    assert second["commit_hash"] == hashlib.sha256((c1.commit_hash + canonical_json(c2.diff)).encode()).hexdigest()
    assert c2.parent_id == first["commit_id"]
