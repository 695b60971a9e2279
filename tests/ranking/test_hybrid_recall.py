"""Hybrid recall: what each ranking signal does, and that switching it off removes exactly that
effect. In-process, one store ranked with each configuration (helpers.SWITCHES); the settings
reaching a live server and the response contract are test_recall_http.py's."""

from __future__ import annotations

from typing import Any

import pytest

from tests.ranking.helpers import GRAPH_PAIR, SWITCHES, Ranking, distractors, query_vector, vector_with_cosine


async def test_an_exact_keyword_match_that_dense_misses_is_recalled_with_keyword_fusion(ranking: Ranking) -> None:
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
    scope, ids = await ranking.write([*distractors(query, 100, step=0.004), rare])

    on = await ranking.recall(scope, query, limit=5)
    assert on.ranked[0].id == ids["rare"]
    seed = next(s for s in on.seeds if s.node.id == ids["rare"])
    # seeds report their true cosine, even one that only the keyword path found
    assert seed.similarity == pytest.approx(-0.2, abs=1e-4)

    off = await ranking.recall(scope, query, config=SWITCHES["no-keyword"], limit=5)
    assert ids["rare"] not in {s.node.id for s in off.seeds}
    assert ids["rare"] not in [r.id for r in off.ranked]


async def test_a_seed_found_only_by_keyword_reports_its_true_cosine_similarity(ranking: Ranking) -> None:
    shallow = SWITCHES["shallow"]  # 5 candidates per list: the dense list cannot reach the rare node
    query = "zyxolith calibration"
    q = query_vector(query)
    rare = {
        "client_id": "rare",
        "type": "event",
        "text_summary": "zyxolith calibration",
        "embedding": vector_with_cosine(q, -0.35, seed=8),
    }
    scope, ids = await ranking.write([*distractors(query, 10), rare])
    body = await ranking.recall(scope, query, config=shallow, limit=5)
    seed = next(s for s in body.seeds if s.node.id == ids["rare"])
    assert seed.similarity == pytest.approx(-0.35, abs=1e-4)
    assert body.ranked[0].id == ids["rare"]


async def test_a_memory_of_the_person_the_question_names_ranks_first_with_entity_matching(ranking: Ranking) -> None:
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
    scope, ids = await ranking.write(nodes)
    assert (await ranking.ranked_ids(scope, query))[0] == ids["alice"]
    assert (await ranking.ranked_ids(scope, query, config=SWITCHES["no-entity"]))[0] == ids["bob"]


async def test_entities_listed_in_slots_count_like_the_speaker(ranking: Ranking) -> None:
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
    scope, ids = await ranking.write(nodes)
    order = await ranking.ranked_ids(scope, query)
    assert order[0] == ids["about"]


async def test_a_question_naming_a_date_prefers_memories_from_that_day_with_time_awareness(ranking: Ranking) -> None:
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
    scope, ids = await ranking.write(nodes)
    assert (await ranking.ranked_ids(scope, query))[0] == ids["that-day"]
    assert (await ranking.ranked_ids(scope, query, config=SWITCHES["no-time"]))[0] == ids["later"]


async def test_a_memory_without_event_time_is_dated_by_when_it_was_written(ranking: Ranking) -> None:
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
    scope, ids = await ranking.write(nodes)
    assert (await ranking.ranked_ids(scope, query))[0] == ids["new"]


async def test_graph_activation_brings_in_neighbours_of_seeds_and_switching_it_off_ranks_seeds_only(
    ranking: Ranking,
) -> None:
    query, nodes, edges = GRAPH_PAIR
    scope, ids = await ranking.write(nodes, edges)

    on = await ranking.recall(scope, query, limit=1)
    assert [r.id for r in on.ranked] == [ids["seed"], ids["next"]]
    assert [e.type for e in on.edges] == ["related_to"]

    off = await ranking.recall(scope, query, config=SWITCHES["no-graph"], limit=1)
    assert [r.id for r in off.ranked] == [ids["seed"]]


async def test_a_hub_linked_to_many_hits_does_not_outrank_the_direct_hits(ranking: Ranking) -> None:
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
    cosine_seeds = SWITCHES["no-keyword"]  # the hub's pull is compared with plain similarity
    scope, ids = await ranking.write([*members, hub], edges)
    order = await ranking.ranked_ids(scope, query, config=cosine_seeds, limit=8)
    assert ids["hub"] in order, "the hub is activated through its members"
    assert order.index(ids["hub"]) == len(order) - 1, "but it ranks below every direct hit"


async def test_ties_are_broken_by_id_and_repeat_identically(ranking: Ranking) -> None:
    query = "identical twin notes"
    q = query_vector(query)
    v = vector_with_cosine(q, 0.7, seed=70)
    nodes: list[dict[str, Any]] = [
        {"client_id": f"t{i}", "type": "event", "text_summary": "identical twin notes", "embedding": v}
        for i in range(6)
    ]
    scope, ids = await ranking.write(nodes)
    for name, config in SWITCHES.items():
        first = await ranking.ranked_ids(scope, query, config=config)
        again = await ranking.ranked_ids(scope, query, config=config)
        assert first == again, name
        assert first == sorted(ids.values()), name


async def test_a_question_of_only_function_words_still_recalls_by_meaning(ranking: Ranking) -> None:
    query = "what did they do?"
    scope, ids = await ranking.write(distractors(query, 3))
    assert (await ranking.ranked_ids(scope, query))[0] == ids["d0"]


async def test_a_question_about_one_person_finds_both_of_their_answers_before_anothers_look_alikes(
    ranking: Ranking,
) -> None:
    # "What has Melanie painted?" is answered by two turns of Melanie's, each less like the
    # question than the other speaker's talk about painting; the answer needs both
    query = "What has Melanie painted?"
    q = query_vector(query)

    def turn(cid: str, speaker: str, text: str, cosine: float, seed: int) -> dict[str, Any]:
        return {
            "client_id": cid,
            "type": "event",
            "text_summary": text,
            "slots": {"speaker": speaker},
            "embedding": vector_with_cosine(q, cosine, seed=seed),
        }

    nodes = [
        turn("horse", "Melanie", "here is the horse I did last month", 0.40, 11),
        turn("lake", "Melanie", "the lake at sunrise, done last summer", 0.39, 12),
        turn("c1", "Caroline", "art lets me show who I am", 0.55, 13),
        turn("c2", "Caroline", "colours and brushes everywhere in my room", 0.54, 14),
        turn("c3", "Caroline", "my class meets on Thursdays", 0.53, 15),
    ]
    scope, ids = await ranking.write(nodes)
    order = await ranking.ranked_ids(scope, query)
    assert set(order[:2]) == {ids["horse"], ids["lake"]}
    # without the entity signal the other speaker's look-alikes come first
    assert not set((await ranking.ranked_ids(scope, query, config=SWITCHES["no-entity"]))[:2]) & {
        ids["horse"],
        ids["lake"],
    }
