"""Memory that stays true on the offline path: a later message that negates, replaces,
corrects, cancels or implies a change closes the note it changes (kept as history in the
evolution chain, gone from default queries); facts that only add never close each other; a
message that holds an update and a new fact keeps both; notes name the person."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.conversation.helpers import get_memory, ingest, msg, new_app, query


def say(api: httpx.Client, app: str, *texts: str, day: int = 1, user: str = "u1") -> dict[str, Any]:
    task = ingest(api, app, [msg(t, ts=f"2024-03-{day:02d}T10:0{i}:00Z") for i, t in enumerate(texts)], user_id=user)
    assert task["status"] == "completed", task
    return dict(task["result"])


def active_documents(api: httpx.Client, app: str) -> list[str]:
    return [m["document"] for m in query(api, app, "anything at all", n_results=100)]


def note_ids(result: dict[str, Any]) -> list[str]:
    return [m["memory_id"] for m in result["memories"]]


@pytest.mark.parametrize(
    ("before", "after", "stale", "status"),
    [
        ("I'm allergic to peanuts.", "I'm not allergic to peanuts after all.", "is allergic", "contradicted"),
        ("I live in Porto.", "I moved to Lisbon now, I don't live in Porto anymore.", "lives in Porto", "superseded"),
        ("I work at Google.", "I used to work at Google but now I work at Stripe.", "works at Google", "superseded"),
        ("I'm vegetarian.", "I'm no longer vegetarian.", "is vegetarian", "contradicted"),
        ("My favourite food is sushi.", "My favourite food is ramen now.", "sushi", "superseded"),
        ("I drive a Honda Civic.", "I sold my Honda and now I drive a Tesla.", "Honda Civic", "superseded"),
        ("I have two dogs.", "I have three dogs now.", "two dogs", "superseded"),
        ("I live in Porto.", "Since I moved to Lisbon I cycle to work every day.", "lives in Porto", "superseded"),
        ("I smoke a pack a week.", "I quit smoking last month.", "smokes", "contradicted"),
    ],
)
def test_a_later_message_that_changes_a_fact_closes_the_old_note(
    api: httpx.Client, before: str, after: str, stale: str, status: str
) -> None:
    app = new_app()
    (old_id,) = note_ids(say(api, app, before, day=1))
    result = say(api, app, after, day=9)
    new_id = note_ids(result)[0]
    old = get_memory(api, app, old_id)["metadata"]
    assert old["status"] == status, old
    assert old["next_id"] == new_id and old["invalid_at"] is not None
    assert result["memories"][0]["targets"] == [old_id]
    assert not any(stale in d for d in active_documents(api, app)), "the stale fact is out of default queries"
    history = query(api, app, "anything at all", n_results=100, include_invalid=True)
    assert old_id in [m["memory_id"] for m in history], "kept as history"


def test_a_correction_replaces_the_word_it_corrects(api: httpx.Client) -> None:
    app = new_app()
    (old_id,) = note_ids(say(api, app, "My sister's name is Jen.", day=1))
    result = say(api, app, "Sorry, it's Jenna, not Jen.", day=2)
    (new_id,) = note_ids(result)
    assert get_memory(api, app, old_id)["metadata"]["status"] == "superseded"
    assert get_memory(api, app, new_id)["document"] == "The user's sister's name is Jenna."


def test_a_cancelled_plan_is_closed(api: httpx.Client) -> None:
    app = new_app()
    (plan_id,) = note_ids(say(api, app, "We're planning a trip to Japan in April.", day=1))
    (other_id,) = note_ids(say(api, app, "We're planning a visit to my parents in Oslo next summer.", day=2))
    say(api, app, "We called off the trip to Japan.", day=3)
    assert get_memory(api, app, plan_id)["metadata"]["status"] == "contradicted"
    assert get_memory(api, app, other_id)["metadata"]["status"] == "active", "another plan is not touched"


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("I have a sister.", "I also have a brother named Tom."),
        ("I have a cat called Miso.", "I adopted a second cat last week."),
        ("I visited Rome last year.", "I went to Paris in May."),
        ("I play the guitar.", "I started learning the piano."),
        ("I'm allergic to peanuts.", "I'm allergic to shellfish too."),
        ("I speak Spanish.", "I speak French as well."),
    ],
)
def test_facts_that_only_add_never_close_each_other(api: httpx.Client, first: str, second: str) -> None:
    app = new_app()
    (a,) = note_ids(say(api, app, first, day=1))
    (b,) = note_ids(say(api, app, second, day=5))
    assert get_memory(api, app, a)["metadata"]["status"] == "active"
    assert get_memory(api, app, b)["metadata"]["status"] == "active"


def test_a_message_with_an_update_and_a_new_fact_keeps_both(api: httpx.Client) -> None:
    app = new_app()
    (old_id,) = note_ids(say(api, app, "I live in Porto.", day=1))
    say(api, app, "I moved to Lisbon and I adopted a cat named Pixel.", day=4)
    assert get_memory(api, app, old_id)["metadata"]["status"] == "superseded"
    docs = " ".join(active_documents(api, app))
    assert "Lisbon" in docs and "Pixel" in docs and "Porto" not in docs


def test_closing_one_fact_of_a_note_keeps_its_other_facts(api: httpx.Client) -> None:
    app = new_app()
    say(api, app, "I'm allergic to peanuts and I work at a bakery in Leeds.", day=1)
    say(api, app, "I'm not allergic to peanuts after all.", day=3)
    docs = " ".join(active_documents(api, app))
    assert "bakery in Leeds" in docs, "the other statement of the closed note is carried over"
    assert "is allergic to peanuts" not in docs.replace("is not allergic", "")


def test_a_repeat_that_adds_a_detail_is_not_skipped(api: httpx.Client) -> None:
    app = new_app()
    say(api, app, "I live in Porto.", day=1)
    result = say(api, app, "I live in Porto with my dog Rex.", day=2)
    assert result["skipped"] == 0
    assert any("Rex" in d for d in active_documents(api, app))


def test_a_pure_repeat_is_skipped(api: httpx.Client) -> None:
    app = new_app()
    say(api, app, "I live in Porto.", day=1)
    result = say(api, app, "I live in Porto.", day=2)
    assert result["skipped"] == 1 and result["memories"] == []


def test_notes_name_the_user_once_a_name_is_given_and_a_greeting_is_not_a_note(api: httpx.Client) -> None:
    app = new_app()
    greeting = say(api, app, "Hi, I'm Priya!", day=1)
    assert greeting["memories"] == [], "a greeting that only states a name is not a note"
    (note_id,) = note_ids(say(api, app, "I'm allergic to shellfish and I avoid gluten.", day=2))
    assert get_memory(api, app, note_id)["document"] == "Priya is allergic to shellfish. Priya avoids gluten."
    other_user = note_ids(say(api, app, "I take pottery classes on Mondays.", day=2, user="u2"))
    assert get_memory(api, app, other_user[0])["document"] == "The user takes pottery classes on Mondays."
