"""A person often drops the subject: "New number is 07700 900456.", "Saturday's off, sadly."
Such a fragment still states a value of theirs, so it becomes a note about them ("Priya's new
number is ..."), with what they said quoted as its source; a named person's news is kept as
said; greetings, questions, filler and fragments with no value still make no note."""

from __future__ import annotations

from datetime import UTC, datetime

import httpx
import pytest

from memlane.services.conversation.extractor import extract_notes
from memlane.services.conversation.messages import Message
from tests.conversation.helpers import get_memory, ingest, msg, new_app


def said(text: str, role: str = "user") -> list[str]:
    message = Message(id="1", role=role, content=text, timestamp=datetime(2024, 3, 1, 10, tzinfo=UTC))
    return [note.content for note in extract_notes([message], user_name="Priya")]


@pytest.mark.parametrize(
    ("text", "note"),
    [
        ("New number is 07700 900456.", "Priya's new number is 07700 900456."),
        ("Number's 07700 900456.", "Priya's number is 07700 900456."),
        ("New address is 12 Elm Road.", "Priya's new address is 12 Elm Road."),
        ("Flight is at 6am on Tuesday.", "Priya's flight is at 6am on Tuesday."),
        ("Next appointment is on 3 May.", "Priya's next appointment is on 3 May"),
        ("Saturday's off, sadly.", "Priya's Saturday is off, sadly."),
    ],
)
def test_a_subjectless_statement_of_a_value_is_remembered_as_the_speakers(text: str, note: str) -> None:
    (content,) = said(text)
    assert content.startswith(note)


def test_a_statement_about_a_named_person_is_remembered_as_said() -> None:
    assert said("Felix is turning six, not five!") == ["Felix is turning six, not five!"]


@pytest.mark.parametrize(
    "text",
    [
        "Hi there!",
        "Thanks, sounds good.",
        "What's the new number?",
        "Ok cool.",
        "Weather is nice.",
        "New job is great.",
    ],
)
def test_greetings_questions_filler_and_fragments_without_a_value_make_no_note(text: str) -> None:
    assert said(text) == []


def test_an_assistant_fragment_is_not_taken_as_the_users() -> None:
    assert not any(n.startswith("Priya") for n in said("New number is 07700 900456.", role="assistant"))


def test_the_note_quotes_the_fragment_as_it_was_said() -> None:
    message = Message(
        id="1", role="user", content="New number is 07700 900456.", timestamp=datetime(2024, 3, 1, tzinfo=UTC)
    )
    (note,) = extract_notes([message], user_name="Priya")
    assert note.sources[0]["excerpt"] == "New number is 07700 900456."


def test_a_new_number_given_as_a_fragment_replaces_the_old_one(api: httpx.Client) -> None:
    app = new_app()
    first = ingest(
        api, app, [msg("Hi, I'm Priya. My number is 07700 900123.", ts="2024-03-01T10:00:00Z")], user_id="u1"
    )
    (old_id,) = [m["memory_id"] for m in first["result"]["memories"]]
    later = ingest(api, app, [msg("New number is 07700 900456.", ts="2024-03-09T10:00:00Z")], user_id="u1")
    (new,) = later["result"]["memories"]
    assert new["targets"] == [old_id]
    assert "07700 900456" in get_memory(api, app, new["memory_id"])["document"]
    assert get_memory(api, app, old_id)["metadata"]["invalid_at"] is not None
