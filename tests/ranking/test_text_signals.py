"""What a plain client's text says about who spoke and when (domain/text_signals.py), and how
that reaches ranking and the embedding context the way the documented slots do; explicit
slots always win."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest

from memlane.domain.episodes import EPISODE_GAP, episode_keys
from memlane.domain.model import Node
from memlane.domain.text_signals import body, header, stated_day, stated_speaker, stated_when
from memlane.services.embedding_context import ContextConfig, contextual_text, in_a_conversation
from memlane.services.ranking.question import states_a_time, time_statement_boost
from memlane.services.ranking.signals import node_names
from memlane.services.ranking.temporal import memory_day

T0 = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)


def node(nid: str, text: str, *, slots: dict[str, Any] | None = None, **fields: Any) -> Node:
    fields.setdefault("created_at", T0)
    fields.setdefault("commit_id", "c1")
    return Node(tenant_id="t", id=nid, scope="s", type="event", text_summary=text, slots=slots or {}, **fields)


@pytest.mark.parametrize(
    ("text", "speaker", "when", "words"),
    [
        ("Caroline: Hey Mel!", "Caroline", None, "Hey Mel!"),
        ("Caroline (1:56 pm on 8 May, 2023): Hey Mel!", "Caroline", datetime(2023, 5, 8, 13, 56), "Hey Mel!"),
        ("Caroline (2023-05-08): Hey Mel!", "Caroline", date(2023, 5, 8), "Hey Mel!"),
        ("[2023-05-08 13:56] Caroline: Hey Mel!", "Caroline", datetime(2023, 5, 8, 13, 56), "Hey Mel!"),
        ("[May 8, 2023] Mel Smith: fine", "Mel Smith", date(2023, 5, 8), "fine"),
        ("user: what is my name?", "user", None, "what is my name?"),
    ],
)
def test_a_speaker_and_date_stated_at_the_start_of_the_text_are_read(
    text: str, speaker: str, when: datetime | date | None, words: str
) -> None:
    h = header(text)
    assert h is not None and (h.speaker, h.when, h.body) == (speaker, when, words)
    assert stated_speaker(text) == speaker and body(text) == words


@pytest.mark.parametrize(
    "text",
    [
        "Note: buy milk",
        "TODO: call the dentist",
        "Correction: my birthday is March 16th, not the 14th",
        "https://example.com: a link",
        "Meeting notes: budget",
        "Caroline (yesterday): hi",  # a bracket that is no date is not a transcript header
        "the plan: go north",
        "Caroline said: hi",
    ],
)
def test_labels_and_ordinary_sentences_name_no_speaker(text: str) -> None:
    assert stated_speaker(text) is None
    assert body(text) == text


def test_a_date_stated_in_the_text_dates_it_but_two_different_dates_date_nothing() -> None:
    assert stated_when("Dentist appointment on 3 June 2024 at the clinic") == date(2024, 6, 3)
    assert stated_day("Flight leaves 2024-06-03T07:15, gate B") == date(2024, 6, 3)
    assert stated_when("Moved the dentist from 2024-03-05 to 2024-03-07") is None
    assert stated_when("Sometime in May I went hiking") is None


def test_a_plain_clients_turn_gets_its_speaker_and_date_and_explicit_slots_win() -> None:
    plain = node("p", "Ana (3 May 2024): went hiking in the hills")
    assert node_names(plain) == ["Ana"]
    assert memory_day(plain.slots, plain.created_at, plain.text) == date(2024, 5, 3)
    given = node("g", "Ana (3 May 2024): went hiking", slots={"speaker": "Bo", "event_time": "2024-06-10"})
    assert node_names(given) == ["Bo"]
    assert memory_day(given.slots, given.created_at, given.text) == date(2024, 6, 10)
    # neither: the write time dates it
    assert memory_day({}, T0, "went hiking") == T0.date()


def test_a_plain_turn_is_embedded_like_the_same_turn_written_with_slots() -> None:
    cfg = ContextConfig(window=1, speaker=True)
    plain = [node("2", "Bo (3 May 2024): and you?"), node("1", "Ana (3 May 2024): I went hiking")]
    slotted = [
        node("2", "and you?", slots={"speaker": "Bo"}),
        node("1", "I went hiking", slots={"speaker": "Ana"}),
    ]
    assert in_a_conversation(plain[0])
    assert contextual_text(plain[0], plain[1:], cfg) == contextual_text(slotted[0], slotted[1:], cfg)
    assert contextual_text(plain[0], plain[1:], cfg) == "Bo: and you?\nAna: I went hiking"
    # a plain note with no speaker stays alone
    assert not in_a_conversation(node("n", "buy milk"))


def test_the_header_date_is_not_a_time_the_words_state() -> None:
    n = node("p", "Ana (3 May 2024): our puppy sleeps all day")
    assert not states_a_time(body(n.text)) and states_a_time(n.text)
    assert time_statement_boost({"p": 1.0}, {"p": n}, 0.5) == {"p": 1.0}
    dated = node("d", "Ana (3 May 2024): we got the puppy last weekend")
    assert time_statement_boost({"d": 1.0}, {"d": dated}, 0.5) == {"d": 1.5}


def test_the_nodes_of_one_write_request_form_an_episode() -> None:
    keys = episode_keys([node("a", "first"), node("b", "second"), node("c", "third")])
    assert keys["a"] == keys["b"] == keys["c"]


def test_consecutive_writes_of_one_producer_close_in_time_form_one_episode() -> None:
    first = node("a", "first", commit_id="c1", producer_agent_id="bot")
    soon = node("b", "soon after", commit_id="c2", created_at=T0 + EPISODE_GAP / 2, producer_agent_id="bot")
    later = node("c", "much later", commit_id="c3", created_at=T0 + EPISODE_GAP * 2, producer_agent_id="bot")
    other = node("d", "someone else", commit_id="c4", created_at=T0 + timedelta(minutes=1), producer_agent_id="x")
    keys = episode_keys([first, soon, later, other])
    assert keys["a"] == keys["b"]
    assert keys["c"] != keys["a"]
    assert keys["d"] != keys["a"]


def test_turns_stating_different_days_are_different_episodes_even_in_one_write() -> None:
    keys = episode_keys(
        [node("a", "Ana (3 May 2024): hi"), node("b", "Bo (3 May 2024): hey"), node("c", "Ana (9 May 2024): again")]
    )
    assert keys["a"] == keys["b"] != keys["c"]


def test_an_explicit_session_always_wins_over_the_inferred_episode() -> None:
    keys = episode_keys(
        [node("a", "one", slots={"session": 1}), node("b", "two", slots={"session": 2}), node("c", "three")]
    )
    assert keys["a"] == ("slot", 1) and keys["b"] == ("slot", 2)
    assert keys["c"] not in (keys["a"], keys["b"])
    assert episode_keys([node("s", "x", session_id="chat-7")])["s"] == ("session", "chat-7")


def test_a_conversation_note_is_dated_by_its_event_date_else_by_its_source_message() -> None:
    said = {"occurred_at": "2024-05-03T18:00:00+00:00"}
    assert memory_day(said, T0, "Priya moved to Berlin") == date(2024, 5, 3)
    assert memory_day({**said, "event_date": "2024-04-20"}, T0, "Priya moved to Berlin") == date(2024, 4, 20)
    # the documented slot wins over both
    assert memory_day({**said, "event_time": "2024-01-02"}, T0, "x") == date(2024, 1, 2)
