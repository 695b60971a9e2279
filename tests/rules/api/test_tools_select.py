"""POST /v1/memory/tools/select: allowlists intersect, denylists unite, prefer orders by rank."""

from __future__ import annotations

import httpx

from tests.rules.api.helpers import rule, select, write_rules
from tests.support.memory_api import new_scope

SELECTION_KEYS = {"candidates", "allowed", "denied", "preferred", "ordered", "selected"}
RULES_KEYS = {
    "considered",
    "matched",
    "skipped_invalid_then",
    "invalid_then_sample",
    "agent_visibility_summary",
    "applied",
    "tool_conflicts_summary",
}
TOOLS = ["web_search", "calculator", "code_exec", "shell", "email"]


def test_allow_intersects_deny_unites_and_prefer_orders_by_rank(client: httpx.Client) -> None:
    scope = new_scope()
    ids = write_rules(
        client,
        scope,
        [
            rule("allow-a", then={"tool": {"allow": ["web_search", "calculator", "code_exec", "shell"]}}),
            rule("allow-b", then={"tool": {"allow": ["calculator", "code_exec", "shell", "web_search"]}}),
            rule("deny-1", then={"tool": {"deny": ["shell"]}}),
            rule("deny-2", then={"tool": {"deny": ["email"]}}),
            rule("prefer-low", then={"tool": {"prefer": ["web_search"]}}),
            rule("prefer-high", then={"tool": {"prefer": ["code_exec", "calculator"]}}, priority=2),
        ],
    )
    r = select(client, scope, {"intent": "math"}, [*TOOLS, "calculator"])
    assert r.status_code == 200, r.text
    body = r.json()
    assert set(body) == {"tenant_id", "scope", "candidates", "selection", "rules"}
    assert body["candidates"] == TOOLS  # deduplicated, first occurrence kept
    sel = body["selection"]
    assert set(sel) == SELECTION_KEYS
    assert sel["denied"] == ["shell", "email"]
    assert sel["allowed"] == ["web_search", "calculator", "code_exec"]
    assert sel["preferred"] == ["code_exec", "calculator", "web_search"]
    assert sel["ordered"] == ["code_exec", "calculator", "web_search"]
    assert sel["selected"] == "code_exec"
    assert set(body["rules"]) == RULES_KEYS
    assert body["rules"]["matched"] == 6
    tool = body["rules"]["applied"]["policy"]["tool"]
    assert set(tool["deny"]) == {"shell", "email"}
    assert "shadow_selection" not in body["rules"]
    assert any(ids["deny-1"] in line for line in body["rules"]["tool_conflicts_summary"])
    # deterministic: the same request gives the same answer
    assert select(client, scope, {"intent": "math"}, [*TOOLS, "calculator"]).json() == body


def test_without_rules_every_candidate_is_allowed_in_the_callers_order(client: httpx.Client) -> None:
    body = select(client, new_scope(), {}, ["b", "a", "c"]).json()
    assert body["selection"]["ordered"] == ["b", "a", "c"] and body["selection"]["selected"] == "b"
    assert body["rules"]["tool_conflicts_summary"] == []


def test_strict_selection_that_removes_every_candidate_is_400_no_tools_allowed(client: httpx.Client) -> None:
    scope = new_scope()
    write_rules(client, scope, [rule("only-calc", then={"tool": {"allow": ["calculator"]}})])
    r = select(client, scope, {}, ["web_search", "shell"])
    assert r.status_code == 400
    err = r.json()
    assert err["error"] == "no_tools_allowed"
    assert err["details"]["reason"] == "allowlist_removed_all_candidates"
    assert err["details"]["candidates"] == ["web_search", "shell"]


