"""Who may govern a rule (memlane.rules.governance), and how every write asks it
(memlane.rules.lifecycle): pure decisions, and the property that a write by a caller who does
not govern a stored rule either changes nothing of it or is refused."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memlane.domain.errors import Forbidden
from memlane.domain.model import Node
from memlane.domain.roles import ACCEPTED_ROLES
from memlane.domain.visibility import SYSTEM_AGENTS_TEAM, Viewer
from memlane.rules.governance import EVERY_RULE, rule_rights_of
from memlane.rules.lifecycle import DEFINITION_SLOTS, SERVER_SLOTS, review_rule_write, rule_changes
from tests.rules.engine.factories import rule_node

NOW = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)
THEN = {"tool": {"deny": ["rm_rf"]}}


def stored(**fields: Any) -> Node:
    """A shared active rule written by agent ``alice`` for team ``ops``."""
    node = rule_node("r", state="active", then=THEN, positive=3)
    return replace(node, **{"producer_agent_id": "alice", "owner_team_id": "ops", **fields})


def caller(role: str = "user_agent", *, authenticated: bool = True, **ident: str) -> Viewer:
    return Viewer(tenant_id="default", role=role, authenticated=authenticated, **ident)


@pytest.mark.parametrize(
    ("who", "governs"),
    [
        (caller(agent_id="alice"), True),  # its producer
        (caller(agent_id="carol", team_id="ops"), True),  # a member of its owning team
        (caller(team_id="ops"), True),  # a team key of that team
        (caller("manager"), True),
        (caller("admin"), True),
        (caller(agent_id="mallory", team_id="guests"), False),
        (caller(team_id="guests"), False),
        (caller(), False),  # a tenant-wide key
        (caller("guardian", agent_id="gina"), False),  # a system role is not a governing one
        (caller("planner"), False),
        (caller(agent_id="mallory", authenticated=False), True),  # auth off: taken at its word
        (caller("user_agent", authenticated=False, team_id="guests"), True),
    ],
)
def test_a_rule_is_governed_by_its_producer_owners_team_manager_and_admin(who: Viewer, governs: bool) -> None:
    assert rule_rights_of(who).may_govern(stored()) is governs


def test_the_owner_agent_governs_and_the_system_governs_every_rule() -> None:
    owned = stored(owner_agent_id="bob", owner_team_id=None, producer_agent_id=None)
    assert rule_rights_of(caller(agent_id="bob")).may_govern(owned)
    assert not rule_rights_of(caller(agent_id="alice")).may_govern(owned)
    assert rule_rights_of(None) is EVERY_RULE


def test_system_roles_count_as_members_of_the_system_agents_team_only() -> None:
    workspace = stored(producer_agent_id=None, owner_team_id=SYSTEM_AGENTS_TEAM)
    assert rule_rights_of(caller("executor", agent_id="x")).may_govern(workspace)
    assert not rule_rights_of(caller(agent_id="x")).may_govern(workspace)


def test_every_role_that_is_not_admin_or_manager_governs_only_its_own_rules() -> None:
    for role in ACCEPTED_ROLES:
        rights = rule_rights_of(caller(role, agent_id="someone"))
        assert rights.may_govern(stored()) is (role in ("admin", "manager")), role


def test_a_refusal_names_the_field_and_the_rule() -> None:
    with pytest.raises(Forbidden) as err:
        rule_rights_of(caller(agent_id="mallory")).require(stored(), field="rule_node_id", action="move it to active")
    assert err.value.status == 403 and err.value.code == "rule_governance_required"
    assert err.value.details == {"field": "rule_node_id", "rule_node_id": "r"}
    assert err.value.message.startswith("rule_node_id: ")


def edit(before: Node, **changes: Any) -> Node:
    """``before`` as a write giving ``changes`` leaves it (the store applies given fields)."""
    return replace(before, **changes)


def test_changes_list_the_definition_first_and_skip_what_the_server_keeps() -> None:
    before = stored()
    assert rule_changes(before, edit(before)) == []
    # slots without the server-kept ones, or with them as stored: nothing changes
    definition = {k: v for k, v in before.slots.items() if k not in SERVER_SLOTS}
    assert rule_changes(before, edit(before, slots=definition)) == []
    assert rule_changes(before, edit(before, slots={**definition, "state": "active"})) == []
    assert rule_changes(before, edit(before, slots={**before.slots})) == []
    evil = {**before.slots, "then": {"tool": {"allow": ["rm_rf"]}}, "note": "x", "stats": {"positive": 99}}
    assert rule_changes(before, edit(before, slots=evil, title="t", owner_team_id="guests")) == [
        "slots.then",
        "slots.stats",
        "slots.note",
        "owner_team_id",
        "title",
    ]
    assert rule_changes(before, edit(before, type="event")) == ["type"]
    # what decides whether a rule is kept, found or applies is a change too
    for name, value in (
        ("tier", "archive"),
        ("expires_at", NOW),
        ("invalid_at", NOW),
        ("layer", "workspace"),
        ("user_id", "u1"),
        ("producer_agent_id", "mallory"),
    ):
        assert rule_changes(before, edit(before, **{name: value})) == [name]
    # bookkeeping is not
    assert rule_changes(before, edit(before, updated_at=NOW, commit_id="c", embedding_status="ready")) == []


def review(before: Node | None, after: Node, who: Viewer) -> Any:
    return review_rule_write(before, after, where="nodes[1]", now=NOW, actor="w", rights=rule_rights_of(who))


def test_a_write_by_a_caller_who_does_not_govern_the_rule_is_refused_before_any_other_check() -> None:
    before = stored()
    mallory = caller(agent_id="mallory")
    evil = edit(before, slots={"then": {"tool": {"allow": ["rm_rf"]}}, "state": "active", "stats": {"positive": 9}})
    with pytest.raises(Forbidden) as err:
        review(before, evil, mallory)
    assert err.value.details == {"field": "nodes[1].slots.then", "rule_node_id": "r"}
    with pytest.raises(Forbidden) as err:
        review(before, edit(before, type="event"), mallory)
    assert err.value.details == {"field": "nodes[1].type", "rule_node_id": "r"}
    # the stored rule sent back unchanged is no change
    assert review(before, edit(before), mallory).state_change is None
    # a new rule is anyone's to create
    assert review(None, rule_node("n", state=None, then=THEN), mallory).slots["state"] == "draft"
    # its producer and team: the lifecycle's own answer (a definition edit demotes it)
    for who in (caller(agent_id="alice"), caller(agent_id="carol", team_id="ops"), caller("manager")):
        out = review(before, edit(before, slots={"then": {"tool": {"deny": ["ftp"]}}}), who)
        assert out.state_change == {"from": "active", "to": "shadow", "reason": "definition_changed"}


def test_a_write_cannot_hand_the_writer_the_rights_it_needs() -> None:
    before = stored()
    for field in ("producer_agent_id", "owner_agent_id"):
        with pytest.raises(Forbidden) as err:
            review(before, edit(before, **{field: "mallory"}), caller(agent_id="mallory"))
        assert err.value.details is not None and err.value.details["field"] == f"nodes[1].{field}"
    with pytest.raises(Forbidden):
        review(before, edit(before, owner_team_id="guests"), caller(agent_id="mallory", team_id="guests"))


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 600) | st.sampled_from(["draft", "shadow", "active", "disabled"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(["tool", "deny", "a"]), inner),
    max_leaves=6,
)
WRITTEN_SLOTS = st.dictionaries(st.sampled_from([*SERVER_SLOTS, *DEFINITION_SLOTS, "note"]), JSON, max_size=6)
FIELDS = st.fixed_dictionaries(
    {},
    optional={
        "title": st.sampled_from([None, "t"]),
        "tier": st.sampled_from(["hot", "archive"]),
        "memory_lane": st.sampled_from(["shared", "private"]),
        "owner_agent_id": st.sampled_from([None, "mallory", "alice"]),
        "owner_team_id": st.sampled_from([None, "ops", "guests"]),
        "producer_agent_id": st.sampled_from([None, "mallory", "alice"]),
        "user_id": st.sampled_from([None, "u1"]),
    },
)


@settings(max_examples=400, deadline=None)
@given(
    state=st.sampled_from(["draft", "shadow", "active", "disabled"]),
    slots=st.none() | WRITTEN_SLOTS,
    fields=FIELDS,
    as_stored=st.booleans(),
)
def test_a_caller_who_does_not_govern_a_rule_changes_nothing_of_it(
    state: str, slots: dict[str, Any] | None, fields: dict[str, Any], as_stored: bool
) -> None:
    before = stored(slots={**rule_node("r", state=state, then=THEN, positive=2).slots})
    written = dict(before.slots) if as_stored else slots
    after = edit(before, **fields, **({} if written is None else {"slots": written}))
    try:
        # any other refusal (the lifecycle's) would mean the write got past the rights check
        out = review(before, after, caller(agent_id="mallory", team_id="guests"))
    except Forbidden as exc:
        assert exc.code == "rule_governance_required" and exc.details is not None
        assert exc.details["field"].startswith("nodes[1].")
        return
    assert rule_changes(before, after) == []
    assert out.state_change is None
    assert (out.slots if out.slots is not None else after.slots) == before.slots
