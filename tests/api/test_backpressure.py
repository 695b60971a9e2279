"""Beyond the job backlog bound, writes that queue work are shed with 503 + Retry-After,
queries keep answering, and writes are admitted again once a worker has caught up. The bound
is shared by tenants: only a tenant holding its share of a full queue is held back, and an
import over HTTP is held to its share like a write."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

from memlane.domain.clock import new_id
from tests.support.memory_api import new_scope
from tests.support.server import LiveServer, ServerFactory
from tests.support.settings import make_settings

#: an import is JSON Lines (the browser boundary refuses other body types)
NDJSON = {"content-type": "application/x-ndjson"}


def one_node(client: httpx.Client, scope: str, title: str) -> httpx.Response:
    body = {"scope": scope, "input_text": title, "memory_lane": "shared", "nodes": [{"type": "event", "title": title}]}
    return client.post("/v1/memory/write", json=body)


def test_writes_are_shed_with_retry_after_beyond_the_backlog_and_admitted_once_it_drains(
    tmp_path: Path, live_server_factory: ServerFactory
) -> None:
    db_url = f"sqlite:///{tmp_path / 'memlane.db'}"
    with (
        live_server_factory(
            db_url,
            MEMLANE_WORKER_IN_PROCESS=False,
            MEMLANE_WRITE_BACKLOG_MAX=3,
            MEMLANE_WRITE_BACKLOG_RETRY_AFTER_SEC=2,
        ) as server,
        httpx.Client(base_url=server.url, timeout=30) as c,
    ):
        scope = new_scope()
        for i in range(3):
            assert one_node(c, scope, f"note {i}").status_code == 200
        time.sleep(0.3)  # the backlog count is refreshed at most every 0.25 s

        shed = one_node(c, scope, "one too many")
        assert shed.status_code == 503, shed.text
        assert shed.headers["retry-after"] == "2"
        assert shed.json()["error"] == "backlog_full"
        details = shed.json()["details"]
        assert details["limit"] == 3 and details["backlog"] >= 3  # the 3 embed jobs (+ periodic jobs)
        conversation = c.post(
            "/api/v1/memories",
            json={
                "app_id": "a",
                "user_id": "u",
                "messages": [{"role": "user", "content": "hi", "timestamp": "2026-01-01T00:00:00Z"}],
            },
        )
        assert conversation.status_code == 503
        assert conversation.headers["retry-after"] == "2"
        assert "background queue" in conversation.json()["detail"]  # the surface's own envelope
        # queries are not shed
        recalled = c.post("/v1/memory/recall_text", json={"scope": scope, "query_text": "note", "limit": 5})
        assert recalled.status_code == 200

        env = dict(os.environ, MEMLANE_DATABASE_URL=db_url, MEMLANE_EMBEDDER="hashing", MEMLANE_LOG_LEVEL="warning")
        worker = subprocess.Popen([sys.executable, "-m", "memlane.cli.main", "worker"], env=env)
        try:
            deadline = time.monotonic() + 60
            while (r := one_node(c, scope, "admitted again")).status_code == 503:
                assert time.monotonic() < deadline, "writes were never admitted again"
                time.sleep(0.2)
            assert r.status_code == 200, r.text
        finally:
            worker.terminate()
            worker.wait(timeout=30)


@contextlib.contextmanager
def at_the_slow_mark(tmp_path: Path, wait_sec: float) -> Iterator[tuple[str, httpx.Client, str]]:
    """A server whose backlog stands at MEMLANE_WRITE_BACKLOG_SLOW (2) with no worker to drain
    it: (database URL, client, scope)."""
    db_url = f"sqlite:///{tmp_path / 'memlane.db'}"
    settings = make_settings(
        db_url,
        MEMLANE_WORKER_IN_PROCESS=False,
        MEMLANE_WRITE_BACKLOG_MAX=100,
        MEMLANE_WRITE_BACKLOG_SLOW=2,
        MEMLANE_WRITE_BACKLOG_WAIT_SEC=wait_sec,
    )
    with LiveServer.start(settings) as server, httpx.Client(base_url=server.url, timeout=90) as c:
        scope = new_scope()
        for i in range(2):
            assert one_node(c, scope, f"note {i}").status_code == 200
        time.sleep(0.3)  # the backlog count is refreshed at most every 0.25 s
        yield db_url, c, scope


def test_a_write_past_the_slow_mark_waits_for_the_worker_and_is_then_admitted(tmp_path: Path) -> None:
    """MEMLANE_WRITE_BACKLOG_SLOW: writers slow to the worker's pace instead of being shed."""
    with at_the_slow_mark(tmp_path, wait_sec=60) as (db_url, c, scope), ThreadPoolExecutor(1) as pool:
        waiting = pool.submit(one_node, c, scope, "past the slow mark")
        time.sleep(1.0)
        assert not waiting.done(), "the write was admitted while the backlog stood at the slow mark"
        recalled = c.post("/v1/memory/recall_text", json={"scope": scope, "query_text": "note", "limit": 5})
        assert recalled.status_code == 200  # reads do not wait
        env = dict(os.environ, MEMLANE_DATABASE_URL=db_url, MEMLANE_EMBEDDER="hashing", MEMLANE_LOG_LEVEL="warning")
        worker = subprocess.Popen([sys.executable, "-m", "memlane.cli.main", "worker"], env=env)
        try:
            admitted = waiting.result(timeout=60)
        finally:
            worker.terminate()
            worker.wait(timeout=30)
    assert admitted.status_code == 200, admitted.text
    assert admitted.json()["nodes"][0]["id"]


