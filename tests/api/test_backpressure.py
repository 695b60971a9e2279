"""Beyond the job backlog bound, writes that queue work are shed with 503 + Retry-After,
queries keep answering, and writes are admitted again once a worker has caught up."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

from tests.api.helpers import new_scope
from tests.conftest import make_settings
from tests.support.server import LiveServer


def one_node(client: httpx.Client, scope: str, title: str) -> httpx.Response:
    body = {"scope": scope, "input_text": title, "memory_lane": "shared", "nodes": [{"type": "event", "title": title}]}
    return client.post("/v1/memory/write", json=body)


def test_writes_are_shed_with_retry_after_beyond_the_backlog_and_admitted_once_it_drains(tmp_path: Path) -> None:
    db_url = f"sqlite:///{tmp_path / 'memlane.db'}"
    settings = make_settings(
        db_url,
        MEMLANE_WORKER_IN_PROCESS=False,  # nothing drains the queue until the test starts a worker
        MEMLANE_WRITE_BACKLOG_MAX=3,
        MEMLANE_WRITE_BACKLOG_RETRY_AFTER_SEC=2,
    )
    with LiveServer.start(settings) as server, httpx.Client(base_url=server.url, timeout=30) as c:
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
