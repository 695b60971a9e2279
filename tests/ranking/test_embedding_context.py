"""Which neighbours a memory is embedded with (services/embedding_context.py)."""

from __future__ import annotations

from typing import Any

from memlane.domain.model import Node
from memlane.services.embedding_context import ContextConfig, contextual_text

CFG = ContextConfig(window=2, speaker=True)


def turn(nid: str, text: str, **fields: Any) -> Node:
    slots = {"speaker": fields.pop("speaker", "Bob"), "session": fields.pop("session", 1)}
    return Node(tenant_id="t", id=nid, scope="s", type="event", text_summary=text, slots=slots, **fields)


def test_a_turn_is_embedded_after_its_speaker_with_the_turns_before_it_newest_first() -> None:
    node = turn("3", "Yes, last week!")
    before = [turn("2", "Did you finish the marathon?", speaker="Ann"), turn("1", "Hi Bob", speaker="Ann")]
    assert contextual_text(node, before, CFG) == "Bob: Yes, last week!\nAnn: Did you finish the marathon?\nAnn: Hi Bob"


def test_the_window_stops_at_another_conversation_session() -> None:
    node = turn("3", "Yes!", session=2)
    before = [turn("2", "Shall we go?", session=2), turn("1", "An older session", session=1)]
    assert contextual_text(node, before, CFG) == "Bob: Yes!\nBob: Shall we go?"


def test_a_neighbour_its_readers_may_not_see_never_enters_the_vector() -> None:
    node = turn("3", "Sounds good", memory_lane="shared")
    private = turn("2", "my salary is 90k", memory_lane="private", owner_agent_id="other")
    assert contextual_text(node, [private], CFG) == "Bob: Sounds good"


def test_notes_that_are_not_one_conversation_are_embedded_alone() -> None:
    note = Node(tenant_id="t", id="2", scope="s", type="fact", text_summary="Lunch is served at noon")
    earlier = Node(tenant_id="t", id="1", scope="s", type="fact", text_summary="The team prefers PostgreSQL")
    assert contextual_text(note, [earlier], CFG) == "Lunch is served at noon"
    assert contextual_text(note, [earlier], ContextConfig()) == "Lunch is served at noon"
