"""A worked example computed by hand: four rules across scopes, lanes and states.

R1  global, shared, active;  priority 1, stats 3+/1-, if {intent: code}
    then allow [search, editor, shell], prefer [shell, editor], output.format json
    evidence = (3-1)/(3+1+2) = 1/3; rank = 1*1000 + 33.33 * 1 + 1 leaf = 1034.33
R2  team team-x, private owned by team team-x, active; weight 2, stats 8+/0-,
    if {agent.role: coder, tags: [prod]}, exceptions [{intent: chat}]
    then allow [editor, shell, browser], deny [shell], prefer [browser, editor],
         output.format markdown, output.strict true
    evidence = 8/10 = 0.8; rank = 0 + 0.8*100*2 + 2 leaves = 162
R3  agent agent-a, private owned by agent-a, SHADOW; priority 2, no stats,
    if {tool.name: {$in: [editor, ide]}}
    then deny [editor], prefer [search], output.format text
    rank = 2000 + 0 + 1 = 2001
R4  global, private owned by agent agent-b, active; no condition; then deny [search]

For agent-a of team-x: R4 is hidden by the lane filter; R1 and R2 apply; R3 matches in shadow.
Active merge (R1 then R2): format json (R1 beats R2's markdown), strict true (only R2),
allow = R1 & R2 = [editor, shell] in R1's order, deny = [shell], prefer = R1's [shell, editor]
then R2's browser. Candidates [search, shell, editor, browser]: shell is denied, search and
browser are outside the allowlist, so editor is the only, and selected, tool.
Shadow counterfactual (R3, R1, R2): format text; deny grows to [editor, shell], leaving no
allowed candidate: strict would refuse (no_tools_allowed), non-strict falls back to deny-only
[search, browser] and picks search, R3's preference.
"""

from __future__ import annotations

from typing import Any

import pytest

from memlane.domain.errors import InvalidRequest
from memlane.rules.evaluate import evaluate
from memlane.rules.tool_select import select_tools
from tests.rules.engine.factories import rule_node

R1_THEN = {
    "tool": {"allow": ["search", "editor", "shell"], "prefer": ["shell", "editor"]},
    "output": {"format": "json"},
}
R2_THEN = {
    "tool": {"allow": ["editor", "shell", "browser"], "deny": ["shell"], "prefer": ["browser", "editor"]},
    "output": {"format": "markdown", "strict": True},
}
R3_THEN = {"tool": {"deny": ["editor"], "prefer": ["search"]}, "output": {"format": "text"}}
RULES = [
    rule_node(
        "R1",
        summary="code tasks: JSON output, editing tools",
        if_={"intent": "code"},
        then=R1_THEN,
        priority=1,
        positive=3,
        negative=1,
        commit_id="c1",
    ),
    rule_node(
        "R2",
        scope="team",
        target_team_id="team-x",
        lane="private",
        owner_team_id="team-x",
        if_={"agent.role": "coder", "tags": ["prod"]},
        exceptions=[{"intent": "chat"}],
        then=R2_THEN,
        weight=2,
        positive=8,
        commit_id="c2",
    ),
    rule_node(
        "R3",
        state="shadow",
        scope="agent",
        target_agent_id="agent-a",
        lane="private",
        owner_agent_id="agent-a",
        if_={"tool.name": {"$in": ["editor", "ide"]}},
        then=R3_THEN,
        priority=2,
        commit_id="c3",
    ),
    rule_node("R4", lane="private", owner_agent_id="agent-b", then={"tool": {"deny": ["search"]}}, commit_id="c4"),
]
CONTEXT_A: dict[str, Any] = {
    "agent": {"id": "agent-a", "team_id": "team-x", "role": "coder"},
    "intent": "code",
    "tool": {"name": "editor"},
    "tags": ["prod", "py"],
}
CANDIDATES = ["search", "shell", "editor", "browser", "editor"]
R1_RANK, R2_RANK, R3_RANK = 1034.333333, 162.0, 2001.0


