"""Rule evaluation: states, scope and lane visibility, counters, DTO shape, ordering."""

from __future__ import annotations

from typing import Any

import pytest

from memlane.domain.model import Node
from memlane.rules.evaluate import RuleRecord, evaluate, rule_state
from memlane.rules.visibility import Identity
from tests.rules.engine.factories import rule_node

AGENT_CTX: dict[str, Any] = {"agent": {"id": "a1", "team_id": "t1"}, "intent": "code"}


def ids(matches: list[dict[str, Any]]) -> list[str]:
    return [m["rule_node_id"] for m in matches]


def counters(ev: Any) -> dict[str, int]:
    return dict(ev.agent_visibility_summary["rule_scope"])


# --------------------------------------------------------------------------- identity


@pytest.mark.parametrize(
    ("context", "agent", "team", "reason"),
    [
        ({}, None, None, "missing_agent_context"),
        ("not an object", None, None, "missing_agent_context"),
        ({"agent": {"id": "a"}}, "a", None, "enforced_agent_only"),
        ({"agent_id": "a"}, "a", None, "enforced_agent_only"),
        ({"team_id": "t"}, None, "t", "enforced_team_only"),
        ({"agent": {"id": "a", "team_id": "t"}}, "a", "t", "enforced_agent_team"),
        ({"agent": {"id": "a"}, "agent_id": "b"}, "a", None, "enforced_agent_only"),
        ({"agent": {"id": ""}, "agent_id": 7}, None, None, "missing_agent_context"),
    ],
)
def test_identity_comes_from_the_context(context: Any, agent: str | None, team: str | None, reason: str) -> None:
    identity = Identity.from_context(context)
    assert (identity.agent_id, identity.team_id, identity.lane_reason) == (agent, team, reason)


# --------------------------------------------------------------------------- states


def test_only_active_and_shadow_rules_are_evaluated() -> None:
    rules = [
        rule_node("active", state="active"),
        rule_node("shadow", state="shadow"),
        rule_node("draft", state="draft"),
        rule_node("disabled", state="disabled"),
        rule_node("no-state", state=None),
        rule_node("weird", state="ACTIVE"),
    ]
    ev = evaluate(rules, {}, include_shadow=True)
    assert ids(ev.as_response()["active"]) == ["active"]
    assert ids(ev.as_response()["shadow"]) == ["shadow"]
    assert counters(ev)["scanned"] == 2


def test_without_include_shadow_shadow_rules_are_not_scanned() -> None:
    ev = evaluate([rule_node("s", state="shadow"), rule_node("a")], {}, include_shadow=False)
    assert counters(ev)["scanned"] == 1
    assert ev.as_response()["shadow"] == []
    assert "shadow_policy" not in ev.applied


def test_rule_state_defaults_to_draft() -> None:
    assert rule_state(rule_node("x", state=None)) == "draft"


def test_a_rule_record_overrides_state_and_counts() -> None:
    node = rule_node("x", state="draft", positive=1)
    ev = evaluate([RuleRecord(node, state="active", positive=8, negative=0)], {})
    dto = ev.as_response()["active"][0]
    assert dto["stats"] == {"positive": 8, "negative": 0}


def test_non_rule_nodes_are_ignored() -> None:
    node = rule_node("x")
    other = Node(tenant_id="default", id="e", scope="default", type="event", slots=dict(node.slots))
    assert counters(evaluate([other], {}))["scanned"] == 0


# --------------------------------------------------------------------------- scope


@pytest.mark.parametrize(
    ("scope", "team", "agent", "context", "visible"),
    [
        (None, None, None, {}, True),
        ("global", None, None, {}, True),
        ("team", "t1", None, {"agent": {"team_id": "t1"}}, True),
        ("team", "t1", None, {"team_id": "t1"}, True),
        ("team", "t1", None, {"agent": {"team_id": "t2"}}, False),
        ("team", "t1", None, {}, False),
        ("team", None, None, {"team_id": "t1"}, False),  # misconfigured: no target
        ("agent", None, "a1", {"agent": {"id": "a1"}}, True),
        ("agent", None, "a1", {"agent_id": "a1"}, True),
        ("agent", None, "a1", {"agent": {"id": "a2"}}, False),
        ("agent", None, None, {"agent": {"id": "a1"}}, False),
        ("org", None, None, {}, False),  # unknown scope is never applied to everyone
    ],
)
def test_scope_filter(scope: str | None, team: str | None, agent: str | None, context: Any, visible: bool) -> None:
    node = rule_node("r", scope=scope, target_team_id=team, target_agent_id=agent)
    ev = evaluate([node], context)
    assert ev.matched == (1 if visible else 0)
    assert counters(ev)["filtered_by_scope"] == (0 if visible else 1)


