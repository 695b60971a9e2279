"""A worker killed mid-queue loses nothing: a restarted worker finishes every job.

Real processes: ``memlane worker`` runs as a subprocess against the embedded SQLite file and
a deliberately slow OpenAI-compatible provider on loopback, and is killed with SIGKILL.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memlane.config import Settings
from memlane.domain.clock import Clock
from memlane.embed.hashing import HashingEmbedder
from memlane.services.container import build_store, open_services
from memlane.services.writing import WriteCommand, WriteNodeSpec
from tests.support.openai_server import openai_server

pytestmark = pytest.mark.slow
NODES = 12


def worker_env(db_url: str, base_url: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        MEMLANE_DATABASE_URL=db_url,
        MEMLANE_EMBEDDER="openai",
        MEMLANE_EMBEDDING_BASE_URL=base_url,
        MEMLANE_EMBEDDING_MODEL="slow-embed",
        MEMLANE_EMBEDDING_DIMENSION="384",
        MEMLANE_JOB_LEASE_SEC="2",
        # one job per round, so the kill lands between jobs (batching would embed all at once)
        MEMLANE_EMBED_JOB_BATCH="1",
        MEMLANE_WORKER_POLL_INTERVAL_SEC="0.2",
        MEMLANE_LOG_LEVEL="warning",
    )
    return env


async def write_nodes(db_url: str) -> list[str]:
    settings = Settings(MEMLANE_DATABASE_URL=db_url, MEMLANE_EMBEDDER="hashing")
    svc = await open_services(settings, clock=Clock(), embedder=HashingEmbedder(384))
    try:
        ids = []
        for i in range(NODES):
            out = await svc.writes.write(
                WriteCommand(
                    tenant_id="default",
                    scope="s",
                    input_sha256="0" * 64,
                    nodes=[
                        WriteNodeSpec(type="event", title=f"queued note {i}", fields_set=frozenset({"type", "title"}))
                    ],
                )
            )
            ids.append(out.result.nodes[0].id)
        return ids
    finally:
        await svc.close()


async def statuses(db_url: str, ids: list[str]) -> dict[str, tuple[str, str | None]]:
    store = build_store(Settings(MEMLANE_DATABASE_URL=db_url), dimension=384)
    await store.open()
    try:
        return {n.id: (n.embedding_status, n.embedding_model) for n in await store.get_nodes("default", "s", ids)}
    finally:
        await store.close()


def ready_count(db_url: str, ids: list[str]) -> int:
    return sum(1 for s, _ in asyncio.run(statuses(db_url, ids)).values() if s == "ready")


def start_worker(env: dict[str, str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "memlane.cli.main", "worker"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )


def test_killed_worker_loses_no_jobs_and_a_restarted_worker_finishes_them(tmp_path: Path) -> None:
    db_url = f"sqlite:///{tmp_path / 'memlane.db'}"
    ids = asyncio.run(write_nodes(db_url))
    with openai_server(384) as (base_url, script):
        script.delay_sec = 0.4
        env = worker_env(db_url, base_url)
        with start_worker(env) as worker:  # leaving it closes the worker's stderr pipe
            try:
                deadline = time.monotonic() + 60
                while ready_count(db_url, ids) < 2:
                    assert worker.poll() is None, worker.stderr.read() if worker.stderr else b""
                    assert time.monotonic() < deadline, "worker made no progress"
                    time.sleep(0.1)
            finally:
                worker.send_signal(signal.SIGKILL)
                worker.wait(timeout=10)
        done_at_kill = ready_count(db_url, ids)
        assert done_at_kill < NODES, "the worker must be killed mid-queue for this test to mean anything"

        script.delay_sec = 0.0
        with start_worker(env) as restarted:
            try:
                deadline = time.monotonic() + 60
                while ready_count(db_url, ids) < NODES:
                    assert restarted.poll() is None, restarted.stderr.read() if restarted.stderr else b""
                    assert time.monotonic() < deadline, f"only {ready_count(db_url, ids)} of {NODES} embedded"
                    time.sleep(0.2)
            finally:
                restarted.send_signal(signal.SIGTERM)
                restarted.wait(timeout=20)
    final = asyncio.run(statuses(db_url, ids))
    assert all(v == ("ready", "slow-embed") for v in final.values())
