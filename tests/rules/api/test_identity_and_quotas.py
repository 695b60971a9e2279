"""Rules under authentication and quotas: identity injected into contexts, mismatches refused,
private rules and nodes kept to their owners, and each endpoint counted in its bucket."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.rules.api.helpers import rule, write_rules
from tests.support.memory_api import new_scope, unit
from tests.support.server import LiveServer, ServerFactory
from tests.support.settings import api_keys

ALICE = {"X-Api-Key": "key-alice"}  # agent alice, team red, tenant acme
BOB = {"X-Api-Key": "key-bob"}  # agent bob, team blue, tenant acme
TEAMBOT = {"X-Api-Key": "key-teambot"}  # team red only
KEYS = {
    "key-alice": {"tenant_id": "acme", "agent_id": "alice", "team_id": "red"},
    "key-bob": {"tenant_id": "acme", "agent_id": "bob", "team_id": "blue"},
    "key-teambot": {"tenant_id": "acme", "team_id": "red"},
}


@pytest.fixture(scope="module")
def server(live_server_factory: ServerFactory) -> Iterator[LiveServer]:
    with live_server_factory(**api_keys(KEYS)) as s:
        yield s


@pytest.fixture
def c(server: LiveServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.url, timeout=30) as client:
        yield client


def post(c: httpx.Client, path: str, body: dict[str, Any], who: dict[str, str]) -> httpx.Response:
    return c.post(path, json=body, headers=who)


@pytest.fixture
def private_rules(c: httpx.Client) -> tuple[str, dict[str, str]]:
    """Alice's private rule (private by default, owned by her key) and a shared one."""
    scope = new_scope()
    ids = write_rules(
        c,
        scope,
        [
            rule("alice-only", then={"tool": {"deny": ["shell"]}}),
            rule("shared", then={"tool": {"prefer": ["calc"]}}, memory_lane="shared"),
            rule(
                "red-team",
                then={"output": {"strict": True}},
                rule_scope="team",
                target_team_id="red",
                memory_lane="shared",
            ),
        ],
        ALICE,
    )
    return scope, ids


def test_the_callers_identity_is_written_into_the_context(
    c: httpx.Client, private_rules: tuple[str, dict[str, str]]
) -> None:
    scope, ids = private_rules
    alice = post(c, "/v1/memory/rules/evaluate", {"scope": scope, "context": {"intent": "x"}}, ALICE).json()
    assert alice["tenant_id"] == "acme"
    assert alice["agent_visibility_summary"]["agent"] == {"id": "alice", "team_id": "red"}
    assert alice["agent_visibility_summary"]["lane"]["reason"] == "enforced_agent_team"
    assert {m["rule_node_id"] for m in alice["active"]} == set(ids.values())
    bob = post(c, "/v1/memory/rules/evaluate", {"scope": scope, "context": {"intent": "x"}}, BOB).json()
    assert {m["rule_node_id"] for m in bob["active"]} == {ids["shared"]}
    assert bob["agent_visibility_summary"]["rule_scope"]["filtered_by_lane"] == 1
    team = post(c, "/v1/memory/rules/evaluate", {"scope": scope, "context": {}}, TEAMBOT).json()
    assert team["agent_visibility_summary"]["agent"] == {"id": None, "team_id": "red"}
    assert {m["rule_node_id"] for m in team["active"]} == {ids["shared"], ids["red-team"]}


def test_a_context_naming_someone_else_is_403_identity_mismatch(
    c: httpx.Client, private_rules: tuple[str, dict[str, str]]
) -> None:
    scope, _ = private_rules
    for context, field in (
        ({"agent": {"id": "alice"}}, "context.agent.id"),
        ({"agent_id": "alice"}, "context.agent_id"),
        ({"agent": {"team_id": "red"}}, "context.agent.team_id"),
        ({"team_id": "red"}, "context.team_id"),
    ):
        for path, extra in (
            ("/v1/memory/rules/evaluate", {}),
            ("/v1/memory/tools/select", {"candidates": ["calc"]}),
            (
                "/v1/memory/tools/feedback",
                {"candidates": ["calc"], "selected_tool": "calc", "outcome": "positive", "input_text": "x"},
            ),
        ):
            r = post(c, path, {"scope": scope, "context": context, **extra}, BOB)
            assert r.status_code == 403, (path, context, r.text)
            assert r.json()["error"] == "identity_mismatch" and r.json()["details"]["field"] == field
    # repeating one's own identity is fine
    ok = post(c, "/v1/memory/rules/evaluate", {"scope": scope, "context": {"agent": {"id": "bob"}}}, BOB)
    assert ok.status_code == 200


def test_an_identity_bound_caller_must_send_an_object_context(
    c: httpx.Client, private_rules: tuple[str, dict[str, str]]
) -> None:
    scope, _ = private_rules
    r = post(c, "/v1/memory/rules/evaluate", {"scope": scope, "context": ["not", "an", "object"]}, BOB)
    assert r.status_code == 400 and r.json()["error"] == "invalid_context"
    r = post(c, "/v1/memory/rules/evaluate", {"scope": scope, "context": {"agent": "bob"}}, BOB)
    assert r.status_code == 400 and r.json()["details"]["field"] == "context.agent"


def test_recall_rules_context_gets_the_identity_too(c: httpx.Client, private_rules: tuple[str, dict[str, str]]) -> None:
    scope, _ = private_rules
    body = {"scope": scope, "query_embedding": unit(3), "rules_context": {"intent": "x"}}
    alice = post(c, "/v1/memory/recall", body, ALICE).json()["rules"]
    bob = post(c, "/v1/memory/recall", body, BOB).json()["rules"]
    assert alice["matched"] == 3 and bob["matched"] == 1
    r = post(c, "/v1/memory/recall", {**body, "rules_context": {"agent": {"id": "alice"}}}, BOB)
    assert r.status_code == 403 and r.json()["details"]["field"] == "rules_context.agent.id"


