"""The rule lifecycle holds on every path that writes nodes: a write cannot set a rule's state or
its feedback counts, a new rule starts as draft (or shadow when asked), an edit of a live rule's
definition puts it back to shadow, disabled is final, and every change is a commit with its
actor. Real HTTP, both backends."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.rules.api.helpers import (
    evaluate,
    exported,
    feedback,
    import_rules,
    refused,
    rule,
    select,
    set_state,
    slots_of,
    stored_rows,
    tools_feedback,
    write_raw,
    write_rules,
)
from tests.support.backends import BACKENDS, fresh_url
from tests.support.memory_api import new_scope, write
from tests.support.server import ServerFactory
from tests.support.settings import api_keys

DENY_SHELL = {"tool": {"deny": ["shell"]}}


# --- the attack of issue #26, with API keys ---------------------------------------------------
KEYS = {
    "k-alice": {"tenant_id": "acme", "agent_id": "alice", "team_id": "ops"},
    "k-mallory": {"tenant_id": "acme", "agent_id": "mallory", "team_id": "guests"},
    "k-carol": {"tenant_id": "acme", "agent_id": "carol", "team_id": "ops"},
    "k-admin": {"tenant_id": "acme", "role": "admin"},
}
ALICE, MALLORY, CAROL, ADMIN = ({"X-Api-Key": k} for k in KEYS)
CANDIDATES = ["ls", "rm_rf"]


@pytest.fixture(scope="module", params=BACKENDS)
def secured(request: pytest.FixtureRequest, live_server_factory: ServerFactory) -> Iterator[httpx.Client]:
    with (
        live_server_factory(fresh_url(request), **api_keys(KEYS)) as server,
        httpx.Client(base_url=server.url, timeout=30) as client,
    ):
        yield client


def carol_selects(c: httpx.Client, scope: str, **extra: Any) -> dict[str, Any]:
    r = c.post(
        "/v1/memory/tools/select",
        json={"scope": scope, "context": {"intent": "cleanup"}, "candidates": CANDIDATES, **extra},
        headers=CAROL,
    )
    assert r.status_code == 200, r.text
    return dict(r.json())


def test_another_agent_cannot_revive_rewrite_or_credit_a_shared_rule_by_writing_it(secured: httpx.Client) -> None:
    c, scope = secured, new_scope()
    ids = write_rules(
        c,
        scope,
        [
            rule("retired", then={"tool": {"prefer": ["rm_rf"]}}, memory_lane="shared", state="disabled"),
            rule("tidy", then={"tool": {"prefer": ["ls"]}}, memory_lane="shared", state="active"),
        ],
        ALICE,
    )
    assert carol_selects(c, scope)["selection"]["selected"] == "ls"
    stats_before = slots_of(c, scope, ids["tidy"], ADMIN).get("stats")
    stored = stored_rows(c, scope, ADMIN)
    evil_then = {"tool": {"allow": ["rm_rf"], "prefer": ["rm_rf"]}}
    forged = {"positive": 500, "negative": 0}

    def writes(headers: dict[str, str], node_id: str, slots: dict[str, Any]) -> httpx.Response:
        node = {"id": node_id, "type": "rule", "slots": slots}
        body = {"scope": scope, "input_text": "mine now", "nodes": [node]}
        return c.post("/v1/memory/write", json=body, headers=headers)

    # the write of the issue: state active, a new then, forged stats, over a disabled rule and
    # over the live one. Mallory sees both rules but governs neither: refused, whatever it sends
    attack = {"state": "active", "then": evil_then, "stats": forged}
    for rid in (ids["retired"], ids["tidy"]):
        own_then = stored[rid]["slots"]["then"]
        for slots, field in (
            (attack, "then"),
            ({"then": evil_then, "stats": forged}, "then"),
            ({"then": evil_then}, "then"),
            ({"then": own_then, "stats": forged}, "stats"),
            ({"then": own_then, "state": "active"}, "state"),
        ):
            if rid == ids["tidy"] and field == "state":
                continue  # the state it is in: no change
            refused(writes(MALLORY, rid, slots), 403, "rule_governance_required", f"nodes[0].slots.{field}")
        r = set_state(c, scope, rid, "active", headers=MALLORY)
        assert r.status_code == 403 and r.json()["error"] == "rule_governance_required", r.text
    assert stored_rows(c, scope, ADMIN) == stored, "refused writes change nothing"
    # the lifecycle holds for the rule's own author too: no state, no counts, disabled is final
    refused(writes(ALICE, ids["retired"], attack), 400, "rule_slot_not_writable", "nodes[0].slots.state")
    refused(
        writes(ALICE, ids["retired"], {"then": evil_then, "stats": forged}),
        400,
        "rule_slot_not_writable",
        "nodes[0].slots.stats",
    )
    refused(writes(ALICE, ids["retired"], {"then": evil_then}), 409, "rule_disabled", "nodes[0].slots.then")
    r = set_state(c, scope, ids["retired"], "active", headers=ALICE)
    assert r.status_code == 409 and r.json()["error"] == "invalid_rule_state_transition"
    # nor a new rule born active, or with counts
    born = {"client_id": "sneaky", "type": "rule", "memory_lane": "shared", "slots": {"then": evil_then}}
    for extra, field in (({"state": "active"}, "state"), ({"stats": forged}, "stats")):
        r = c.post(
            "/v1/memory/write",
            json={"scope": scope, "input_text": "x", "nodes": [{**born, "slots": {"then": evil_then, **extra}}]},
            headers=MALLORY,
        )
        refused(r, 400, "rule_slot_not_writable", f"nodes[0].slots.{field}")
    # an edit of the live rule, by its author, is stored but takes it out of force: shadow, counts kept
    r = writes(ALICE, ids["tidy"], {"state": "active", "then": evil_then})
    assert r.status_code == 200, r.text
    after = carol_selects(c, scope, include_shadow=True)
    assert after["selection"]["selected"] == "ls" and "tool" not in after["rules"]["applied"]["policy"]
    assert after["rules"]["shadow_selection"]["selected"] == "rm_rf", "what the edit would do, never enforced"
    tidy = slots_of(c, scope, ids["tidy"], ADMIN)
    assert tidy["state"] == "shadow" and tidy.get("stats") == stats_before
    assert tidy["state_history"][-1]["actor"] == "alice"
    assert tidy["state_history"][-1]["reason"] == "definition_changed"
    retired = slots_of(c, scope, ids["retired"], ADMIN)
    assert retired["state"] == "disabled" and retired["then"] == {"tool": {"prefer": ["rm_rf"]}}
    assert "stats" not in retired
    # every change is in the chain, named after the credentials that made it
    commits = exported(c, scope, ADMIN)["commits"]
    moves = [(x["kind"], x["actor"]) for x in commits]
    assert moves[-1] == ("write", "alice") and ("write", "mallory") not in moves
    assert moves.count(("rule_state", "alice")) == 3  # retired: disabled; tidy: shadow, active
    demotion = commits[-1]["diff"]["nodes"][0]
    assert demotion["id"] == ids["tidy"]
    assert demotion["rule_state"] == {"from": "active", "to": "shadow", "reason": "definition_changed"}


# --- creation ------------------------------------------------------------------------------------
def test_a_new_rule_is_a_draft_unless_it_asks_for_shadow(client: httpx.Client) -> None:
    scope = new_scope()
    body = write(
        client,
        scope,
        [
            {"client_id": "plain", "type": "rule", "slots": {"then": DENY_SHELL}},
            {"client_id": "draft", "type": "rule", "slots": {"then": DENY_SHELL, "state": "draft"}},
            {"client_id": "trial", "type": "rule", "slots": {"then": DENY_SHELL, "state": "shadow"}},
        ],
    )
    ids = {n["client_id"]: n["id"] for n in body["nodes"]}
    nodes = exported(client, scope)["nodes"]
    assert {cid: nodes[i]["slots"]["state"] for cid, i in ids.items()} == {
        "plain": "draft",
        "draft": "draft",
        "trial": "shadow",
    }
    ev = evaluate(client, scope, {})
    assert ev["active"] == [] and [m["rule_node_id"] for m in ev["shadow"]] == [ids["trial"]]


@pytest.mark.parametrize(
    ("slots", "field"),
    [
        ({"state": "active"}, "state"),
        ({"state": "disabled"}, "state"),
        ({"state": "Active"}, "state"),
        ({"state": None}, "state"),
        ({"stats": {"positive": 3}}, "stats"),
        ({"stats": {}}, "stats"),
        ({"state_history": []}, "state_history"),
        ({"state_changed_at": "2024-01-01T00:00:00Z"}, "state_changed_at"),
    ],
)
def test_a_write_cannot_create_a_rule_in_another_state_or_with_counts(
    client: httpx.Client, slots: dict[str, Any], field: str
) -> None:
    scope = new_scope()
    fine = {"client_id": "fine", "type": "rule", "slots": {"then": DENY_SHELL}}
    bad = {"client_id": "bad", "type": "rule", "slots": {"then": DENY_SHELL, **slots}}
    body = refused(write_raw(client, scope, [fine, bad]), 400, "rule_slot_not_writable", f"nodes[1].slots.{field}")
    if field == "state":
        assert body["details"]["allowed"] == ["draft", "shadow"]
    assert exported(client, scope)["nodes"] == {}, "refused as a whole"


def test_a_rule_created_in_shadow_must_be_able_to_apply(client: httpx.Client) -> None:
    scope = new_scope()
    broken = {"client_id": "b", "type": "rule", "slots": {"then": {"tool": {"allow": "x"}}, "state": "shadow"}}
    refused(write_raw(client, scope, [broken]), 400, "invalid_rule_definition", "nodes[0].slots.then")
    nowhere = {"client_id": "n", "type": "rule", "slots": {"then": DENY_SHELL, "state": "shadow", "rule_scope": "team"}}
    refused(write_raw(client, scope, [nowhere]), 400, "invalid_rule_definition", "nodes[0].slots.rule_scope")
    # a draft may be incomplete
    assert write_raw(client, scope, [{**broken, "slots": {"then": {"tool": {"allow": "x"}}}}]).status_code == 200


# --- updates ---------------------------------------------------------------------------------------
def test_editing_an_active_rules_definition_puts_it_back_to_shadow(client: httpx.Client) -> None:
    scope = new_scope()
    rid = write_rules(client, scope, [rule("r", if_={"env": "prod"}, then=DENY_SHELL)])["r"]
    # other fields change freely: still active
    assert write_raw(client, scope, [{"id": rid, "type": "rule", "title": "No shell in prod"}]).status_code == 200
    assert [m["rule_node_id"] for m in evaluate(client, scope, {"env": "prod"})["active"]] == [rid]
    for edit in (
        {"if": {"env": "staging"}, "then": DENY_SHELL},
        {"if": {"env": "staging"}, "then": {"tool": {"deny": ["shell", "ssh"]}}},
        {"if": {"env": "staging"}, "then": {"tool": {"deny": ["shell", "ssh"]}}, "rule_meta": {"priority": 5}},
    ):
        r = write_raw(client, scope, [{"id": rid, "type": "rule", "slots": {**edit, "state": "active"}}], actor="ed")
        assert r.status_code == 200, r.text
        ev = evaluate(client, scope, {"env": "staging"})
        assert ev["active"] == [] and [m["rule_node_id"] for m in ev["shadow"]] == [rid], edit
        slots = slots_of(client, scope, rid)
        assert slots["state"] == "shadow" and slots["state_history"][-1] == {
            "from": "active",
            "to": "shadow",
            "at": slots["state_changed_at"],
            "actor": "ed",
            "reason": "definition_changed",
        }
        assert set_state(client, scope, rid, "active").status_code == 200  # promoted again, on purpose
    # a lane change is a change of whom it applies to
    r = write_raw(client, scope, [{"id": rid, "type": "rule", "memory_lane": "private", "owner_team_id": "ops"}])
    assert r.status_code == 200, r.text
    assert slots_of(client, scope, rid)["state"] == "shadow"


def test_editing_a_shadow_or_draft_rule_keeps_its_state(client: httpx.Client) -> None:
    scope = new_scope()
    ids = write_rules(
        client, scope, [rule("d", then=DENY_SHELL, state="draft"), rule("s", then=DENY_SHELL, state="shadow")]
    )
    edit = {"then": {"tool": {"deny": ["ftp"]}}}
    r = write_raw(client, scope, [{"id": i, "type": "rule", "slots": edit} for i in ids.values()])
    assert r.status_code == 200, r.text
    nodes = exported(client, scope)["nodes"]
    assert nodes[ids["d"]]["slots"]["state"] == "draft" and nodes[ids["s"]]["slots"]["state"] == "shadow"
    assert nodes[ids["s"]]["slots"]["then"] == {"tool": {"deny": ["ftp"]}}


def test_a_live_rule_cannot_be_edited_into_one_that_cannot_apply(client: httpx.Client) -> None:
    scope = new_scope()
    ids = write_rules(client, scope, [rule("a", then=DENY_SHELL), rule("s", then=DENY_SHELL, state="shadow")])
    for i, rid in enumerate(ids.values()):
        r = write_raw(client, scope, [{"id": rid, "type": "rule", "slots": {"then": {"tools": ["x"]}}}])
        refused(r, 400, "invalid_rule_definition", "nodes[0].slots.then")
        assert slots_of(client, scope, rid)["then"] == DENY_SHELL, i


def test_a_write_keeps_the_feedback_counts_and_refuses_other_ones(client: httpx.Client) -> None:
    scope = new_scope()
    rid = write_rules(client, scope, [rule("r", then=DENY_SHELL, state="shadow")])["r"]
    for run in ("r1", "r2"):
        assert feedback(client, scope, rid, "positive", run_id=run).status_code == 200
    stats = slots_of(client, scope, rid)["stats"]
    assert stats["positive"] == 2
    # slots without stats: the counts stay (a write used to reset them)
    assert write_raw(client, scope, [{"id": rid, "type": "rule", "slots": {"then": DENY_SHELL}}]).status_code == 200
    # the stored counts sent back as they are: accepted (a read-modify-write)
    roundtrip = {"then": DENY_SHELL, "stats": stats, "state": "shadow"}
    assert write_raw(client, scope, [{"id": rid, "type": "rule", "slots": roundtrip}]).status_code == 200
    assert slots_of(client, scope, rid)["stats"] == stats
    for changed in ({**stats, "positive": 500}, {**stats, "negative": 0, "positive": 1}, {}):
        r = write_raw(client, scope, [{"id": rid, "type": "rule", "slots": {"then": DENY_SHELL, "stats": changed}}])
        refused(r, 400, "rule_slot_not_writable", "nodes[0].slots.stats")
    r = write_raw(client, scope, [{"id": rid, "type": "rule", "slots": {"then": DENY_SHELL, "state": "active"}}])
    body = refused(r, 400, "rule_slot_not_writable", "nodes[0].slots.state")
    assert "rules/state" in body["message"] and "shadow" in body["message"]
    match = evaluate(client, scope, {})["shadow"][0]
    assert match["stats"] == {"positive": 2, "negative": 0}


# --- disabled is final -------------------------------------------------------------------------------
def test_a_disabled_rule_stays_disabled_on_every_path(client: httpx.Client) -> None:
    scope = new_scope()
    rid = write_rules(client, scope, [rule("off", if_={"env": "prod"}, then=DENY_SHELL, state="disabled")])["off"]
    node = {"id": rid, "type": "rule"}
    refused(
        write_raw(client, scope, [{**node, "slots": {"then": DENY_SHELL, "state": "active"}}]),
        400,
        "rule_slot_not_writable",
        "nodes[0].slots.state",
    )
    edit = {"if": {"env": "prod"}, "then": {"tool": {"deny": ["ftp"]}}}
    refused(write_raw(client, scope, [{**node, "slots": edit}]), 409, "rule_disabled", "nodes[0].slots.then")
    refused(
        write_raw(client, scope, [{**node, "slots": {"then": DENY_SHELL}}]), 409, "rule_disabled", "nodes[0].slots.if"
    )
    refused(
        write_raw(client, scope, [{**node, "memory_lane": "private", "owner_agent_id": "x"}]),
        409,
        "rule_disabled",
        "nodes[0].memory_lane",
    )
    refused(write_raw(client, scope, [{"id": rid, "type": "event"}]), 400, "rule_type_not_writable", "nodes[0].type")
    for state in ("draft", "shadow", "active"):
        assert set_state(client, scope, rid, state).status_code == 409
    # what cannot make it apply may change: its title, a note in its slots, its tier
    same = {"if": {"env": "prod"}, "then": DENY_SHELL, "note": "replaced by rule 7"}
    r = write_raw(client, scope, [{**node, "title": "retired", "tier": "warm", "slots": same}])
    assert r.status_code == 200, r.text
    # the lifecycle and feedback endpoints of other kinds leave it as it is
    assert feedback(client, scope, rid, "positive").status_code == 200
    for path, extra in (("/v1/memory/nodes/activate", {"outcome": "positive"}), ("/v1/memory/archive/rehydrate", {})):
        r = client.post(path, json={"scope": scope, "node_ids": [rid], "input_text": "x", **extra})
        assert r.status_code == 200, r.text
    # an import of an older export in which it was active does not bring it back
    record = exported(client, scope)["nodes"][rid]
    revived = {**record, "slots": {**record["slots"], "state": "active", "state_history": []}}
    header = {"record": "header", "format": "memlane-export", "version": 1, "embeddings": False}
    r = client.post(
        "/v1/admin/import",
        content="\n".join(json.dumps(x) for x in (header, revived)),
        headers={"content-type": "application/x-ndjson"},
    )
    assert r.status_code == 200, r.text
    slots = slots_of(client, scope, rid)
    assert slots["state"] == "disabled" and slots["note"] == "replaced by rule 7"
    assert [h["to"] for h in slots["state_history"]] == ["disabled"]
    ev = evaluate(client, scope, {"env": "prod"})
    assert ev["considered"] == 0 and select(client, scope, {"env": "prod"}, ["shell"]).status_code == 200


# --- type changes and import -----------------------------------------------------------------------
def test_a_node_that_becomes_a_rule_is_a_new_rule(client: httpx.Client) -> None:
    scope = new_scope()
    slots = {"state": "active", "then": {"tool": {"allow": ["rm_rf"]}}}
    nid = write(client, scope, [{"client_id": "n", "type": "topic", "title": "t", "slots": slots}])["nodes"][0]["id"]
    refused(
        write_raw(client, scope, [{"id": nid, "type": "rule"}]), 400, "rule_slot_not_writable", "nodes[0].slots.state"
    )
    r = write_raw(client, scope, [{"id": nid, "type": "rule", "slots": {"then": {"tool": {"allow": ["rm_rf"]}}}}])
    assert r.status_code == 200, r.text
    assert slots_of(client, scope, nid)["state"] == "draft" and evaluate(client, scope, {})["considered"] == 0


def test_an_import_restores_rules_as_exported(client: httpx.Client) -> None:
    scope = new_scope()
    stats = {"positive": 12, "negative": 1, "neutral": 0}
    exported_rule = {**rule("r", then=DENY_SHELL), "slots": {"then": DENY_SHELL, "state": "active", "stats": stats}}
    rid = import_rules(client, scope, [exported_rule])["r"]
    [match] = evaluate(client, scope, {})["active"]
    assert match["rule_node_id"] == rid and match["stats"] == {"positive": 12, "negative": 1}
    commits = exported(client, scope)["commits"]
    # recorded under the importing actor (auth off: the admin channel), never a name from the file
    assert [(x["kind"], x["actor"]) for x in commits] == [("import", "admin channel")]


# --- the chain --------------------------------------------------------------------------------------
def test_every_lifecycle_change_is_a_commit_with_its_actor(client: httpx.Client) -> None:
    scope = new_scope()
    rid = write(client, scope, [{"client_id": "r", "type": "rule", "slots": {"then": DENY_SHELL}}], actor="author")
    rid = rid["nodes"][0]["id"]
    set_state(client, scope, rid, "shadow", actor="reviewer")
    set_state(client, scope, rid, "active", actor="lead")
    feedback(client, scope, rid, "negative", actor="planner-1")
    r = client.post(
        "/v1/memory/tools/feedback",
        json={
            "scope": scope,
            "context": {},
            "candidates": ["shell", "ls"],
            "selected_tool": "ls",
            "outcome": "positive",
            "actor": "planner-2",
            "input_text": "ran",
        },
    )
    assert r.status_code == 200 and r.json()["rule_node_ids"] == [rid], r.text
    write_raw(client, scope, [{"id": rid, "type": "rule", "slots": {"then": {"tool": {"deny": ["ftp"]}}}}], actor="ed")
    set_state(client, scope, rid, "disabled", actor="lead")
    chain = [(x["kind"], x["actor"]) for x in exported(client, scope)["commits"]]
    assert chain == [
        ("write", "author"),
        ("rule_state", "reviewer"),
        ("rule_state", "lead"),
        ("rule_feedback", "planner-1"),
        ("tools_feedback", "planner-2"),
        ("write", "ed"),
        ("rule_state", "lead"),
    ]
    history = slots_of(client, scope, rid)["state_history"]
    assert [(h["from"], h["to"], h["actor"]) for h in history] == [
        ("draft", "shadow", "reviewer"),
        ("shadow", "active", "lead"),
        ("active", "shadow", "ed"),
        ("shadow", "disabled", "lead"),
    ]


def test_a_change_is_recorded_under_the_actor_named_else_the_credentials_agent(secured: httpx.Client) -> None:
    """The default actor of rules/state, feedback, tools/feedback and nodes/activate: the actor
    the request names, else the agent of the credentials, else (a key with no agent) nobody."""
    c, scope = secured, new_scope()
    rid = write_rules(c, scope, [rule("r", then=DENY_SHELL, memory_lane="shared", state=None)], ALICE)["r"]
    assert set_state(c, scope, rid, "shadow", headers=ALICE).status_code == 200
    assert set_state(c, scope, rid, "active", headers=ALICE, actor="lead").status_code == 200
    assert feedback(c, scope, rid, "positive", headers=CAROL).status_code == 200
    assert feedback(c, scope, rid, "negative", headers=ADMIN).status_code == 200
    r = tools_feedback(c, scope, {}, ["shell", "ls"], "ls", "positive", headers=CAROL)
    assert r.status_code == 200 and r.json()["rule_node_ids"] == [rid], r.text
    r = c.post(
        "/v1/memory/nodes/activate", json={"scope": scope, "input_text": "used", "node_ids": [rid]}, headers=ALICE
    )
    assert r.status_code == 200, r.text
    chain = [(x["kind"], x["actor"]) for x in exported(c, scope, ADMIN)["commits"]][1:]
    assert chain == [
        ("rule_state", "alice"),
        ("rule_state", "lead"),
        ("rule_feedback", "carol"),
        ("rule_feedback", None),
        ("tools_feedback", "carol"),
        ("activate", "alice"),
    ]
