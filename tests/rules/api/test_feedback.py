"""Feedback: /v1/memory/feedback for one rule, /v1/memory/tools/feedback for a tool decision."""

from __future__ import annotations

import uuid
from concurrent.futures import ThreadPoolExecutor

import httpx

from tests.rules.api.helpers import evaluate, feedback, read_node, rule, select, set_state, tools_feedback, write_rules
from tests.support.memory_api import new_scope, write
from tests.support.server import LiveServer

TOOLS_FEEDBACK_KEYS = {"ok", "tenant_id", "scope", "updated_rules", "rule_node_ids", "commit_id", "commit_hash"}


def stats_of(client: httpx.Client, scope: str, rule_id: str) -> dict[str, int]:
    body = evaluate(client, scope, {})
    match = next(m for m in body["active"] + body["shadow"] if m["rule_node_id"] == rule_id)
    return dict(match["stats"])


def test_rule_feedback_counts_outcomes_and_moves_the_evidence_score(client: httpx.Client) -> None:
    scope = new_scope()
    rid = write_rules(client, scope, [rule("r", then={"output": {"strict": True}})])["r"]
    r = feedback(client, scope, rid, "positive", run_id="run-1", note="worked")
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["ok"] is True and body["rule_node_id"] == rid and body["outcome"] == "positive"
    assert body["stats"] == {"positive": 1, "negative": 0, "neutral": 0}
    assert body["commit_id"] and len(body["commit_hash"]) == 64
    feedback(client, scope, rid, "positive", run_id="run-2")
    feedback(client, scope, rid, "negative")
    last = feedback(client, scope, rid, "neutral").json()
    assert last["stats"] == {"positive": 2, "negative": 1, "neutral": 1}
    assert stats_of(client, scope, rid) == {"positive": 2, "negative": 1}
    rank = evaluate(client, scope, {})["active"][0]["rank"]
    assert rank["evidence_score"] == round((2 - 1) / (2 + 1 + 2), 6)
    assert rank["score"] == round(rank["evidence_score"] * 100, 6)


def test_feedback_keeps_distinct_positive_runs_for_promotion(client: httpx.Client, live_server: LiveServer) -> None:
    scope = new_scope()
    rid = write_rules(client, scope, [rule("r", then={"output": {"strict": True}}, state="draft")])["r"]
    for run in ("a", "b", "a", "c"):
        feedback(client, scope, rid, "positive", run_id=run)
    feedback(client, scope, rid, "positive")  # no run id: counts, but not as a distinct run
    stats = read_node(live_server, scope, rid).slots["stats"]
    assert stats["positive"] == 5 and stats["positive_run_ids"] == ["b", "a", "c"]
    assert stats["last_outcome"] == "positive" and stats["last_source"] == "feedback"


def test_feedback_for_unknown_or_foreign_nodes_is_refused(client: httpx.Client) -> None:
    scope = new_scope()
    r = feedback(client, scope, str(uuid.uuid4()), "positive")
    assert r.status_code == 404 and r.json()["error"] == "rule_not_found"
    event = write(client, scope, [{"client_id": "e", "type": "event", "title": "x"}])["nodes"][0]["id"]
    r = feedback(client, scope, event, "positive")
    assert r.status_code == 400 and r.json()["error"] == "not_a_rule"
    for bad in ({"outcome": "great"}, {"rule_node_id": "nope"}, {"input_text": None}, {"note": "x" * 2001}):
        body = {"scope": scope, "rule_node_id": str(uuid.uuid4()), "outcome": "positive", "input_text": "x", **bad}
        if bad.get("input_text", "") is None:
            del body["input_text"]
        r = client.post("/v1/memory/feedback", json=body)
        assert r.status_code == 400 and r.json()["error"] == "invalid_request", (bad, r.text)


def test_concurrent_feedback_loses_no_outcome(client: httpx.Client, live_server: LiveServer) -> None:
    scope = new_scope()
    rid = write_rules(client, scope, [rule("busy", then={"output": {"strict": True}})])["busy"]

    def send(i: int) -> int:
        with httpx.Client(base_url=live_server.url, timeout=30) as c:
            return feedback(c, scope, rid, "positive" if i % 3 else "negative", run_id=f"run-{i}").status_code

    with ThreadPoolExecutor(max_workers=8) as pool:
        codes = list(pool.map(send, range(30)))
    assert codes == [200] * 30
    assert stats_of(client, scope, rid) == {"positive": 20, "negative": 10}