# --------------------------------------------------------------------------- lane


@pytest.mark.parametrize(
    ("lane", "owner_agent", "owner_team", "context", "visible"),
    [
        ("shared", None, None, AGENT_CTX, True),
        ("private", "a1", None, AGENT_CTX, True),
        ("private", None, "t1", AGENT_CTX, True),
        ("private", "a2", None, AGENT_CTX, False),
        ("private", None, "t2", AGENT_CTX, False),
        ("private", "a2", "t1", AGENT_CTX, True),
        ("private", None, "t1", {"agent": {"id": "a1"}}, False),  # team unknown to the caller
        ("private", "a2", None, {}, True),  # no identity: lane filter not applied
    ],
)
def test_lane_filter(lane: str, owner_agent: str | None, owner_team: str | None, context: Any, visible: bool) -> None:
    node = rule_node("r", lane=lane, owner_agent_id=owner_agent, owner_team_id=owner_team)
    ev = evaluate([node], context)
    assert ev.matched == (1 if visible else 0)
    assert counters(ev)["filtered_by_lane"] == (0 if visible else 1)


def test_unowned_private_rule_is_invisible_when_enforced_and_detected() -> None:
    ev = evaluate([rule_node("legacy", lane="private")], AGENT_CTX)
    lane = ev.agent_visibility_summary["lane"]
    assert ev.matched == 0
    assert lane == {
        "applied": True,
        "reason": "enforced_agent_team",
        "legacy_unowned_private_visible": 0,
        "legacy_unowned_private_detected": 1,
    }


def test_unowned_private_rule_is_visible_and_counted_without_identity() -> None:
    ev = evaluate([rule_node("legacy", lane="private")], {"intent": "code"})
    lane = ev.agent_visibility_summary["lane"]
    assert ev.matched == 1
    assert lane["applied"] is False and lane["reason"] == "missing_agent_context"
    assert lane["legacy_unowned_private_visible"] == 1
    assert lane["legacy_unowned_private_detected"] == 1


# --------------------------------------------------------------------------- invalid then and counters


def test_invalid_then_is_skipped_counted_and_sampled() -> None:
    rules = [rule_node(f"bad-{i}", then={"tool": {"allow": "x"}}) for i in range(7)]
    rules.append(rule_node("good", then={"output": {"format": "json"}}))
    ev = evaluate(rules, {})
    assert ev.skipped_invalid_then == 7
    assert ev.matched == 1
    assert [s["rule_node_id"] for s in ev.invalid_then_sample] == [f"bad-{i}" for i in range(5)]
    assert ev.invalid_then_sample[0]["reason"].startswith("tool.allow")
    assert ev.applied["policy"] == {"output": {"format": "json"}}


def test_invalid_then_of_an_invisible_rule_is_not_disclosed() -> None:
    node = rule_node("theirs", then={"bogus": 1}, scope="agent", target_agent_id="other")
    ev = evaluate([node], AGENT_CTX)
    assert ev.skipped_invalid_then == 0 and ev.invalid_then_sample == []


def test_every_scanned_rule_lands_in_exactly_one_bucket() -> None:
    rules = [
        rule_node("scope", scope="team", target_team_id="t9"),
        rule_node("lane", lane="private", owner_agent_id="a9"),
        rule_node("then", then={"x": 1}),
        rule_node("cond", if_={"intent": "chat"}),
        rule_node("act", if_={"intent": "code"}),
        rule_node("shd", state="shadow"),
        rule_node("draft", state="draft"),
    ]
    ev = evaluate(rules, AGENT_CTX)
    assert counters(ev) == {
        "scanned": 6,
        "filtered_by_scope": 1,
        "filtered_by_lane": 1,
        "filtered_by_condition": 1,
        "skipped_invalid_then": 1,
        "matched_active": 1,
        "matched_shadow": 1,
    }
    assert (ev.considered, ev.matched, ev.skipped_invalid_then) == (4, 2, 1)


def test_rule_with_invalid_condition_is_filtered_and_reported_for_logs() -> None:
    ev = evaluate([rule_node("r", if_={"x": {"$bogus": 1}})], {})
    assert counters(ev)["filtered_by_condition"] == 1
    assert ev.condition_errors == {"r": ["if x.$bogus: unknown operator"]}


