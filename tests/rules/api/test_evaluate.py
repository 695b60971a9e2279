"""POST /v1/memory/rules/evaluate over real HTTP: what a planner gets back before it decides."""

from __future__ import annotations

import uuid

import httpx

from tests.rules.api.helpers import evaluate, import_rules, rule, write_rules
from tests.support.memory_api import has_long_float_list, new_scope

RESPONSE_KEYS = {
    "tenant_id",
    "scope",
    "considered",
    "matched",
    "skipped_invalid_then",
    "invalid_then_sample",
    "agent_visibility_summary",
    "active",
    "shadow",
    "applied",
}
MATCH_KEYS = {
    "rule_node_id",
    "state",
    "summary",
    "rule_scope",
    "if_json",
    "then_json",
    "exceptions_json",
    "stats",
    "rank",
    "match_detail",
    "commit_id",
}
CTX = {"version": 1, "run": {"id": "r1"}, "intent": "search", "agent": {"role": "researcher"}, "tags": ["web"]}


def test_evaluate_returns_the_contract_shape_with_active_and_shadow_matches(client: httpx.Client) -> None:
    scope = new_scope()
    ids = write_rules(
        client,
        scope,
        [
            rule("json-out", if_={"intent": "search"}, then={"output": {"format": "json"}}, state="active"),
            rule("try-web", if_={"tags": ["web"]}, then={"tool": {"prefer": ["web_search"]}}, state="shadow"),
            rule("draft", then={"output": {"format": "text"}}, state="draft"),
            rule("other-intent", if_={"intent": "write"}, then={"output": {"strict": True}}),
        ],
    )
    body = evaluate(client, scope, CTX)
    assert set(body) == RESPONSE_KEYS
    assert body["scope"] == scope and body["tenant_id"] == "default"
    assert [m["rule_node_id"] for m in body["active"]] == [ids["json-out"]]
    assert [m["rule_node_id"] for m in body["shadow"]] == [ids["try-web"]]
    match = body["active"][0]
    assert set(match) == MATCH_KEYS
    assert match["state"] == "active" and match["rule_scope"] == "global"
    assert match["if_json"] == {"intent": "search"} and match["then_json"] == {"output": {"format": "json"}}
    assert match["stats"] == {"positive": 0, "negative": 0}
    assert set(match["rank"]) == {"score", "evidence_score", "priority", "weight", "specificity"}
    assert match["match_detail"] == {"condition_paths": ["intent"], "condition_path_count": 1}
    assert match["commit_id"]
    # the draft rule is never evaluated; the non-matching rule is considered but filtered
    assert body["considered"] == 3 and body["matched"] == 2
    rs = body["agent_visibility_summary"]["rule_scope"]
    assert rs["scanned"] == 3 and rs["matched_active"] == 1 and rs["matched_shadow"] == 1
    assert rs["filtered_by_condition"] == 1
    applied = body["applied"]
    assert applied["policy"] == {"output": {"format": "json"}}
    assert applied["shadow_policy"] == {"output": {"format": "json"}, "tool": {"prefer": ["web_search"]}}
    assert {"sources", "conflicts", "conflict_explain", "tool_explain", "shadow_tool_explain"} <= set(applied)
    assert not has_long_float_list(body)


def test_include_shadow_false_ignores_shadow_rules(client: httpx.Client) -> None:
    scope = new_scope()
    write_rules(client, scope, [rule("s", then={"tool": {"deny": ["rm"]}}, state="shadow")])
    body = evaluate(client, scope, CTX, include_shadow=False)
    assert body["shadow"] == [] and body["matched"] == 0 and body["considered"] == 0
    assert "shadow_policy" not in body["applied"]