def test_a_write_waits_at_most_the_wait_time_and_is_admitted_below_the_limit(tmp_path: Path) -> None:
    with at_the_slow_mark(tmp_path, wait_sec=0.5) as (_, c, scope):  # nothing ever drains the backlog
        late = one_node(c, scope, "after waiting")
    assert late.status_code == 200, late.text


def write_as(client: httpx.Client, tenant: str, scope: str, title: str) -> httpx.Response:
    body = {"scope": scope, "input_text": title, "memory_lane": "shared", "nodes": [{"type": "event", "title": title}]}
    return client.post("/v1/memory/write", json=body, headers={"X-Tenant-Id": tenant})


@contextlib.contextmanager
def without_a_worker(tmp_path: Path, **env: object) -> Iterator[httpx.Client]:
    """A server with nothing to drain its queue, a bound of 3 due jobs and no slow mark."""
    settings = make_settings(
        f"sqlite:///{tmp_path / 'memlane.db'}",
        MEMLANE_WORKER_IN_PROCESS=False,
        MEMLANE_WRITE_BACKLOG_MAX=3,
        MEMLANE_WRITE_BACKLOG_SLOW=0,
        MEMLANE_WRITE_BACKLOG_RETRY_AFTER_SEC=2,
        **env,
    )
    with LiveServer.start(settings) as server, httpx.Client(base_url=server.url, timeout=60) as c:
        yield c


def test_another_tenant_is_admitted_while_one_tenant_holds_the_backlog(tmp_path: Path) -> None:
    with without_a_worker(tmp_path) as c:
        scope = new_scope()
        for i in range(3):
            assert write_as(c, "noisy", scope, f"note {i}").status_code == 200
        time.sleep(0.3)  # the backlog count is refreshed at most every 0.25 s

        shed = write_as(c, "noisy", scope, "one too many")
        assert shed.status_code == 503 and shed.headers["retry-after"] == "2"
        details = shed.json()["details"]
        assert details["tenant_backlog"] >= 3 and details["tenant_backlog"] >= details["tenant_share"]

        # the queue is at its bound, but all of it is the other tenant's
        assert write_as(c, "quiet", scope, "my first note").status_code == 200
        message = {"role": "user", "content": "hi", "timestamp": "2026-01-01T00:00:00Z"}
        conversation = c.post(
            "/api/v1/memories",
            headers={"X-Tenant-Id": "quiet"},
            json={"app_id": "a", "user_id": "u", "messages": [message]},
        )
        assert conversation.status_code == 202, conversation.text
        time.sleep(0.3)
        # now both hold jobs: the one at or over its share (3 / 2 tenants) is still refused
        assert write_as(c, "noisy", scope, "still too many").status_code == 503


def import_file(tenant: str, scopes: int) -> bytes:
    """An export file of ``scopes`` scopes of one node each (each queues its own embedding job)."""
    header = {"record": "header", "format": "memlane-export", "version": 1, "tenant_id": tenant}
    lines = [json.dumps(header)]
    for i in range(scopes):
        node = {"record": "node", "tenant_id": tenant, "id": new_id(), "scope": f"imported-{i:04d}", "type": "event"}
        when = {
            "created_at": "2026-01-01T00:00:00+00:00",
            "updated_at": "2026-01-01T00:00:00+00:00",
            "commit_id": new_id(),
        }
        lines.append(json.dumps({**node, **when, "title": f"imported {i}", "memory_lane": "shared"}))
    return ("\n".join(lines) + "\n").encode()


def stored_nodes(client: httpx.Client, tenant: str) -> int:
    """The tenant's nodes, counted in its export."""
    dump = client.get("/v1/admin/export", params={"tenant_id": tenant})
    assert dump.status_code == 200, dump.text
    return sum(json.loads(line)["record"] == "node" for line in dump.text.splitlines())


def test_an_import_is_held_to_its_tenants_share_of_the_backlog_and_completes_once_it_drains(tmp_path: Path) -> None:
    """POST /v1/admin/import is admitted batch by batch: past its tenant's share it answers
    503 + Retry-After like a write (what it wrote so far stays; the import is idempotent), and
    the same file sent again once the worker caught up completes."""
    body = import_file("importer", 300)
    with without_a_worker(tmp_path) as c:
        shed = c.post("/v1/admin/import", params={"tenant_id": "importer"}, content=body, headers=NDJSON)
        assert shed.status_code == 503, shed.text
        assert shed.headers["retry-after"] == "2" and shed.json()["error"] == "backlog_full"
        kept = stored_nodes(c, "importer")
        assert 0 < kept < 300, "what the import wrote before its share was full stays"
        assert write_as(c, "quiet", new_scope(), "not held up by the import").status_code == 200

        db_url = f"sqlite:///{tmp_path / 'memlane.db'}"
        env = dict(os.environ, MEMLANE_DATABASE_URL=db_url, MEMLANE_EMBEDDER="hashing", MEMLANE_LOG_LEVEL="warning")
        worker = subprocess.Popen([sys.executable, "-m", "memlane.cli.main", "worker"], env=env)
        try:
            deadline = time.monotonic() + 120
            while (
                r := c.post("/v1/admin/import", params={"tenant_id": "importer"}, content=body, headers=NDJSON)
            ).status_code == 503:
                assert time.monotonic() < deadline, "the import was never admitted again"
                time.sleep(float(r.headers["retry-after"]))
            assert r.status_code == 200, r.text
        finally:
            worker.terminate()
            worker.wait(timeout=30)
        assert stored_nodes(c, "importer") == 300
    report = r.json()
    assert report["nodes_written"] + report["nodes_unchanged"] == 300
