"""Who may govern a rule (issue #26, part 2): with auth on, only its producer, its owner agent,
its owning team's members, the manager and the admin change a rule's definition, move its
state or delete it; everyone who sees it still evaluates it and reports outcomes. With auth
off the request is taken at its word, as before. Real HTTP with API keys, both backends."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.rules.api.helpers import (
    exported,
    feedback,
    refused,
    rule,
    set_state,
    slots_of,
    stored_rows,
    tools_feedback,
    write_raw,
    write_rules,
)
from tests.support.backends import BACKENDS, fresh_url
from tests.support.memory_api import new_scope
from tests.support.server import ServerFactory
from tests.support.settings import api_keys

KEYS = {
    "k-alice": {"tenant_id": "acme", "agent_id": "alice", "team_id": "ops"},
    "k-carol": {"tenant_id": "acme", "agent_id": "carol", "team_id": "ops"},
    "k-mallory": {"tenant_id": "acme", "agent_id": "mallory", "team_id": "guests"},
    "k-gina": {"tenant_id": "acme", "agent_id": "gina", "role": "guardian"},
    "k-mgr": {"tenant_id": "acme", "role": "manager"},
    "k-admin": {"tenant_id": "acme", "role": "admin"},
}
ALICE, CAROL, MALLORY, GINA, MANAGER, ADMIN = ({"X-Api-Key": k} for k in KEYS)
DENY_RM = {"tool": {"deny": ["rm_rf"]}}
ALLOW_RM = {"tool": {"allow": ["rm_rf"], "prefer": ["rm_rf"]}}
CANDIDATES = ["ls", "rm_rf"]


@pytest.fixture(scope="module", params=BACKENDS)
def secured(request: pytest.FixtureRequest, live_server_factory: ServerFactory) -> Iterator[httpx.Client]:
    with (
        live_server_factory(fresh_url(request), **api_keys(KEYS)) as server,
        httpx.Client(base_url=server.url, timeout=30) as client,
    ):
        yield client


def selects(c: httpx.Client, scope: str, headers: dict[str, str]) -> dict[str, Any]:
    body = {"scope": scope, "context": {"intent": "cleanup"}, "candidates": CANDIDATES, "include_shadow": True}
    r = c.post("/v1/memory/tools/select", json=body, headers=headers)
    assert r.status_code == 200, r.text
    return dict(r.json())


def edit(c: httpx.Client, scope: str, rid: str, headers: dict[str, str], **fields: Any) -> httpx.Response:
    return write_raw(c, scope, [{"id": rid, "type": "rule", **fields}], headers, memory_lane=None)


def state_of(c: httpx.Client, scope: str, rid: str) -> str:
    return str(slots_of(c, scope, rid, ADMIN)["state"])


def governance_refused(r: httpx.Response, field: str) -> None:
    refused(r, 403, "rule_governance_required", field)


def test_the_two_call_takeover_of_a_shared_rule_fails(secured: httpx.Client) -> None:
    """The attack: edit another agent's shared rule (a write demoted it to shadow), then promote
    it with rules/state. Each call is refused now, and the rule stays what it was, live."""
    c, scope = secured, new_scope()
    rid = write_rules(c, scope, [rule("no_rm", then=DENY_RM, memory_lane="shared")], ALICE)["no_rm"]
    trial = write_rules(c, scope, [rule("trial", then=ALLOW_RM, memory_lane="shared", state="shadow")], ALICE)
    before = stored_rows(c, scope, ADMIN)
    assert selects(c, scope, CAROL)["selection"]["denied"] == ["rm_rf"]

    governance_refused(edit(c, scope, rid, MALLORY, slots={"then": ALLOW_RM}), "nodes[0].slots.then")
    governance_refused(edit(c, scope, rid, MALLORY, slots={"then": ALLOW_RM, "state": "active"}), "nodes[0].slots.then")
    for state in ("active", "shadow", "disabled"):
        governance_refused(set_state(c, scope, rid, state, headers=MALLORY), "rule_node_id")
    # the second call alone, on a rule its author left in shadow
    governance_refused(set_state(c, scope, trial["trial"], "active", headers=MALLORY), "rule_node_id")

    assert stored_rows(c, scope, ADMIN) == before, "refused calls change nothing"
    assert state_of(c, scope, rid) == "active" and state_of(c, scope, trial["trial"]) == "shadow"
    after = selects(c, scope, CAROL)
    assert after["selection"]["denied"] == ["rm_rf"] and after["selection"]["selected"] == "ls"
    commits = [(x["kind"], x["actor"]) for x in exported(c, scope, ADMIN)["commits"]]
    assert all(actor != "mallory" for _, actor in commits)


def test_a_caller_who_does_not_govern_a_rule_can_change_nothing_of_it(secured: httpx.Client) -> None:
    """Not its definition only: its owners, producer, tier, expiry, validity or title either."""
    c, scope = secured, new_scope()
    rid = write_rules(c, scope, [rule("no_rm", then=DENY_RM, memory_lane="shared")], ALICE)["no_rm"]
    before = stored_rows(c, scope, ADMIN)[rid]
    for fields, field in (
        ({"owner_agent_id": "mallory"}, "owner_agent_id"),
        ({"producer_agent_id": "mallory"}, "producer_agent_id"),
        ({"owner_team_id": "guests"}, "owner_team_id"),
        ({"memory_lane": "private"}, "memory_lane"),
        ({"tier": "archive"}, "tier"),
        ({"title": "harmless"}, "title"),
        ({"importance": 0.1}, "importance"),
        ({"invalid_at": "2030-01-01T00:00:00Z"}, "invalid_at"),
        ({"slots": {**before["slots"], "note": "x"}}, "slots.note"),
        ({"type": "event"}, "type"),
    ):
        governance_refused(edit(c, scope, rid, MALLORY, **fields), f"nodes[0].{field}")
    # nor by its client id, nor through the conversation surface's delete
    r = write_raw(c, scope, [{"client_id": "no_rm", "type": "rule", "slots": {"then": ALLOW_RM}}], MALLORY)
    governance_refused(r, "nodes[0].slots.then")
    r = c.delete(f"/api/v1/memories/{rid}", params={"app_id": scope}, headers=MALLORY)
    assert r.status_code == 403 and "memory_id" in r.json()["detail"], r.text
    assert stored_rows(c, scope, ADMIN)[rid] == before
    # the rule sent back as stored is no change: accepted, and still the same live rule
    same = {k: before[k] for k in ("type", "title", "text_summary", "slots", "tier")}
    r = edit(c, scope, rid, MALLORY, **same)
    assert r.status_code == 200, r.text
    after = exported(c, scope, ADMIN)["nodes"][rid]
    assert after["slots"] == before["slots"] and state_of(c, scope, rid) == "active"


def test_a_rules_author_its_team_and_the_manager_govern_it(secured: httpx.Client) -> None:
    c, scope = secured, new_scope()
    # written by alice for her team: alice (its producer) and carol (a member of ops) govern it
    rid = write_rules(c, scope, [rule("team", then=DENY_RM, memory_lane="shared", owner_team_id="ops")], ALICE)["team"]
    for who, name in ((ALICE, "alice"), (CAROL, "carol"), (MANAGER, "manager"), (ADMIN, "admin")):
        r = edit(c, scope, rid, who, slots={"then": {"tool": {"deny": ["rm_rf", name]}}})
        assert r.status_code == 200, (name, r.text)
        assert state_of(c, scope, rid) == "shadow", "an edit of a live rule puts it back to shadow"
        assert set_state(c, scope, rid, "active", headers=who).status_code == 200, name
        assert selects(c, scope, MALLORY)["selection"]["denied"] == ["rm_rf"]
    history = slots_of(c, scope, rid, ADMIN)["state_history"]
    assert {"alice", "carol"} <= {h["actor"] for h in history}  # the keys of the roles carry no agent
    assert set_state(c, scope, rid, "disabled", headers=MANAGER).status_code == 200
    assert state_of(c, scope, rid) == "disabled"
    # a rule alice wrote for herself is hers: her teammate does not govern it
    own = write_rules(c, scope, [rule("own", then=DENY_RM, memory_lane="shared")], ALICE)["own"]
    governance_refused(edit(c, scope, own, CAROL, slots={"then": ALLOW_RM}), "nodes[0].slots.then")
    governance_refused(set_state(c, scope, own, "disabled", headers=CAROL), "rule_node_id")
    assert edit(c, scope, own, ALICE, title="mine").status_code == 200
    # anyone may write a new rule, as a draft; taking it live is the rights' business too
    new = write_rules(c, scope, [rule("new", then=ALLOW_RM, memory_lane="shared", state="draft")], MALLORY)["new"]
    for state in ("shadow", "active"):
        assert set_state(c, scope, new, state, headers=MALLORY).status_code == 200
    assert state_of(c, scope, new) == "active"


def test_switching_off_a_shared_deny_rule_needs_the_rights(secured: httpx.Client) -> None:
    c, scope = secured, new_scope()
    rid = write_rules(c, scope, [rule("no_rm", then=DENY_RM, memory_lane="shared")], ALICE)["no_rm"]
    for who in (MALLORY, CAROL, GINA):  # another team, alice's teammate, a guardian
        governance_refused(set_state(c, scope, rid, "disabled", headers=who), "rule_node_id")
        r = c.delete(f"/api/v1/memories/{rid}", params={"app_id": scope}, headers=who)
        assert r.status_code == 403, r.text
    assert state_of(c, scope, rid) == "active"
    assert selects(c, scope, GINA)["selection"]["denied"] == ["rm_rf"]
    r = set_state(c, scope, rid, "disabled", headers=ALICE)
    assert r.status_code == 200 and r.json()["previous_state"] == "active", r.text
    assert selects(c, scope, GINA)["selection"]["denied"] == []
    # and its author may delete it
    other = write_rules(c, scope, [rule("other", then=DENY_RM, memory_lane="shared")], ALICE)["other"]
    r = c.delete(f"/api/v1/memories/{other}", params={"app_id": scope}, headers=ALICE)
    assert r.status_code == 200, r.text
    assert other not in exported(c, scope, ADMIN)["nodes"]


def test_every_caller_who_sees_a_rule_may_report_outcomes_on_it(secured: httpx.Client) -> None:
    c, scope = secured, new_scope()
    ids = write_rules(
        c,
        scope,
        [
            rule("shared", then={"tool": {"prefer": ["ls"]}}, memory_lane="shared"),
            rule("mine", then={"tool": {"prefer": ["ls"]}}, memory_lane="private"),
        ],
        ALICE,
    )
    r = feedback(c, scope, ids["shared"], "negative", headers=MALLORY)
    assert r.status_code == 200 and r.json()["stats"]["negative"] == 1, r.text
    r = tools_feedback(c, scope, {"intent": "x"}, CANDIDATES, "ls", "positive", headers=MALLORY)
    assert r.status_code == 200 and r.json()["rule_node_ids"] == [ids["shared"]], r.text
    assert slots_of(c, scope, ids["shared"], ADMIN)["stats"]["positive"] == 1
    # a rule the caller cannot see stays out of reach, as before
    r = feedback(c, scope, ids["mine"], "negative", headers=MALLORY)
    assert r.status_code == 404 and r.json()["error"] == "rule_not_found", r.text
    r = set_state(c, scope, ids["mine"], "disabled", headers=MALLORY)
    assert r.status_code == 404 and r.json()["error"] == "rule_not_found", r.text


def test_with_auth_off_the_request_is_taken_at_its_word(client: httpx.Client) -> None:
    """The embedded, single-user default: a request naming another agent, with any role, still
    governs every rule it sees (the headers could name anyone, the manager role included)."""
    scope = new_scope()
    rid = write_rules(client, scope, [rule("no_rm", then=DENY_RM, producer_agent_id="alice", owner_agent_id="alice")])[
        "no_rm"
    ]
    nobody = {"X-Agent-Id": "mallory", "X-Team-Id": "guests", "X-Agent-Role": "user_agent"}
    r = edit(client, scope, rid, nobody, slots={"then": {"tool": {"deny": ["rm_rf", "ssh"]}}})
    assert r.status_code == 200, r.text
    assert set_state(client, scope, rid, "active", headers=nobody).status_code == 200
    assert set_state(client, scope, rid, "disabled", headers=nobody).status_code == 200
    assert slots_of(client, scope, rid)["state"] == "disabled"
    other = write_rules(client, scope, [rule("other", then=DENY_RM, owner_agent_id="alice")])["other"]
    r = client.delete(f"/api/v1/memories/{other}", params={"app_id": scope}, headers=nobody)
    assert r.status_code == 200, r.text
