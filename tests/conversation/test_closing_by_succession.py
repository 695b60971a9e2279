"""Closing by succession (``MEMLANE_CLOSE_BY_SUCCESSION``, services/conversation/succession.py):
when it is on, a later message that says a change in words no fact rule reads closes the
earlier note of the same person it disagrees with, kept as history in the evolution chain;
facts that only add are never closed. On by default; turned off, such a note stays active."""

from __future__ import annotations

import httpx
import pytest

from tests.conversation.helpers import get_memory, new_app, query
from tests.conversation.test_changed_facts import note_ids, say
from tests.support.server import ServerFactory

#: a change no fact rule reads: nothing says a ThinkPad is a laptop
BEFORE = "My work laptop is a MacBook Air."
AFTER = "I upgraded to a ThinkPad with 64 GB, it flies."


def everything(api: httpx.Client, app: str, *, include_invalid: bool = False) -> list[dict[str, object]]:
    """Every note of the app (the local model's default cut would keep out an unrelated query)."""
    return query(api, app, "anything at all", n_results=100, similarity_threshold=0, include_invalid=include_invalid)


def assert_the_first_stays_active(api: httpx.Client, first: str, second: str, kept: str) -> None:
    """Said a week apart, the second message leaves the first one's note active and recalled."""
    app = new_app()
    (old_id,) = note_ids(say(api, app, first, day=1))
    say(api, app, second, day=9)
    assert get_memory(api, app, old_id)["metadata"]["status"] == "active"
    assert any(kept in str(m["document"]) for m in everything(api, app))


def test_a_change_no_fact_rule_reads_closes_the_old_note_by_default(local_api: httpx.Client) -> None:
    app = new_app()
    (old_id,) = note_ids(say(local_api, app, BEFORE, day=1))
    result = say(local_api, app, AFTER, day=9)
    new_id = note_ids(result)[0]
    old = get_memory(local_api, app, old_id)["metadata"]
    assert old["status"] == "superseded", old
    assert old["next_id"] == new_id and old["invalid_at"] is not None
    assert result["memories"][0]["targets"] == [old_id]
    active = [str(m["document"]) for m in everything(local_api, app)]
    assert any("ThinkPad" in d for d in active) and not any("MacBook" in d for d in active), active
    history = everything(local_api, app, include_invalid=True)
    assert old_id in [m["memory_id"] for m in history], "kept as history"


@pytest.mark.parametrize(
    ("first", "second", "kept"),
    [
        ("I speak Spanish fluently, my mom is from Madrid.", "I also speak German now, after three years of classes.",
         "Spanish"),
        ("We have a beagle called Biscuit.", "We now have a rabbit too, Clover.", "Biscuit"),
        ("I volunteer at the food bank on Monday evenings.", "I help out at the animal shelter on Sundays now.",
         "food bank"),
        ("Our favourite takeaway is the Thai place on Mill Road.",
         "Our new favourite brunch spot is Fig and Olive, the shakshuka is amazing.", "Thai place"),
    ],
)  # fmt: skip
def test_facts_that_only_add_stay_active(local_api: httpx.Client, first: str, second: str, kept: str) -> None:
    assert_the_first_stays_active(local_api, first, second, kept)


@pytest.mark.parametrize(
    ("first", "second", "kept"),
    [
        ("My cousin Freya lives in Oslo.", "Maybe, my cousin Lars moved to Bergen last year and keeps inviting us.",
         "Oslo"),
        ("My friend Ola lives in Warsaw, we video call every Sunday.",
         "My friend Tomasz moved to Krakow last month for a new job.", "Warsaw"),
    ],
)  # fmt: skip
def test_a_change_about_another_named_person_of_one_kind_never_closes_a_fact(
    local_api: httpx.Client, first: str, second: str, kept: str
) -> None:
    """Two cousins, two friends: the later one's move is not the earlier one's."""
    assert_the_first_stays_active(local_api, first, second, kept)


@pytest.mark.parametrize(
    ("first", "second", "kept"),
    [
        ("I always have porridge for breakfast.", "I've switched to never eating after 8pm now.", "porridge"),
        ("My brother turns the music up when he's gaming.",
         "I moved my desk so I can turn the volume down on calls now.", "music up"),
        ("We eat in most weeknights, I cook.", "We moved our date night out to Thursdays now.", "eat in"),
    ],
)  # fmt: skip
def test_antonym_words_alone_never_close_a_fact(local_api: httpx.Client, first: str, second: str, kept: str) -> None:
    """always/never, up/down, in/out keep two notes from merging, but say nothing was replaced."""
    assert_the_first_stays_active(local_api, first, second, kept)


