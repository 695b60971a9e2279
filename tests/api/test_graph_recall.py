"""POST /v1/memory/recall and /recall_text over real HTTP, compared with the contract."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.support.memory_api import has_long_float_list, new_scope, unit, wait_until_recallable, write
from tests.support.settings import DIM

SEED_FIELDS = {"id", "type", "title", "text_summary", "tier", "salience", "confidence", "similarity"}
NODE_BASE = {"id", "type", "title", "text_summary"}
META = {
    "raw_ref",
    "evidence_ref",
    "embedding_status",
    "embedding_model",
    "memory_lane",
    "producer_agent_id",
    "owner_agent_id",
    "owner_team_id",
    "created_at",
    "updated_at",
    "last_activated",
    "salience",
    "importance",
    "confidence",
    "commit_id",
}


@pytest.fixture
def graph(client: httpx.Client) -> dict[str, Any]:
    """A small graph: people, a trip, a topic hub; some nodes embedded by the client."""
    scope = new_scope()
    body = write(
        client,
        scope,
        [
            {
                "client_id": "alice",
                "type": "entity",
                "title": "Alice",
                "text_summary": "Alice loves mountain hiking",
                "slots": {"b": 2, "a": 1, "c": 3},
                "raw_ref": "chat:1",
                "salience": 0.9,
            },
            {
                "client_id": "trip",
                "type": "event",
                "title": "Alps trip",
                "text_summary": "Alice went hiking in the Alps",
            },
            {"client_id": "hub", "type": "topic", "title": "Outdoor sports", "slots": {"member_count": 2}},
            {"client_id": "bob", "type": "entity", "title": "Bob", "text_summary": "Bob collects stamps"},
        ],
        [
            {"type": "part_of", "src": {"client_id": "trip"}, "dst": {"client_id": "hub"}, "weight": 0.9},
            {"type": "related_to", "src": {"client_id": "alice"}, "dst": {"client_id": "trip"}, "weight": 0.8},
        ],
    )
    ids = {n["client_id"]: n["id"] for n in body["nodes"]}
    wait_until_recallable(client, scope, "Alice hiking Alps mountain outdoor sports Bob stamps", set(ids.values()))
    return {"scope": scope, "ids": ids}


def test_recall_text_response_has_exactly_the_contract_fields(client: httpx.Client, graph: dict[str, Any]) -> None:
    r = client.post("/v1/memory/recall_text", json={"scope": graph["scope"], "query_text": "hiking in the Alps"})
    assert r.status_code == 200
    body = r.json()
    assert set(body) == {"tenant_id", "scope", "seeds", "ranked", "subgraph", "context", "query"}
    assert body["query"] == {"text": "hiking in the Alps", "embedding_provider": "hashing"}
    assert all(set(s) == SEED_FIELDS for s in body["seeds"])
    assert all(set(x) == {"id", "activation", "score"} for x in body["ranked"])
    assert set(body["subgraph"]) == {"nodes", "edges"}
    for n in body["subgraph"]["nodes"]:
        assert NODE_BASE <= set(n) <= NODE_BASE | {"topic_state", "member_count"}
    assert all(set(e) == {"from_id", "to_id", "type", "weight"} for e in body["subgraph"]["edges"])
    assert set(body["context"]) == {"text", "items", "citations"}
    assert graph["ids"]["trip"] in body["context"]["text"], "context cites node ids"


def test_most_similar_node_seeds_first_and_neighbours_are_activated(
    client: httpx.Client, graph: dict[str, Any]
) -> None:
    body = client.post(
        "/v1/memory/recall_text", json={"scope": graph["scope"], "query_text": "Alice went hiking in the Alps"}
    ).json()
    assert body["seeds"][0]["id"] == graph["ids"]["trip"]
    ranked_ids = [x["id"] for x in body["ranked"]]
    assert ranked_ids[0] == graph["ids"]["trip"]
    assert graph["ids"]["hub"] in {n["id"] for n in body["subgraph"]["nodes"]}
    scores = [x["score"] for x in body["ranked"]]
    assert scores == sorted(scores, reverse=True)
    topic = next(n for n in body["subgraph"]["nodes"] if n["id"] == graph["ids"]["hub"])
    assert topic["member_count"] == 2


def test_meta_and_slots_appear_only_when_asked(client: httpx.Client, graph: dict[str, Any]) -> None:
    base = {"scope": graph["scope"], "query_text": "Alice loves mountain hiking"}
    plain = client.post("/v1/memory/recall_text", json=base).json()
    alice = next(n for n in plain["subgraph"]["nodes"] if n["id"] == graph["ids"]["alice"])
    assert set(alice) == NODE_BASE
    rich = client.post(
        "/v1/memory/recall_text",
        json={
            **base,
            "include_meta": True,
            "include_slots": True,
            "include_slots_preview": True,
            "slots_preview_keys": 2,
        },
    ).json()
    alice = next(n for n in rich["subgraph"]["nodes"] if n["id"] == graph["ids"]["alice"])
    assert set(alice) == NODE_BASE | META | {"slots", "slots_preview"}
    assert alice["slots_preview"] == {"a": 1, "b": 2}
    assert alice["raw_ref"] == "chat:1" and alice["embedding_status"] == "ready"
    assert all(set(e) == {"from_id", "to_id", "type", "weight", "commit_id"} for e in rich["subgraph"]["edges"])


def test_bounds_are_enforced(client: httpx.Client, graph: dict[str, Any]) -> None:
    body = client.post(
        "/v1/memory/recall_text",
        json={
            "scope": graph["scope"],
            "query_text": "Alice",
            "limit": 1,
            "max_nodes": 2,
            "max_edges": 1,
            "ranked_limit": 2,
            "neighborhood_hops": 1,
        },
    ).json()
    assert len(body["seeds"]) == 1
    assert len(body["subgraph"]["nodes"]) <= 2
    assert len(body["subgraph"]["edges"]) <= 1
    assert len(body["ranked"]) <= 2


@pytest.mark.parametrize(
    "field,value",
    [
        ("limit", 0),
        ("limit", 201),
        ("max_nodes", 201),
        ("max_edges", 101),
        ("ranked_limit", 501),
        ("neighborhood_hops", 3),
        ("min_edge_weight", 1.5),
        ("min_edge_confidence", -0.1),
        ("slots_preview_keys", 51),
        ("limit", "many"),
    ],
)
def test_out_of_range_values_are_a_400_naming_the_field(client: httpx.Client, field: str, value: Any) -> None:
    r = client.post("/v1/memory/recall_text", json={"query_text": "x", field: value})
    assert r.status_code == 400, r.text
    assert r.json()["error"] == "invalid_request"
    assert r.json()["message"].startswith(field)


def test_recall_rejects_a_query_embedding_of_the_wrong_dimension(client: httpx.Client) -> None:
    r = client.post("/v1/memory/recall", json={"query_embedding": [0.0] * 1536})
    assert r.status_code == 400
    assert r.json()["error"] == "invalid_embedding_dimension"
    assert "1536" in r.json()["message"] and str(DIM) in r.json()["message"]
    assert client.post("/v1/memory/recall", json={}).json()["message"].startswith("query_embedding")


def test_recall_by_embedding_finds_the_client_embedded_node(client: httpx.Client) -> None:
    scope = new_scope()
    body = write(
        client,
        scope,
        [
            {"type": "event", "title": "vector only", "embedding": unit(42)},
            {"type": "event", "title": "other", "embedding": unit(43)},
        ],
    )
    r = client.post("/v1/memory/recall", json={"scope": scope, "query_embedding": unit(42), "limit": 1})
    assert r.status_code == 200
    assert "query" not in r.json()
    [seed] = r.json()["seeds"]
    assert seed["id"] == body["nodes"][0]["id"] and seed["similarity"] == pytest.approx(1.0, abs=1e-4)


def test_only_ready_nodes_in_hot_and_warm_tiers_are_recalled(client: httpx.Client) -> None:
    scope = new_scope()
    v = unit(7)
    body = write(
        client,
        scope,
        [
            {"type": "event", "title": "hot", "embedding": v, "tier": "hot"},
            {"type": "event", "title": "warm", "embedding": v, "tier": "warm"},
            {"type": "event", "title": "cold", "embedding": v, "tier": "cold"},
            {"type": "event", "title": "archived", "embedding": v, "tier": "archive"},
        ],
    )
    write(client, scope, [{"type": "event", "title": "not embedded yet"}], auto_embed=False)
    r = client.post("/v1/memory/recall", json={"scope": scope, "query_embedding": v})
    titles = {s["title"] for s in r.json()["seeds"]}
    assert titles == {"hot", "warm"}
    assert {n["title"] for n in r.json()["subgraph"]["nodes"]} == {"hot", "warm"}
    assert body["nodes"]


def test_private_lane_is_visible_only_to_its_owner_when_a_consumer_is_named(client: httpx.Client) -> None:
    scope = new_scope()
    v = unit(8)
    write(
        client,
        scope,
        [
            {"type": "event", "title": "shared", "embedding": v, "memory_lane": "shared"},
            {"type": "event", "title": "alice's", "embedding": v, "memory_lane": "private", "owner_agent_id": "alice"},
            {"type": "event", "title": "team red's", "embedding": v, "memory_lane": "private", "owner_team_id": "red"},
        ],
    )

    def seen(**who: str) -> set[str]:
        r = client.post("/v1/memory/recall", json={"scope": scope, "query_embedding": v, **who})
        return {s["title"] for s in r.json()["seeds"]}

    assert seen(consumer_agent_id="alice") == {"shared", "alice's"}
    assert seen(consumer_agent_id="bob") == {"shared"}
    assert seen(consumer_agent_id="bob", consumer_team_id="red") == {"shared", "team red's"}


def test_neighbours_follow_the_lanes_too(client: httpx.Client) -> None:
    """A shared seed linked to a private node: the edge must not carry the private node to a
    reader its lane hides it from, while its owner gets it as a neighbour (the control)."""
    scope = new_scope()
    seed_vec, far = unit(21), unit(99)
    write(
        client,
        scope,
        [
            {"client_id": "seed", "type": "event", "title": "shared seed", "embedding": seed_vec},
            {
                "client_id": "hidden",
                "type": "event",
                "title": "bob's private neighbour",
                "embedding": far,
                "memory_lane": "private",
                "owner_agent_id": "bob",
            },
            {"client_id": "open", "type": "event", "title": "shared neighbour", "embedding": far},
        ],
        [
            {"type": "part_of", "src": {"client_id": "seed"}, "dst": {"client_id": "hidden"}},
            {"type": "part_of", "src": {"client_id": "seed"}, "dst": {"client_id": "open"}},
        ],
    )

    def recalled(agent: str) -> tuple[list[str], set[str], set[tuple[str, str]]]:
        r = client.post(
            "/v1/memory/recall",
            json={"scope": scope, "query_embedding": seed_vec, "limit": 1, "neighborhood_hops": 1,
                  "consumer_agent_id": agent},
        )  # fmt: skip
        assert r.status_code == 200, r.text
        body = r.json()
        titles = {n["title"] for n in body["subgraph"]["nodes"]}
        edges = {(e["from_id"], e["to_id"]) for e in body["subgraph"]["edges"]}
        return [s["title"] for s in body["seeds"]], titles, edges

    seeds, titles, _ = recalled("bob")
    assert seeds == ["shared seed"]
    assert titles == {"shared seed", "bob's private neighbour", "shared neighbour"}, "the owner reaches it"
    seeds, titles, edges = recalled("alice")
    assert seeds == ["shared seed"]
    assert titles == {"shared seed", "shared neighbour"}
    assert len(edges) == 1, "no edge to a node the reader may not see"


def test_new_writes_default_to_the_private_lane(client: httpx.Client) -> None:
    scope = new_scope()
    v = unit(9)
    r = client.post(
        "/v1/memory/write",
        json={
            "scope": scope,
            "input_text": "x",
            "nodes": [{"type": "event", "title": "mine", "embedding": v, "owner_agent_id": "alice"}],
        },
    )
    assert r.status_code == 200
    body = client.post(
        "/v1/memory/recall",
        json={"scope": scope, "query_embedding": v, "include_meta": True, "consumer_agent_id": "bob"},
    ).json()
    assert body["seeds"] == []
    body = client.post(
        "/v1/memory/recall",
        json={"scope": scope, "query_embedding": v, "include_meta": True, "consumer_agent_id": "alice"},
    ).json()
    assert body["subgraph"]["nodes"][0]["memory_lane"] == "private"


def test_draft_topics_never_seed_or_rank_but_are_shown_for_explainability(client: httpx.Client) -> None:
    scope = new_scope()
    v = unit(11)
    body = write(
        client,
        scope,
        [
            {"client_id": "ev", "type": "event", "title": "event", "embedding": v},
            {
                "client_id": "draft",
                "type": "topic",
                "title": "draft topic",
                "embedding": v,
                "slots": {"topic_state": "draft"},
            },
        ],
        [{"type": "part_of", "src": {"client_id": "ev"}, "dst": {"client_id": "draft"}, "weight": 1.0}],
    )
    draft_id = body["nodes"][1]["id"]
    r = client.post("/v1/memory/recall", json={"scope": scope, "query_embedding": v}).json()
    assert draft_id not in {s["id"] for s in r["seeds"]}
    assert draft_id not in {x["id"] for x in r["ranked"]}
    shown = {n["id"]: n for n in r["subgraph"]["nodes"]}
    assert shown[draft_id]["topic_state"] == "draft"


def test_compression_summaries_lead_the_context_and_their_events_are_not_repeated(client: httpx.Client) -> None:
    scope = new_scope()
    v = unit(12)
    body = write(
        client,
        scope,
        [
            {"client_id": "e1", "type": "event", "title": "ran 5k on Monday", "embedding": v},
            {"client_id": "e2", "type": "event", "title": "ran 10k on Friday", "embedding": v},
            {"client_id": "other", "type": "event", "title": "bought shoes", "embedding": v},
            {
                "client_id": "sum",
                "type": "concept",
                "title": "Weekly running",
                "text_summary": "ran 15k this week",
                "embedding": v,
                "slots": {"summary_kind": "compression_rollup"},
            },
        ],
        [
            {"type": "derived_from", "src": {"client_id": "sum"}, "dst": {"client_id": "e1"}},
            {"type": "derived_from", "src": {"client_id": "sum"}, "dst": {"client_id": "e2"}},
        ],
    )
    ids = {n["client_id"]: n["id"] for n in body["nodes"]}
    ctx = client.post("/v1/memory/recall", json={"scope": scope, "query_embedding": v}).json()["context"]
    assert ctx["text"].startswith("# Summaries")
    assert ids["e1"] not in ctx["text"] and ids["e2"] not in ctx["text"]
    assert ids["other"] in ctx["text"]
    summary_cite = next(c for c in ctx["citations"] if c["node_id"] == ids["sum"])
    assert set(summary_cite["derived_from"]) == {ids["e1"], ids["e2"]}


def test_no_response_ever_contains_an_embedding_outside_the_debug_channel(
    client: httpx.Client, graph: dict[str, Any]
) -> None:
    for path, q in (
        ("/v1/memory/recall_text", {"query_text": "Alice"}),
        ("/v1/memory/recall", {"query_embedding": unit(1)}),
    ):
        body = client.post(
            path,
            json={
                "scope": graph["scope"],
                "include_meta": True,
                "include_slots": True,
                "include_slots_preview": True,
                "return_debug": True,
                **q,
            },
        ).json()
        assert not has_long_float_list(body)
        assert all("embedding" not in n and "embeddings" not in n for n in body["subgraph"]["nodes"])
        assert set(body["debug"]) == {"neighborhood_counts"}


def test_scopes_do_not_leak_into_each_other(client: httpx.Client) -> None:
    v = unit(13)
    write(client, "scope-a-" + new_scope(), [{"type": "event", "title": "in A", "embedding": v}])
    other = new_scope()
    write(client, other, [{"type": "event", "title": "in B", "embedding": unit(14)}])
    r = client.post("/v1/memory/recall", json={"scope": other, "query_embedding": v}).json()
    assert {s["title"] for s in r["seeds"]} == {"in B"}


def test_tenant_header_selects_the_tenant_when_the_body_does_not(client: httpx.Client) -> None:
    scope = new_scope()
    v = unit(15)
    write(client, scope, [{"type": "event", "title": "tenant t9 only", "embedding": v}], tenant_id="t9")
    as_default = client.post("/v1/memory/recall", json={"scope": scope, "query_embedding": v}).json()
    assert as_default["tenant_id"] == "default" and as_default["seeds"] == []
    via_header = client.post(
        "/v1/memory/recall", json={"scope": scope, "query_embedding": v}, headers={"X-Tenant-Id": "t9"}
    ).json()
    assert via_header["tenant_id"] == "t9"
    assert [s["title"] for s in via_header["seeds"]] == ["tenant t9 only"]


def test_recall_text_with_explain_says_why_each_seed_ranked(client: httpx.Client) -> None:
    scope = new_scope()
    body = write(
        client,
        scope,
        [
            {"client_id": "a", "type": "event", "title": "Heron", "text_summary": "A heron fished in the pond"},
            {"client_id": "b", "type": "entity", "title": "Pond", "text_summary": "The garden pond"},
            {"client_id": "c", "type": "event", "title": "Tax", "text_summary": "Tax forms were filed"},
        ],
        [{"type": "related_to", "src": {"client_id": "a"}, "dst": {"client_id": "b"}}],
    )
    ids = {n["client_id"]: n["id"] for n in body["nodes"]}
    wait_until_recallable(client, scope, "heron pond", set(ids.values()))
    r = client.post("/v1/memory/recall_text", json={"scope": scope, "query_text": "heron pond", "explain": True})
    out = r.json()
    assert set(out["explain"]) == {s["id"] for s in out["seeds"]}
    heron = out["explain"][ids["a"]]
    assert set(heron) == {
        "similarity",
        "keyword",
        "fused",
        "entity_boost",
        "time_boost",
        "question",
        "base",
        "graph",
        "score",
    }
    assert heron["keyword"] > 0 and heron["similarity"] > 0
    assert out["explain"][ids["c"]]["keyword"] == 0, "no query word in it"
    ranked = {x["id"]: x for x in out["ranked"]}
    assert heron["score"] == ranked[ids["a"]]["score"]
    assert heron["graph"] == pytest.approx(ranked[ids["a"]]["activation"] - heron["base"], abs=1e-5)
    assert "explain" not in client.post("/v1/memory/recall_text", json={"scope": scope, "query_text": "heron"}).json()
