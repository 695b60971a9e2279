"""Exclusive states (services/exclusive_states.py): a later note that puts the same person in
another state of an attribute that excludes the earlier one ("single" → "my husband",
"expecting" → "three weeks old") changes it, with no change cue; another person's state, a
state in the past, an addition, or a step back in an ordered attribute does not."""

from __future__ import annotations

import pytest

from memlane.services.exclusive_states import ATTRIBUTES, exclusive_change, exclusive_either, mentions


@pytest.mark.parametrize(
    ("old", "new", "attribute"),
    [
        ("Marek is single at the moment.", "Marek and his wife are renovating a barn.", "relationship"),
        ("The user's boyfriend Dev works in Leeds.", "The user got engaged to Dev on the beach.", "relationship"),
        ("The user is married with two kids.", "Since the divorce the user has the kids at weekends.", "relationship"),
        ("Our baby is due in August.", "The baby was born on a Tuesday, seven pounds.", "parenthood"),
        ("Jo is pregnant with twins.", "The twins are two months old and never sleep.", "parenthood"),
        ("The user is seven months pregnant.", "Our daughter Isla arrived on the 28th, 7lb 2oz.", "parenthood"),
        ("Aisha is a medical student in Cardiff.", "Aisha qualified last year, a GP in Swansea now.", "training"),
        ("Ben is an apprentice electrician.", "Ben is fully qualified and works for himself.", "training"),
        ("Kim is a junior developer at a bank.", "Kim's a senior developer there these days.", "seniority"),
        ("The user works as a postman.", "The user is retired and plays a lot of golf.", "work"),
        ("Lena is vegetarian.", "Lena eats meat most days.", "diet"),
        ("Omar has been vegetarian for years.", "Omar has been eating his dad's lamb stew all week.", "diet"),
        ("The user eats meat every day.", "The user has gone plant-based for the climate.", "diet"),
        ("The user is on keto.", "The user came off keto in the summer.", "diet plan"),
        ("We don't have any pets.", "Our puppy chewed the sofa.", "pets"),
        ("The user lives with two flatmates in Leith.", "The user lives alone in a studio.", "living"),
        ("The user lives alone.", "The user moved in with the user's girlfriend.", "living"),
        ("The user's van runs on diesel.", "The user charges the car at work.", "car fuel"),
        ("Ola's son goes to Westfield Primary.", "Ola's son started at Kingsmead Academy.", "school"),
        ("We get our coffee from Bean There on the corner.", "Bean There went bust in May.", "business closed"),
        ("The user works as a chef in Bristol.", "The user was laid off in the spring.", "employment"),
        ("Dan has a pint most evenings.", "Dan is teetotal these days.", "alcohol"),
        ("The user cycles to work along the canal.", "The user takes the bus to work, the knee is bad.", "commute"),
        ("Ray gets the 42 bus into town every morning.", "Ray cycles in every day now.", "commute"),
        ("Our son Leo still lives at home with us.", "Leo got the keys to his own flat in Bristol.", "living"),
        ("The user is doing a Spanish course on Mondays.", "The user finished the Spanish course in May.", "course"),
    ],
)  # fmt: skip
def test_a_later_note_in_a_state_that_excludes_the_earlier_one_changes_it(old: str, new: str, attribute: str) -> None:
    assert exclusive_change(old, new) == attribute


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("The user's brother is single.", "The user's sister is married."),
        ("The user is single.", "The user's sister just got married."),
        ("Tom is vegan.", "Anna eats meat every day."),
        ("My cousin Ana is pregnant.", "My cousin Rui's baby is three weeks old."),
    ],
)
def test_a_state_of_another_person_never_changes_a_fact(old: str, new: str) -> None:
    assert exclusive_change(old, new) is None


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("Rosa is three weeks old.", "We're expecting our second baby in May."),
        ("Ellis is head of design.", "Ellis mentors a junior designer."),
        ("The user is retired.", "The user worked as a teacher for thirty years."),
        ("The user is a qualified nurse.", "The user is doing a course in sign language."),
    ],
)
def test_an_ordered_attribute_never_steps_back(old: str, new: str) -> None:
    assert exclusive_change(old, new) is None


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("The user is married.", "The user's husband works nights as a paramedic."),
        ("The user fills up the Golf every Friday.", "The user bought an electric bike for the weekends."),
        ("We have a dog called Rex.", "We also adopted a kitten last week."),
        ("We've no pets, the flat is too small.", "The user walks the neighbour's dog on Sundays."),
        ("The user is vegan.", "When the user was a student the user ate meat every day."),
        ("John's girlfriend and John had a lovely wedding last week.", "John's wife and John are off to Rome."),
        ("The user is vegan.", "The user's favourite vegan café is Tofu Town."),
        ("The user is a certified diver, qualified in Dahab.", "The user got a first aid certificate at work."),
        ("The user is taking a pottery class on Thursdays.", "The user got the user's first aid certificate."),
        ("The user takes the train to Paris twice a year.", "The user cycles to work most days."),
    ],
)
def test_the_same_state_an_addition_or_a_past_state_changes_nothing(old: str, new: str) -> None:
    assert exclusive_change(old, new) is None


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("The user is single and loves travelling.", "The user goes to the gym every single day."),
        ("The user is engaged to Priya.", "The user and Priya are getting married in June."),
        ("We're expecting our first baby.", "Our puppy is ten weeks old and chews everything."),
        ("We're expecting our first baby.", "The user was born in Leeds and grew up there."),
        ("The user is expecting a parcel from Spain.", "The baby was born on Tuesday."),
        ("The user is a student at Leeds.", "The user works as a waitress at weekends."),
        ("The user shares a flat with two friends.", "The user fixed the boiler on the user's own."),
        ("The user is vegan.", "The user cooks chicken for the kids."),
        ("The user fills up the kettle twice a day.", "The user got an electric Kia last month."),
    ],
)
def test_a_word_of_a_state_used_in_another_sense_changes_nothing(old: str, new: str) -> None:
    """ "every single day" is no relationship, a puppy's age no birth, a student's weekend job no
    qualification, a plan no state."""
    assert exclusive_change(old, new) is None


def test_a_negated_state_ends_only_that_state() -> None:
    assert exclusive_change("The user is vegan.", "The user is not vegan any more.") == "diet"
    assert mentions("The user stopped eating meat.")[0].negated
    assert exclusive_change("The user eats meat every day.", "The user gave up meat in May.") == "diet"
    assert exclusive_change("The user is vegetarian.", "The user is not vegan.") is None


def test_the_merge_guard_reads_either_order() -> None:
    assert exclusive_either("Rosa is three weeks old.", "We're expecting a baby.") == "parenthood"
    assert exclusive_either("We're expecting a baby.", "Rosa is three weeks old.") == "parenthood"


def test_every_attribute_has_at_least_two_states() -> None:
    assert all(len(a.states) >= 2 for a in ATTRIBUTES)
    assert len({a.name for a in ATTRIBUTES}) == len(ATTRIBUTES)