def ref(rule: str, rank: float, via: str) -> dict[str, Any]:
    return {"rule_node_id": rule, "rank": rank, "via": via}


def test_agent_a_sees_r1_r2_active_and_r3_in_shadow() -> None:
    body = evaluate(RULES, CONTEXT_A, include_shadow=True).as_response()
    assert (body["considered"], body["matched"], body["skipped_invalid_then"]) == (3, 3, 0)
    assert body["invalid_then_sample"] == []
    assert body["agent_visibility_summary"] == {
        "agent": {"id": "agent-a", "team_id": "team-x"},
        "rule_scope": {
            "scanned": 4,
            "filtered_by_scope": 0,
            "filtered_by_lane": 1,
            "filtered_by_condition": 0,
            "skipped_invalid_then": 0,
            "matched_active": 2,
            "matched_shadow": 1,
        },
        "lane": {
            "applied": True,
            "reason": "enforced_agent_team",
            "legacy_unowned_private_visible": 0,
            "legacy_unowned_private_detected": 0,
        },
    }
    assert body["active"] == [
        {
            "rule_node_id": "R1",
            "state": "active",
            "summary": "code tasks: JSON output, editing tools",
            "rule_scope": "global",
            "if_json": {"intent": "code"},
            "then_json": R1_THEN,
            "exceptions_json": [],
            "stats": {"positive": 3, "negative": 1},
            "rank": {"score": R1_RANK, "evidence_score": 0.333333, "priority": 1, "weight": 1.0, "specificity": 1},
            "match_detail": {"condition_paths": ["intent"], "condition_path_count": 1},
            "commit_id": "c1",
        },
        {
            "rule_node_id": "R2",
            "state": "active",
            "summary": None,
            "rule_scope": "team",
            "target_team_id": "team-x",
            "if_json": {"agent.role": "coder", "tags": ["prod"]},
            "then_json": R2_THEN,
            "exceptions_json": [{"intent": "chat"}],
            "stats": {"positive": 8, "negative": 0},
            "rank": {"score": R2_RANK, "evidence_score": 0.8, "priority": 0, "weight": 2.0, "specificity": 2},
            "match_detail": {"condition_paths": ["agent.role", "tags"], "condition_path_count": 2},
            "commit_id": "c2",
        },
    ]
    assert body["shadow"] == [
        {
            "rule_node_id": "R3",
            "state": "shadow",
            "summary": None,
            "rule_scope": "agent",
            "target_agent_id": "agent-a",
            "if_json": {"tool.name": {"$in": ["editor", "ide"]}},
            "then_json": R3_THEN,
            "exceptions_json": [],
            "stats": {"positive": 0, "negative": 0},
            "rank": {"score": R3_RANK, "evidence_score": 0.0, "priority": 2, "weight": 1.0, "specificity": 1},
            "match_detail": {"condition_paths": ["tool.name.$in"], "condition_path_count": 1},
            "commit_id": "c3",
        }
    ]


