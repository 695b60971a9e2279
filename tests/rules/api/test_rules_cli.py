"""``memlane rules suggest``: read-only promotion suggestions from the real command."""

from __future__ import annotations

import json

import httpx
from typer.testing import CliRunner

from memlane.cli.main import app
from tests.rules.api.helpers import evaluate, feedback, rule, write_rules
from tests.support.memory_api import new_scope
from tests.support.server import LiveServer


def run(server: LiveServer, *args: str) -> dict[str, object]:
    env = {"MEMLANE_DATABASE_URL": str(server.settings.storage.database_url), "MEMLANE_EMBEDDER": "hashing"}
    result = CliRunner().invoke(app, ["rules", "suggest", *args, "--json"], env=env)
    assert result.exit_code == 0, result.output
    return dict(json.loads(result.output))


def test_suggestions_follow_the_thresholds_and_change_nothing(client: httpx.Client, live_server: LiveServer) -> None:
    scope = new_scope()
    ids = write_rules(
        client,
        scope,
        [
            rule("ready-draft", then={"output": {"strict": True}}, state="draft"),
            rule("chatty-draft", then={"output": {"strict": True}}, state="draft"),
            rule("ready-shadow", then={"output": {"strict": True}}, state="shadow"),
            rule("noisy-shadow", then={"output": {"strict": True}}, state="shadow"),
            rule("broken-draft", then={"tool": {"allow": "x"}}, state="draft"),
        ],
    )
    for run_id in ("a", "b", "c"):
        feedback(client, scope, ids["ready-draft"], "positive", run_id=run_id)
        feedback(client, scope, ids["broken-draft"], "positive", run_id=run_id)
    for _ in range(5):
        feedback(client, scope, ids["chatty-draft"], "positive", run_id="same-run")
    for i in range(10):
        feedback(client, scope, ids["ready-shadow"], "positive", run_id=f"r{i}")
        feedback(client, scope, ids["noisy-shadow"], "positive", run_id=f"r{i}")
    feedback(client, scope, ids["noisy-shadow"], "negative")
    before = evaluate(client, scope, {})

    out = run(live_server, "--scope", scope)
    moves = {(s["rule_node_id"], s["from_state"], s["to_state"]) for s in out["suggestions"]}  # type: ignore[union-attr]
    assert moves == {(ids["ready-draft"], "draft", "shadow"), (ids["ready-shadow"], "shadow", "active")}
    assert evaluate(client, scope, {}) == before  # read-only

    # thresholds are configurable: one negative in ten is tolerated below a 0.2 ratio
    lenient = run(live_server, "--scope", scope, "--active-max-negative-ratio", "0.2", "--shadow-min-runs", "1")
    lenient_ids = {s["rule_node_id"] for s in lenient["suggestions"]}  # type: ignore[union-attr]
    assert {ids["noisy-shadow"], ids["chatty-draft"]} <= lenient_ids

    everything = run(live_server, "--scope", scope, "--all")
    broken = next(s for s in everything["suggestions"] if s["rule_node_id"] == ids["broken-draft"])  # type: ignore[union-attr]
    assert broken["eligible"] is False and broken["blockers"][0].startswith("invalid then")


def test_without_a_scope_every_scope_of_the_tenant_is_checked(client: httpx.Client, live_server: LiveServer) -> None:
    scope = new_scope()
    rid = write_rules(client, scope, [rule("r", then={"output": {"strict": True}}, state="draft")])["r"]
    for run_id in ("x", "y", "z"):
        feedback(client, scope, rid, "positive", run_id=run_id)
    out = run(live_server)
    assert any(s["rule_node_id"] == rid and s["scope"] == scope for s in out["suggestions"])  # type: ignore[union-attr]
    env = {"MEMLANE_DATABASE_URL": str(live_server.settings.storage.database_url), "MEMLANE_EMBEDDER": "hashing"}
    table = CliRunner().invoke(app, ["rules", "suggest", "--scope", scope], env={**env, "COLUMNS": "250"})
    assert table.exit_code == 0 and "read-only" in table.output and rid[:8] in table.output
