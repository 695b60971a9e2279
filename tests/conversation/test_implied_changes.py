"""Changes people imply rather than state, on the offline path: a new value of an attribute
that holds one ("my new hairdresser is ..."), a new thing of a kind ("got a new car, a ..."),
a life event that ends a state (a divorce, a layoff, a graduation, a pet that died, a new
boss somewhere else), a corrected number with no "not X", a plan abandoned by a verb of
abandoning or by "it". Each closes the note it changes; facts that only add close nothing."""

from __future__ import annotations

import httpx
import pytest

from memlane.services.conversation import facts as fx
from tests.conversation.helpers import get_memory, ingest, msg, new_app
from tests.conversation.test_changed_facts import active_documents, note_ids, say


@pytest.mark.parametrize(
    ("before", "after", "stale"),
    [
        # an attribute said to be new holds one value: the new one replaces the old
        ("My hairdresser is Sam at Cutting Room.", "My new hairdresser is Alex, she's brilliant.", "Sam"),
        ("My dentist is Dr. Okafor.", "Dr. Brandt is my new dentist.", "Okafor"),
        # "got a new <thing>" replaces what a note says the thing is
        ("I drive a Honda Jazz, it's ten years old.", "Got a new car last week, a Skoda Octavia estate.", "Jazz"),
        ("I drive a 2009 Corolla.", "I traded in my Corolla for a Kia Niro.", "drives a 2009"),
        # life events end the state they end
        ("We live in Morningside with two flatmates.", "We're loving our new flat in Leith.", "Morningside"),
        ("My wife Ana and I live in Leeds.", "Since the divorce I've been cooking a lot more.", "wife"),
        ("I work at Deloitte as an auditor.", "I was laid off in May, so I'm job hunting.", "Deloitte"),
        ("I work at Shopify on the payments team.", "My new boss at Stripe is great, very calm.", "Shopify"),
        ("I'm a stay-at-home mum for our two girls.", "Now that I'm back at work, the girls go to nursery.",
         "stay-at-home"),
        ("Our dog Biscuit sleeps on the sofa all day.", "We lost Biscuit in March, the house is so quiet.",
         "sleeps on the sofa"),
        ("I'm a sous-chef at a bistro in Lyon.", "I changed jobs, I cook at a school canteen now.", "bistro"),
        # a negated "any", a negated activity, a stopped kind of thing
        ("I manage a team of five engineers.", "I don't manage anyone anymore.", "manages a team"),
        ("I go climbing at the wall every Saturday.", "I'm not into climbing these days.", "every Saturday"),
        ("I have a pint of beer after work most days.", "I gave up alcohol in the new year.", "pint"),
    ],
)  # fmt: skip
def test_an_implied_change_closes_the_note_it_changes(api: httpx.Client, before: str, after: str, stale: str) -> None:
    app = new_app()
    (old_id,) = note_ids(say(api, app, before, day=1))
    result = say(api, app, after, day=9)
    old = get_memory(api, app, old_id)["metadata"]
    assert old["status"] in ("superseded", "contradicted"), old
    assert old["invalid_at"] is not None and old["next_id"] == note_ids(result)[0]
    assert not any(stale in d for d in active_documents(api, app))


@pytest.mark.parametrize(
    ("before", "after", "new", "old"),
    [
        ("My new address is 42 Elm Street, flat B.", "Typo earlier: it's 24 Elm Street, flat B.", "24 Elm", "42 Elm"),
        ("We moved to Leeds in 2017 for my job.", "Actually it was 2018, I keep mixing that up.", "2018", "2017"),
        ("My sister's best friend is called Jen.", "Sorry, I meant Jenna.", "Jenna", "Jen "),
        ("Our book club meets on Tuesday at the library.", "Sorry, I meant Thursday.", "Thursday", "Tuesday"),
    ],
)
def test_a_correction_without_the_old_value_replaces_the_value_of_the_same_type(
    api: httpx.Client, before: str, after: str, new: str, old: str
) -> None:
    app = new_app()
    (old_id,) = note_ids(say(api, app, before, day=1))
    say(api, app, after, day=2)
    assert get_memory(api, app, old_id)["metadata"]["status"] == "superseded"
    docs = " ".join(active_documents(api, app))
    assert new in docs and old not in docs


def test_a_plan_abandoned_by_a_verb_of_abandoning_is_called_off(api: httpx.Client) -> None:
    app = new_app()
    (plan_id,) = note_ids(say(api, app, "We're planning a trip to Rome in May.", day=1))
    say(api, app, "We bailed on the Rome trip, flights were too expensive.", day=3)
    assert get_memory(api, app, plan_id)["metadata"]["status"] == "contradicted"


