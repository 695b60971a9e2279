"""The merge's named steps on their own: tool votes, their merge, conflicts, and scalar paths."""

from __future__ import annotations

from typing import Any

from memlane.rules.policy import (
    MAX_TOOL_CONFLICTS,
    RankedPatch,
    collect_tool_votes,
    decide_scalar_paths,
    merge_tool_votes,
    nest_policy,
    parse_policy_patch,
    rank_order,
    render_scalar_conflict,
    render_tool_explain,
    render_tool_policy,
    tool_conflicts,
)


def ranked(rule_id: str, rank: float, then: dict[str, Any]) -> RankedPatch:
    patch = parse_policy_patch(then).patch
    assert patch is not None
    return RankedPatch(rule_id, "active", rank, patch)


def ordered(*items: RankedPatch) -> list[RankedPatch]:
    return rank_order(items)


# --------------------------------------------------------------------------- tools


def test_an_unset_list_casts_no_vote_but_an_empty_list_does() -> None:
    ballot = collect_tool_votes(
        ordered(ranked("unset", 9, {"tool": {"allow": None}}), ranked("empty", 1, {"tool": {"allow": []}}))
    )
    assert [item.rule_node_id for item, _ in ballot.allow] == ["empty"]
    merged = merge_tool_votes(ballot)
    assert merged.allow == []
    [conflict] = tool_conflicts(ballot, merged)
    assert conflict["kind"] == "allow_empty"
    assert conflict["explain"] == "allowlist of rule empty is empty: no tool is allowed"


def test_without_an_allowlist_every_tool_is_allowed_and_allow_is_left_out() -> None:
    ballot = collect_tool_votes(ordered(ranked("d", 1, {"tool": {"deny": ["x"]}})))
    merged = merge_tool_votes(ballot)
    assert merged.allow is None
    assert render_tool_policy(ballot, merged) == {"deny": ["x"]}


def test_each_tool_is_attributed_to_the_highest_ranked_rule_that_lists_it() -> None:
    ballot = collect_tool_votes(
        ordered(
            ranked("low", 1, {"tool": {"deny": ["a", "b"], "prefer": ["c", "d"]}}),
            ranked("high", 5, {"tool": {"deny": ["b"], "prefer": ["d"]}}),
        )
    )
    merged = merge_tool_votes(ballot)
    assert {tool: item.rule_node_id for tool, item in merged.denier.items()} == {"b": "high", "a": "low"}
    assert merged.deny == ["b", "a"]
    assert merged.prefer == ["d", "c"]


def test_a_lower_ranked_deny_wins_over_a_higher_ranked_allow() -> None:
    ballot = collect_tool_votes(
        ordered(ranked("strong", 900, {"tool": {"allow": ["x"]}}), ranked("weak", 1, {"tool": {"deny": ["x"]}}))
    )
    [conflict] = tool_conflicts(ballot, merge_tool_votes(ballot))
    assert conflict["kind"] == "allow_vs_deny"
    assert conflict["winner"] == {"rule_node_id": "weak", "rank": 1, "via": "deny"}
    assert conflict["loser"] == {"rule_node_id": "strong", "rank": 900, "via": "allow"}


def test_conflicts_list_the_empty_allowlist_then_allows_then_prefers() -> None:
    ballot = collect_tool_votes(
        ordered(
            ranked("p", 9, {"tool": {"prefer": ["z"]}}),
            ranked("a1", 5, {"tool": {"allow": ["x"]}}),
            ranked("a2", 3, {"tool": {"allow": ["y"]}}),
        )
    )
    kinds = [(c["kind"], c["tool"]) for c in tool_conflicts(ballot, merge_tool_votes(ballot))]
    assert kinds == [
        ("allow_empty", None),
        ("allow_not_in_intersection", "x"),
        ("allow_not_in_intersection", "y"),
        ("prefer_not_allowed", "z"),
    ]


def test_the_explanation_caps_the_conflicts_but_counts_them_all() -> None:
    tools = [f"t{i}" for i in range(MAX_TOOL_CONFLICTS + 7)]
    ballot = collect_tool_votes(
        ordered(ranked("allow", 2, {"tool": {"allow": tools}}), ranked("deny", 1, {"tool": {"deny": tools}}))
    )
    merged = merge_tool_votes(ballot)
    explain = render_tool_explain(ballot, merged, tool_conflicts(ballot, merged))
    assert len(explain["conflicts"]) == MAX_TOOL_CONFLICTS
    assert explain["conflicts_total"] == MAX_TOOL_CONFLICTS + 7
    assert explain["deny"]["sources"] == ["deny"]


# --------------------------------------------------------------------------- scalar paths


def test_a_lower_rule_loses_a_path_only_when_its_value_differs_as_json() -> None:
    votes = decide_scalar_paths(
        ordered(
            ranked("top", 9, {"extensions": {"n": 1}}),
            ranked("same", 5, {"extensions": {"n": 1.0}}),
            ranked("other", 1, {"extensions": {"n": True}}),
        )
    )
    assert votes.winners["extensions.n"][0].rule_node_id == "top"
    assert [(item.rule_node_id, value) for item, value in votes.losers["extensions.n"]] == [("other", True)]


def test_nested_policy_is_sorted_and_has_tool_only_when_some_rule_set_a_list() -> None:
    winners = decide_scalar_paths(
        ordered(ranked("r", 1, {"output": {"strict": True, "format": "json"}, "extensions": {"b": 1, "a": 2}}))
    ).winners
    policy = nest_policy(winners, {})
    assert list(policy) == ["extensions", "output"]
    assert list(policy["extensions"]) == ["a", "b"] and list(policy["output"]) == ["format", "strict"]
    assert list(nest_policy(winners, {"deny": ["x"]})) == ["extensions", "output", "tool"]


def test_a_scalar_conflict_explains_each_loser_in_its_own_sentence() -> None:
    winner = ranked("w", 1100, {"output": {"format": "json"}})
    losers = [(ranked("l1", 5, {}), "text"), (ranked("l2", 1033.3333, {}), "markdown")]
    conflict = render_scalar_conflict("output.format", (winner, "json"), losers)
    assert conflict["explain"] == [
        'winner rule w (rank 1100) over loser l1 (rank 5) on output.format: "json" vs "text"',
        'winner rule w (rank 1100) over loser l2 (rank 1033.33) on output.format: "json" vs "markdown"',
    ]
    assert [loser["value"] for loser in conflict["losers"]] == ["text", "markdown"]
