"""Two stateless API processes and one separate worker on one PostgreSQL, as real subprocesses.

The embedding provider is an OpenAI-compatible server on loopback that is slow on purpose
(feature-hashing vectors, so queries and nodes agree without a model), which lets the test
SIGKILL the worker in the middle of a job and check that a restarted worker finishes it.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest

from memlane.embed.hashing import HashingEmbedder
from tests.support.pg import fresh_database_url, run_sync
from tests.support.server import free_port
from tests.support.settings import DIM
from tests.support.waiting import wait_for

pytestmark = [pytest.mark.slow, pytest.mark.postgres]

TENANT = "acme"
SCOPE = "scale-out"


# --- a slow OpenAI-compatible embedding server ---------------------------------------------
@dataclass
class SlowEmbeddings:
    url: str
    server: ThreadingHTTPServer
    delay: float = 0.0
    requests: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)


@contextlib.contextmanager
def slow_embedding_server() -> Iterator[SlowEmbeddings]:
    embedder = HashingEmbedder(DIM)
    state: dict[str, SlowEmbeddings] = {}

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["content-length"])))
            svc = state["svc"]
            with svc.lock:
                svc.requests += 1
            time.sleep(svc.delay)
            vectors = embedder.embed_sync(list(body["input"]))
            payload = json.dumps(
                {
                    "object": "list",
                    "model": body.get("model"),
                    "data": [
                        {"object": "embedding", "index": i, "embedding": v.tolist()} for i, v in enumerate(vectors)
                    ],
                }
            ).encode()
            # the worker may be SIGKILLed while its request is in flight
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    svc = SlowEmbeddings(url=f"http://127.0.0.1:{server.server_address[1]}/v1", server=server)
    state["svc"] = svc
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield svc
    finally:
        server.shutdown()
        server.server_close()


# --- memlane processes ---------------------------------------------------------------------
def memlane_cmd(*args: str) -> list[str]:
    script = Path(sys.executable).with_name("memlane")
    if script.exists():
        return [str(script), *args]
    return [sys.executable, "-m", "memlane.cli.main", *args]


@dataclass
class Procs:
    env: dict[str, str]
    logs: Path
    started: list[subprocess.Popen[bytes]] = field(default_factory=list)

    def start(self, name: str, *args: str) -> subprocess.Popen[bytes]:
        log = open(self.logs / f"{name}.log", "ab")  # noqa: SIM115 - closed with the process
        proc = subprocess.Popen(memlane_cmd(*args), env=self.env, stdout=log, stderr=subprocess.STDOUT)
        log.close()
        self.started.append(proc)
        return proc

    def run(self, *args: str) -> str:
        out = subprocess.run(memlane_cmd(*args), env=self.env, capture_output=True, text=True, timeout=60)
        assert out.returncode == 0, out.stdout + out.stderr
        return out.stdout

    def stop_all(self) -> None:
        for proc in self.started:
            if proc.poll() is None:
                proc.terminate()
        for proc in self.started:
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)

    def tail(self) -> str:
        return "\n".join(f"--- {p.name}\n{p.read_text()[-3000:]}" for p in sorted(self.logs.glob("*.log")))


def healthy(url: str) -> bool:
    try:
        return httpx.get(f"{url}/health", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


# --- reading the database directly --------------------------------------------------------
def query(db_url: str, sql: str, *args: Any) -> list[Any]:
    import asyncpg

    async def go() -> list[Any]:
        conn = await asyncpg.connect(db_url)
        try:
            return list(await conn.fetch(sql, *args))
        finally:
            await conn.close()

    return run_sync(go())


def node_states(db_url: str, ids: list[str]) -> dict[str, int]:
    rows = query(
        db_url,
        "SELECT embedding_status, count(*) FROM nodes WHERE tenant_id = $1 AND id = ANY($2) GROUP BY 1",
        TENANT,
        ids,
    )
    return {r[0]: int(r[1]) for r in rows}


def job_states(db_url: str) -> dict[str, int]:
    """States of the embedding jobs; periodic jobs (decay, sweeps) wait for their time slot."""
    sql = "SELECT status, count(*) FROM jobs WHERE kind = 'embed_nodes' GROUP BY 1"
    return {r[0]: int(r[1]) for r in query(db_url, sql)}


# --- the API -------------------------------------------------------------------------------
def write(api: str, titles: list[str]) -> list[str]:
    body = {
        "tenant_id": TENANT,
        "scope": SCOPE,
        "input_text": " / ".join(titles),
        "nodes": [{"type": "event", "title": t, "memory_lane": "shared"} for t in titles],
    }
    r = httpx.post(f"{api}/v1/memory/write", json=body, timeout=30)
    assert r.status_code == 200, r.text
    out = r.json()
    assert out["embedding_backfill"]["enqueued"] is True
    return [n["id"] for n in out["nodes"]]


def recall_seed_ids(api: str, text: str) -> list[str]:
    body = {"tenant_id": TENANT, "scope": SCOPE, "query_text": text, "limit": 5}
    r = httpx.post(f"{api}/v1/memory/recall_text", json=body, timeout=30)
    assert r.status_code == 200, r.text
    return [s["id"] for s in r.json()["seeds"]]


@pytest.fixture
def pg_url(request: pytest.FixtureRequest) -> str:
    return fresh_database_url(request)


def test_two_api_processes_and_a_killable_worker_share_one_postgres(pg_url: str, tmp_path: Path) -> None:
    with slow_embedding_server() as embeddings:
        env = {
            **os.environ,
            "MEMLANE_DATABASE_URL": pg_url,
            "MEMLANE_EMBEDDER": "openai",
            "MEMLANE_EMBEDDING_BASE_URL": embeddings.url,
            "MEMLANE_EMBEDDING_MODEL": "slow-hashing",
            "MEMLANE_EMBEDDING_DIMENSION": str(DIM),
            "MEMLANE_EMBEDDING_BATCH_SIZE": "2",
            # one job per lease: with the batched lane a worker that leased all six jobs at once
            # turned every node ready in one step, and "one finished, the next in flight" never held
            "MEMLANE_EMBED_JOB_BATCH": "1",
            "MEMLANE_WORKER_IN_PROCESS": "false",
            "MEMLANE_WORKER_POLL_INTERVAL_SEC": "0.1",
            "MEMLANE_JOB_LEASE_SEC": "2",
            "MEMLANE_DB_POOL_SIZE": "3",
            "MEMLANE_LOG_LEVEL": "warning",
        }
        procs = Procs(env=env, logs=tmp_path)
        try:
            # Migrations run once, before any replica starts (docs/operations.md).
            procs.run("migrate", "upgrade")
            current, head = (line.split(": ", 1)[1] for line in procs.run("migrate", "current").splitlines()[:2])
            assert current == head != "None"

            port_a, port_b = free_port(), free_port()
            api_a, api_b = f"http://127.0.0.1:{port_a}", f"http://127.0.0.1:{port_b}"
            procs.start("api-a", "serve", "--port", str(port_a))
            procs.start("api-b", "serve", "--port", str(port_b))
            worker = procs.start("worker-1", "worker")
            wait_for(
                lambda: healthy(api_a) and healthy(api_b), what="both API processes", timeout=120, diagnose=procs.tail
            )

            # 1. A write through API A is recalled through API B once the worker embeds it.
            [first] = write(api_a, ["harbour lighthouse keeper logbook"])
            wait_for(
                lambda: first in recall_seed_ids(api_b, "harbour lighthouse keeper logbook"),
                what="recall through B",
                timeout=60,
                diagnose=procs.tail,
                interval=0.2,
            )

            # 2. Slow the provider down, queue several jobs, and kill the worker mid-job.
            embeddings.delay = 0.4
            titles = [
                f"ledger entry {w} {i} {word}"
                for w in range(6)
                for i, word in enumerate(["amber", "basalt", "cobalt", "dune"])
            ]
            ids = [nid for w in range(6) for nid in write(api_a, titles[w * 4 : (w + 1) * 4])]
            # the worker may already have started on the first of these jobs; what matters is
            # that work is still queued when it is killed below
            assert node_states(pg_url, ids).get("pending", 0) >= len(ids) - 4
            # A job embeds its nodes in one (slowed) embedder call, so nodes turn ready a job at
            # a time: wait until some are ready and the next job is in flight, then kill.
            wait_for(
                lambda: node_states(pg_url, ids).get("ready", 0) >= 1 and job_states(pg_url).get("running", 0) >= 1,
                what="the worker to be in the middle of a job after finishing one",
                timeout=60,
                diagnose=procs.tail,
                interval=0.02,
            )
            worker.send_signal(signal.SIGKILL)
            worker.wait(timeout=10)
            at_kill = node_states(pg_url, ids)
            jobs_at_kill = job_states(pg_url)
            assert at_kill.get("pending", 0) > 0, at_kill
            assert jobs_at_kill.get("running", 0) >= 1, f"no job was in flight: {jobs_at_kill}"
            orphaned = {
                r[0] for r in query(pg_url, "SELECT id FROM jobs WHERE status = 'running' AND kind = 'embed_nodes'")
            }

            # Nobody else embeds: the API processes hold no worker.
            time.sleep(1.0)
            assert node_states(pg_url, ids) == at_kill

            # 3. A restarted worker takes over the expired leases and finishes everything.
            embeddings.delay = 0.0
            procs.start("worker-2", "worker")
            wait_for(
                lambda: node_states(pg_url, ids) == {"ready": len(ids)},
                what="every node to be embedded",
                timeout=90,
                diagnose=procs.tail,
                interval=0.1,
            )
            wait_for(
                lambda: set(job_states(pg_url)) == {"done"},
                what="every job to be done",
                timeout=30,
                diagnose=procs.tail,
            )
            retried = query(pg_url, "SELECT id, attempts FROM jobs WHERE id = ANY($1)", list(orphaned))
            assert all(r["attempts"] >= 2 for r in retried), "orphaned jobs were re-leased after the kill"

            # 4. Every node written through A is recalled through B.
            for nid, title in zip(ids, titles, strict=True):
                assert nid in recall_seed_ids(api_b, title), title
            # and through A too: neither API process keeps state of its own
            assert ids[0] in recall_seed_ids(api_a, titles[0])

            # The commit chain of the scope stayed linear across processes.
            seqs = [r[0] for r in query(pg_url, "SELECT seq FROM commits WHERE scope = $1 ORDER BY seq", SCOPE)]
            assert seqs == list(range(1, len(seqs) + 1))
        finally:
            procs.stop_all()
