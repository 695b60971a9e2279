"""Closing by succession reads changes as people say them (issue #27): an ending said with a
phrasal verb ("jacked in", "stood down", "binned"), a state not had since a date, a plan stated
with a contracted verb ("we're having ..."), a correction of a day by another day, and a change
told by someone else in the chat about the person. Against the real server with the local
model, the default settings (closing by succession on)."""

from __future__ import annotations

import httpx
import pytest

from tests.conversation.helpers import get_memory, ingest, msg, new_app, query
from tests.conversation.test_changed_facts import note_ids


def tell(local_api: httpx.Client, app: str, lines: list[tuple[str, str]], *, day: int) -> list[str]:
    """One request of (speaker, words) lines on a day of March 2024; the ids of its notes."""
    messages = [msg(text, role=role, ts=f"2024-03-{day:02d}T10:0{i}:00Z") for i, (role, text) in enumerate(lines)]
    task = ingest(local_api, app, messages, user_id="u1")
    assert task["status"] == "completed", task
    return note_ids(dict(task["result"]))


def everything(local_api: httpx.Client, app: str) -> list[str]:
    return [str(m["document"]) for m in query(local_api, app, "anything at all", n_results=100, similarity_threshold=0)]


def assert_closed(
    local_api: httpx.Client, first: list[tuple[str, str]], second: list[tuple[str, str]], gone: str
) -> None:
    app = new_app()
    old_ids = tell(local_api, app, first, day=1)
    tell(local_api, app, second, day=9)
    statuses = [get_memory(local_api, app, i)["metadata"]["status"] for i in old_ids]
    assert "superseded" in statuses or "contradicted" in statuses, statuses
    active = everything(local_api, app)
    assert not any(gone in d for d in active), active


def assert_kept(
    local_api: httpx.Client, first: list[tuple[str, str]], second: list[tuple[str, str]], kept: str
) -> None:
    app = new_app()
    old_ids = tell(local_api, app, first, day=1)
    tell(local_api, app, second, day=9)
    olds = [get_memory(local_api, app, i)["metadata"] for i in old_ids]
    assert [m["status"] for m in olds] == ["active"] * len(old_ids), olds
    assert any(kept in d for d in everything(local_api, app))


@pytest.mark.parametrize(
    ("first", "second", "gone"),
    [
        ("My son Felix does karate on Saturday mornings, he's a yellow belt.",
         "He's jacked in the karate, football's all he talks about now.", "yellow belt"),
        ("I chair the allotment committee, we meet monthly.",
         "I stood down from the allotment committee in the spring.", "meet monthly"),
        ("The carpet fitters are coming on Thursday to do the stairs.",
         "We went for laminate in the end, so the carpet order's been binned.", "Thursday"),
        ("I get awful migraines, at least two a week.",
         "The new tablets worked wonders, I haven't had a migraine since March.", "two a week"),
        ("I vape, mostly mango flavour, it got me through giving up the cigarettes.",
         "I packed in puffing at New Year, five weeks clean now.", "mango"),
    ],
    ids=["jacked in", "stood down", "binned", "not had since", "an activity packed in"],
)  # fmt: skip
def test_an_ending_said_in_everyday_words_closes_the_old_note(
    local_api: httpx.Client, first: str, second: str, gone: str
) -> None:
    assert_closed(local_api, [("user", first)], [("user", second)], gone)


def test_a_plan_stated_with_a_contracted_verb_is_closed_when_called_off(local_api: httpx.Client) -> None:
    """ "We're having the baby christened" states a plan (not a past event: "christened" is a
    participle after "we're"), so pulling the plug on it closes it."""
    assert_closed(
        local_api,
        [("user", "We're having the baby christened at St Anne's on the 2nd of June.")],
        [("user", "We've pulled the plug on the christening, we'll do a naming day instead.")],
        "St Anne's",
    )


def test_a_day_corrected_by_another_day_closes_the_old_note(local_api: httpx.Client) -> None:
    """ "not Fridays" denies "Friday"; a sentence that opens with a capitalised word ("Bell
    ringing", "Half seven") is not about a person of that name."""
    assert_closed(
        local_api,
        [("Ffion", "Bell ringing practice is Friday nights at St Cuthbert's.")],
        [("Ffion", "Half seven, and it's Thursday nights, not Fridays, I mix them up.")],
        "Friday nights at",
    )


def test_a_change_told_by_someone_else_about_the_person_closes_their_note(local_api: httpx.Client) -> None:
    assert_closed(
        local_api,
        [("Graham", "I sit as a magistrate at the county court two days a month.")],
        [("Pauline", "Graham's stood down from the bench, his back won't take the long sittings.")],
        "two days a month",
    )


def test_a_change_said_to_the_person_by_name_about_someone_else_never_closes_their_note(
    local_api: httpx.Client,
) -> None:
    """Naming whom one speaks to ("Way to go, Jon!") does not make a sentence about them."""
    assert_kept(
        local_api,
        [("Jon", "I go to the dance studio on Fridays, dance is my escape.")],
        [("Gina", "Way to go, Jon! I quit the dance studio on Fridays when I moved, I miss it.")],
        "escape",
    )


@pytest.mark.parametrize(
    ("first", "second", "kept"),
    [
        ("My brother works at Tesco on the tills.", "My sister doesn't work at Tesco anymore, she hated it.", "tills"),
        ("My brother works at the bakery on Elm Street.", "My sister quit her job at the bakery on Elm Street.",
         "brother"),
    ],
    ids=["a sister no longer there", "a sister who quit"],
)  # fmt: skip
def test_a_change_of_one_relative_never_closes_anothers_fact(
    local_api: httpx.Client, first: str, second: str, kept: str
) -> None:
    """A brother and a sister are two people: the subject of a change must be the note's."""
    assert_kept(local_api, [("user", first)], [("user", second)], kept)


def test_a_note_about_breeding_is_a_present_state_that_a_later_message_can_end(local_api: httpx.Client) -> None:
    """ "breed" is no past tense: "We breed border collies" states what is, and ends."""
    assert_closed(
        local_api,
        [("user", "We breed border collies on the farm, two litters a year.")],
        [("user", "We don't breed collies anymore, the farm's been sold.")],
        "two litters",
    )