def test_non_strict_selection_falls_back_to_deny_only(client: httpx.Client) -> None:
    scope = new_scope()
    write_rules(
        client,
        scope,
        [
            rule("only-calc", then={"tool": {"allow": ["calculator"]}}),
            rule("no-shell", then={"tool": {"deny": ["shell"]}}),
        ],
    )
    body = select(client, scope, {}, ["web_search", "shell"], strict=False).json()
    sel = body["selection"]
    assert sel["allowed"] == ["web_search"] and sel["selected"] == "web_search"
    assert sel["fallback"] == {
        "applied": True,
        "reason": "allowlist_removed_all_candidates",
        "mode": "deny_only",
        "ignored_allow": ["calculator"],
    }


def test_deny_is_never_relaxed_even_without_strict(client: httpx.Client) -> None:
    scope = new_scope()
    write_rules(client, scope, [rule("no-shell", then={"tool": {"deny": ["shell"]}})])
    strict = select(client, scope, {}, ["shell"])
    assert strict.status_code == 400 and strict.json()["details"]["reason"] == "denylist_removed_all_candidates"
    lax = select(client, scope, {}, ["shell"], strict=False).json()["selection"]
    assert lax["selected"] is None and lax["ordered"] == [] and lax["fallback"]["applied"] is False


def test_shadow_selection_shows_what_shadow_rules_would_change_without_enforcing_it(client: httpx.Client) -> None:
    scope = new_scope()
    write_rules(
        client,
        scope,
        [
            rule("active-prefer", then={"tool": {"prefer": ["web_search"]}}),
            rule("shadow-deny", then={"tool": {"deny": ["web_search"]}}, state="shadow"),
            rule("shadow-deny-all", then={"tool": {"deny": ["calculator"]}}, state="shadow", if_={"intent": "x"}),
        ],
    )
    body = select(client, scope, {}, ["web_search", "calculator"], include_shadow=True).json()
    assert body["selection"]["selected"] == "web_search"  # shadow rules never enforce
    shadow = body["rules"]["shadow_selection"]
    assert shadow["selected"] == "calculator" and shadow["denied"] == ["web_search"]
    assert any("web_search" in line for line in body["rules"]["shadow_tool_conflicts_summary"])
    # a shadow policy that would leave nothing is reported, never a 400
    everything = select(client, scope, {"intent": "x"}, ["web_search", "calculator"], include_shadow=True)
    assert everything.status_code == 200
    report = everything.json()["rules"]["shadow_selection"]
    assert report["selected"] is None and report["fallback"]["error"] == "no_tools_allowed"


def test_the_conflicts_summary_is_bounded(client: httpx.Client) -> None:
    scope = new_scope()
    many = [f"tool_{i:02d}" for i in range(30)]
    write_rules(
        client,
        scope,
        [
            rule("deny-all", then={"tool": {"deny": many[:25]}}),
            rule("prefer-all", then={"tool": {"prefer": many}}),
        ],
    )
    body = select(client, scope, {}, many).json()
    summary = body["rules"]["tool_conflicts_summary"]
    assert len(summary) == 10 and summary[-1] == "+16 more tool conflicts"
    assert body["rules"]["applied"]["tool_explain"]["conflicts_total"] == 25
    assert body["selection"]["ordered"] == many[25:]


def test_select_requests_are_validated(client: httpx.Client) -> None:
    scope = new_scope()
    for extra in (
        {"candidates": []},
        {"candidates": [f"t{i}" for i in range(201)]},
        {"candidates": [""]},
        {"candidates": ["x"], "rules_limit": 0},
        {"candidates": ["x"], "rules_limit": 201},
        {"candidates": ["x"], "strict": "sometimes"},
        {"candidates": "x"},
    ):
        r = client.post("/v1/memory/tools/select", json={"scope": scope, "context": {}, **extra})
        assert r.status_code == 400 and r.json()["error"] == "invalid_request", (extra, r.text)
    r = client.post("/v1/memory/tools/select", json={"scope": scope, "candidates": ["x"]})
    assert r.status_code == 400 and r.json()["message"].startswith("context")
