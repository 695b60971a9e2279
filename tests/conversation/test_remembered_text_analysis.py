"""The text analyses conflict resolution repeats are remembered per text (for ingestion speed,
BENCHMARKS.md "Conversation ingestion"); a caller that changes what it got back must not change
what the next caller gets."""

from __future__ import annotations

from memlane.services import exclusive_states
from memlane.services.conversation import facts as fx
from memlane.services.conversation import language as lang

TEXT = "I'm single these days. My sister Ana moved to Lisbon in May, and she works at a bakery."


def test_changing_the_sentences_of_a_text_does_not_change_the_next_answer() -> None:
    first = lang.sentences(TEXT)
    first.append("an extra sentence")
    assert lang.sentences(TEXT) == first[:-1]


def test_changing_the_words_and_entities_of_a_text_does_not_change_the_next_answer() -> None:
    words, content, names = lang.words(TEXT), lang.content_words(TEXT), lang.entities(TEXT)
    words.clear()
    content.clear()
    names.clear()
    assert "Lisbon" in lang.words(TEXT)
    assert "lisbon" in lang.content_words(TEXT)
    assert "Lisbon" in lang.entities(TEXT)


def test_changing_the_states_a_sentence_mentions_does_not_change_the_next_answer() -> None:
    mentioned = exclusive_states.mentions("I'm single these days.")
    assert mentioned
    mentioned.clear()
    assert exclusive_states.mentions("I'm single these days.")


def test_changing_the_facts_parsed_from_a_sentence_does_not_change_the_next_answer() -> None:
    sentence = "I moved to Lisbon in May."
    parsed = fx.parse(sentence)
    assert parsed
    parsed.clear()
    assert fx.parse(sentence)
