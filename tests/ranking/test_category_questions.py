"""A question that asks for a category's members ("What activities does Melanie do?") finds a
memory that names a member ("we went hiking with the kids") though the two share no word
and the memory's embedding is far from the question's: the members' words are searched by
keyword too. A question that asks for no category searches nothing more. In-process, on both
backends (the keyword search differs by store, the words it is given do not)."""

from __future__ import annotations

from typing import Any

import pytest

from memlane.services.ranking.categories import CATEGORIES, asked_category, member_queries
from memlane.store.postgres.store import MAX_QUERY_WORDS
from memlane.store.sqlite.keyword_terms import MAX_TERMS
from tests.ranking.helpers import SWITCHES, Ranking, distractors, query_vector, vector_with_cosine

NO_CATEGORY = SWITCHES["no-category"]


def said(client_id: str, text: str, query: str, cosine: float, seed: int) -> dict[str, Any]:
    """Melanie's turn, written alone by a documented client, at a chosen cosine to ``query``."""
    return {
        "client_id": client_id,
        "type": "event",
        "text_summary": text,
        "slots": {"speaker": "Melanie"},
        "embedding": vector_with_cosine(query_vector(query), cosine, seed=seed),
    }


async def test_a_question_asking_for_activities_finds_the_memory_that_names_one(backend_ranking: Ranking) -> None:
    query = "What activities does Melanie partake in?"
    nodes = [
        *distractors(query, 100, start=0.5, step=0.004),
        # no word in common with the question, and far from it in meaning as the embedder sees it
        said("hike", "we went hiking with the kids", query, -0.10, seed=1),
    ]
    scope, ids = await backend_ranking.write(nodes)

    assert ids["hike"] in await backend_ranking.ranked_ids(scope, query, limit=5)
    # without the members' search nothing reaches it
    assert ids["hike"] not in await backend_ranking.ranked_ids(scope, query, limit=5, config=NO_CATEGORY)


async def test_a_member_late_in_a_long_list_is_found_and_explained(backend_ranking: Ranking) -> None:
    """Activities' list is longer than one keyword search reads: a sport near its end is
    searched too, and explain shows the members' score beside the question's own keyword one."""
    query = "What activities does Melanie partake in?"
    nodes = [
        *distractors(query, 100, start=0.5, step=0.004),
        said("swim", "I'm off to go swimming with the kids", query, -0.10, seed=1),
    ]
    scope, ids = await backend_ranking.write(nodes)

    outcome = await backend_ranking.recall(scope, query, limit=5, explain=True)
    ranked = [r.id for r in outcome.ranked]
    assert ids["swim"] in ranked
    assert outcome.signals[ids["swim"]]["members"] > 0
    assert outcome.signals[ids["swim"]]["keyword"] == 0


async def test_a_question_asking_for_no_category_does_not_search_for_members(backend_ranking: Ranking) -> None:
    query = "What does Melanie think of the new neighbours?"
    nodes = [
        *distractors(query, 100, start=0.5, step=0.004),
        said("hike", "we went hiking with the kids", query, -0.10, seed=1),
    ]
    scope, ids = await backend_ranking.write(nodes)

    assert ids["hike"] not in await backend_ranking.ranked_ids(scope, query, limit=5)


@pytest.mark.parametrize(
    ("question", "category"),
    [
        ("What activities has Melanie done with her family?", "activities"),
        ("What kind of art does Caroline make?", "art"),
        ("What musical instruments does Tim play?", "instruments"),
        ("Which cities has Jon visited?", "places"),
        ("What pets does Ana have?", "animals"),
        ("What does Melanie do to destress?", "activities"),
        ("Where has Melanie camped?", "places"),
        ("What books has Ana read?", "books"),
        ("What martial arts has John done?", "martial arts"),
        ("What video games does Nate play?", "games"),
    ],
)
def test_a_question_asking_for_a_categorys_members_is_recognised(question: str, category: str) -> None:
    found = asked_category(question)
    assert found is not None
    assert found.name == category


@pytest.mark.parametrize(
    "question",
    [
        "When did Melanie go camping?",
        "Would Caroline be considered religious?",
        "What did Ana say about her new job?",
        "Why did Jon open a studio?",
    ],
)
def test_a_question_asking_for_no_category_is_not_taken_for_one(question: str) -> None:
    assert asked_category(question) is None


def test_a_members_search_asks_for_every_member_within_each_keyword_searchs_reach() -> None:
    for category in CATEGORIES:
        parts = [text.split() for text in member_queries(category)]
        assert parts and all(0 < len(p) <= min(MAX_TERMS, MAX_QUERY_WORDS) for p in parts), category.name
        assert [w for p in parts for w in p] == list(category.terms), category.name
        assert all(w.replace("-", "").isalpha() for p in parts for w in p), category.name
