"""Beyond the job backlog bound, writes that queue work are shed with 503 + Retry-After,
queries keep answering, and writes are admitted again once a worker has caught up."""

from __future__ import annotations

import os
import subprocess
import sys
import time
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
