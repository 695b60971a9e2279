"""A note written in the third person still says "not" where the speaker did: every negative
contraction after "I" (and after "X and I") keeps its negation and reads as grammar, so a
recalled note never turns "Tariq and I aren't together" into a statement that they are."""

from __future__ import annotations

from datetime import UTC, datetime

import httpx
import pytest

from memlane.services.conversation import language as lang
from memlane.services.conversation.extractor import extract_notes
from memlane.services.conversation.messages import Message
from tests.conversation.helpers import get_memory, ingest, msg, new_app

NEGATIONS = [
    ("Tariq and I aren't together anymore.", "Tariq and Lina aren't together anymore."),
    ("I'm not vegan anymore.", "Lina is not vegan anymore."),
    ("I am not a smoker.", "Lina is not a smoker."),
    ("I isn't sure.", "Lina isn't sure."),
    ("I wasn't at the wedding.", "Lina wasn't at the wedding."),
    ("I weren't invited.", "Lina wasn't invited."),
    ("I aren't moving.", "Lina isn't moving."),
    ("I ain't moving to Leeds.", "Lina isn't moving to Leeds."),
    ("I don't eat meat.", "Lina doesn't eat meat."),
    ("I do not eat meat.", "Lina doesn't eat meat."),
    ("I doesn't drive.", "Lina doesn't drive."),
    ("I didn't get the job.", "Lina didn't get the job."),
    ("I won't be at the reunion.", "Lina won't be at the reunion."),
    ("I can't eat gluten.", "Lina can't eat gluten."),
    ("I couldn't make the trip.", "Lina couldn't make the trip."),
    ("I shouldn't drink coffee.", "Lina shouldn't drink coffee."),
    ("I wouldn't move to Leeds.", "Lina wouldn't move to Leeds."),
    ("I mustn't eat peanuts.", "Lina mustn't eat peanuts."),
    ("I haven't got a car.", "Lina hasn't got a car."),
    ("I hasn't got a car.", "Lina hasn't got a car."),
    ("I hadn't met him before.", "Lina hadn't met him before."),
    ("I needn't bring anything.", "Lina needn't bring anything."),
    ("I don\u2019t drink.", "Lina doesn't drink."),
    ("I\u2019m not coming.", "Lina is not coming."),
    ("Tariq and I don't live together.", "Tariq and Lina don't live together."),
    ("Tariq and I haven't spoken since.", "Tariq and Lina haven't spoken since."),
    ("Tariq and I weren't married.", "Tariq and Lina weren't married."),
]


@pytest.mark.parametrize(("said", "written"), NEGATIONS)
def test_a_negative_contraction_keeps_its_negation_in_the_third_person(said: str, written: str) -> None:
    assert lang.third_person(said, "Lina") == written


@pytest.mark.parametrize(("said", "written"), NEGATIONS)
def test_the_stored_note_still_states_the_negation(said: str, written: str) -> None:
    notes = extract_notes([Message(id="1", role="Lina", content=said, timestamp=datetime(2024, 3, 1, tzinfo=UTC))])
    for note in notes:
        assert lang.is_negated(note.content), note.content
        assert written.rstrip(".") in note.content


def test_a_plural_subject_with_the_speaker_keeps_a_plural_verb() -> None:
    assert lang.third_person("Tariq and I go climbing.", "Lina") == "Tariq and Lina go climbing."
    assert lang.third_person("I and my brother are twins.", "Lina") == "Lina and Lina's brother are twins."
    assert lang.third_person("My husband and I don't drink.", "Lina") == "Lina's husband and Lina don't drink."


def test_a_clause_of_its_own_after_and_still_speaks_of_the_speaker_alone() -> None:
    assert lang.third_person("We met and I fall for him daily.", "Lina") == "We met and Lina falls for him daily."
    assert lang.third_person("She left and I don't miss her.", "Lina") == "She left and Lina doesn't miss her."


def test_a_later_negation_closes_the_note_it_negates(api: httpx.Client) -> None:
    app = new_app()
    first = ingest(api, app, [msg("Tariq and I are together.", ts="2024-03-01T10:00:00Z")], user_id="u1")
    (old_id,) = [m["memory_id"] for m in first["result"]["memories"]]
    later = ingest(api, app, [msg("Tariq and I aren't together anymore.", ts="2024-03-09T10:00:00Z")], user_id="u1")
    (new,) = later["result"]["memories"]
    assert new["targets"] == [old_id]
    assert "aren't together" in get_memory(api, app, new["memory_id"])["document"]
    assert get_memory(api, app, old_id)["metadata"]["invalid_at"] is not None
