"""Hybrid recall over real HTTP: what each ranking signal does, and that switching it off
removes exactly that effect while the response contract stays as it was."""

from __future__ import annotations

from typing import Any

import httpx
import numpy as np
import pytest

from tests.ranking.conftest import query_vector, recall_text, vector_with_cosine, write, write_everywhere

SEED_FIELDS = {"id", "type", "title", "text_summary", "tier", "salience", "confidence", "similarity"}


def distractors(query: str, n: int, *, start: float = 0.6, step: float = 0.02) -> list[dict[str, Any]]:
    """Nodes dense search prefers (cosine ``start`` downwards) that share no word with ``query``."""
    q = query_vector(query)
    return [
        {
            "client_id": f"d{i}",
            "type": "event",
            "title": f"note {i}",
            "text_summary": "weather was mild and grey",
            "embedding": vector_with_cosine(q, start - step * i, seed=100 + i),
        }
        for i in range(n)
    ]


def ranked_ids(body: dict[str, Any]) -> list[str]:
    return [str(x["id"]) for x in body["ranked"]]


def test_an_exact_keyword_match_that_dense_misses_is_recalled_with_keyword_fusion(
    clients: dict[str, httpx.Client],
) -> None:
    # a scope as large as the candidate lists (100): keyword statistics count in full there
    query = "zyxolith calibration"
    q = query_vector(query)
    rare = {
        "client_id": "rare",
        "type": "event",
        "title": "lab",
        "text_summary": "the zyxolith calibration failed twice",
        "embedding": vector_with_cosine(q, -0.2, seed=7),
    }
    scope, ids = write_everywhere(clients, [*distractors(query, 100, step=0.004), rare])

    on = recall_text(clients["full"], scope, query, limit=5)
    assert ranked_ids(on)[0] == ids["full"]["rare"]
    seed = next(s for s in on["seeds"] if s["id"] == ids["full"]["rare"])
    # seeds report their true cosine, even one that only the keyword path found
    assert seed["similarity"] == pytest.approx(-0.2, abs=1e-4)

    off = recall_text(clients["no-keyword"], scope, query, limit=5)
    assert ids["no-keyword"]["rare"] not in {s["id"] for s in off["seeds"]}
    assert ids["no-keyword"]["rare"] not in ranked_ids(off)


def test_a_seed_found_only_by_keyword_reports_its_true_cosine_similarity(clients: dict[str, httpx.Client]) -> None:
    client = clients["shallow"]  # 5 candidates per list: the dense list cannot reach the rare node
    query = "zyxolith calibration"
    q = query_vector(query)
    rare = {
        "client_id": "rare",
        "type": "event",
        "text_summary": "zyxolith calibration",
        "embedding": vector_with_cosine(q, -0.35, seed=8),
    }
    scope = f"shallow-{ids_suffix()}"
    ids = write(client, scope, [*distractors(query, 10), rare])
    body = recall_text(client, scope, query, limit=5)
    seed = next(s for s in body["seeds"] if s["id"] == ids["rare"])
    assert seed["similarity"] == pytest.approx(-0.35, abs=1e-4)
    assert ranked_ids(body)[0] == ids["rare"]


def test_a_memory_of_the_person_the_question_names_ranks_first_with_entity_matching(
    clients: dict[str, httpx.Client],
) -> None:
    query = "What did Alice buy?"
    q = query_vector(query)
    nodes: list[dict[str, Any]] = [
        {
            "client_id": "bob",
            "type": "event",
            "text_summary": "picked a blue kayak",
            "slots": {"speaker": "Bob"},
            "embedding": vector_with_cosine(q, 0.60, seed=1),
        },
        {
            "client_id": "alice",
            "type": "event",
            "text_summary": "picked a red bicycle",
            "slots": {"speaker": "Alice"},
            "embedding": vector_with_cosine(q, 0.55, seed=2),
        },
    ]
    scope, ids = write_everywhere(clients, nodes)
    assert ranked_ids(recall_text(clients["full"], scope, query))[0] == ids["full"]["alice"]
    assert ranked_ids(recall_text(clients["no-entity"], scope, query))[0] == ids["no-entity"]["bob"]