def test_a_rule_with_an_invalid_then_is_counted_and_sampled_but_never_applied(client: httpx.Client) -> None:
    scope = new_scope()
    # rules/state lets no such rule go live: these come from a store that did (an import)
    ids = import_rules(
        client,
        scope,
        [
            rule("typo", then={"tool": {"allow": "web_search"}}),
            rule("unknown-key", then={"tools": {"allow": ["x"]}}),
        ],
    )
    ids |= write_rules(client, scope, [rule("fine", then={"output": {"format": "markdown"}})])
    body = evaluate(client, scope, CTX)
    assert body["skipped_invalid_then"] == 2
    sampled = {s["rule_node_id"] for s in body["invalid_then_sample"]}
    assert sampled == {ids["typo"], ids["unknown-key"]}
    assert all(s["reason"] for s in body["invalid_then_sample"])
    assert body["applied"]["policy"] == {"output": {"format": "markdown"}}
    assert body["agent_visibility_summary"]["rule_scope"]["skipped_invalid_then"] == 2


def test_team_and_agent_rules_apply_only_to_their_target(client: httpx.Client) -> None:
    scope = new_scope()
    ids = write_rules(
        client,
        scope,
        [
            rule("team", then={"output": {"strict": True}}, rule_scope="team", target_team_id="red"),
            rule("agent", then={"output": {"format": "text"}}, rule_scope="agent", target_agent_id="alice"),
        ],
    )
    ids |= import_rules(client, scope, [rule("broken-team", then={"output": {"format": "json"}}, rule_scope="team")])
    red_alice = evaluate(client, scope, {"agent": {"id": "alice", "team_id": "red"}})
    assert {m["rule_node_id"] for m in red_alice["active"]} == {ids["team"], ids["agent"]}
    flat = evaluate(client, scope, {"agent_id": "alice", "team_id": "blue"})
    assert {m["rule_node_id"] for m in flat["active"]} == {ids["agent"]}
    nobody = evaluate(client, scope, {})
    assert nobody["active"] == []
    # a team rule without a target is misconfigured: filtered by scope for everyone
    assert nobody["agent_visibility_summary"]["rule_scope"]["filtered_by_scope"] == 3
    team_match = next(m for m in red_alice["active"] if m["rule_node_id"] == ids["team"])
    assert team_match["rule_scope"] == "team" and team_match["target_team_id"] == "red"


def test_private_rules_are_visible_only_to_their_owner_once_the_context_names_an_agent(
    client: httpx.Client,
) -> None:
    scope = new_scope()
    ids = write_rules(
        client,
        scope,
        [
            rule("mine", then={"tool": {"deny": ["shell"]}}, memory_lane="private", owner_agent_id="alice"),
            rule("team", then={"tool": {"deny": ["email"]}}, memory_lane="private", owner_team_id="red"),
            rule("everyone", then={"tool": {"deny": ["ftp"]}}),
        ],
    )
    alice = evaluate(client, scope, {"agent": {"id": "alice"}})
    assert {m["rule_node_id"] for m in alice["active"]} == {ids["mine"], ids["everyone"]}
    lane = alice["agent_visibility_summary"]["lane"]
    assert lane["applied"] is True and lane["reason"] == "enforced_agent_only"
    bob_red = evaluate(client, scope, {"agent": {"id": "bob", "team_id": "red"}})
    assert {m["rule_node_id"] for m in bob_red["active"]} == {ids["team"], ids["everyone"]}
    assert bob_red["agent_visibility_summary"]["lane"]["reason"] == "enforced_agent_team"
    assert bob_red["agent_visibility_summary"]["rule_scope"]["filtered_by_lane"] == 1
    anonymous = evaluate(client, scope, {"intent": "x"})
    assert len(anonymous["active"]) == 3
    assert anonymous["agent_visibility_summary"]["lane"] == {
        "applied": False,
        "reason": "missing_agent_context",
        "legacy_unowned_private_visible": 0,
        "legacy_unowned_private_detected": 0,
    }


def test_priority_outranks_feedback_and_specificity_breaks_ties(client: httpx.Client) -> None:
    scope = new_scope()
    ids = write_rules(
        client,
        scope,
        [
            rule("broad", then={"output": {"format": "text"}}),
            rule("narrow", if_={"intent": "search", "agent.role": "researcher"}, then={"output": {"format": "json"}}),
            rule("boss", then={"output": {"format": "markdown"}}, priority=1),
        ],
    )
    body = evaluate(client, scope, CTX)
    assert [m["rule_node_id"] for m in body["active"]] == [ids["boss"], ids["narrow"], ids["broad"]]
    assert body["applied"]["policy"]["output"] == {"format": "markdown"}
    boss = body["active"][0]["rank"]
    assert boss["priority"] == 1 and boss["score"] == 1000.0
    conflict = body["applied"]["conflicts"][0]
    assert conflict["path"] == "output.format" and conflict["winner"]["rule_node_id"] == ids["boss"]
    assert len(body["applied"]["conflict_explain"]) == 2


