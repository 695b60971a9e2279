"""A message with a fact in it is stored, whoever says it and however it is worded (issue #27,
"Nothing else is lost"): a friend's news about a named person, a plan with a day, something
that started or was called off, a sentence that leaves out its "I". A fact never stored can
neither be recalled nor close the older fact it changes. What the filters are for still holds:
thanks, greetings, reactions and questions store nothing."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memlane.services.conversation.extractor import extract_notes
from memlane.services.conversation.messages import Message

SENT_AT = datetime(2026, 3, 4, 18, 30, tzinfo=UTC)  # a Wednesday


def notes(text: str, role: str = "user") -> list[str]:
    message = Message(id="m1", role=role, content=text, timestamp=SENT_AT)
    return [note.content for note in extract_notes([message], user_name="Priya")]


@pytest.mark.parametrize(
    "text",
    [
        "Ellie won't be swimming on Saturday, she has a cold.",
        "Marcus has a new job at the hospital.",
        "Mia has been vegan since she was twelve.",
    ],
)
def test_a_friends_news_about_a_named_person_is_stored_as_said(text: str) -> None:
    assert notes(text, role="Sophie") == [text]


@pytest.mark.parametrize(
    "text",
    ["Good, she found a flat near the park.", "Honestly, the twins had a sleepover every night."],
)
def test_news_about_someone_named_before_is_stored(text: str) -> None:
    assert notes(text, role="Sophie") == [text]


def test_a_persons_fact_about_someone_they_know_is_stored() -> None:
    assert notes("Grandad has a hearing test at the clinic.") == ["Grandad has a hearing test at the clinic."]


@pytest.mark.parametrize(
    "text",
    [
        "The plumber is coming Friday to fix the boiler.",
        "The bins go out on Tuesday night here.",
        "School photos are on Monday morning.",
    ],
)
def test_a_plan_or_a_routine_with_a_day_is_stored(text: str) -> None:
    assert notes(text, role="Sophie") == [text]


@pytest.mark.parametrize(
    "text",
    [
        "The foxes have started visiting the garden again.",
        "The street party got rained off.",
    ],
)
def test_something_that_started_or_was_called_off_is_stored(text: str) -> None:
    assert notes(text) == [text]


@pytest.mark.parametrize(
    ("text", "note"),
    [
        ("Been learning Portuguese for a month now.", "Priya has been learning Portuguese for a month now."),
        ("Just got back from a week in Crete.", "Priya just got back from a week in Crete."),
        ("Started a pottery class at the community centre.", "Priya started a pottery class at the community centre."),
    ],
)
def test_a_sentence_that_leaves_out_its_i_is_stored_about_the_speaker(text: str, note: str) -> None:
    assert notes(text) == [note]


@pytest.mark.parametrize(
    "text",
    [
        "Thanks!",
        "haha",
        "Hi Sam!",
        "Got it, thanks.",
        "Thanks, see you Monday!",
        "Happy Friday!",
        "Wow, John!",
        "Been there, done that.",
        "Let's keep going!",
        "Sounds great, have a lovely weekend!",
        "Is Rowan racing on Sunday?",
        "Did the fitters come on Thursday?",
        "Yoga is amazing for your mind.",
        "Kickboxing is a great way to relax.",
    ],
)
def test_thanks_greetings_reactions_and_questions_store_nothing(text: str) -> None:
    assert notes(text, role="Sophie") == []
    assert notes(text) == []
