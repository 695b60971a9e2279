"""POST /v1/memory/rules/state: the rule lifecycle draft -> shadow -> active, any -> disabled."""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime
from typing import Any

import httpx

from memlane.config import Settings
from memlane.domain.clock import new_id
from memlane.domain.model import CommitInfo, Node, NodeUpsert
from memlane.services.container import build_store
from memlane.store.base import NodePatch
from tests.rules.api.helpers import evaluate, import_rules, read_node, rule, set_state, write_rules
from tests.support.memory_api import new_scope, write
from tests.support.server import LiveServer

STATE_KEYS = {
    "ok",
    "tenant_id",
    "scope",
    "rule_node_id",
    "previous_state",
    "state",
    "changed",
    "commit_id",
    "commit_hash",
}


def insert_legacy_rule(server: LiveServer, scope: str, slots: dict[str, Any]) -> str:
    """A private rule without an owner, as legacy data holds them: writes refuse to store one,
    so a shared rule is restored (as an import does: the lifecycle's own slots as given) and
    its lane flipped underneath."""

    async def go() -> str:
        store = build_store(Settings(MEMLANE_DATABASE_URL=server.settings.storage.database_url), dimension=384)
        await store.open()
        try:
            node = Node(tenant_id="default", id=new_id(), scope=scope, type="rule", slots=slots, memory_lane="shared")
            up = NodeUpsert(node=node, fields_set=frozenset({"type", "slots", "memory_lane"}), restore=True)
            info = CommitInfo(actor="legacy", input_sha256="0" * 64)
            now = datetime.now(UTC)
            res = await store.apply_write("default", scope, [up], [], info, now=now)
            rid = res.nodes[0].id
            flip = [NodePatch(id=rid, memory_lane="private")]
            await store.mutate_nodes("default", scope, [rid], lambda found: (flip, {"legacy": rid}), info, now=now)
            return rid
        finally:
            await store.close()

    return asyncio.run(go())


def test_a_rule_moves_draft_shadow_active_disabled_and_evaluation_follows(client: httpx.Client) -> None:
    scope = new_scope()
    rid = write_rules(client, scope, [rule("r", then={"tool": {"deny": ["rm"]}}, state="draft")])["r"]
    assert evaluate(client, scope, {})["matched"] == 0

    r = set_state(client, scope, rid, "shadow", actor="reviewer")
    assert r.status_code == 200, r.text
    body = r.json()
    assert set(body) == STATE_KEYS
    assert body["previous_state"] == "draft" and body["state"] == "shadow" and body["changed"] is True
    assert body["commit_id"] and len(body["commit_hash"]) == 64
    shadow_eval = evaluate(client, scope, {})
    assert [m["rule_node_id"] for m in shadow_eval["shadow"]] == [rid] and shadow_eval["active"] == []
    assert evaluate(client, scope, {}, include_shadow=False)["matched"] == 0

    active = set_state(client, scope, rid, "active").json()
    assert active["previous_state"] == "shadow" and active["commit_hash"] != body["commit_hash"]
    assert [m["rule_node_id"] for m in evaluate(client, scope, {})["active"]] == [rid]

    disabled = set_state(client, scope, rid, "disabled").json()
    assert disabled["previous_state"] == "active" and disabled["state"] == "disabled"
    assert evaluate(client, scope, {})["considered"] == 0


def test_the_state_history_is_kept_in_slots(client: httpx.Client, live_server: LiveServer) -> None:
    scope = new_scope()
    rid = write_rules(client, scope, [rule("r", then={"output": {"strict": True}}, state="draft")])["r"]
    set_state(client, scope, rid, "shadow", actor="ann")
    set_state(client, scope, rid, "disabled", actor="bob")
    slots = read_node(live_server, scope, rid).slots
    assert slots["state"] == "disabled" and slots["state_changed_at"].endswith("Z")
    assert [(h["from"], h["to"], h["actor"]) for h in slots["state_history"]] == [
        ("draft", "shadow", "ann"),
        ("shadow", "disabled", "bob"),
    ]


def test_asking_for_the_current_state_changes_nothing(client: httpx.Client) -> None:
    scope = new_scope()
    rid = write_rules(client, scope, [rule("r", then={"output": {"strict": True}}, state="active")])["r"]
    body = set_state(client, scope, rid, "active").json()
    assert body["changed"] is False and body["commit_id"] is None and body["commit_hash"] is None
    assert body["previous_state"] == body["state"] == "active"


