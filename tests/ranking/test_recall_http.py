"""recall_text and recall over real HTTP: the response contract with every signal on, recall by
embedding, and the MEMLANE_RECALL_* settings reaching a live server's ranking (what each switch
does is test_hybrid_recall.py's and test_question_aware.py's, in-process)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import numpy as np
import pytest

from memlane.services.container import from_settings
from memlane.services.ranking.config import RankingConfig
from tests.ranking.helpers import (
    GRAPH_PAIR,
    SWITCHES,
    distractors,
    new_scope,
    query_vector,
    recall_text,
    vector_with_cosine,
    write,
)
from tests.support.server import ServerFactory
from tests.support.settings import make_settings

SEED_FIELDS = {"id", "type", "title", "text_summary", "tier", "salience", "confidence", "similarity"}
#: the settings each ranking configuration of helpers.SWITCHES stands for
SETTINGS_OF: dict[str, dict[str, Any]] = {
    "full": {},
    "no-keyword": {"MEMLANE_RECALL_KEYWORD": False},
    "no-graph": {"MEMLANE_RECALL_GRAPH": False},
    "no-time": {"MEMLANE_RECALL_TIME": False},
    "no-entity": {"MEMLANE_RECALL_ENTITY": False},
    "shallow": {"MEMLANE_RECALL_CANDIDATES": 5},
    "no-time-statement": {"MEMLANE_RECALL_TIME_STATEMENT_BOOST": 0},
    "no-episode": {"MEMLANE_RECALL_EPISODE_WEIGHT": 0},
    "entity-links": {"MEMLANE_RECALL_ENTITY_LINK_WEIGHT": 0.3},
    "query-rewrite": {"MEMLANE_RECALL_QUERY_REWRITE_WEIGHT": 0.5},
    "speaker-names-kept": {"MEMLANE_RECALL_SKIP_SPEAKER_NAMES": False},
    "no-category": {"MEMLANE_RECALL_CATEGORY_KEYWORD_WEIGHT": 0},
}


@pytest.mark.parametrize("name", SETTINGS_OF)
def test_each_recall_setting_switches_its_signal_in_the_ranking_config(name: str) -> None:
    settings = make_settings("sqlite:///unused.db", **SETTINGS_OF[name])
    assert from_settings(RankingConfig, settings.recall) == SWITCHES[name]


@pytest.fixture(scope="module")
def graph_off(live_server_factory: ServerFactory) -> Iterator[httpx.Client]:
    with live_server_factory(**SETTINGS_OF["no-graph"]) as server, httpx.Client(base_url=server.url, timeout=30) as c:
        yield c


def test_a_recall_setting_reaches_the_ranking_of_a_live_server(http: httpx.Client, graph_off: httpx.Client) -> None:
    query, nodes, edges = GRAPH_PAIR
    scope = new_scope()
    on, off = write(http, scope, nodes, edges), write(graph_off, scope, nodes, edges)
    assert [x["id"] for x in recall_text(http, scope, query, limit=1)["ranked"]] == [on["seed"], on["next"]]
    assert [x["id"] for x in recall_text(graph_off, scope, query, limit=1)["ranked"]] == [off["seed"]]


def test_recall_text_keeps_its_response_contract_with_every_signal_on(http: httpx.Client) -> None:
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
    scope = new_scope()
    write(http, scope, nodes, edges)
    body = recall_text(http, scope, query, return_debug=True)
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


def test_recall_by_embedding_ranks_seeds_by_cosine_as_before(http: httpx.Client) -> None:
    q = query_vector("anything at all")
    nodes: list[dict[str, Any]] = [
        {"client_id": f"n{i}", "type": "event", "text_summary": f"n{i}", "embedding": vector_with_cosine(q, c, 90 + i)}
        for i, c in enumerate((0.2, 0.8, 0.5))
    ]
    scope = new_scope()
    ids = write(http, scope, nodes)
    r = http.post("/v1/memory/recall", json={"scope": scope, "query_embedding": [float(x) for x in q]})
    assert r.status_code == 200
    seeds = r.json()["seeds"]
    assert [s["id"] for s in seeds] == [ids[k] for k in ("n1", "n2", "n0")]
    assert [s["similarity"] for s in seeds] == pytest.approx([0.8, 0.5, 0.2], abs=1e-4)


def test_keyword_matches_not_yet_embedded_never_seed(http: httpx.Client) -> None:
    query = "quorbitane inventory"
    scope = new_scope()
    write(http, scope, distractors(query, 3))
    r = http.post(
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
    body = recall_text(http, scope, query)
    assert pending_id not in {s["id"] for s in body["seeds"]}
    assert pending_id not in [str(x["id"]) for x in body["ranked"]]