def test_entities_listed_in_slots_count_like_the_speaker(clients: dict[str, httpx.Client]) -> None:
    query = "Where did Mary Ann travel?"
    q = query_vector(query)
    nodes: list[dict[str, Any]] = [
        {"client_id": "other", "type": "event", "text_summary": "a trip", "embedding": vector_with_cosine(q, 0.6, 3)},
        {
            "client_id": "about",
            "type": "event",
            "text_summary": "a journey",
            "slots": {"entities": ["Mary Ann", "Lisbon"]},
            "embedding": vector_with_cosine(q, 0.55, 4),
        },
        {
            "client_id": "half",
            "type": "event",
            "text_summary": "a voyage",
            "slots": {"entities": ["Ann Smith"]},
            "embedding": vector_with_cosine(q, 0.58, 5),
        },
    ]
    scope, ids = write_everywhere(clients, nodes)
    order = ranked_ids(recall_text(clients["full"], scope, query))
    assert order[0] == ids["full"]["about"]


def test_a_question_naming_a_date_prefers_memories_from_that_day_with_time_awareness(
    clients: dict[str, httpx.Client],
) -> None:
    query = "What happened on 9 November, 2022?"
    q = query_vector(query)
    nodes: list[dict[str, Any]] = [
        {
            "client_id": "later",
            "type": "event",
            "text_summary": "a quiet evening at home",
            "slots": {"event_time": "2023-03-01T18:00:00"},
            "embedding": vector_with_cosine(q, 0.60, seed=11),
        },
        {
            "client_id": "that-day",
            "type": "event",
            "text_summary": "a concert in the park",
            "slots": {"event_time": "2022-11-09"},
            "embedding": vector_with_cosine(q, 0.55, seed=12),
        },
    ]
    scope, ids = write_everywhere(clients, nodes)
    assert ranked_ids(recall_text(clients["full"], scope, query))[0] == ids["full"]["that-day"]
    assert ranked_ids(recall_text(clients["no-time"], scope, query))[0] == ids["no-time"]["later"]


def test_a_memory_without_event_time_is_dated_by_when_it_was_written(clients: dict[str, httpx.Client]) -> None:
    from datetime import UTC, datetime

    today = datetime.now(UTC)
    query = f"What happened on {today.day} {today:%B}, {today.year}?"
    q = query_vector(query)
    nodes: list[dict[str, Any]] = [
        {
            "client_id": "old",
            "type": "event",
            "text_summary": "an old story",
            "slots": {"event_time": "2001-01-01"},
            "embedding": vector_with_cosine(q, 0.60, seed=21),
        },
        {
            "client_id": "new",
            "type": "event",
            "text_summary": "fresh news",
            "embedding": vector_with_cosine(q, 0.55, 22),
        },
    ]
    scope, ids = write_everywhere(clients, nodes)
    assert ranked_ids(recall_text(clients["full"], scope, query))[0] == ids["full"]["new"]


def test_graph_activation_brings_in_neighbours_of_seeds_and_switching_it_off_ranks_seeds_only(
    clients: dict[str, httpx.Client],
) -> None:
    query = "morning run along the river"
    q = query_vector(query)
    nodes: list[dict[str, Any]] = [
        {"client_id": "seed", "type": "event", "text_summary": "jogged", "embedding": vector_with_cosine(q, 0.9, 31)},
        {"client_id": "next", "type": "event", "text_summary": "ate", "embedding": vector_with_cosine(q, -0.5, 32)},
    ]
    edges = [{"type": "related_to", "src": {"client_id": "seed"}, "dst": {"client_id": "next"}}]
    scope, ids = write_everywhere(clients, nodes, edges)

    on = recall_text(clients["full"], scope, query, limit=1)
    assert ranked_ids(on) == [ids["full"]["seed"], ids["full"]["next"]]
    assert [e["type"] for e in on["subgraph"]["edges"]] == ["related_to"]

    off = recall_text(clients["no-graph"], scope, query, limit=1)
    assert ranked_ids(off) == [ids["no-graph"]["seed"]]


def test_a_hub_linked_to_many_hits_does_not_outrank_the_direct_hits(clients: dict[str, httpx.Client]) -> None:
    query = "garden tomatoes harvest"
    q = query_vector(query)
    members = [
        {
            "client_id": f"m{i}",
            "type": "event",
            "text_summary": "picked",
            "embedding": vector_with_cosine(q, 0.5, 40 + i),
        }
        for i in range(8)
    ]
    hub = {"client_id": "hub", "type": "topic", "title": "season", "embedding": vector_with_cosine(q, -0.3, 60)}
    edges = [{"type": "part_of", "src": {"client_id": f"m{i}"}, "dst": {"client_id": "hub"}} for i in range(8)]
    client = clients["no-keyword"]  # cosine seeds: the hub's pull is compared with plain similarity
    scope = f"hub-{ids_suffix()}"
    ids = write(client, scope, [*members, hub], edges)
    body = recall_text(client, scope, query, limit=8)
    order = ranked_ids(body)
    assert ids["hub"] in order, "the hub is activated through its members"
    assert order.index(ids["hub"]) == len(order) - 1, "but it ranks below every direct hit"