def test_other_transitions_are_refused_with_409_and_the_allowed_ones(client: httpx.Client) -> None:
    scope = new_scope()
    ids = write_rules(
        client,
        scope,
        [
            rule("draft", then={"output": {"strict": True}}, state="draft"),
            rule("active", then={"output": {"strict": True}}, state="active"),
            rule("off", then={"output": {"strict": True}}, state="disabled"),
            rule("nostate", then={"output": {"strict": True}}, state=None),
        ],
    )
    cases = [
        ("draft", "active", ["shadow", "disabled"]),
        ("active", "shadow", ["disabled"]),
        ("active", "draft", ["disabled"]),
        ("off", "draft", []),
        ("off", "active", []),
        ("nostate", "active", ["shadow", "disabled"]),
    ]
    for name, to, allowed in cases:
        r = set_state(client, scope, ids[name], to)
        assert r.status_code == 409, (name, to, r.text)
        err = r.json()
        assert err["error"] == "invalid_rule_state_transition"
        assert err["details"]["allowed"] == allowed and err["details"]["to"] == to


def test_a_private_rule_without_owner_cannot_enter_shadow_or_active(
    client: httpx.Client, live_server: LiveServer
) -> None:
    scope = new_scope()
    rid = insert_legacy_rule(live_server, scope, {"state": "draft", "then": {"output": {"strict": True}}})
    r = set_state(client, scope, rid, "shadow")
    assert r.status_code == 400 and r.json()["error"] == "invalid_private_rule_owner"
    rid2 = insert_legacy_rule(live_server, scope, {"state": "shadow", "then": {"output": {"strict": True}}})
    r = set_state(client, scope, rid2, "active")
    assert r.status_code == 400 and r.json()["error"] == "invalid_private_rule_owner"
    # disabling it is always possible
    assert set_state(client, scope, rid2, "disabled").json()["state"] == "disabled"


def test_legacy_unowned_private_rules_are_reported_by_evaluate(client: httpx.Client, live_server: LiveServer) -> None:
    scope = new_scope()
    insert_legacy_rule(live_server, scope, {"state": "active", "then": {"output": {"strict": True}}})
    open_ctx = evaluate(client, scope, {})["agent_visibility_summary"]["lane"]
    assert open_ctx["legacy_unowned_private_detected"] == 1 and open_ctx["legacy_unowned_private_visible"] == 1
    enforced = evaluate(client, scope, {"agent": {"id": "alice"}})
    assert enforced["matched"] == 0
    lane = enforced["agent_visibility_summary"]["lane"]
    assert lane["legacy_unowned_private_detected"] == 1 and lane["legacy_unowned_private_visible"] == 0


def test_a_broken_rule_cannot_go_live(client: httpx.Client) -> None:
    scope = new_scope()
    ids = write_rules(
        client,
        scope,
        [
            rule("bad-then", then={"tool": {"allow": "x"}}, state="draft"),
            rule("bad-if", then={"output": {"strict": True}}, if_={"$gt": "a"}, state="draft"),
        ],
    )
    # a write cannot make a broken rule shadow either (tests/rules/api/test_write_lifecycle.py):
    # this one is from a store that could
    ids |= import_rules(
        client, scope, [rule("bad-scope", then={"output": {"strict": True}}, rule_scope="agent", state="shadow")]
    )
    for name, to, field in (
        ("bad-then", "shadow", "slots.then"),
        ("bad-if", "shadow", "slots.if"),
        ("bad-scope", "active", "slots.rule_scope"),
    ):
        r = set_state(client, scope, ids[name], to)
        assert r.status_code == 400, r.text
        assert r.json()["error"] == "invalid_rule_definition" and r.json()["details"]["field"] == field


def test_unknown_rules_and_non_rules_are_refused(client: httpx.Client) -> None:
    scope = new_scope()
    r = set_state(client, scope, str(uuid.uuid4()), "shadow")
    assert r.status_code == 404 and r.json()["error"] == "rule_not_found"
    event = write(client, scope, [{"client_id": "e", "type": "event", "title": "an event"}])["nodes"][0]["id"]
    r = set_state(client, scope, event, "shadow")
    assert r.status_code == 400 and r.json()["error"] == "not_a_rule"
    rid = write_rules(client, scope, [rule("r", then={}, state="draft")])["r"]
    assert set_state(client, new_scope(), rid, "shadow").status_code == 404  # another scope


def test_state_requests_are_validated(client: httpx.Client) -> None:
    scope = new_scope()
    rid = str(uuid.uuid4())
    bad = [
        {"scope": scope, "rule_node_id": rid, "state": "shadow"},  # no provenance
        {"scope": scope, "rule_node_id": rid, "state": "live", "input_text": "x"},
        {"scope": scope, "rule_node_id": "not-a-uuid", "state": "shadow", "input_text": "x"},
        {"scope": scope, "rule_node_id": rid, "state": "shadow", "input_sha256": "ABC"},
    ]
    for body in bad:
        r = client.post("/v1/memory/rules/state", json=body)
        assert r.status_code == 400 and r.json()["error"] == "invalid_request", r.text