def test_invalid_rule_meta_uses_defaults_and_is_reported_for_logs() -> None:
    ev = evaluate([rule_node("r", priority=1000)], {})
    assert ev.as_response()["active"][0]["rank"]["priority"] == 0
    assert "r" in ev.rule_meta_issues


# --------------------------------------------------------------------------- DTO and ordering


def test_rule_match_dto_is_exactly_the_whitelist() -> None:
    node = rule_node(
        "r",
        if_={"intent": "code"},
        then={"output": {"format": "json"}},
        exceptions=[{"intent": "chat"}],
        scope="agent",
        target_agent_id="a1",
        priority=3,
        weight=0.5,
        positive=2,
        negative=0,
        summary="json for code",
        commit_id="c-1",
    )
    dto = evaluate([node], AGENT_CTX).as_response()["active"][0]
    assert dto == {
        "rule_node_id": "r",
        "state": "active",
        "summary": "json for code",
        "rule_scope": "agent",
        "target_agent_id": "a1",
        "if_json": {"intent": "code"},
        "then_json": {"output": {"format": "json"}},
        "exceptions_json": [{"intent": "chat"}],
        "stats": {"positive": 2, "negative": 0},
        "rank": {"score": 3026.0, "evidence_score": 0.5, "priority": 3, "weight": 0.5, "specificity": 1},
        "match_detail": {"condition_paths": ["intent"], "condition_path_count": 1},
        "commit_id": "c-1",
    }


def test_global_rule_dto_has_no_targets_and_defaults() -> None:
    dto = evaluate([rule_node("r")], {}).as_response()["active"][0]
    assert dto["rule_scope"] == "global"
    assert "target_agent_id" not in dto and "target_team_id" not in dto
    assert dto["if_json"] == {} and dto["exceptions_json"] == []


def test_response_has_exactly_the_contract_keys() -> None:
    body = evaluate([rule_node("r")], {}, include_shadow=True).as_response()
    assert set(body) == {
        "considered",
        "matched",
        "skipped_invalid_then",
        "invalid_then_sample",
        "agent_visibility_summary",
        "active",
        "shadow",
        "applied",
    }
    assert set(body["applied"]) == {
        "policy",
        "sources",
        "conflicts",
        "conflict_explain",
        "tool_explain",
        "shadow_policy",
        "shadow_sources",
        "shadow_conflicts",
        "shadow_tool_explain",
    }


def test_matches_are_ordered_by_rank_then_id() -> None:
    rules = [
        rule_node("b", priority=1),
        rule_node("a", priority=1),
        rule_node("c", priority=2),
        rule_node("d", positive=5),
    ]
    assert ids(evaluate(rules, {}).as_response()["active"]) == ["c", "a", "b", "d"]


def test_limit_keeps_the_top_ranked_matches_and_applies_only_those() -> None:
    rules = [rule_node(f"r{i}", priority=i, then={"tool": {"deny": [f"t{i}"]}}) for i in range(5)]
    ev = evaluate(rules, {}, limit=2)
    assert ids(ev.as_response()["active"]) == ["r4", "r3"]
    assert ev.matched == 5
    assert ev.applied["policy"] == {"tool": {"deny": ["t4", "t3"]}}


def test_shadow_policy_is_the_counterfactual_with_shadow_rules_promoted() -> None:
    rules = [
        rule_node("act", then={"tool": {"deny": ["a"]}, "output": {"format": "text"}}),
        rule_node("shd", state="shadow", priority=1, then={"output": {"format": "json"}}),
    ]
    ev = evaluate(rules, {}, include_shadow=True)
    assert ev.applied["policy"] == {"output": {"format": "text"}, "tool": {"deny": ["a"]}}
    assert ev.applied["shadow_policy"] == {"output": {"format": "json"}, "tool": {"deny": ["a"]}}
    assert [(s["rule_node_id"], s["state"]) for s in ev.applied["shadow_sources"]] == [
        ("shd", "shadow"),
        ("act", "active"),
    ]
    assert ev.applied["shadow_conflicts"][0]["winner"]["rule_node_id"] == "shd"


def test_evaluation_does_not_depend_on_input_order() -> None:
    rules = [
        rule_node("x", priority=1, then={"tool": {"prefer": ["a"]}}),
        rule_node("y", then={"tool": {"prefer": ["b"], "deny": ["c"]}}),
        rule_node("z", state="shadow", then={"tool": {"allow": ["a", "b"]}}),
        rule_node("w", then={"bad": True}),
    ]
    forward = evaluate(rules, AGENT_CTX).as_response()
    assert evaluate(list(reversed(rules)), AGENT_CTX).as_response() == forward