def ids_suffix() -> str:
    import uuid

    return uuid.uuid4().hex[:8]


def test_ties_are_broken_by_id_and_repeat_identically(clients: dict[str, httpx.Client]) -> None:
    query = "identical twin notes"
    q = query_vector(query)
    v = vector_with_cosine(q, 0.7, seed=70)
    nodes: list[dict[str, Any]] = [
        {"client_id": f"t{i}", "type": "event", "text_summary": "identical twin notes", "embedding": v}
        for i in range(6)
    ]
    scope, ids = write_everywhere(clients, nodes)
    for name, client in clients.items():
        first = ranked_ids(recall_text(client, scope, query))
        again = ranked_ids(recall_text(client, scope, query))
        assert first == again, name
        assert first == sorted(ids[name].values()), name


def test_recall_text_keeps_its_response_contract_with_every_signal_on(clients: dict[str, httpx.Client]) -> None:
    query = "Did Alice mention the zyxolith on 9 November 2022?"
    q = query_vector(query)
    nodes: list[dict[str, Any]] = [
        {
            "client_id": "a",
            "type": "event",
            "title": "Alice",
            "text_summary": "zyxolith again",
            "slots": {"speaker": "Alice", "event_time": "2022-11-09"},
            "embedding": vector_with_cosine(q, 0.1, 80),
        },
        {"client_id": "b", "type": "topic", "title": "lab", "embedding": vector_with_cosine(q, 0.3, 81)},
    ]
    edges = [{"type": "part_of", "src": {"client_id": "a"}, "dst": {"client_id": "b"}}]
    scope, _ = write_everywhere(clients, nodes, edges)
    body = recall_text(clients["full"], scope, query, return_debug=True)
    assert set(body) == {"tenant_id", "scope", "seeds", "ranked", "subgraph", "context", "query", "debug"}
    assert all(set(s) == SEED_FIELDS for s in body["seeds"])
    assert all(set(x) == {"id", "activation", "score"} for x in body["ranked"])
    scores = [x["score"] for x in body["ranked"]]
    assert scores == sorted(scores, reverse=True)
    assert set(body["context"]) == {"text", "items", "citations"}
    assert set(body["debug"]) == {"neighborhood_counts"}
    for s in body["seeds"]:
        stored = next(n for n in nodes if s["title"] == n.get("title"))
        assert s["similarity"] == pytest.approx(float(np.dot(q, stored["embedding"])), abs=1e-4)


def test_recall_by_embedding_ranks_seeds_by_cosine_as_before(clients: dict[str, httpx.Client]) -> None:
    q = query_vector("anything at all")
    nodes: list[dict[str, Any]] = [
        {"client_id": f"n{i}", "type": "event", "text_summary": f"n{i}", "embedding": vector_with_cosine(q, c, 90 + i)}
        for i, c in enumerate((0.2, 0.8, 0.5))
    ]
    scope, ids = write_everywhere(clients, nodes)
    r = clients["full"].post("/v1/memory/recall", json={"scope": scope, "query_embedding": [float(x) for x in q]})
    assert r.status_code == 200
    seeds = r.json()["seeds"]
    assert [s["id"] for s in seeds] == [ids["full"][k] for k in ("n1", "n2", "n0")]
    assert [s["similarity"] for s in seeds] == pytest.approx([0.8, 0.5, 0.2], abs=1e-4)


def test_keyword_matches_not_yet_embedded_never_seed(clients: dict[str, httpx.Client]) -> None:
    client = clients["full"]
    query = "quorbitane inventory"
    scope = f"pending-{ids_suffix()}"
    write(client, scope, distractors(query, 3))
    r = client.post(
        "/v1/memory/write",
        json={
            "scope": scope,
            "input_text": "x",
            "memory_lane": "shared",
            "auto_embed": False,
            "nodes": [{"client_id": "p", "type": "event", "text_summary": "quorbitane inventory is low"}],
        },
    )
    assert r.status_code == 200
    pending_id = r.json()["nodes"][0]["id"]
    body = recall_text(client, scope, query)
    assert pending_id not in {s["id"] for s in body["seeds"]}
    assert pending_id not in ranked_ids(body)


def test_a_question_of_only_function_words_still_recalls_by_meaning(clients: dict[str, httpx.Client]) -> None:
    query = "what did they do?"
    scope, ids = write_everywhere(clients, distractors(query, 3))
    body = recall_text(clients["full"], scope, query)
    assert ranked_ids(body)[0] == ids["full"]["d0"]
