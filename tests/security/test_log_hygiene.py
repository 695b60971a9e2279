"""The server log holds no memory text, even when a statement carrying it fails.

An erasure cannot reach a log file, so nothing a request stores or asks may be written there.
The test runs ``memlane serve`` as operators run it (its own process, its log configuration,
``MEMLANE_LOG_LEVEL=debug``, output to a file) and makes the database refuse every write
that carries a marker text, with a rule added at the database level: on PostgreSQL a CHECK
constraint, whose violation message quotes the whole failing row (``DETAIL: Failing row
contains (...)``); on SQLite a trigger that aborts. Then it writes the marker through the
graph, tools and conversation surfaces (the last fails inside the job worker) and asks a
question holding it in a query string. The log must show that the statements failed, and
must not hold the marker anywhere.
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from tests.support.backends import BACKENDS, database_url
from tests.support.server import free_port

REFUSED = "zq-refused-text"


@dataclass
class Served:
    url: str
    log: Path
    backend: str

    def text(self) -> str:
        return self.log.read_text(errors="replace")


def memlane(*args: str) -> list[str]:
    script = Path(sys.executable).with_name("memlane")
    return [str(script), *args] if script.exists() else [sys.executable, "-m", "memlane.cli.main", *args]


def refuse_marked_writes(backend: str, db_url: str) -> None:
    """A rule of the database itself (not of memlane) that fails every node insert whose
    text holds ``REFUSED``."""
    if backend == "sqlite":
        with sqlite3.connect(db_url.removeprefix("sqlite:///")) as db:
            db.execute(
                f"CREATE TRIGGER refuse_marked BEFORE INSERT ON nodes "
                f"WHEN instr(coalesce(NEW.text_summary, '') || coalesce(NEW.title, ''), '{REFUSED}') > 0 "
                f"BEGIN SELECT RAISE(ABORT, 'refused by the test'); END"
            )
        return
    import asyncpg

    async def add_check() -> None:
        conn = await asyncpg.connect(db_url)
        try:
            await conn.execute(
                "ALTER TABLE nodes ADD CONSTRAINT refuse_marked "
                f"CHECK (position('{REFUSED}' in coalesce(text_summary, '') || coalesce(title, '')) = 0)"
            )
        finally:
            await conn.close()

    asyncio.run(add_check())


@pytest.fixture(params=BACKENDS)
def served(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Served]:
    backend = str(request.param)
    db_url = database_url(backend, tmp_path, request)
    port = free_port()
    env = {
        **os.environ,
        "MEMLANE_DATABASE_URL": db_url,
        "MEMLANE_EMBEDDER": "hashing",
        "MEMLANE_PORT": str(port),
        "MEMLANE_LOG_LEVEL": "debug",
        "MEMLANE_WORKER_POLL_INTERVAL_SEC": "0.05",
        "MEMLANE_JOB_MAX_ATTEMPTS": "1",
    }
    subprocess.run(memlane("migrate", "upgrade"), env=env, check=True, capture_output=True, timeout=120)
    refuse_marked_writes(backend, db_url)
    log = tmp_path / "server.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(memlane("serve"), env=env, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while not _healthy(url):
            assert proc.poll() is None and time.monotonic() < deadline, log.read_text()[-5000:]
            time.sleep(0.1)
        yield Served(url, log, backend)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=20)


def _healthy(url: str) -> bool:
    try:
        return httpx.get(f"{url}/health", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


def test_failed_statements_leave_no_memory_text_in_the_server_log(served: Served) -> None:
    secret = uuid.uuid4().hex
    # a first-person preference: the offline extractor keeps it as a conversation note
    marker = f"I really love my {REFUSED}-{secret} passport, its number is X1234567"
    # a new connection per request: after a 500 the server closes the one it answered on
    with httpx.Client(base_url=served.url, timeout=60, headers={"connection": "close"}) as c:
        graph = c.post(
            "/v1/memory/write",
            json={"input_text": marker, "nodes": [{"type": "concept", "title": "passport", "text_summary": marker}]},
        )
        tool = c.post("/v1/tools/memory_add", json={"content": marker})
        task = c.post(
            "/api/v1/memories",
            json={"app_id": "app", "user_id": "u1", "messages": [{"role": "user", "content": marker}]},
        )
        assert (graph.status_code, tool.status_code, task.status_code) == (500, 500, 202), (graph.text, tool.text)
        task_id = task.json()["task_id"]
        deadline = time.monotonic() + 60
        while (status := c.get(f"/api/v1/tasks/{task_id}").json()["status"]) not in ("completed", "failed"):
            assert time.monotonic() < deadline, status
            time.sleep(0.05)
        assert status == "failed", "the ingestion's insert was refused in the worker"
        assert c.get("/api/v1/memories/query", params={"app_id": "app", "query": marker}).status_code == 200
    time.sleep(0.5)  # the last access-log lines are flushed

    log = served.text()
    refusal = "refuse_marked" if served.backend == "postgres" else "IntegrityError"  # the constraint's name
    assert log.count("unhandled error") >= 2 and refusal in log, "positive control: the failures are logged\n" + log
    assert f"job {task_id}" in log and "attempt 1 failed" in log
    assert "GET /api/v1/memories/query" in log, "the access log is on"
    assert secret not in log and "X1234567" not in log, log
    assert "[parameters:" not in log
