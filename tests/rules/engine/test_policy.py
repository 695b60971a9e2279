"""PolicyPatch strictness, rule_meta defaults, the rank formula, and the policy merge."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memlane.rules.conditions import MAX_CONDITION_LEAVES
from memlane.rules.policy import (
    PolicyPatch,
    Rank,
    RankedPatch,
    evidence_score,
    fmt_rank,
    merge_policies,
    parse_policy_patch,
    parse_rule_meta,
    rank_score,
    read_stats,
)

# --------------------------------------------------------------------------- PolicyPatch


@pytest.mark.parametrize(
    "then",
    [
        {},
        {"output": {"format": "json"}},
        {"output": {"format": "markdown", "strict": False}},
        {"tool": {"allow": ["a"], "deny": [], "prefer": ["b", "a"]}},
        {"extensions": {"acme.budget": {"max_usd": 3}}},
        {"output": None, "tool": {"allow": None}},
    ],
)
def test_valid_policy_patches_are_accepted(then: dict[str, Any]) -> None:
    check = parse_policy_patch(then)
    assert check.error is None and check.patch is not None


@pytest.mark.parametrize(
    ("then", "where"),
    [
        (None, "missing"),
        ("json", "object"),
        ([], "object"),
        ({"outputs": {}}, "outputs"),
        ({"output": {"format": "yaml"}}, "output.format"),
        ({"output": {"format": "JSON"}}, "output.format"),
        ({"output": {"strict": "true"}}, "output.strict"),
        ({"output": {"strict": 1}}, "output.strict"),
        ({"output": {"color": "red"}}, "output.color"),
        ({"output": "json"}, "output"),
        ({"tool": {"allow": "search"}}, "tool.allow"),
        ({"tool": {"deny": [1]}}, "tool.deny.0"),
        ({"tool": {"prefer": [""]}}, "tool.prefer.0"),
        ({"tool": {"block": ["x"]}}, "tool.block"),
        ({"tool": {"allow": ["x"] * 201}}, "tool.allow"),
        ({"extensions": ["x"]}, "extensions"),
    ],
)
def test_policy_patch_is_strict(then: Any, where: str) -> None:
    check = parse_policy_patch(then)
    assert check.patch is None
    assert check.error is not None and where in check.error


def test_policy_patch_reason_counts_further_errors() -> None:
    check = parse_policy_patch({"output": {"format": "yaml", "strict": "no"}, "x": 1})
    assert check.error is not None and check.error.endswith("(+2 more)")


def test_policy_patch_lists_the_paths_it_sets() -> None:
    patch = PolicyPatch.model_validate(
        {"output": {"format": "json"}, "tool": {"deny": ["x"]}, "extensions": {"b": 1, "a": 2}}
    )
    assert patch.paths() == ["extensions.a", "extensions.b", "output.format", "tool.deny"]


# --------------------------------------------------------------------------- rule_meta and stats


def test_rule_meta_defaults() -> None:
    meta = parse_rule_meta({})
    assert (meta.priority, meta.weight, meta.issues) == (0, 1.0, ())


def test_rule_meta_in_range_is_kept() -> None:
    meta = parse_rule_meta({"rule_meta": {"priority": -100, "weight": 2}})
    assert (meta.priority, meta.weight, meta.issues) == (-100, 2.0, ())
    assert parse_rule_meta({"rule_meta": {"priority": 5.0, "weight": 0}}).priority == 5


@pytest.mark.parametrize(
    ("raw", "priority", "weight", "issues"),
    [
        ({"priority": 101}, 0, 1.0, 1),
        ({"priority": -101}, 0, 1.0, 1),
        ({"priority": 1.5}, 0, 1.0, 1),
        ({"priority": True}, 0, 1.0, 1),
        ({"priority": "9"}, 0, 1.0, 1),
        ({"weight": 2.5}, 0, 1.0, 1),
        ({"weight": -0.1}, 0, 1.0, 1),
        ({"weight": "1"}, 0, 1.0, 1),
        ({"weight": float("inf")}, 0, 1.0, 1),
        ({"priority": 500, "weight": 9}, 0, 1.0, 2),
        ({"priority": 7, "weight": 9}, 7, 1.0, 1),
    ],
)
def test_invalid_rule_meta_falls_back_to_defaults_and_is_reported(
    raw: dict[str, Any], priority: int, weight: float, issues: int
) -> None:
    meta = parse_rule_meta({"rule_meta": raw})
    assert (meta.priority, meta.weight, len(meta.issues)) == (priority, weight, issues)


def test_non_object_rule_meta_is_reported() -> None:
    assert parse_rule_meta({"rule_meta": 5}).issues


@pytest.mark.parametrize(
    ("slots", "expected"),
    [
        ({}, (0, 0)),
        ({"stats": {"positive": 4, "negative": 1}}, (4, 1)),
        ({"stats": {"positive": -3, "negative": "2"}}, (0, 0)),
        ({"stats": "bad"}, (0, 0)),
    ],
)
def test_stats_are_read_from_slots_stats(slots: dict[str, Any], expected: tuple[int, int]) -> None:
    assert read_stats(slots) == expected


# --------------------------------------------------------------------------- rank


@pytest.mark.parametrize(
    ("positive", "negative", "expected"),
    [(0, 0, 0.0), (1, 0, 1 / 3), (10, 0, 10 / 12), (0, 1, -1 / 3), (3, 1, 2 / 6), (5, 5, 0.0)],
)
def test_evidence_score_is_smoothed_signed_balance(positive: int, negative: int, expected: float) -> None:
    assert evidence_score(positive, negative) == pytest.approx(expected)


@settings(max_examples=200, deadline=None)
@given(p=st.integers(0, 10_000), n=st.integers(0, 10_000))
def test_evidence_score_is_bounded_and_monotone(p: int, n: int) -> None:
    score = evidence_score(p, n)
    assert -1 < score < 1
    assert evidence_score(p + 1, n) > score
    assert evidence_score(p, n + 1) < score


def test_rank_formula() -> None:
    assert rank_score(2, 0.5, 1.5, 3) == 2000 + 75 + 3
    rank = Rank.of(parse_rule_meta({"rule_meta": {"priority": -1, "weight": 2}}), 3, 1, 4)
    assert rank.score == pytest.approx(-1000 + (2 / 6) * 200 + 4)
    assert rank.as_dict() == {
        "score": round(-1000 + 200 / 3 + 4, 6),
        "evidence_score": round(1 / 3, 6),
        "priority": -1,
        "weight": 2.0,
        "specificity": 4,
    }


@settings(max_examples=200, deadline=None)
@given(
    priority=st.integers(-100, 99),
    counts=st.tuples(st.integers(0, 10_000), st.integers(0, 10_000), st.integers(0, 10_000), st.integers(0, 10_000)),
    weights=st.tuples(st.floats(0, 2), st.floats(0, 2)),
    specificities=st.tuples(st.integers(0, MAX_CONDITION_LEAVES), st.integers(0, MAX_CONDITION_LEAVES)),
)
def test_one_priority_step_outweighs_evidence_and_specificity(
    priority: int,
    counts: tuple[int, int, int, int],
    weights: tuple[float, float],
    specificities: tuple[int, int],
) -> None:
    higher = rank_score(priority + 1, evidence_score(counts[0], counts[1]), weights[0], specificities[0])
    lower = rank_score(priority, evidence_score(counts[2], counts[3]), weights[1], specificities[1])
    assert higher > lower


def test_fmt_rank_is_short() -> None:
    assert [fmt_rank(x) for x in (1100.0, 1033.3333, -5.5, 0.0, -0.001)] == ["1100", "1033.33", "-5.5", "0", "0"]


# --------------------------------------------------------------------------- merge


def ranked(rule_id: str, rank: float, then: dict[str, Any], state: str = "active") -> RankedPatch:
    patch = parse_policy_patch(then).patch
    assert patch is not None
    return RankedPatch(rule_id, state, rank, patch)


def test_higher_rank_wins_a_scalar_path_and_the_conflict_is_explained() -> None:
    merged = merge_policies(
        [
            ranked("low", 5, {"output": {"format": "text", "strict": True}}),
            ranked("high", 1100, {"output": {"format": "json"}}),
        ]
    )
    assert merged.policy == {"output": {"format": "json", "strict": True}}
    assert merged.conflict_explain == [
        'winner rule high (rank 1100) over loser low (rank 5) on output.format: "json" vs "text"'
    ]
    assert merged.conflicts == [
        {
            "path": "output.format",
            "winner": {"rule_node_id": "high", "rank": 1100, "value": "json"},
            "losers": [{"rule_node_id": "low", "rank": 5, "value": "text"}],
            "explain": merged.conflict_explain,
        }
    ]
    assert [s["rule_node_id"] for s in merged.sources] == ["high", "low"]
    assert merged.sources[1]["paths"] == ["output.format", "output.strict"]


def test_agreeing_rules_are_not_a_conflict() -> None:
    merged = merge_policies(
        [ranked("a", 2, {"output": {"strict": True}}), ranked("b", 1, {"output": {"strict": True}})]
    )
    assert merged.conflicts == [] and merged.policy == {"output": {"strict": True}}


def test_equal_ranks_break_ties_by_rule_id() -> None:
    merged = merge_policies(
        [ranked("b", 10, {"output": {"format": "text"}}), ranked("a", 10, {"output": {"format": "json"}})]
    )
    assert merged.policy["output"]["format"] == "json"


def test_extensions_merge_per_namespace() -> None:
    merged = merge_policies(
        [
            ranked("hi", 9, {"extensions": {"acme": {"level": 1}}}),
            ranked("lo", 1, {"extensions": {"acme": {"level": 2, "x": 1}, "other": True}}),
        ]
    )
    assert merged.policy == {"extensions": {"acme": {"level": 1}, "other": True}}
    assert [c["path"] for c in merged.conflicts] == ["extensions.acme"]


def test_tool_lists_merge_with_intersection_union_and_rank_order() -> None:
    merged = merge_policies(
        [
            ranked("r2", 50, {"tool": {"allow": ["b", "c", "d"], "deny": ["d"], "prefer": ["c", "a"]}}),
            ranked("r1", 900, {"tool": {"allow": ["a", "c", "b"], "deny": ["e"], "prefer": ["a", "b"]}}),
        ]
    )
    assert merged.policy == {"tool": {"allow": ["c", "b"], "deny": ["e", "d"], "prefer": ["a", "b", "c"]}}
    assert merged.conflicts == [], "tool lists merge; their conflicts are in tool_explain"
    kinds = [(c["kind"], c["tool"]) for c in merged.tool_explain["conflicts"]]
    assert kinds == [
        ("allow_not_in_intersection", "a"),
        ("allow_vs_deny", "d"),
        ("prefer_not_allowed", "a"),
    ]
    assert merged.tool_explain["prefer"]["by_tool"] == [
        {"tool": "a", "rule_node_id": "r1", "rank": 900},
        {"tool": "b", "rule_node_id": "r1", "rank": 900},
        {"tool": "c", "rule_node_id": "r2", "rank": 50},
    ]


def test_disjoint_allowlists_allow_nothing_and_say_so() -> None:
    merged = merge_policies([ranked("x", 2, {"tool": {"allow": ["a"]}}), ranked("y", 1, {"tool": {"allow": ["b"]}})])
    assert merged.policy == {"tool": {"allow": []}}
    first = merged.tool_explain["conflicts"][0]
    assert first["kind"] == "allow_empty"
    assert first["explain"] == "allowlists of rules x, y have no tool in common: no tool is allowed"


def test_no_tool_rules_means_no_tool_policy() -> None:
    merged = merge_policies([ranked("x", 1, {"output": {"format": "json"}})])
    assert "tool" not in merged.policy
    assert merged.tool_explain["allow"]["effective"] is None
    assert merged.tool_explain["conflicts"] == []


def test_rules_with_empty_patches_are_not_sources() -> None:
    assert merge_policies([ranked("x", 1, {})]).sources == []