def test_agent_a_active_policy_and_its_explanations() -> None:
    applied = evaluate(RULES, CONTEXT_A, include_shadow=True).applied
    assert applied["policy"] == {
        "output": {"format": "json", "strict": True},
        "tool": {"allow": ["editor", "shell"], "deny": ["shell"], "prefer": ["shell", "editor", "browser"]},
    }
    assert applied["sources"] == [
        {
            "rule_node_id": "R1",
            "state": "active",
            "rank": R1_RANK,
            "paths": ["output.format", "tool.allow", "tool.prefer"],
        },
        {
            "rule_node_id": "R2",
            "state": "active",
            "rank": R2_RANK,
            "paths": ["output.format", "output.strict", "tool.allow", "tool.deny", "tool.prefer"],
        },
    ]
    explain = 'winner rule R1 (rank 1034.33) over loser R2 (rank 162) on output.format: "json" vs "markdown"'
    assert applied["conflict_explain"] == [explain]
    assert applied["conflicts"] == [
        {
            "path": "output.format",
            "winner": {"rule_node_id": "R1", "rank": R1_RANK, "value": "json"},
            "losers": [{"rule_node_id": "R2", "rank": R2_RANK, "value": "markdown"}],
            "explain": [explain],
        }
    ]
    assert applied["tool_explain"] == {
        "allow": {"effective": ["editor", "shell"], "semantics": "intersection", "sources": ["R1", "R2"]},
        "deny": {"effective": ["shell"], "semantics": "union", "sources": ["R2"]},
        "prefer": {
            "effective": ["shell", "editor", "browser"],
            "semantics": "rank_ordered",
            "sources": ["R1", "R2"],
            "by_tool": [
                {"tool": "shell", "rule_node_id": "R1", "rank": R1_RANK},
                {"tool": "editor", "rule_node_id": "R1", "rank": R1_RANK},
                {"tool": "browser", "rule_node_id": "R2", "rank": R2_RANK},
            ],
        },
        "conflicts": [
            {
                "kind": "allow_not_in_intersection",
                "tool": "search",
                "winner": ref("R2", R2_RANK, "allow"),
                "loser": ref("R1", R1_RANK, "allow"),
                "explain": 'tool "search": allowed by rule R1 (rank 1034.33) but not in the allowlist of rule R2 '
                "(rank 162); allowlists intersect, so it is not allowed",
            },
            {
                "kind": "allow_vs_deny",
                "tool": "shell",
                "winner": ref("R2", R2_RANK, "deny"),
                "loser": ref("R1", R1_RANK, "allow"),
                "explain": 'tool "shell": deny by rule R2 (rank 162) wins over allow by rule R1 (rank 1034.33); '
                "deny always wins",
            },
            {
                "kind": "allow_not_in_intersection",
                "tool": "browser",
                "winner": ref("R1", R1_RANK, "allow"),
                "loser": ref("R2", R2_RANK, "allow"),
                "explain": 'tool "browser": allowed by rule R2 (rank 162) but not in the allowlist of rule R1 '
                "(rank 1034.33); allowlists intersect, so it is not allowed",
            },
            {
                "kind": "prefer_vs_deny",
                "tool": "shell",
                "winner": ref("R2", R2_RANK, "deny"),
                "loser": ref("R1", R1_RANK, "prefer"),
                "explain": 'tool "shell": deny by rule R2 (rank 162) wins over prefer by rule R1 (rank 1034.33); '
                "deny always wins",
            },
            {
                "kind": "prefer_not_allowed",
                "tool": "browser",
                "winner": ref("R1", R1_RANK, "allow"),
                "loser": ref("R2", R2_RANK, "prefer"),
                "explain": 'tool "browser": preferred by rule R2 (rank 162) but not in the allowlist of rule R1 '
                "(rank 1034.33); the allowlist wins",
            },
        ],
        "conflicts_total": 5,
    }


def test_agent_a_selection_is_editor() -> None:
    ev = evaluate(RULES, CONTEXT_A, include_shadow=True)
    selection = select_tools(CANDIDATES, ev.tool_policy, strict=True, tool_explain=ev.applied["tool_explain"])
    assert selection.as_dict() == {
        "candidates": ["search", "shell", "editor", "browser"],
        "allowed": ["editor"],
        "denied": ["shell"],
        "preferred": ["editor"],
        "ordered": ["editor"],
        "selected": "editor",
    }
    assert selection.tool_conflicts_summary == [
        "search: outside allowlist of R2 (allowed by R1)",
        "shell: deny by R2 beats allow by R1",
        "browser: outside allowlist of R1 (allowed by R2)",
        "shell: deny by R2 beats prefer by R1",
        "browser: preferred by R2 but outside allowlist of R1",
    ]