def test_exceptions_veto_a_matching_rule(client: httpx.Client) -> None:
    scope = new_scope()
    write_rules(
        client,
        scope,
        [
            rule(
                "no-web-for-pii",
                if_={"tags": {"$contains": "web"}},
                exceptions=[{"agent.role": "researcher"}],
                then={"tool": {"deny": ["web_search"]}},
            )
        ],
    )
    assert evaluate(client, scope, CTX)["matched"] == 0
    assert evaluate(client, scope, {**CTX, "agent": {"role": "intern"}})["matched"] == 1


def test_limit_keeps_the_top_ranked_matches(client: httpx.Client) -> None:
    scope = new_scope()
    ids = write_rules(client, scope, [rule(f"r{i}", then={"output": {"strict": True}}, priority=i) for i in range(5)])
    body = evaluate(client, scope, {}, limit=2)
    assert body["matched"] == 5
    assert [m["rule_node_id"] for m in body["active"]] == [ids["r4"], ids["r3"]]


def test_rules_of_other_scopes_and_tenants_are_never_seen(client: httpx.Client) -> None:
    scope = new_scope()
    write_rules(client, scope, [rule("here", then={"output": {"strict": True}})])
    assert evaluate(client, new_scope(), {})["considered"] == 0
    r = client.post(
        "/v1/memory/rules/evaluate",
        json={"scope": scope, "context": {}},
        headers={"X-Tenant-Id": "t-" + uuid.uuid4().hex},
    )
    assert r.status_code == 200 and r.json()["considered"] == 0


def test_bad_requests_get_400_naming_the_field(client: httpx.Client) -> None:
    scope = new_scope()
    cases = [
        ({"scope": scope}, "context"),
        ({"scope": scope, "context": None}, "context"),
        ({"scope": scope, "context": {}, "limit": 0}, "limit"),
        ({"scope": scope, "context": {}, "limit": 201}, "limit"),
        ({"scope": scope, "context": {}, "include_shadow": "maybe"}, "include_shadow"),
        ({"scope": scope, "context": {}, "surprise": 1}, "surprise"),
    ]
    for body, field in cases:
        r = client.post("/v1/memory/rules/evaluate", json=body)
        assert r.status_code == 400, (body, r.text)
        assert r.json()["error"] == "invalid_request"
        assert r.json()["message"].startswith(field), r.json()
    r = client.post("/v1/memory/rules/evaluate", content=b"{not json", headers={"content-type": "application/json"})
    assert r.status_code == 400 and r.json()["error"] == "invalid_json"


def test_any_json_context_is_accepted(client: httpx.Client) -> None:
    scope = new_scope()
    write_rules(client, scope, [rule("always", then={"output": {"strict": True}})])
    for context in ([1, 2], "text", 3, True, {"deep": {"er": [{"x": 1}]}}):
        assert evaluate(client, scope, context)["matched"] == 1


def test_oversized_contexts_are_refused_before_any_rule_runs(client: httpx.Client) -> None:
    deep: dict[str, object] = {}
    cursor = deep
    for _ in range(70):
        cursor["x"] = {}
        cursor = cursor["x"]  # type: ignore[assignment]
    for context, why in (
        (deep, "nested deeper than 64"),
        ({"tags": list(range(20_001))}, "more than 20000 values"),
        ({"text": "x" * (256 * 1024 + 1)}, "characters of text"),
    ):
        r = client.post("/v1/memory/rules/evaluate", json={"context": context})
        assert r.status_code == 400 and why in r.json()["message"], r.text[:300]
    r = client.post("/v1/memory/recall", json={"query_embedding": [0.1] * 384, "rules_context": deep})
    assert r.status_code == 400 and r.json()["details"]["field"] == "rules_context"
