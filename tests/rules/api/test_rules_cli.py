"""``memlane rules suggest``: read-only promotion suggestions from the real command."""

from __future__ import annotations

import json
import os
import subprocess
import sys

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


def promotable_rule(client: httpx.Client) -> tuple[str, str]:
    scope = new_scope()
    rid = write_rules(client, scope, [rule("r", then={"output": {"strict": True}}, state="draft")])["r"]
    for run_id in ("x", "y", "z"):
        feedback(client, scope, rid, "positive", run_id=run_id)
    return scope, rid


def suggest_process(server: LiveServer, scope: str, **env: str) -> subprocess.CompletedProcess[str]:
    """The command as a user runs it, its stdout a pipe (``| grep``, ``> file``)."""
    environ = {
        **os.environ,
        "MEMLANE_DATABASE_URL": str(server.settings.storage.database_url),
        "MEMLANE_EMBEDDER": "hashing",
        "COLUMNS": "80",
        **env,
    }
    command = [sys.executable, "-m", "memlane.cli.main", "rules", "suggest", "--scope", scope]
    done = subprocess.run(command, env=environ, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    return done


def test_piped_suggestions_carry_whole_rule_ids_one_row_per_line(client: httpx.Client, live_server: LiveServer) -> None:
    scope, rid = promotable_rule(client)
    done = suggest_process(live_server, scope)
    lines = done.stdout.splitlines()
    assert lines[0].split("\t") == ["scope", "rule", "move", "eligible", "positive", "negative", "runs", "why"]
    rows = [line.split("\t") for line in lines[1:]]
    assert [(r[0], r[1], r[2], r[3]) for r in rows] == [(scope, rid, "draft -> shadow", "yes")]
    assert "…" not in done.stdout
    assert "read-only" in done.stderr and "1 suggestion(s)" in done.stderr


def test_on_a_narrow_terminal_the_table_keeps_rule_ids_whole(client: httpx.Client, live_server: LiveServer) -> None:
    scope, rid = promotable_rule(client)
    # rich draws its table when told the output is a terminal (TTY_COMPATIBLE), 80 columns wide
    done = suggest_process(live_server, scope, TTY_COMPATIBLE="1", NO_COLOR="1")
    assert "┃" in done.stdout or "│" in done.stdout, "a table was drawn"
    assert rid in done.stdout