def test_a_plan_called_off_by_it_is_the_one_the_question_before_spoke_of(api: httpx.Client) -> None:
    app = new_app()
    (plan_id,) = note_ids(say(api, app, "At work I'm leading the move of our billing system to Stripe, due in June."))
    (other_id,) = note_ids(say(api, app, "We're going to Porto for a long weekend next month.", day=2))
    task = ingest(
        api,
        app,
        [
            msg("How's the big billing project at work going?", role="assistant", ts="2024-03-05T10:00:00Z"),
            msg("They scrapped it, leadership wants to stay on what we have.", ts="2024-03-05T10:01:00Z"),
        ],
    )
    assert task["status"] == "completed", task
    assert get_memory(api, app, plan_id)["metadata"]["status"] == "contradicted"
    assert get_memory(api, app, other_id)["metadata"]["status"] == "active", "another plan is not touched"


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("I have a cat called Miso.", "We adopted a dog named Rex last week."),
        ("My friend Tom lives in Oslo.", "My new friend Sara is from Rome."),
        ("I drive a Honda Jazz.", "My partner got a new car, a Tesla."),
        ("I work at Shopify.", "My new colleague at Shopify is from Brazil."),
        ("We're planning a trip to Rome in May.", "We're also going to Lisbon in July."),
        ("I go climbing on Saturdays.", "I started doing yoga on Wednesdays too."),
    ],
)
def test_implied_change_rules_leave_facts_that_only_add_open(api: httpx.Client, first: str, second: str) -> None:
    app = new_app()
    (a,) = note_ids(say(api, app, first, day=1))
    say(api, app, second, day=5)
    assert get_memory(api, app, a)["metadata"]["status"] == "active"


# --- what the parser reads: the attribute, the value, and whether the event ends it ---------
def _facts(sentence: str) -> set[tuple[str, str, bool]]:
    return {(f.relation, f.value, f.negated) for f in fx.parse(sentence)}


def test_a_new_attribute_value_is_exclusive_unless_people_have_several() -> None:
    (gp,) = fx.parse("My new GP is Dr. Lindqvist.")
    assert gp.relation == "my:gp" and gp.exclusive
    (friend,) = fx.parse("My new friend is Sara.")
    assert not friend.exclusive


def test_life_events_map_to_the_attribute_they_end() -> None:
    assert ("relationship", "divorced", False) in _facts("After the divorce I kept the house.")
    assert ("employer", "none", False) in _facts("I got laid off in March.")
    assert ("occupation", "student", True) in _facts("I graduated in June!")
    assert ("stop", "mochi", True) in _facts("Since we lost Mochi the flat feels quiet.")
    assert ("employer", "wealthsimple", False) in _facts("My new manager at Wealthsimple is kind.")
    assert ("occupation", "registered nurse", False) in _facts("My first shift as a registered nurse was fun.")


def test_a_stopped_kind_of_thing_ends_what_is_of_that_kind() -> None:
    (stop,) = fx.parse("I gave up alcohol.")
    (wine,) = fx.parse("I have a glass of red wine with dinner.")
    assert fx.relate(stop, wine) == fx.CONTRADICTS
    (tea,) = fx.parse("I drink green tea every morning.")
    (meat,) = fx.parse("I gave up meat.")
    assert fx.relate(meat, tea) is None


def test_a_cancellation_with_a_pronoun_object_is_anaphoric() -> None:
    for sentence in ("They scrapped it.", "I bailed on it, my knee hurts.", "Dad found out, so that's off."):
        assert any(f.relation == fx.ANAPHORIC for f in fx.parse(sentence)), sentence
    assert not any(f.relation == fx.ANAPHORIC for f in fx.parse("I dropped it off at the station."))


def test_a_retyped_value_after_a_correction_cue_is_a_correction() -> None:
    (fix,) = fx.parse("Typo earlier: it's 24 Elm Street, flat B.")
    assert fix.kind == fx.CORRECTION and fix.value == "24" and not fix.old_value
    assert not any(f.kind == fx.CORRECTION for f in fx.parse("The flat on Elm Street has 24 windows."))


def test_selling_or_no_longer_having_a_thing_ends_what_it_was() -> None:
    (car,) = fx.parse("I drive a 2009 Corolla.")
    for sentence in ("I sold my car last week.", "I don't have a car anymore."):
        (gone,) = fx.parse(sentence)
        assert fx.relate(gone, car) == fx.CONTRADICTS, sentence
    (bike,) = fx.parse("I sold my bike.")
    assert fx.relate(bike, car) is None
