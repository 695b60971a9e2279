"""A question that names a speaker: the name finds that person's memories through the speaker
signal, not through the keyword search, where it would find the other person's greetings
("Hey Melanie!"), the only memories that spell it. A name that is no speaker's stays a keyword.
In-process, on both backends (the keyword search differs by store, the words it is given do not),
one store ranked with the name skipped (the default) and kept."""

from __future__ import annotations

from typing import Any

from memlane.services.ranking.query_text import named_words, without_words
from tests.ranking.helpers import SWITCHES, Ranking, distractors, query_vector, vector_with_cosine

NAMES_KEPT = SWITCHES["speaker-names-kept"]


def said(client_id: str, speaker: str, text: str, query: str, cosine: float, seed: int) -> dict[str, Any]:
    """A turn written alone by a documented client (``slots.speaker``), at a chosen cosine."""
    return {
        "client_id": client_id,
        "type": "event",
        "text_summary": text,
        "slots": {"speaker": speaker},
        "embedding": vector_with_cosine(query_vector(query), cosine, seed=seed),
    }


def position(ranked: list[str], node_id: str) -> int:
    """Where a node ranks; past the end if it is not ranked at all."""
    return ranked.index(node_id) if node_id in ranked else len(ranked)


async def test_a_question_naming_a_speaker_ranks_their_answer_above_the_other_persons_greeting(
    backend_ranking: Ranking,
) -> None:
    # not a category question ("What sport ..." finds "swimming" through the members' search,
    # categories.py, whichever way names are searched)
    query = "How does Melanie stay fit?"
    # a scope as large as the candidate lists (100): keyword statistics count in full there
    nodes = [
        *distractors(query, 100, start=0.35, step=0.003),
        said("answer", "Melanie", "swimming laps every morning before work", query, 0.30, seed=1),
        said("greeting", "Caroline", "Hey Melanie, nice to hear from you!", query, 0.25, seed=2),
    ]
    scope, ids = await backend_ranking.write(nodes)

    ranked = await backend_ranking.ranked_ids(scope, query)
    assert position(ranked, ids["answer"]) < position(ranked, ids["greeting"])
    # with the name searched as a keyword, the greeting (the only memory that spells it) wins
    kept = await backend_ranking.ranked_ids(scope, query, config=NAMES_KEPT)
    assert position(kept, ids["greeting"]) < position(kept, ids["answer"])


async def test_a_name_that_is_no_speakers_still_finds_the_memory_that_mentions_it(backend_ranking: Ranking) -> None:
    query = "What did Melanie bring back from Sweden?"
    nodes = [
        *distractors(query, 100, start=0.5, step=0.004),
        said("sweden", "Melanie", "the necklace from Sweden is my favourite", query, -0.10, seed=3),
        said("other", "Melanie", "I painted the lake again yesterday", query, 0.20, seed=4),
    ]
    scope, ids = await backend_ranking.write(nodes)

    ranked = await backend_ranking.ranked_ids(scope, query, limit=5)
    # only the keyword search reaches it (its cosine is negative): "sweden" stayed in it
    assert ranked[0] == ids["sweden"]


def test_the_names_a_question_may_mention_are_its_capitalised_words_after_the_first() -> None:
    assert named_words("Did Jon and Gina both start businesses?") == {"jon", "gina"}
    assert named_words("What did Caroline's friend say in Paris") == {"caroline", "paris"}
    assert named_words("what sport does melanie practise") == frozenset()


def test_leaving_every_word_out_of_a_keyword_query_leaves_nothing_to_search() -> None:
    assert without_words("sport melanie", frozenset({"melanie"})) == "sport"
    assert without_words("melanie", frozenset({"melanie"})) is None
