"""People announce a change without naming the thing: "A: How's the bell ringing going? / U:
Packed it in, my back couldn't take it." The note names it from the turn before (the question,
or the person's own earlier sentence), so a question about bell ringing finds it and a later
rule can see what it ends. A greeting, a question that itself points back, or a turn of another
request lends no topic; a change that names its object is kept as said."""

from __future__ import annotations

from datetime import UTC, datetime

import httpx
import pytest

from memlane.services.conversation.extractor import extract_notes
from memlane.services.conversation.messages import Message
from tests.conversation.helpers import get_memory, ingest, msg, new_app, query
from tests.conversation.test_changed_facts import note_ids, say


def notes(*turns: tuple[str, str], name: str | None = None) -> list[str]:
    """The notes of one request of ``(role, words)`` turns."""
    at = datetime(2024, 3, 1, 10, tzinfo=UTC)
    messages = [Message(id=str(k), role=role, content=text, timestamp=at) for k, (role, text) in enumerate(turns)]
    return [note.content for note in extract_notes(messages, user_name=name)]


def test_a_change_that_says_packed_it_in_after_a_question_about_bell_ringing_is_a_note_about_bell_ringing() -> None:
    said = notes(("assistant", "How's the bell ringing going?"), ("user", "Packed it in, my back couldn't take it."))
    assert said == ["The user packed in the bell ringing, the user's back couldn't take it."]


def test_the_note_names_the_person_and_their_bell_ringing() -> None:
    said = notes(
        ("user", "I'm Harriet."),
        ("assistant", "How's your bell ringing going?"),
        ("user", "Packed it in, my back couldn't take it."),
    )
    assert said == ["Harriet packed in the bell ringing, Harriet's back couldn't take it."]


@pytest.mark.parametrize(
    ("question", "answer", "note"),
    [
        (
            "Still doing the night shifts?",
            "Not these days, they put me on days.",
            "Not these days (about night shifts),",
        ),
        ("How's the commute with Petra?", "It fell through, Petra's changed her hours.", "The commute with Petra fell"),
        ("How's the big project at work going?", "They scrapped it.", "They scrapped the big project at work."),
        ("Did you keep up the Spanish classes?", "We gave it up in the end.", "gave up the Spanish classes in the end"),
        ("How's your allotment?", "I've knocked that on the head.", "has knocked the allotment on the head"),
        ("Coming to the derby?", "Didn't renew, the prices went mental.", "Didn't renew (about derby),"),
        ("When's the launch?", "It isn't happening, the council said no.", "The launch isn't happening"),
    ],
)
def test_a_change_of_something_it_does_not_name_takes_its_topic_from_the_question_before(
    question: str, answer: str, note: str
) -> None:
    (content,) = notes(("assistant", question), ("user", answer))
    assert note in content, content


def test_a_change_takes_its_topic_from_the_persons_own_earlier_sentence() -> None:
    (content,) = notes(("user", "The allotment was getting too much for me. Gave it up in the end."))
    assert "The user gave up the allotment in the end." in content, content


def test_a_greeting_before_a_change_lends_it_no_topic() -> None:
    for greeting in ("Hi Harriet, lovely to see you!", "How are you?", "Morning!"):
        said = notes(("assistant", greeting), ("user", "Packed it in, my back couldn't take it."))
        assert said == ["Packed it in, the user's back couldn't take it."], (greeting, said)


def test_a_question_that_itself_points_back_lends_no_topic() -> None:
    said = notes(("assistant", "Shall I add it to the calendar?"), ("user", "We called it off, the venue flooded."))
    assert said == ["We called it off, the venue flooded."]


def test_a_change_that_names_its_object_is_kept_as_said() -> None:
    said = notes(("assistant", "How's the bell ringing going?"), ("user", "I gave up the choir, my knees hurt."))
    assert said == ["The user gave up the choir, the user's knees hurt."]


def test_words_that_say_no_ending_take_no_topic() -> None:
    said = notes(("assistant", "Have you planned the temples yet?"), ("user", "Not yet, I'll do it on the plane."))
    assert said == ["Not yet, the user will do it on the plane."]


# --- through the API: found by its topic, never lent one by another request ---------------------


def test_a_question_about_bell_ringing_finds_the_change_that_did_not_name_it(api: httpx.Client) -> None:
    app = new_app()
    say(api, app, "I ring the bells at St Mary's every Sunday morning.", day=1)
    task = ingest(
        api,
        app,
        [
            msg("How's the bell ringing going?", role="assistant", ts="2024-03-09T10:00:00Z"),
            msg("Packed it in, my back couldn't take it.", ts="2024-03-09T10:01:00Z"),
        ],
    )
    assert task["status"] == "completed", task
    (change_id,) = note_ids(dict(task["result"]))
    found = [m["memory_id"] for m in query(api, app, "Does the user still do bell ringing?", similarity_threshold=0)]
    assert change_id in found[:2], found
    assert "bell ringing" in get_memory(api, app, change_id)["document"]


def test_a_change_lends_no_topic_across_requests(api: httpx.Client) -> None:
    app = new_app()
    say(api, app, "How's the bell ringing going?", day=1)
    result = say(api, app, "Packed it in, my back couldn't take it.", day=1)
    (change_id,) = note_ids(result)
    assert "bell" not in get_memory(api, app, change_id)["document"]


@pytest.mark.parametrize(
    ("before", "question", "answer"),
    [
        (
            "I work the night shifts at the depot.",
            "Still doing the night shifts?",
            "Not these days, they put me on days.",
        ),
        ("I go to Spanish classes every Tuesday.", "Did you keep up the Spanish classes?", "I gave it up in the end."),
    ],
)
def test_a_change_that_names_nothing_closes_the_note_its_question_was_about(
    api: httpx.Client, before: str, question: str, answer: str
) -> None:
    app = new_app()
    (old_id,) = note_ids(say(api, app, before, day=1))
    task = ingest(
        api,
        app,
        [msg(question, role="assistant", ts="2024-03-09T10:00:00Z"), msg(answer, ts="2024-03-09T10:01:00Z")],
    )
    assert task["status"] == "completed", task
    old = get_memory(api, app, old_id)["metadata"]
    assert old["status"] in ("superseded", "contradicted") and old["invalid_at"] is not None, old
