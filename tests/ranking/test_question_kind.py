"""What the server reads from a question's text alone, and which memories say when."""

from __future__ import annotations

import pytest

from memlane.services.ranking.question import QuestionKind, states_a_time


@pytest.mark.parametrize(
    "question",
    ["When did Ana move to Lisbon?", "How long has Bob played the cello?", "What year did they marry?"],
)
def test_questions_about_when_are_read_as_temporal(question: str) -> None:
    assert QuestionKind.of(question).temporal


@pytest.mark.parametrize("question", ["What did Ana buy?", "Which instrument does Bob practise?"])
def test_questions_about_what_are_not_temporal_nor_lists(question: str) -> None:
    assert QuestionKind.of(question) == QuestionKind()


@pytest.mark.parametrize(
    "question", ["What books has Ana read?", "Where has Bob camped?", "How many pets do they have?"]
)
def test_questions_asking_for_several_things_are_read_as_lists(question: str) -> None:
    assert QuestionKind.of(question).listing


@pytest.mark.parametrize(
    "text",
    [
        "we brought the puppy home last weekend",
        "I went there two days ago",
        "it was on 3 May, 2023",
        "back in 2019 we lived by the sea",
        "see you on Friday!",
        "it opened in May 2021",
    ],
)
def test_a_memory_that_dates_its_event_states_a_time(text: str) -> None:
    assert states_a_time(text)


@pytest.mark.parametrize("text", ["you may borrow my bike", "the last time I checked it was fine", "I love painting"])
def test_a_memory_without_a_time_does_not_state_one(text: str) -> None:
    assert not states_a_time(text)