def assert_the_first_is_closed(api: httpx.Client, first: str, second: str, gone: str) -> None:
    """Said a week apart, the second message closes the first one's note: superseded, kept as
    history, out of what is recalled."""
    app = new_app()
    (old_id,) = note_ids(say(api, app, first, day=1))
    say(api, app, second, day=9)
    old = get_memory(api, app, old_id)["metadata"]
    assert old["status"] == "superseded" and old["invalid_at"] is not None, old
    active = [str(m["document"]) for m in everything(api, app)]
    assert not any(gone in d for d in active), active


@pytest.mark.parametrize(
    ("first", "second", "gone"),
    [
        ("I take metformin every morning with breakfast.",
         "I've come off the metformin, the diabetes nurse is happy with my numbers.", "every morning"),
        ("We're having a conservatory built on the back of the house in April.",
         "We've shelved the conservatory, the quote was silly money.", "April"),
        ("I've got a season pass for the Lakeside lido, I swim before work.",
         "I don't have a lido pass now, the pool is shut for repairs.", "before work"),
    ],
)  # fmt: skip
def test_a_note_that_says_a_state_or_plan_ended_closes_the_note_that_stated_it(
    local_api: httpx.Client, first: str, second: str, gone: str
) -> None:
    """Coming off a medicine, a plan cancelled, a membership that lapsed: the topic both notes
    name is ended by a verb of ending or a lasting negation."""
    assert_the_first_is_closed(local_api, first, second, gone)


def test_a_corrected_value_on_the_same_topic_closes_the_old_note(local_api: httpx.Client) -> None:
    assert_the_first_is_closed(
        local_api,
        "The plumber is coming on the 12th to fix the boiler.",
        "Sorry, I misread the text: the plumber is coming on the 21st.",
        "12th",
    )


@pytest.mark.parametrize(
    ("first", "second", "kept"),
    [
        ("My husband drives a Skoda Octavia, it's huge.", "I drive a little Fiat 500 now for the school run.",
         "Skoda"),
        ("I run the dance studio on Mill Lane with my sister.",
         "I won't give up on the dance studio now, whatever happens.", "Mill Lane"),
    ],
)  # fmt: skip
def test_a_relatives_fact_or_a_promise_to_go_on_never_closes_a_note(
    local_api: httpx.Client, first: str, second: str, kept: str
) -> None:
    """A husband's car is not the user's; "won't give up" says it goes on, not that it ended."""
    assert_the_first_stays_active(local_api, first, second, kept)


def test_addressing_someone_by_name_does_not_close_a_note(local_api: httpx.Client) -> None:
    """A name said to someone ("Wow, Gina, ...") is not a changed value of what the note states."""
    assert_the_first_stays_active(
        local_api,
        "Jon is teaching the beginners' salsa class with Rosa on Tuesdays.",
        "Wow, Gina, Jon switched the beginners' salsa class to a bigger hall.",
        "Rosa",
    )


def test_an_earlier_message_never_closes_a_later_note(local_api: httpx.Client) -> None:
    app = new_app()
    (new_id,) = note_ids(say(local_api, app, AFTER, day=9))
    say(local_api, app, BEFORE, day=1)  # told late, said earlier
    assert get_memory(local_api, app, new_id)["metadata"]["status"] == "active"


def test_the_old_note_stays_active_when_closing_by_succession_is_off(live_server_factory: ServerFactory) -> None:
    with (
        live_server_factory(MEMLANE_EMBEDDER="local", MEMLANE_CLOSE_BY_SUCCESSION=False) as server,
        httpx.Client(base_url=server.url, timeout=60) as off,
    ):
        assert_the_first_stays_active(off, BEFORE, AFTER, "MacBook")