def test_private_rules_of_others_look_absent_to_state_and_feedback(
    c: httpx.Client, private_rules: tuple[str, dict[str, str]]
) -> None:
    scope, ids = private_rules
    rid = ids["alice-only"]
    for path, body in (
        ("/v1/memory/feedback", {"rule_node_id": rid, "outcome": "positive"}),
        ("/v1/memory/rules/state", {"rule_node_id": rid, "state": "disabled"}),
    ):
        r = post(c, path, {"scope": scope, "input_text": "x", **body}, BOB)
        assert r.status_code == 404 and r.json()["error"] == "rule_not_found", r.text
        assert post(c, path, {"scope": scope, "input_text": "x", **body}, ALICE).status_code == 200


def test_private_nodes_of_others_count_as_missing_for_activate_and_rehydrate(c: httpx.Client) -> None:
    scope = new_scope()
    ids = write_rules(c, scope, [{"client_id": "n", "type": "event", "title": "alice's", "tier": "archive"}], ALICE)
    for path, counter in (("/v1/memory/nodes/activate", "activated"), ("/v1/memory/archive/rehydrate", "rehydrated")):
        body = {"scope": scope, "node_ids": [ids["n"]], "input_text": "x"}
        bob = post(c, path, body, BOB).json()
        assert bob[counter]["missing"] == 1 and bob["commit_id"] is None, bob
        assert post(c, path, body, ALICE).json()[counter]["missing"] == 0


def test_a_client_id_naming_another_agents_private_node_resolves_to_nothing(c: httpx.Client) -> None:
    scope = new_scope()
    ids = write_rules(c, scope, [{"client_id": "diary", "type": "event", "title": "alice's", "tier": "archive"}], ALICE)
    for path, counter in (("/v1/memory/nodes/activate", "activated"), ("/v1/memory/archive/rehydrate", "rehydrated")):
        body = {"scope": scope, "client_ids": ["diary"], "input_text": "x"}
        bob = post(c, path, body, BOB).json()[counter]
        # the same answer as for a client id never written: nothing says alice's node exists
        assert (bob["requested"], bob["resolved"], bob["missing_client_ids"]) == (1, 0, ["diary"]), bob
        alice = post(c, path, body, ALICE).json()[counter]
        assert (alice["resolved"], alice["missing"], alice["node_ids"]) == (1, 0, [ids["diary"]]), alice


def test_other_tenants_are_refused(c: httpx.Client) -> None:
    r = post(c, "/v1/memory/rules/evaluate", {"tenant_id": "globex", "context": {}}, ALICE)
    assert r.status_code == 403 and r.json()["error"] == "tenant_mismatch"
    r = c.post("/v1/memory/tools/select", json={"context": {}, "candidates": ["a"]})
    assert r.status_code == 401


QUOTAS = {
    "TENANT_QUOTA_ENABLED": True,
    "TENANT_RECALL_RATE_LIMIT_RPS": 0.2,
    "TENANT_RECALL_RATE_LIMIT_BURST": 2,
    "TENANT_WRITE_RATE_LIMIT_RPS": 0.2,
    "TENANT_WRITE_RATE_LIMIT_BURST": 2,
}


@pytest.fixture(scope="module")
def quota_server(live_server_factory: ServerFactory) -> Iterator[LiveServer]:
    with live_server_factory(**QUOTAS) as s:
        yield s


def _bodies(scope: str) -> dict[str, dict[str, Any]]:
    rid = str(uuid.uuid4())
    return {
        "/v1/memory/rules/evaluate": {"context": {}},
        "/v1/memory/tools/select": {"context": {}, "candidates": ["a"]},
        "/v1/memory/tools/feedback": {
            "context": {},
            "candidates": ["a"],
            "selected_tool": "a",
            "outcome": "positive",
            "input_text": "x",
        },
        "/v1/memory/feedback": {"rule_node_id": rid, "outcome": "positive", "input_text": "x"},
        "/v1/memory/rules/state": {"rule_node_id": rid, "state": "disabled", "input_text": "x"},
        "/v1/memory/nodes/activate": {"node_ids": [rid], "input_text": "x"},
        "/v1/memory/archive/rehydrate": {"node_ids": [rid], "input_text": "x"},
    }


@pytest.mark.parametrize(
    ("path", "code"),
    [
        ("/v1/memory/rules/evaluate", "tenant_rate_limited_recall"),
        ("/v1/memory/tools/select", "tenant_rate_limited_recall"),
        ("/v1/memory/tools/feedback", "tenant_rate_limited_write"),
        ("/v1/memory/feedback", "tenant_rate_limited_write"),
        ("/v1/memory/rules/state", "tenant_rate_limited_write"),
        ("/v1/memory/nodes/activate", "tenant_rate_limited_write"),
        ("/v1/memory/archive/rehydrate", "tenant_rate_limited_write"),
    ],
)
def test_each_endpoint_draws_on_its_quota_bucket(quota_server: LiveServer, path: str, code: str) -> None:
    tenant = f"t-{uuid.uuid4().hex[:8]}"
    body = _bodies(new_scope())[path]
    with httpx.Client(base_url=quota_server.url, headers={"X-Tenant-Id": tenant}) as c:
        first = [c.post(path, json=body).status_code for _ in range(2)]
        assert 429 not in first
        r = c.post(path, json=body)
        assert r.status_code == 429 and r.json()["error"] == code
        assert int(r.headers["retry-after"]) >= 1
