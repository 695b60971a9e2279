"""Query rewriting (ranking/rewrite.py): a question is turned into the statement that would
answer it, and with ``query_rewrite_weight`` recall's dense search uses that statement's vector."""

from __future__ import annotations

from dataclasses import replace

import pytest

from memlane.embed.hashing import HashingEmbedder
from memlane.services.ranking.config import RankingConfig
from memlane.services.ranking.rewrite import statement
from tests.ranking.helpers import Ranking, query_vector
from tests.support.settings import DIM


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("What did Alice climb?", "Alice climbed"),
        ("When did Caroline go to the LGBTQ support group?", "Caroline went to the LGBTQ support group"),
        ("What does Melanie paint?", "Melanie paints"),
        ("How many children does Melanie have?", "Melanie has children"),
        ("What books has Melanie read?", "Melanie has read books"),
        ("What is Caroline's relationship status?", "Caroline's relationship status is"),
        ("When is Melanie planning on going camping?", "Melanie is planning on going camping"),
        ("What kind of pot did Mel and her kids make?", "Mel and her kids made kind of pot"),
        ("Would Caroline pursue writing?", "Caroline would pursue writing"),
        ("Where did they try surfing?", "they tried surfing"),
    ],
)
def test_a_question_becomes_the_statement_that_would_answer_it(question: str, expected: str) -> None:
    assert statement(question) == expected


@pytest.mark.parametrize("text", ["Alice climbed Rainier", "hiking", "", "What?"])
def test_text_that_is_not_a_recognised_question_is_left_as_asked(text: str) -> None:
    assert statement(text) is None


DENSE_ONLY = RankingConfig(keyword=False, graph=False, time=False, entity=False, episode_weight=0)


async def test_a_memory_worded_like_the_answer_ranks_first_with_query_rewriting(ranking: Ranking) -> None:
    question = "What did Alice climb?"
    answer_like = [float(x) for x in HashingEmbedder(DIM).embed_sync(["Alice climbed"])[0]]
    nodes = [
        {"client_id": "answer", "type": "event", "text_summary": "one", "embedding": answer_like},
        {
            "client_id": "echo",
            "type": "event",
            "text_summary": "two",
            "embedding": [float(x) for x in query_vector(question)],
        },
    ]
    scope, ids = await ranking.write(nodes)

    as_asked = await ranking.recall(scope, question, config=DENSE_ONLY, limit=2)
    rewritten = await ranking.recall(scope, question, config=replace(DENSE_ONLY, query_rewrite_weight=1.0), limit=2)
    assert as_asked.seeds[0].node.id == ids["echo"]
    assert rewritten.seeds[0].node.id == ids["answer"]
    assert rewritten.seeds[0].similarity == pytest.approx(1.0, abs=1e-4)