def test_a_note_that_the_baby_is_born_closes_the_note_that_they_are_expecting(local_api: httpx.Client) -> None:
    """An implied change with no change cue: the states of parenthood exclude each other
    (services/exclusive_states.py)."""
    app = new_app()
    (old_id,) = note_ids(say(local_api, app, "We're expecting our first baby in June, a boy.", day=1))
    say(local_api, app, "Little Tomas is two weeks old and feeds every three hours.", day=9)
    old = get_memory(local_api, app, old_id)["metadata"]
    assert old["status"] == "superseded", old
    active = [str(m["document"]) for m in everything(local_api, app)]
    assert not any("expecting" in d for d in active) and any("two weeks old" in d for d in active), active


@pytest.mark.parametrize(
    ("first", "second", "kept"),
    [
        ("My brother is single and loving it.", "My sister is married, the wedding was in May.", "single"),
        ("Our son Leo is three months old.", "We're expecting our second baby in the spring.", "three months"),
    ],
)
def test_a_state_of_another_person_or_a_step_back_never_closes_a_fact(
    local_api: httpx.Client, first: str, second: str, kept: str
) -> None:
    """A sister's marriage does not close a brother's single status; a second pregnancy does
    not close the first child's birth."""
    assert_the_first_stays_active(local_api, first, second, kept)


@pytest.mark.parametrize(
    ("first", "second", "gone"),
    [
        ("I'm on insulin, two pens a day.", "I don't need injections anymore, the diabetes is in remission.",
         "two pens"),
        ("My manager is Derek, he checks every email I send.", "I changed teams last month, my boss is Sandra now.",
         "Derek"),
    ],
    ids=["a treatment ended in other words", "a new boss closes the note about the old manager"],
)  # fmt: skip
def test_a_change_said_in_other_words_of_the_same_meaning_closes_the_old_note(
    local_api: httpx.Client, first: str, second: str, gone: str
) -> None:
    """Insulin and injections, a manager and a boss: the two notes share no word, but their
    topic is one by meaning."""
    assert_the_first_is_closed(local_api, first, second, gone)


def test_a_corrected_value_in_lower_case_closes_the_old_note(local_api: httpx.Client) -> None:
    """A correction that puts another word in the old value's slot ("ibuprofen" → "aspirin"),
    though neither is a name or a number."""
    assert_the_first_is_closed(
        local_api,
        "I'm allergic to ibuprofen, I get a rash.",
        "Sorry, I got that wrong: it's aspirin I'm allergic to.",
        "ibuprofen",
    )


@pytest.mark.parametrize(
    ("first", "second", "kept"),
    [
        ("My brother works at the bakery on Elm Street.", "My sister quit her job at the cafe.", "bakery"),
        ("I speak Welsh with my grandparents.", "I can hold a conversation in Italian now.", "Welsh"),
    ],
    ids=["a brother's job never closes a sister's", "a second language alike in meaning only adds"],
)  # fmt: skip
def test_words_alike_in_meaning_never_close_a_fact_that_only_adds(
    local_api: httpx.Client, first: str, second: str, kept: str
) -> None:
    """A brother and a sister are two people, however alike the words; "now" beside a second
    language says when, not that the first was replaced."""
    assert_the_first_stays_active(local_api, first, second, kept)


@pytest.mark.parametrize(
    ("first", "second", "kept"),
    [
        ("I drink green tea every afternoon at my desk.", "I gave up coffee last month, I sleep much better.",
         "green tea"),
        ("I play piano at the Crown on Tuesdays.", "I play guitar at the Crown on Thursdays now.", "piano"),
        ("I play the cello in the community orchestra.", "I stopped playing the violin years ago.", "cello"),
    ],
    ids=["coffee given up leaves the tea", "guitar on another day leaves the piano", "violin stopped leaves the cello"],
)  # fmt: skip
def test_ending_one_thing_of_a_kind_never_closes_another_of_that_kind(
    local_api: httpx.Client, first: str, second: str, kept: str
) -> None:
    """Tea and coffee, a piano and a guitar, a cello and a violin are near in meaning but two
    things: ending one, or playing one on another day, says nothing of the other
    (services/conversation/same_kind.py)."""
    assert_the_first_stays_active(local_api, first, second, kept)


def test_one_thing_of_a_kind_said_to_replace_another_closes_the_old_note(local_api: httpx.Client) -> None:
    """Switching from tea to coffee replaces one member of a kind by another."""
    assert_the_first_is_closed(
        local_api,
        "I drink green tea every afternoon at my desk.",
        "I switched from tea to coffee in the afternoons, I need the kick.",
        "green tea",
    )
