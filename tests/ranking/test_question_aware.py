"""Question-aware ranking (in-process, helpers.Ranking): a "when" question prefers the memory that says when,
a memory among other strong hits of its session outranks a lone look-alike, and (switched on)
a question asking for several things finds the memory linked to a strong hit by a shared name.
Each signal is switched off in its own RankingConfig, and the order falls back to similarity."""

from __future__ import annotations

from typing import Any

from tests.ranking.helpers import SWITCHES, Ranking, query_vector, vector_with_cosine


def turn(client_id: str, text: str, cosine: float, query: str, *, session: int, seed: int) -> dict[str, Any]:
    """A conversation turn written alone, with a chosen similarity to ``query``."""
    return {
        "client_id": client_id,
        "type": "event",
        "text_summary": text,
        "slots": {"speaker": "Ana", "session": session, "event_time": f"2025-03-{session:02d}T10:00:00"},
        "embedding": vector_with_cosine(query_vector(query), cosine, seed=seed),
    }


async def first(ranking: Ranking, scope: str, query: str, switch: str = "full") -> str:
    return (await ranking.ranked_ids(scope, query, config=SWITCHES[switch]))[0]


def puppy_turns(query: str) -> list[dict[str, Any]]:
    """A turn about the puppy, more similar to ``query``, and a less similar one that dates it."""
    return [
        turn("about", "our new puppy is so sweet and sleeps all day", 0.60, query, session=1, seed=1),
        turn("dated", "we brought the puppy home last weekend", 0.50, query, session=2, seed=2),
    ]


async def test_a_when_question_prefers_the_turn_that_says_when_it_happened(ranking: Ranking) -> None:
    query = "When did Ana adopt the puppy?"
    scope, ids = await ranking.write(puppy_turns(query))
    # the session date (slots.event_time) with "last weekend" dates the adoption: that turn answers
    assert await first(ranking, scope, query) == ids["dated"]
    assert await first(ranking, scope, query, "no-time-statement") == ids["about"]


async def test_a_question_not_about_time_keeps_the_similarity_order(ranking: Ranking) -> None:
    query = "What is Ana's puppy like?"
    scope, ids = await ranking.write(puppy_turns(query))
    assert await first(ranking, scope, query) == ids["about"]


async def test_a_turn_among_other_strong_hits_of_its_session_outranks_a_lone_look_alike(ranking: Ranking) -> None:
    query = "Which instrument does Ana practise?"
    nodes = [
        turn("lone", "the orchestra hall downtown got a new roof", 0.55, query, session=1, seed=3),
        turn("asked", "do you still have lessons on weekdays?", 0.45, query, session=2, seed=4),
        turn("answer", "yes, cello with my teacher every Tuesday", 0.50, query, session=2, seed=5),
        turn("after", "she says my bowing got much better", 0.45, query, session=2, seed=6),
    ]
    scope, ids = await ranking.write(nodes)
    assert await first(ranking, scope, query) == ids["answer"]
    assert await first(ranking, scope, query, "no-episode") == ids["lone"]
    # explain says what the question-aware signals added
    why = (await ranking.recall(scope, query, explain=True)).signals
    assert why[ids["answer"]]["question"] > 0 and why[ids["lone"]]["question"] == 0


async def test_a_question_asking_for_several_things_finds_the_turn_linked_by_a_shared_name(ranking: Ranking) -> None:
    query = "What pets does Ana have?"
    nodes = [
        turn("named", "my cat Luna loves sleeping in the garden", 0.60, query, session=1, seed=7),
        turn("unrelated", "the garden centre had a sale on pots", 0.35, query, session=2, seed=8),
        turn("linked", "this morning Luna caught a mouse", 0.20, query, session=3, seed=9),
    ]
    scope, ids = await ranking.write(nodes)
    ranked = await ranking.ranked_ids(scope, query, config=SWITCHES["entity-links"])
    assert ranked.index(ids["linked"]) < ranked.index(ids["unrelated"])
    # off by default (it did not help on the tuning conversations): similarity order
    ranked = await ranking.ranked_ids(scope, query)
    assert ranked.index(ids["unrelated"]) < ranked.index(ids["linked"])
