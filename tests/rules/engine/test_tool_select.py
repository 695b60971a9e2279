"""Tool selection: unit behaviour plus the algebra of allow/deny/prefer across many rules."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memlane.domain.errors import InvalidRequest
from memlane.rules.evaluate import evaluate
from memlane.rules.tool_select import MAX_SUMMARY, select_tools, tool_conflicts_summary
from tests.rules.engine.factories import rule_node

SETTINGS = settings(max_examples=200, deadline=None)

# --------------------------------------------------------------------------- units


def test_candidates_are_deduplicated_keeping_order() -> None:
    selection = select_tools(["b", "a", "b", "c", "a"], None)
    assert selection.candidates == ["b", "a", "c"]
    assert selection.ordered == ["b", "a", "c"] and selection.selected == "b"


def test_no_policy_keeps_candidate_order() -> None:
    selection = select_tools(["x", "y"], {})
    assert (selection.allowed, selection.denied, selection.preferred) == (["x", "y"], [], [])


def test_deny_removes_and_allow_restricts() -> None:
    selection = select_tools(["a", "b", "c", "d"], {"allow": ["a", "b", "c"], "deny": ["b"]})
    assert selection.denied == ["b"]
    assert selection.allowed == ["a", "c"]
    assert selection.selected == "a"


def test_preferred_tools_come_first_in_prefer_order() -> None:
    selection = select_tools(["a", "b", "c", "d"], {"prefer": ["d", "x", "b"], "deny": ["c"]})
    assert selection.preferred == ["d", "b"]
    assert selection.ordered == ["d", "b", "a"]
    assert selection.selected == "d"


def test_a_preferred_but_denied_tool_is_never_selected() -> None:
    selection = select_tools(["a", "b"], {"prefer": ["b"], "deny": ["b"]})
    assert selection.selected == "a" and selection.preferred == []


def test_strict_raises_no_tools_allowed_when_allow_removes_everything() -> None:
    with pytest.raises(InvalidRequest) as caught:
        select_tools(["a", "b"], {"allow": ["z"]}, strict=True)
    assert caught.value.code == "no_tools_allowed" and caught.value.status == 400
    assert caught.value.details is not None
    assert caught.value.details["reason"] == "allowlist_removed_all_candidates"
    assert caught.value.details["candidates"] == ["a", "b"]


def test_strict_raises_when_deny_removes_everything() -> None:
    with pytest.raises(InvalidRequest) as caught:
        select_tools(["a"], {"deny": ["a"]})
    assert caught.value.details is not None
    assert caught.value.details["reason"] == "denylist_removed_all_candidates"


def test_non_strict_falls_back_to_deny_only_when_allow_removes_everything() -> None:
    selection = select_tools(["a", "b", "c"], {"allow": ["z"], "deny": ["a"], "prefer": ["c"]}, strict=False)
    assert selection.fallback == {
        "applied": True,
        "reason": "allowlist_removed_all_candidates",
        "mode": "deny_only",
        "ignored_allow": ["z"],
    }
    assert selection.allowed == ["b", "c"]
    assert selection.ordered == ["c", "b"]
    assert selection.as_dict()["fallback"]["applied"] is True


def test_non_strict_never_relaxes_deny() -> None:
    selection = select_tools(["a", "b"], {"allow": ["a"], "deny": ["a", "b"]}, strict=False)
    assert selection.selected is None and selection.ordered == []
    assert selection.fallback is not None and selection.fallback["applied"] is False
    assert selection.fallback["reason"] == "denylist_removed_all_candidates"


def test_fallback_is_absent_when_not_needed() -> None:
    assert "fallback" not in select_tools(["a"], {"allow": ["a"]}, strict=False).as_dict()


def test_empty_allowlist_allows_nothing() -> None:
    with pytest.raises(InvalidRequest):
        select_tools(["a"], {"allow": []})


def test_conflict_summary_is_bounded_and_puts_candidates_first() -> None:
    conflicts = [
        {"kind": "allow_vs_deny", "tool": f"t{i}", "winner": {"rule_node_id": "d"}, "loser": {"rule_node_id": "a"}}
        for i in range(15)
    ]
    summary = tool_conflicts_summary({"conflicts": conflicts, "conflicts_total": 15}, candidates=["t14"])
    assert len(summary) == MAX_SUMMARY
    assert summary[0] == "t14: deny by d beats allow by a"
    assert summary[-1] == "+6 more tool conflicts"


# --------------------------------------------------------------------------- algebra

TOOLS = ["a", "b", "c", "d", "e"]
tool_lists = st.lists(st.sampled_from(TOOLS), max_size=4, unique=True)
tool_patches = st.fixed_dictionaries(
    {},
    optional={"allow": tool_lists, "deny": tool_lists, "prefer": tool_lists},
)
rule_specs = st.lists(
    st.tuples(tool_patches, st.integers(-3, 3), st.integers(0, 5), st.integers(0, 5)),
    min_size=1,
    max_size=5,
)


def build(specs: list[tuple[dict[str, Any], int, int, int]]) -> list[Any]:
    return [
        rule_node(f"r{i}", then={"tool": patch}, priority=prio, positive=pos, negative=neg)
        for i, (patch, prio, pos, neg) in enumerate(specs)
    ]


@SETTINGS
@given(specs=rule_specs)
def test_allow_is_the_intersection_and_deny_the_union(specs: list[tuple[dict[str, Any], int, int, int]]) -> None:
    policy = evaluate(build(specs), {}).tool_policy
    allows = [set(patch["allow"]) for patch, *_ in specs if "allow" in patch]
    denies = [set(patch["deny"]) for patch, *_ in specs if "deny" in patch]
    if allows:
        assert set(policy["allow"]) == set.intersection(*allows)
    else:
        assert "allow" not in policy
    if denies:
        assert set(policy["deny"]) == set.union(*denies)
    else:
        assert "deny" not in policy


@SETTINGS
@given(specs=rule_specs)
def test_prefer_follows_rank_keeping_each_tools_best_position(
    specs: list[tuple[dict[str, Any], int, int, int]],
) -> None:
    ev = evaluate(build(specs), {})
    prefer = ev.tool_policy.get("prefer", [])
    assert len(prefer) == len(set(prefer))
    expected: list[str] = []
    for match in ev.active:  # rank order
        for tool in (match.patch.tool.prefer or []) if match.patch.tool else []:
            if tool not in expected:
                expected.append(tool)
    assert prefer == expected


@SETTINGS
@given(specs=rule_specs, candidates=st.lists(st.sampled_from(TOOLS), min_size=1, max_size=6), strict=st.booleans())
def test_selected_is_never_denied_and_ordered_is_a_permutation_of_allowed(
    specs: list[tuple[dict[str, Any], int, int, int]], candidates: list[str], strict: bool
) -> None:
    ev = evaluate(build(specs), {})
    policy = ev.tool_policy
    deny = set(policy.get("deny", []))
    try:
        selection = select_tools(candidates, policy, strict, tool_explain=ev.applied["tool_explain"])
    except InvalidRequest as exc:
        assert strict and exc.code == "no_tools_allowed"
        assert all(c in deny or ("allow" in policy and c not in policy["allow"]) for c in candidates)
        return
    assert selection.selected is None or selection.selected not in deny
    assert sorted(selection.ordered) == sorted(selection.allowed)
    assert not deny & set(selection.allowed)
    if "allow" in policy and selection.fallback is None:
        assert set(selection.allowed) <= set(policy["allow"])
    assert selection.ordered[: len(selection.preferred)] == selection.preferred
    assert len(selection.tool_conflicts_summary) <= MAX_SUMMARY


@SETTINGS
@given(
    specs=rule_specs,
    candidates=st.lists(st.sampled_from(TOOLS), min_size=1, max_size=6),
    data=st.data(),
)
def test_decision_is_deterministic_under_permutation_of_rule_order(
    specs: list[tuple[dict[str, Any], int, int, int]], candidates: list[str], data: st.DataObject
) -> None:
    rules = build(specs)
    shuffled = data.draw(st.permutations(rules))
    first, second = evaluate(rules, {}), evaluate(shuffled, {})
    assert first.as_response() == second.as_response()
    a = select_tools(candidates, first.tool_policy, False, tool_explain=first.applied["tool_explain"])
    b = select_tools(candidates, second.tool_policy, False, tool_explain=second.applied["tool_explain"])
    assert a == b
