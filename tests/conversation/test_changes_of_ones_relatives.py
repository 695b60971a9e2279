"""What a speaker says of a relative is about the relative (issue #27): "my sister lives in
Porto" and later "my sister moved to Lisbon" close the sister's old note, not the speaker's and
not a brother's; a relative's second instrument adds to the first; "she" in the same message
is the relative just named. Against the real server with the local model, the default settings
(closing by succession on)."""

from __future__ import annotations

import httpx

from memlane.services.conversation import facts as fx
from tests.conversation.test_changes_in_everyday_words import assert_closed, assert_kept


def test_a_relatives_move_closes_the_relatives_old_residence(local_api: httpx.Client) -> None:
    assert_closed(
        local_api,
        [("user", "My sister lives in Porto.")],
        [("user", "My sister moved to Lisbon last month.")],
        gone="Porto",
    )


def test_a_relatives_move_leaves_the_speakers_own_home(local_api: httpx.Client) -> None:
    assert_kept(
        local_api,
        [("user", "I live in Porto.")],
        [("user", "My sister moved to Lisbon last month.")],
        kept="Porto",
    )


def test_a_sisters_change_of_job_leaves_her_brothers_job(local_api: httpx.Client) -> None:
    assert_kept(
        local_api,
        [("user", "My brother works at Tesco.")],
        [("user", "My sister quit her job at Aldi.")],
        kept="Tesco",
    )


def test_a_relatives_second_instrument_adds_to_the_first(local_api: httpx.Client) -> None:
    assert_kept(
        local_api,
        [("user", "My brother plays the guitar.")],
        [("user", "My brother plays the piano as well.")],
        kept="guitar",
    )


def test_she_after_a_relative_is_the_relative() -> None:
    facts = fx.parse("My wife switched jobs, she works at Tesco now.")
    assert ("my wife", "employer", "tesco") in [(f.subject, f.relation, f.value) for f in facts]
    assert not [f for f in facts if f.subject == fx.SELF and f.relation == "employer"]


def test_two_sisters_named_differently_are_two_people() -> None:
    (ana,) = fx.parse("My sister Ana lives in Porto.")
    (eva,) = fx.parse("My sister Eva moved to Lisbon.")
    (unnamed,) = fx.parse("My sister moved to Lisbon.")
    assert fx.relate(eva, ana) is None
    assert fx.relate(unnamed, ana) is not None


def test_my_mum_and_my_mother_are_one_person() -> None:
    (before,) = fx.parse("My mum lives in Leeds.")
    (after,) = fx.parse("My mother moved to York.")
    assert fx.relate(after, before) is not None


def test_a_change_said_with_she_closes_the_relatives_old_job(local_api: httpx.Client) -> None:
    assert_closed(
        local_api,
        [("user", "My wife works at Aldi.")],
        [("user", "My wife switched jobs, she works at Tesco now.")],
        gone="Aldi",
    )


def test_one_sisters_move_leaves_another_sisters_home(local_api: httpx.Client) -> None:
    assert_kept(
        local_api,
        [("user", "My sister Ana lives in Porto.")],
        [("user", "My sister Eva moved to Lisbon.")],
        kept="Porto",
    )


def test_a_brothers_move_leaves_his_sisters_home(local_api: httpx.Client) -> None:
    assert_kept(
        local_api,
        [("user", "My sister lives in Porto.")],
        [("user", "My brother moved to Lisbon.")],
        kept="Porto",
    )


def test_a_relatives_job_change_closes_the_relatives_old_job(local_api: httpx.Client) -> None:
    assert_closed(
        local_api,
        [("user", "My dad works at the Royal Mail.")],
        [("user", "My father quit his job at the Royal Mail last week.")],
        gone="works at the Royal Mail",
    )
