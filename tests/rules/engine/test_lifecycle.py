"""The rule lifecycle as every write sees it (memlane.rules.lifecycle): pure decisions, and the
property that no write, whatever its slots, makes a rule more live or changes its counts."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memlane.domain.errors import Conflict, InvalidRequest, MemlaneError
from memlane.domain.model import Node
from memlane.rules.evaluate import RULE_STATES
from memlane.rules.lifecycle import (
    DEFINITION_SLOTS,
    SERVER_SLOTS,
    allowed_targets,
    review_rule_write,
    with_transition,
)
from tests.rules.engine.factories import rule_node

NOW = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)
THEN = {"tool": {"deny": ["shell"]}}


def review(before: Node | None, after: Node, **kw: Any) -> dict[str, Any]:
    """The slots the write would store."""
    out = review_rule_write(before, after, where="nodes[0]", now=NOW, actor="writer", **kw)
    return out.slots if out.slots is not None else after.slots


def edited(before: Node, **slots: Any) -> Node:
    """``before`` as a write that sends ``slots`` would leave it (other fields unchanged)."""
    return Node(
        tenant_id=before.tenant_id,
        id=before.id,
        scope=before.scope,
        type="rule",
        slots=slots,
        memory_lane=before.memory_lane,
        owner_agent_id=before.owner_agent_id,
        owner_team_id=before.owner_team_id,
    )


def test_the_transitions_are_draft_shadow_active_and_any_to_disabled() -> None:
    assert allowed_targets("draft") == ["shadow", "disabled"]
    assert allowed_targets("shadow") == ["active", "disabled"]
    assert allowed_targets("active") == ["disabled"]
    assert allowed_targets("disabled") == []


def test_a_transition_is_kept_in_the_history_with_its_actor_and_the_newest_twenty() -> None:
    slots: dict[str, Any] = {"then": THEN, "state_history": "damaged"}
    for i in range(25):
        slots = with_transition(slots, "a", "b", now=NOW, actor=f"actor-{i}")
    assert slots["state"] == "b" and slots["state_changed_at"] == "2025-03-01T12:00:00Z"
    assert [h["actor"] for h in slots["state_history"]] == [f"actor-{i}" for i in range(5, 25)]


def test_a_new_rule_is_a_draft_or_a_shadow_it_asked_for() -> None:
    assert review(None, rule_node("r", state=None, then=THEN))["state"] == "draft"
    assert review(None, rule_node("r", state="draft", then=THEN))["state"] == "draft"
    assert review(None, rule_node("r", state="shadow", then=THEN))["state"] == "shadow"
    for state in ("active", "disabled", "weird"):
        with pytest.raises(InvalidRequest) as err:
            review(None, rule_node("r", state=state, then=THEN))
        assert err.value.code == "rule_slot_not_writable" and err.value.details == {
            "field": "nodes[0].slots.state",
            "allowed": ["draft", "shadow"],
        }
    with pytest.raises(InvalidRequest) as err:
        review(None, rule_node("r", state="shadow", then={"tool": "x"}))
    assert err.value.code == "invalid_rule_definition"


def test_nodes_of_other_types_are_not_the_lifecycles_business() -> None:
    topic = Node(tenant_id="t", id="n", scope="s", type="topic", slots={"state": "active", "stats": {"positive": 9}})
    assert review_rule_write(None, topic, where="nodes[0]", now=NOW, actor=None).slots is None


def test_a_stored_rule_cannot_change_type() -> None:
    before = rule_node("r", state="disabled", then=THEN)
    event = Node(tenant_id="default", id="r", scope="default", type="event")
    with pytest.raises(InvalidRequest) as err:
        review(before, event)
    assert err.value.code == "rule_type_not_writable" and err.value.details == {
        "field": "nodes[0].type",
        "type": "rule",
    }


def test_an_import_restores_except_over_a_disabled_rule() -> None:
    exported = rule_node("r", state="active", then=THEN, positive=7)
    assert review(None, exported, restore=True) == exported.slots
    assert review(rule_node("r", state="shadow", then=THEN), exported, restore=True) == exported.slots
    off = rule_node("r", state="disabled", then=THEN)
    off.slots["state_history"] = [{"from": "active", "to": "disabled", "at": "x", "actor": "a"}]
    kept = review(off, exported, restore=True)
    assert kept["state"] == "disabled" and kept["state_history"] == off.slots["state_history"]
    assert kept["stats"] == exported.slots["stats"]


def test_a_definition_edit_of_an_active_rule_demotes_it_with_the_writers_name() -> None:
    before = rule_node("r", state="active", then=THEN, positive=4)
    out = review_rule_write(
        before, edited(before, then={"tool": {"deny": ["ftp"]}}), where="nodes[2]", now=NOW, actor="ed"
    )
    assert out.state_change == {"from": "active", "to": "shadow", "reason": "definition_changed"}
    assert out.slots is not None and out.slots["state"] == "shadow"
    assert out.slots["stats"] == before.slots["stats"], "counts carried over, though the write left them out"
    assert out.slots["state_history"][-1]["actor"] == "ed"
    # the same definition again (here with its state) moves nothing
    same = review_rule_write(before, edited(before, then=THEN, state="active"), where="n", now=NOW, actor="ed")
    assert same.state_change is None and same.slots is not None and same.slots["state"] == "active"


STATES = st.sampled_from(RULE_STATES)
JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 600) | st.sampled_from(["draft", "shadow", "active", "disabled", "x"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(["positive", "tool", "a"]), inner),
    max_leaves=6,
)
WRITTEN_SLOTS = st.dictionaries(st.sampled_from([*SERVER_SLOTS, *DEFINITION_SLOTS, "note"]), JSON, max_size=6)
LIVENESS = {"disabled": 0, "draft": 1, "shadow": 2, "active": 3}


@settings(max_examples=400, deadline=None)
@given(state=STATES, positive=st.integers(0, 5), slots=WRITTEN_SLOTS, same_then=st.booleans())
def test_no_write_makes_a_rule_more_live_or_changes_its_counts(
    state: str, positive: int, slots: dict[str, Any], same_then: bool
) -> None:
    before = rule_node("r", state=state, then=THEN, positive=positive)
    if same_then:
        slots = {**slots, "then": THEN}
    try:
        out = review(before, edited(before, **slots))
    except (InvalidRequest, Conflict) as exc:
        assert isinstance(exc, MemlaneError) and exc.details and exc.details["field"].startswith("nodes[0].")
        return
    assert out.get("stats") == before.slots.get("stats")
    assert LIVENESS[out["state"]] <= LIVENESS[state]
    if state == "disabled":
        assert out["state"] == "disabled"
        assert all(out.get(k) == before.slots.get(k) for k in DEFINITION_SLOTS)
    if out["state"] == state and state in ("shadow", "active"):
        assert all(out.get(k) == before.slots.get(k) for k in DEFINITION_SLOTS) or state == "shadow"


@settings(max_examples=200, deadline=None)
@given(slots=WRITTEN_SLOTS)
def test_no_write_creates_a_live_rule_or_one_with_counts(slots: dict[str, Any]) -> None:
    node = Node(tenant_id="t", id="r", scope="s", type="rule", slots=slots, memory_lane="shared")
    try:
        out = review(None, node)
    except InvalidRequest:
        return
    assert out["state"] in ("draft", "shadow")
    assert not any(k in out for k in SERVER_SLOTS[1:])