def test_agent_a_shadow_counterfactual_policy() -> None:
    applied = evaluate(RULES, CONTEXT_A, include_shadow=True).applied
    assert applied["shadow_policy"] == {
        "output": {"format": "text", "strict": True},
        "tool": {
            "allow": ["editor", "shell"],
            "deny": ["editor", "shell"],
            "prefer": ["search", "shell", "editor", "browser"],
        },
    }
    assert [(s["rule_node_id"], s["state"]) for s in applied["shadow_sources"]] == [
        ("R3", "shadow"),
        ("R1", "active"),
        ("R2", "active"),
    ]
    assert applied["shadow_conflicts"] == [
        {
            "path": "output.format",
            "winner": {"rule_node_id": "R3", "rank": R3_RANK, "value": "text"},
            "losers": [
                {"rule_node_id": "R1", "rank": R1_RANK, "value": "json"},
                {"rule_node_id": "R2", "rank": R2_RANK, "value": "markdown"},
            ],
            "explain": [
                'winner rule R3 (rank 2001) over loser R1 (rank 1034.33) on output.format: "text" vs "json"',
                'winner rule R3 (rank 2001) over loser R2 (rank 162) on output.format: "text" vs "markdown"',
            ],
        }
    ]
    conflicts = [
        (c["kind"], c["tool"], c["winner"]["rule_node_id"], c["loser"]["rule_node_id"])
        for c in applied["shadow_tool_explain"]["conflicts"]
    ]
    assert conflicts == [
        ("allow_not_in_intersection", "search", "R2", "R1"),
        ("allow_vs_deny", "editor", "R3", "R1"),
        ("allow_vs_deny", "shell", "R2", "R1"),
        ("allow_not_in_intersection", "browser", "R1", "R2"),
        ("prefer_not_allowed", "search", "R2", "R3"),
        ("prefer_vs_deny", "shell", "R2", "R1"),
        ("prefer_vs_deny", "editor", "R3", "R1"),
        ("prefer_not_allowed", "browser", "R1", "R2"),
    ]


def test_agent_a_shadow_selection_falls_back_to_deny_only() -> None:
    ev = evaluate(RULES, CONTEXT_A, include_shadow=True)
    shadow_policy = ev.shadow_tool_policy
    explain = ev.applied["shadow_tool_explain"]
    with pytest.raises(InvalidRequest) as caught:
        select_tools(CANDIDATES, shadow_policy, strict=True, tool_explain=explain)
    assert caught.value.code == "no_tools_allowed"
    selection = select_tools(CANDIDATES, shadow_policy, strict=False, tool_explain=explain)
    assert selection.as_dict() == {
        "candidates": ["search", "shell", "editor", "browser"],
        "allowed": ["search", "browser"],
        "denied": ["shell", "editor"],
        "preferred": ["search", "browser"],
        "ordered": ["search", "browser"],
        "selected": "search",
        "fallback": {
            "applied": True,
            "reason": "allowlist_removed_all_candidates",
            "mode": "deny_only",
            "ignored_allow": ["editor", "shell"],
        },
    }
    assert len(selection.tool_conflicts_summary) == 8


def test_agent_b_of_another_team_sees_r1_and_its_own_r4() -> None:
    context = {
        "agent": {"id": "agent-b", "team_id": "team-y", "role": "coder"},
        "intent": "code",
        "tool": {"name": "editor"},
        "tags": ["prod"],
    }
    ev = evaluate(RULES, context, include_shadow=False)
    body = ev.as_response()
    assert body["agent_visibility_summary"]["rule_scope"] == {
        "scanned": 3,  # R3 is shadow and include_shadow is false
        "filtered_by_scope": 1,  # R2 targets team-x
        "filtered_by_lane": 0,
        "filtered_by_condition": 0,
        "skipped_invalid_then": 0,
        "matched_active": 2,
        "matched_shadow": 0,
    }
    assert [m["rule_node_id"] for m in body["active"]] == ["R1", "R4"]
    assert ev.tool_policy == {"allow": ["search", "editor", "shell"], "deny": ["search"], "prefer": ["shell", "editor"]}
    selection = select_tools(CANDIDATES, ev.tool_policy, tool_explain=ev.applied["tool_explain"])
    assert (selection.allowed, selection.denied, selection.selected) == (["shell", "editor"], ["search"], "shell")
    assert selection.tool_conflicts_summary == ["search: deny by R4 beats allow by R1"]