def test_tools_feedback_attributes_to_the_rules_that_touched_tools(client: httpx.Client) -> None:
    scope = new_scope()
    ids = write_rules(
        client,
        scope,
        [
            rule("prefer", then={"tool": {"prefer": ["web_search"]}}),
            rule("deny", then={"tool": {"deny": ["shell"]}}, priority=1),
            rule("format", then={"output": {"format": "json"}}),
            rule("elsewhere", then={"tool": {"deny": ["x"]}}, if_={"intent": "other"}),
            rule("shadowy", then={"tool": {"prefer": ["calculator"]}}, state="shadow"),
        ],
    )
    ctx = {"intent": "search", "run": {"id": "run-7"}}
    r = tools_feedback(client, scope, ctx, ["web_search", "shell"], "web_search", "positive", run_id="run-7")
    assert r.status_code == 200, r.text
    body = r.json()
    assert set(body) == TOOLS_FEEDBACK_KEYS and body["ok"] is True
    assert body["rule_node_ids"] == [ids["deny"], ids["prefer"]]  # rank order
    assert body["updated_rules"] == 2 and body["commit_id"] and len(body["commit_hash"]) == 64
    assert stats_of(client, scope, ids["prefer"]) == {"positive": 1, "negative": 0}
    assert stats_of(client, scope, ids["format"]) == {"positive": 0, "negative": 0}

    everything = tools_feedback(client, scope, ctx, ["web_search"], "web_search", "negative", target="all").json()
    assert set(everything["rule_node_ids"]) == {ids["prefer"], ids["deny"], ids["format"]}
    assert stats_of(client, scope, ids["format"]) == {"positive": 0, "negative": 1}

    with_shadow = tools_feedback(client, scope, ctx, ["web_search"], "web_search", "positive", include_shadow=True)
    assert ids["shadowy"] in with_shadow.json()["rule_node_ids"]
    assert stats_of(client, scope, ids["shadowy"]) == {"positive": 1, "negative": 0}


def test_tools_feedback_with_no_matching_rule_changes_nothing(client: httpx.Client) -> None:
    scope = new_scope()
    write_rules(client, scope, [rule("format", then={"output": {"format": "json"}})])
    body = tools_feedback(client, scope, {}, ["a"], "a", "positive").json()
    assert body == {
        "ok": True,
        "tenant_id": "default",
        "scope": scope,
        "updated_rules": 0,
        "rule_node_ids": [],
        "commit_id": None,
        "commit_hash": None,
    }


def test_tools_feedback_requests_are_validated(client: httpx.Client) -> None:
    scope = new_scope()
    r = tools_feedback(client, scope, {}, ["a", "b"], "c", "positive")
    assert r.status_code == 400 and r.json()["error"] == "selected_tool_not_in_candidates"
    for bad in ({"outcome": "meh"}, {"target": "rules"}, {"candidates": []}, {"rules_limit": 500}):
        body = {
            "scope": scope,
            "context": {},
            "candidates": ["a"],
            "selected_tool": "a",
            "outcome": "positive",
            "input_text": "x",
            **bad,
        }
        r = client.post("/v1/memory/tools/feedback", json=body)
        assert r.status_code == 400 and r.json()["error"] == "invalid_request", (bad, r.text)
    r = client.post(
        "/v1/memory/tools/feedback",
        json={"scope": scope, "context": {}, "candidates": ["a"], "selected_tool": "a", "outcome": "positive"},
    )
    assert r.status_code == 400 and "input_text or input_sha256" in r.json()["message"]


def test_feedback_changes_the_tool_order_a_planner_gets(client: httpx.Client) -> None:
    """The loop end to end: two equal rules prefer different tools; outcomes decide the order."""
    scope = new_scope()
    ids = write_rules(
        client,
        scope,
        [
            rule("prefer-search", if_={"intent": "lookup"}, then={"tool": {"prefer": ["web_search"]}}),
            rule("prefer-wiki", if_={"intent": "lookup"}, then={"tool": {"prefer": ["wiki"]}}),
        ],
    )
    ctx = {"intent": "lookup"}
    first = select(client, scope, ctx, ["wiki", "web_search"]).json()["selection"]["ordered"]
    # equal rank: rule id order decides, so which tool leads depends on the ids; flip it with feedback
    leader = "web_search" if ids["prefer-search"] < ids["prefer-wiki"] else "wiki"
    assert first[0] == leader
    loser_rule = ids["prefer-wiki"] if leader == "web_search" else ids["prefer-search"]
    leader_rule = ids["prefer-search"] if leader == "web_search" else ids["prefer-wiki"]
    feedback(client, scope, loser_rule, "positive", run_id="r1")
    feedback(client, scope, leader_rule, "negative", run_id="r2")
    after = select(client, scope, ctx, ["wiki", "web_search"]).json()["selection"]["ordered"]
    assert after == [first[1], first[0]]


def test_a_promoted_rule_starts_shaping_selection(client: httpx.Client) -> None:
    scope = new_scope()
    rid = write_rules(client, scope, [rule("no-shell", then={"tool": {"deny": ["shell"]}}, state="draft")])["no-shell"]
    assert select(client, scope, {}, ["shell", "calc"]).json()["selection"]["selected"] == "shell"
    set_state(client, scope, rid, "shadow")
    shadow = select(client, scope, {}, ["shell", "calc"], include_shadow=True).json()
    assert shadow["selection"]["selected"] == "shell" and shadow["rules"]["shadow_selection"]["selected"] == "calc"
    set_state(client, scope, rid, "active")
    assert select(client, scope, {}, ["shell", "calc"]).json()["selection"]["selected"] == "calc"
