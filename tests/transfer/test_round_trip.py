"""`memlane export` / `memlane import`: memory written on every surface goes SQLite ->
PostgreSQL -> SQLite and comes back the same; importing twice changes nothing; vectors of
another model are re-embedded."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import pytest

from memlane.cli.main import app
from memlane.domain.hashing import ChainLink, verify_chain
from tests.support.memory_api import wait_until_recallable
from tests.support.server import ServerFactory
from tests.transfer.helpers import BUFFERED, TENANT, H, buffer_of, cli, populate, runner


def records(path: Path) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for line in path.read_text().splitlines():
        d = json.loads(line)
        out.setdefault(d["record"], []).append(d)
    return out


def without_vectors(nodes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(({k: v for k, v in n.items() if k != "embedding"} for n in nodes), key=lambda n: n["id"])


def same_vectors(a: list[dict[str, Any]], b: list[dict[str, Any]]) -> bool:
    va = {n["id"]: n.get("embedding") for n in a}
    vb = {n["id"]: n.get("embedding") for n in b}
    return va.keys() == vb.keys() and all(
        (va[k] is None) == (vb[k] is None) and (va[k] is None or np.allclose(va[k], vb[k], atol=1e-6)) for k in va
    )


def original_of(commit: dict[str, Any]) -> dict[str, Any]:
    """The commit an ``imported`` commit holds, through every import it went through."""
    while commit["kind"] == "imported":
        commit = commit["diff"]["imported"]
    return commit


def chains_verify(commits: list[dict[str, Any]]) -> bool:
    """Every scope's exported chain verifies (domain/hashing.py ``verify_chain``)."""
    by_scope: dict[str, list[dict[str, Any]]] = {}
    for x in commits:
        by_scope.setdefault(x["scope"], []).append(x)
    return not any(
        verify_chain(
            [
                ChainLink(x["id"], x["parent_hash"], x["commit_hash"], x["diff"], x["erased_at"] is not None)
                for x in sorted(scope, key=lambda x: x["seq"])
            ]
        )
        for scope in by_scope.values()
    )


@pytest.fixture
def source(tmp_path: Path, live_server_factory: ServerFactory) -> Iterator[str]:
    url = f"sqlite:///{tmp_path / 'source.db'}"
    with live_server_factory(url) as server:
        populate(server)
    yield url


@pytest.mark.postgres
def test_sqlite_to_postgres_to_sqlite_keeps_every_record(
    source: str, tmp_path: Path, request: pytest.FixtureRequest, live_server_factory: ServerFactory
) -> None:
    from tests.support.pg import fresh_database_url

    pg = fresh_database_url(request)
    back = f"sqlite:///{tmp_path / 'back.db'}"
    first, second, third = tmp_path / "1.jsonl", tmp_path / "2.jsonl", tmp_path / "3.jsonl"
    cli(source, "export", "--embeddings", str(first))
    cli(pg, "import", str(first))
    cli(pg, "export", "--embeddings", str(second))
    cli(back, "import", str(second))
    cli(back, "export", "--embeddings", str(third))

    a, c = records(first), records(third)
    kinds = {n["type"] for n in a["node"]}
    layers = {n["layer"] for n in a["node"]}
    assert {"rule", "entity", "event"} <= kinds and {"project", "user"} <= layers, "every surface is in the file"
    assert len({n["scope"] for n in a["node"]}) >= 3
    assert without_vectors(a["node"]) == without_vectors(c["node"])
    assert same_vectors(a["node"], c["node"])
    assert all(n.get("embedding") for n in a["node"])
    assert sorted(a["edge"], key=lambda e: e["id"]) == sorted(c["edge"], key=lambda e: e["id"])
    assert a["knowledge_item"] == c["knowledge_item"]
    assert a.get("knowledge_sync") == c.get("knowledge_sync")
    [buffer] = a["batcher_buffer"]
    assert [m["content"] for m in buffer["messages"]] == [m["content"] for m in BUFFERED]
    assert a["batcher_buffer"] == c["batcher_buffer"], "pending batcher messages travel verbatim"
    commits_after = {x["id"]: x for x in c["commit"]}
    for x in a["commit"]:
        kept = commits_after[x["id"]]
        assert kept["kind"] == "imported" and kept["actor"] == "memlane import", "an import is recorded as one"
        assert original_of(kept) == {k: v for k, v in x.items() if k not in ("record", "tenant_id", "scope")}, (
            "the history travels: each hop keeps the commit it imported, fields and diff, inside its own"
        )
    assert {n["commit_id"] for n in c["node"]} <= set(commits_after), "nodes still name the commits that made them"
    assert chains_verify(c["commit"]), "imported commits are hashed into the store's own chain"

    # the restored store serves recall with the imported vectors, before any worker ran
    with (
        live_server_factory(back, MEMLANE_WORKER_IN_PROCESS=False) as server,
        httpx.Client(base_url=server.url, timeout=30, headers=H) as client,
    ):
        r = client.post("/v1/memory/recall_text", json={"scope": "proj", "query_text": "Ada parser"})
        assert r.status_code == 200
        assert "Ada" in {s["title"] for s in r.json()["seeds"]}
        pending = buffer_of(client)
        assert pending["status"] == "pending" and pending["pending_messages"] == 2
        idle = 'memlane_jobs{kind="conversation.batcher_idle_flush",state="queued"} 1.0'
        assert idle in client.get("/metrics").text, "the restored buffer has an idle flush of its own"


