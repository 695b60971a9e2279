"""The offline extractor and summariser: which sentences become notes, and how they read."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memlane.services.conversation import language as lang
from memlane.services.conversation.conflicts import judge
from memlane.services.conversation.extractor import extract_notes
from memlane.services.conversation.messages import Message

SENT_AT = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)


def m(content: str, role: str = "Caroline", mid: str = "D1:1") -> Message:
    return Message(id=mid, role=role, content=content, timestamp=SENT_AT)


def test_first_person_facts_become_third_person_notes_with_resolved_dates() -> None:
    (note,) = extract_notes([m("I went to a LGBTQ support group yesterday and it was so powerful.")])
    assert note.content.startswith("Caroline went to a LGBTQ support group yesterday")
    assert note.event_date == "7 May 2023" and "(7 May 2023)" in note.content
    assert note.category == "event"
    assert note.sources == [
        {
            "id": "D1:1",
            "role": "Caroline",
            "timestamp": "2023-05-08T13:56:00Z",
            "excerpt": "I went to a LGBTQ support group yesterday and it was so powerful.",
        }
    ]
    assert "Caroline" in note.entities and "LGBTQ" in note.entities
    assert "support" in note.keywords and "caroline" not in note.keywords


def test_greetings_reactions_and_questions_are_not_remembered() -> None:
    assert (
        extract_notes([m("Hey Mel! Good to see you!"), m("Wow, that's so cool!"), m("How have you been lately?")]) == []
    )


def test_preferences_and_plans_are_recognised_and_weigh_more() -> None:
    pref, plan, fact = extract_notes(
        [
            m("I love hiking in the mountains with my dog.", mid="a"),
            m("I'm going to apply for the counseling program next month.", mid="b"),
            m("The weather at the Oregon coast was grey, windy and cold.", mid="c"),
        ]
    )
    assert pref.category == "preference" and "Caroline loves hiking" in pref.content
    assert plan.category == "plan" and plan.event_date == "June 2023"
    assert fact.category == "fact"
    assert pref.importance > fact.importance and plan.importance > fact.importance


def test_generic_roles_are_named_in_the_note() -> None:
    (note,) = extract_notes([m("My flight to Tokyo leaves on Friday morning.", role="user")])
    assert note.content.startswith("The user's flight to Tokyo")


def test_assistants_need_more_salience_than_people() -> None:
    text = "The Grand Hotel in Lisbon has a rooftop pool and a small gym."
    assert extract_notes([m(text, role="assistant")]) == []
    assert len(extract_notes([m(text, role="user")])) == 1


def test_system_messages_are_ignored() -> None:
    assert extract_notes([m("I am a helpful assistant that remembers everything.", role="system")]) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("we met 3 weeks ago", "the week of 17 April 2023"),
        ("I ran a race last Saturday", "6 May 2023"),
        ("I painted a sunrise last year", "2022"),
        ("it happened on 4 May 2020", "4 May 2020"),
        ("back in 2019 I lived there", "2019"),
        ("I will go tomorrow", "9 May 2023"),
        ("nothing temporal here", None),
    ],
)
def test_relative_dates_resolve_against_the_message_time(text: str, expected: str | None) -> None:
    assert lang.resolve_relative_date(text, SENT_AT) == expected


@pytest.mark.parametrize(
    ("old", "new", "cosine", "operation", "status"),
    [
        ("Caroline likes coffee a lot", "Caroline doesn't like coffee a lot", 0.7, "DELETE", "contradicted"),
        ("Caroline likes coffee a lot", "Caroline likes coffee a lot", 1.0, "SKIP", None),
        ("Caroline lives in Denver city", "Caroline now lives in Boston city", 0.6, "UPDATE", "superseded"),
        (
            "Caroline plays tennis at the club",
            "Caroline plays tennis at the club with Mark",
            0.8,
            "UPDATE",
            "consolidated",
        ),
        ("Caroline plays tennis", "Melanie bakes bread", 0.1, None, None),
    ],
)
def test_conflict_rules(old: str, new: str, cosine: float, operation: str | None, status: str | None) -> None:
    verdict = judge(new, old, cosine)
    if operation is None:
        assert verdict is None
    else:
        assert verdict is not None and (verdict.operation, verdict.status) == (operation, status)
