"""Closing by succession (``MEMLANE_CLOSE_BY_SUCCESSION``, services/conversation/succession.py):
when it is on, a later message that says a change in words no fact rule reads closes the
earlier note of the same person it disagrees with, kept as history in the evolution chain;
facts that only add are never closed. Off by default, where such a note stays active."""

from __future__ import annotations

from collections.abc import Iterator

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


@pytest.fixture(scope="module")
def succession_api(live_server_factory: ServerFactory) -> Iterator[httpx.Client]:
    """The local model: the note cosine the rule needs is fitted to it."""
    with (
        live_server_factory(MEMLANE_EMBEDDER="local", MEMLANE_CLOSE_BY_SUCCESSION=True) as server,
        httpx.Client(base_url=server.url, timeout=60) as client,
    ):
        yield client


def test_a_change_no_fact_rule_reads_closes_the_old_note_when_on(succession_api: httpx.Client) -> None:
    app = new_app()
    (old_id,) = note_ids(say(succession_api, app, BEFORE, day=1))
    result = say(succession_api, app, AFTER, day=9)
    new_id = note_ids(result)[0]
    old = get_memory(succession_api, app, old_id)["metadata"]
    assert old["status"] == "superseded", old
    assert old["next_id"] == new_id and old["invalid_at"] is not None
    assert result["memories"][0]["targets"] == [old_id]
    active = [str(m["document"]) for m in everything(succession_api, app)]
    assert any("ThinkPad" in d for d in active) and not any("MacBook" in d for d in active), active
    history = everything(succession_api, app, include_invalid=True)
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
def test_facts_that_only_add_stay_active_when_on(
    succession_api: httpx.Client, first: str, second: str, kept: str
) -> None:
    assert_the_first_stays_active(succession_api, first, second, kept)


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
    succession_api: httpx.Client, first: str, second: str, kept: str
) -> None:
    """Two cousins, two friends: the later one's move is not the earlier one's."""
    assert_the_first_stays_active(succession_api, first, second, kept)


@pytest.mark.parametrize(
    ("first", "second", "kept"),
    [
        ("I always have porridge for breakfast.", "I've switched to never eating after 8pm now.", "porridge"),
        ("My brother turns the music up when he's gaming.",
         "I moved my desk so I can turn the volume down on calls now.", "music up"),
        ("We eat in most weeknights, I cook.", "We moved our date night out to Thursdays now.", "eat in"),
    ],
)  # fmt: skip
def test_antonym_words_alone_never_close_a_fact(
    succession_api: httpx.Client, first: str, second: str, kept: str
) -> None:
    """always/never, up/down, in/out keep two notes from merging, but say nothing was replaced."""
    assert_the_first_stays_active(succession_api, first, second, kept)


def test_an_earlier_message_never_closes_a_later_note(succession_api: httpx.Client) -> None:
    app = new_app()
    (new_id,) = note_ids(say(succession_api, app, AFTER, day=9))
    say(succession_api, app, BEFORE, day=1)  # told late, said earlier
    assert get_memory(succession_api, app, new_id)["metadata"]["status"] == "active"


def test_the_old_note_stays_active_by_default(api: httpx.Client) -> None:
    app = new_app()
    (old_id,) = note_ids(say(api, app, BEFORE, day=1))
    say(api, app, AFTER, day=9)
    assert get_memory(api, app, old_id)["metadata"]["status"] == "active"


def test_a_note_that_the_baby_is_born_closes_the_note_that_they_are_expecting(succession_api: httpx.Client) -> None:
    """An implied change with no change cue: the states of parenthood exclude each other
    (services/exclusive_states.py)."""
    app = new_app()
    (old_id,) = note_ids(say(succession_api, app, "We're expecting our first baby in June, a boy.", day=1))
    say(succession_api, app, "Little Tomas is two weeks old and feeds every three hours.", day=9)
    old = get_memory(succession_api, app, old_id)["metadata"]
    assert old["status"] == "superseded", old
    active = [str(m["document"]) for m in everything(succession_api, app)]
    assert not any("expecting" in d for d in active) and any("two weeks old" in d for d in active), active


@pytest.mark.parametrize(
    ("first", "second", "kept"),
    [
        ("My brother is single and loving it.", "My sister is married, the wedding was in May.", "single"),
        ("Our son Leo is three months old.", "We're expecting our second baby in the spring.", "three months"),
    ],
)
def test_a_state_of_another_person_or_a_step_back_never_closes_a_fact(
    succession_api: httpx.Client, first: str, second: str, kept: str
) -> None:
    """A sister's marriage does not close a brother's single status; a second pregnancy does
    not close the first child's birth."""
    assert_the_first_stays_active(succession_api, first, second, kept)