def test_importing_twice_changes_nothing(source: str, tmp_path: Path) -> None:
    target = f"sqlite:///{tmp_path / 'target.db'}"
    dump, again, after = tmp_path / "dump.jsonl", tmp_path / "again.jsonl", tmp_path / "after.jsonl"
    cli(source, "export", "--embeddings", str(dump))
    first = json.loads(cli(target, "import", "--json", str(dump)))
    assert first["nodes_written"] > 0 and first["edges_written"] == 2 and first["knowledge_written"] == 1
    assert first["queued_for_embedding"] == 0, "vectors of the same model are reused"
    assert first["batcher_buffers_written"] == 1
    cli(target, "export", "--embeddings", str(again))
    second = json.loads(cli(target, "import", "--json", str(dump)))
    assert second["nodes_written"] == second["edges_written"] == second["knowledge_written"] == 0
    assert second["commits_restored"] == 0
    assert second["nodes_unchanged"] == first["nodes_written"]
    assert second["edges_unchanged"] == 2 and second["knowledge_unchanged"] == 1
    assert (second["batcher_buffers_written"], second["batcher_buffers_unchanged"]) == (0, 1)
    cli(target, "export", "--embeddings", str(after))
    exported_at = lambda p: [ln for ln in p.read_text().splitlines()[1:]]  # noqa: E731
    assert exported_at(again) == exported_at(after), "not even a commit was added"


def test_one_scope_exports_alone(source: str, tmp_path: Path) -> None:
    dump = tmp_path / "proj.jsonl"
    cli(source, "export", "--tenant", TENANT, "--scope", "proj", str(dump))
    got = records(dump)
    assert {n["scope"] for n in got["node"]} == {"proj"}
    assert len(got["node"]) == 3 and len(got["edge"]) == 2
    assert "knowledge_item" not in got, "knowledge items are tenant-wide: exported with whole tenants"
    assert "batcher_buffer" not in got, "buffers go with the scope of their app"
    assert all("embedding" not in n for n in got["node"]), "vectors only when asked"


def test_vectors_of_another_model_are_re_embedded(
    source: str, tmp_path: Path, live_server_factory: ServerFactory
) -> None:
    dump, other = tmp_path / "dump.jsonl", tmp_path / "other.jsonl"
    cli(source, "export", "--embeddings", "--scope", "proj", str(dump))
    lines = []
    for line in dump.read_text().splitlines():
        d = json.loads(line)
        if d["record"] == "header":
            d["embedding_model"] = "another-model"
        if d["record"] == "node":
            d["embedding_model"] = "another-model"
        lines.append(json.dumps(d))
    other.write_text("\n".join(lines) + "\n")
    target = f"sqlite:///{tmp_path / 'target.db'}"
    report = json.loads(cli(target, "import", "--json", str(other)))
    assert report["queued_for_embedding"] == 3
    with (
        live_server_factory(target) as server,
        httpx.Client(base_url=server.url, timeout=30, headers=H) as c,
    ):
        ids = {n["id"] for n in records(dump)["node"]}
        seeds = wait_until_recallable(c, "proj", "Ada parser", ids)["seeds"]
        assert {s["id"] for s in seeds} >= ids


def refused_import(tmp_path: Path, lines: list[str]) -> str:
    """Import ``lines`` with the CLI, which must refuse them (exit code 2); its message."""
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(lines) + "\n")
    result = runner.invoke(
        app,
        ["import", str(bad)],
        env={"MEMLANE_DATABASE_URL": f"sqlite:///{tmp_path / 't.db'}", "MEMLANE_EMBEDDER": "hashing"},
    )
    assert result.exit_code == 2
    return str(result.output)


def test_a_file_that_is_not_an_export_is_refused(tmp_path: Path) -> None:
    assert "header" in refused_import(tmp_path, ['{"record": "node", "id": "x"}'])


def test_a_batcher_buffer_record_with_bad_messages_is_refused_naming_the_field(tmp_path: Path) -> None:
    header = {"record": "header", "format": "memlane-export", "version": 1}
    buffer = {"record": "batcher_buffer", "tenant_id": TENANT, "app_id": "a", "user_id": "u", "messages": "hi",
              "next_seq": 1}  # fmt: skip
    output = refused_import(tmp_path, [json.dumps(header), json.dumps(buffer)])
    assert "line 2: messages: Input should be a valid list" in output
