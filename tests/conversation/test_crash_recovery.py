"""Durable ingestion: a task survives its worker being killed mid-pipeline, and re-running a
task (as after a crash between the write and the job's completion) never duplicates a note."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from memlane.domain.model import SeedFilter
from memlane.domain.visibility import EVERYTHING, Viewer
from memlane.jobs.conversation_kinds import CONVERSATION_INGEST
from memlane.services.container import Services
from memlane.services.conversation.task_payloads import IngestTask, TaskMessage
from tests.conversation.helpers import msg, wait_task
from tests.support.llm_server import chat_server
from tests.support.server import ServerFactory
from tests.support.waiting import wait_for

ALL_TIERS = ("hot", "warm", "cold", "archive")


def worker_env(db_url: str, llm_url: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        MEMLANE_DATABASE_URL=db_url,
        MEMLANE_EMBEDDER="hashing",
        MEMLANE_LLM_BASE_URL=llm_url,
        MEMLANE_LLM_MODEL="scripted-model",
        MEMLANE_JOB_LEASE_SEC="2",
        MEMLANE_WORKER_POLL_INTERVAL_SEC="0.1",
        MEMLANE_LOG_LEVEL="warning",
    )
    return env


def start_worker(env: dict[str, str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "memlane.cli.main", "worker"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )


def alive(proc: subprocess.Popen[bytes]) -> bool:
    """True while the worker runs; fails with its stderr once it has died."""
    assert proc.poll() is None, (proc.stderr.read() if proc.stderr else b"").decode()[-2000:]
    return True


@pytest.mark.slow
def test_a_worker_killed_mid_pipeline_resumes_and_writes_the_note_once(
    tmp_path: Path, live_server_factory: ServerFactory
) -> None:
    db_url = f"sqlite:///{tmp_path / 'memlane.db'}"
    with chat_server() as (llm_url, script):
        script.agent_delay["synthesis"] = 20.0  # the kill lands while this call is in flight
        with (
            live_server_factory(db_url, MEMLANE_WORKER_IN_PROCESS=False, MEMLANE_LLM_BASE_URL=llm_url) as server,
            httpx.Client(base_url=server.url, timeout=30) as api,
        ):
            r = api.post(
                "/api/v1/memories",
                json={"app_id": "crash-app", "user_id": "u1", "messages": [msg("I restore old motorbikes.", mid="c1")]},
            )
            assert r.status_code == 202
            task_id = r.json()["task_id"]
            env = worker_env(db_url, llm_url)
            with start_worker(env) as worker:  # leaving it closes the worker's stderr pipe
                try:
                    wait_for(
                        lambda: alive(worker) and script.calls_by_agent["synthesis"] >= 1,
                        what="the synthesis call",
                        timeout=60,
                    )
                finally:
                    worker.send_signal(signal.SIGKILL)
                    worker.wait(timeout=10)
            at_kill = api.get(f"/api/v1/tasks/{task_id}").json()
            assert at_kill["status"] == "processing", (
                "the worker must die before finishing for this test to mean anything"
            )
            assert at_kill["result"] == {"stage": "agents", "llm_calls": 2}

            script.agent_delay["synthesis"] = 0.0
            with start_worker(env) as restarted:
                try:
                    done = wait_task(api, task_id, timeout=60)
                finally:
                    restarted.send_signal(signal.SIGTERM)
                    restarted.wait(timeout=20)
            assert done["status"] == "completed", done
            assert dict(script.calls_by_agent) == {"episodic": 1, "summarizer": 1, "synthesis": 2}
            found = api.get("/api/v1/memories/query", params={"app_id": "crash-app", "query": "motorbikes"}).json()
            assert found["count"] == 1
            assert found["memories"][0]["memory_id"] == done["result"]["memories"][0]["memory_id"]


async def _submit(services: Services, app: str, messages: list[dict[str, Any]]) -> Any:
    conv = services.conversation
    task = IngestTask(
        app_id=app,
        user_id="u1",
        messages=tuple(TaskMessage.from_json(m) for m in messages),
        request_sha256="0" * 64,
    )
    await conv.tasks.submit(Viewer(tenant_id="default"), task, idempotency_key=None)
    (job,) = await services.store.lease_jobs(
        "test", [CONVERSATION_INGEST], limit=1, lease_sec=60, now=services.clock.now()
    )
    return job


async def test_re_running_a_finished_ingestion_upserts_the_same_notes(services: Services) -> None:
    conv = services.conversation
    first = await _submit(services, "rerun", [msg("I bake sourdough bread every Sunday.", mid="b1")])
    await conv.ingestion.run_ingest(first)
    job = await _submit(
        services,
        "rerun",
        [
            msg("I bake sourdough bread every Sunday.", mid="b2"),
            msg("My daughter Lea started school in Lyon this year.", mid="b3"),
        ],
    )
    once = await conv.ingestion.run_ingest(job)
    # A crash after the write but before the job was marked done: the task runs again.
    again_job = await services.store.get_job("default", job.id)
    assert again_job is not None and again_job.progress and again_job.progress["stage"] == "planned"
    twice = await conv.ingestion.run_ingest(again_job)
    assert twice["memories"] == once["memories"] and twice["changes"] == once["changes"]
    own = await services.store.find_nodes(
        "default", "rerun", SeedFilter(valid_at=None, visibility=EVERYTHING, tiers=ALL_TIERS, task_id=job.id), limit=100
    )
    assert sorted(n.id for n in own) == sorted(m["memory_id"] for m in once["memories"])
    (bread,) = await services.store.find_nodes(
        "default",
        "rerun",
        SeedFilter(valid_at=None, visibility=EVERYTHING, tiers=ALL_TIERS, task_id=first.id),
        limit=10,
    )
    assert [s["id"] for s in bread.slots["source_messages"]] == ["b1", "b2"], "evidence is a set, not a log"
