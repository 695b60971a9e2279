"""Current first (services/ranking/succession.py): of two memories that answer a question about
as well and say different things, the one said later ranks first; nothing else moves."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from memlane.services.ranking.succession import RATIO, Said, current_first

DAY1 = datetime(2026, 3, 1, tzinfo=UTC)
DAY9 = DAY1 + timedelta(days=8)
#: a question about what is true now
NOW_Q = "What does the user use, and where does the user live?"


def memory(mid: str, text: str, cosine: float, when: datetime | None = DAY1, subject: str | None = "u1") -> Said:
    return Said(mid, text, cosine, when, subject)


def test_a_later_memory_with_another_value_ranks_above_the_one_it_replaces() -> None:
    old = memory("old", "The user's work laptop is a Dell XPS, mostly for spreadsheets.", 0.55)
    new = memory("new", "The user upgraded to a Framework 13 last month, it flies.", 0.47, DAY9)
    assert current_first([old, new], NOW_Q) == ["new", "old"]


def test_a_later_negation_ranks_above_the_fact_it_negates() -> None:
    old = memory("old", "The user is vegan.", 0.62)
    new = memory("new", "The user is not vegan anymore.", 0.58, DAY9)
    assert current_first([old, new], NOW_Q) == ["new", "old"]


def test_a_later_memory_that_does_not_say_a_change_stays_below() -> None:
    old = memory("old", "The user lives in Hackney.", 0.60)
    new = memory("new", "The user's office is in King's Cross.", 0.58, DAY9)
    assert current_first([old, new], NOW_Q) == ["old", "new"]
    moved = memory("moved", "The user's office moved to King's Cross.", 0.58, DAY9)
    assert current_first([old, moved], NOW_Q) == ["moved", "old"]


def test_a_later_memory_that_answers_much_worse_stays_below() -> None:
    old = memory("old", "The user lives in Hackney.", 0.60)
    new = memory("new", "The user's office moved to King's Cross.", 0.60 * RATIO - 0.01, DAY9)
    assert current_first([old, new], NOW_Q) == ["old", "new"]


def test_an_earlier_memory_never_moves_above_a_later_one() -> None:
    new = memory("new", "The user upgraded to a Framework 13 last month.", 0.47, DAY9)
    old = memory("old", "The user's work laptop is a Dell XPS.", 0.46)
    assert current_first([new, old], NOW_Q) == ["new", "old"]


def test_memories_that_say_the_same_thing_keep_their_order() -> None:
    old = memory("old", "The user has a dog called Rex.", 0.60)
    new = memory("new", "The user has a dog called Rex.", 0.58, DAY9)
    assert current_first([old, new], NOW_Q) == ["old", "new"]


def test_another_persons_memory_does_not_pass_the_users_own() -> None:
    old = memory("old", "The user lives in Porto.", 0.60)
    new = memory("new", "The user lives in Lisbon now.", 0.58, DAY9, subject="u2")
    assert current_first([old, new], NOW_Q) == ["old", "new"]


def test_a_memory_with_no_time_neither_moves_nor_is_passed() -> None:
    unknown = memory("unknown", "The user lives in Porto.", 0.60, None)
    new = memory("new", "The user lives in Lisbon now.", 0.58, DAY9)
    assert current_first([unknown, new], NOW_Q) == ["unknown", "new"]


def test_only_the_head_is_reordered_and_nothing_is_dropped() -> None:
    filler = [memory(f"f{i}", f"The user read book number {i}.", 0.9 - i / 100, DAY1) for i in range(3)]
    old = memory("old", "The user lives in Porto.", 0.60)
    new = memory("new", "The user moved, the user lives in Lisbon.", 0.58, DAY9)
    ranked = [*filler, old, new]
    assert current_first(ranked, NOW_Q, window=4) == ["f0", "f1", "f2", "old", "new"]
    assert current_first(ranked, NOW_Q) == ["f0", "f1", "f2", "new", "old"]


def test_an_event_told_in_the_past_is_never_passed() -> None:
    old = memory("old", "Caroline went to the support group in Boston and it was powerful.", 0.60)
    new = memory("new", "Caroline lives in Lisbon now.", 0.58, DAY9)
    assert current_first([old, new], NOW_Q) == ["old", "new"]
    state = memory("state", "Caroline lives in Boston.", 0.60)
    assert current_first([state, new], NOW_Q) == ["new", "state"]


def test_two_speakers_turns_never_pass_each_other() -> None:
    alice = memory("alice", "My sister lives in Lisbon.", 0.60, subject="Alice")
    bob = memory("bob", "My sister lives in Porto now.", 0.58, DAY9, subject="Bob")
    assert current_first([alice, bob], NOW_Q) == ["alice", "bob"]


def test_a_question_about_the_past_keeps_the_order() -> None:
    old = memory("old", "The user lives in Porto.", 0.60)
    new = memory("new", "The user lives in Lisbon now.", 0.58, DAY9)
    assert current_first([old, new], "Where did the user live in 2023?") == ["old", "new"]
    assert current_first([old, new], None) == ["old", "new"]
    assert current_first([old, new], "Where does the user live?") == ["new", "old"]


def test_a_later_memory_in_a_state_that_excludes_the_earlier_one_ranks_first_without_a_change_cue() -> None:
    old = memory("old", "The user is single and enjoying it.", 0.60)
    new = memory("new", "The user's husband cooks on Sundays.", 0.50, DAY9)
    assert current_first([old, new], NOW_Q) == ["new", "old"]
    sister = memory("sister", "The user's sister's husband cooks on Sundays.", 0.50, DAY9)
    assert current_first([old, sister], NOW_Q) == ["old", "sister"]
