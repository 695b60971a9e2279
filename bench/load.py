"""Mixed concurrent load and kill -9 durability against a real ``memlane serve``.

Load: ``--clients`` concurrent clients, each looping for ``--duration`` seconds over a mix of
``recall_text`` (60%), one-node ``/v1/memory/write`` (30%) and ``POST /api/v1/memories``
(10%) on ``--scopes`` scopes seeded with ``--seed-nodes`` nodes. Reports throughput, the
server's CPU per request (far steadier than latency on a shared machine),
p50/p95/p99 per operation, errors (any non-2xx; 503 ``backlog_full`` counted as ``shed``),
and every second the job backlog (``/health``) and the server's RSS. ``--idle-probe`` also
measures ``recall_text`` alone before the load, so its p95 under load can be compared to idle.

Kill: ``--kill-cycles N`` runs N cycles of writers for a few seconds, ``kill -9`` of the
server mid-stream, restart on the same data, and counts acknowledged writes missing after
the restart (read straight from the SQLite file).

    .venv/bin/python bench/load.py --clients 32 --duration 60 --kill-cycles 5 --out bench/results/load.json
    .venv/bin/python bench/load.py --url http://127.0.0.1:8000 --clients 16 --duration 30   # a running server
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import sqlite3
import sys
import tempfile
import time
import uuid
from collections import Counter, defaultdict
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import contextlib

from bench.common import (
    MemlaneServer,
    machine_facts,
    machine_line,
    process_cpu_seconds,
    process_rss_mb,
    server_under_test,
    summarize,
)
from bench.http_client import CLIENT_ERRORS, LeanClient

PEOPLE = ["Maya", "Omar", "Lena", "Ravi", "Sofia", "Jonas", "Aiko", "Tariq", "Ines", "Hugo"]
LIKES = ["green tea", "trail running", "jazz records", "Thai food", "chess", "watercolours", "sailing", "espresso"]
CITIES = ["Lisbon", "Oslo", "Kyoto", "Nairobi", "Quito", "Porto", "Hanoi", "Tallinn"]
MIX = (("recall_text", 0.6), ("write", 0.3), ("conversation", 0.1))


def fact(rng: random.Random) -> str:
    who, like, city = rng.choice(PEOPLE), rng.choice(LIKES), rng.choice(CITIES)
    return f"{who} enjoys {like} on weekends in {city} (note {rng.randrange(10**6)})."


def question(rng: random.Random) -> str:
    return f"What does {rng.choice(PEOPLE)} enjoy in {rng.choice(CITIES)}?"


def write_body(scope: str, text: str) -> dict[str, Any]:
    return {
        "scope": scope,
        "input_text": text,
        "memory_lane": "shared",
        "nodes": [{"client_id": uuid.uuid4().hex, "type": "event", "text_summary": text}],
    }


class Load:
    def __init__(self, base_url: str, *, scopes: list[str], pid: int | None, seed: int):
        self.base_url = base_url
        self.scopes = scopes
        self.pid = pid
        self.rng = random.Random(seed)
        self.lat: dict[str, list[float]] = defaultdict(list)
        self.status: dict[str, Counter[str]] = defaultdict(Counter)
        self.timeline: list[dict[str, Any]] = []
        self.acked: list[str] = []
        #: the drain probe: stop the clients once this says the backlog is embedded
        self.drained_when: Callable[[LeanClient], Awaitable[bool]] | None = None
        self._drained = False

    async def one(self, c: LeanClient, op: str) -> None:
        scope = self.rng.choice(self.scopes)
        t0 = time.perf_counter()
        try:
            if op == "recall_text":
                r = await c.post(
                    "/v1/memory/recall_text", json={"scope": scope, "query_text": question(self.rng), "limit": 10}
                )
            elif op == "write":
                r = await c.post("/v1/memory/write", json=write_body(scope, fact(self.rng)))
            else:
                msg = {"role": "user", "content": fact(self.rng), "timestamp": "2026-11-24T10:00:00Z"}
                r = await c.post("/api/v1/memories", json={"app_id": scope, "user_id": "load", "messages": [msg]})
            code = str(r.status_code)
            if r.status_code == 503 and "backlog_full" in r.text:
                code = "shed"
            elif op == "write" and r.status_code == 200:
                self.acked.append(r.json()["nodes"][0]["id"])
        except CLIENT_ERRORS as exc:
            code = type(exc).__name__
        self.lat[op].append((time.perf_counter() - t0) * 1000)
        self.status[op][code] += 1

    async def client(self, c: LeanClient, until: float, ops: list[str] | None) -> None:
        while time.monotonic() < until and not self._drained:
            if ops is None:
                x, op = self.rng.random(), "recall_text"
                for name, share in MIX:
                    if x < share:
                        op = name
                        break
                    x -= share
            else:
                op = self.rng.choice(ops)
            await self.one(c, op)

    async def sample(self, c: LeanClient, until: float, t0: float) -> None:
        while time.monotonic() < until and not self._drained:
            backlog = None
            with contextlib.suppress(*CLIENT_ERRORS, ValueError):
                backlog = (await c.get("/health")).json().get("backlog", {}).get("jobs")
            rss = process_rss_mb(self.pid) if self.pid else None
            self.timeline.append(
                {"t": round(time.monotonic() - t0, 1), "backlog": backlog, "rss_mb": rss, "load1": os.getloadavg()[0]}
            )
            if self.drained_when is not None:
                self._drained = await self.drained_when(c)
            await asyncio.sleep(0.25 if self.drained_when is not None else 1.0)

    async def run(self, clients: int, duration: float, ops: list[str] | None = None) -> dict[str, Any]:
        cpu0 = process_cpu_seconds(self.pid) if self.pid else None
        client_cpu0 = time.process_time()
        async with LeanClient(self.base_url, connections=clients + 2, timeout=60) as c:
            t0 = time.monotonic()
            until = t0 + duration
            tasks = [self.client(c, until, ops) for _ in range(clients)]
            await asyncio.gather(self.sample(c, until, t0), *tasks)
            wall = time.monotonic() - t0
        total = sum(len(v) for v in self.lat.values())
        cpu1 = process_cpu_seconds(self.pid) if self.pid else None
        client_cpu = time.process_time() - client_cpu0
        # CPU the server spent per request: much less sensitive to a busy machine than latency
        cpu_ms = round((cpu1 - cpu0) / total * 1000, 2) if cpu0 is not None and cpu1 is not None and total else None
        errors = {
            op: {k: n for k, n in st.items() if not k.startswith("2") and k != "shed"} for op, st in self.status.items()
        }
        return {
            "clients": clients,
            "duration_s": round(wall, 1),
            "requests": total,
            "requests_per_s": round(total / wall, 1),
            "server_cpu_ms_per_request": cpu_ms,
            # the clients share the server's cores: what they burn is CPU the server did not get
            "client_cores": round(client_cpu / wall, 2),
            "server_cores": round((cpu1 - cpu0) / wall, 2) if cpu0 is not None and cpu1 is not None else None,
            "per_op": {
                op: {**summarize(v), "per_s": round(len(v) / wall, 1), "status": dict(self.status[op])}
                for op, v in self.lat.items()
            },
            "errors": sum(sum(e.values()) for e in errors.values()),
            "shed": sum(st.get("shed", 0) for st in self.status.values()),
            "backlog_max": max((s["backlog"] or 0 for s in self.timeline), default=None),
            "backlog_end": self.timeline[-1]["backlog"] if self.timeline else None,
            "rss_mb_max": max((s["rss_mb"] or 0 for s in self.timeline), default=None),
            "timeline": self.timeline,
        }


async def seed(base_url: str, scopes: list[str], per_scope: int, rng: random.Random) -> None:
    """Facts to recall, written in batches, then waited on until embedded (backlog 0)."""
    async with LeanClient(base_url, timeout=120) as c:
        for scope in scopes:
            for start in range(0, per_scope, 200):
                nodes = [{"type": "event", "text_summary": fact(rng)} for _ in range(min(200, per_scope - start))]
                r = await c.post(
                    "/v1/memory/write",
                    json={"scope": scope, "input_text": "seed", "memory_lane": "shared", "nodes": nodes},
                )
                r.raise_for_status()
        while (await c.get("/health")).json()["backlog"]["jobs"]:
            await asyncio.sleep(0.5)


async def searchable(c: LeanClient, scope: str, node_id: str, text: str, headers: dict[str, str] | None = None) -> bool:
    """Whether ``recall_text`` finds the node by its own text (it has been embedded)."""
    body = {"scope": scope, "query_text": text, "limit": 10}
    r = await c.post("/v1/memory/recall_text", json=body, headers=headers)
    return any(s["id"] == node_id for s in r.json().get("seeds", []))


async def drain_probe(base_url: str, scopes: list[str], nodes: int, rng: random.Random, max_s: float) -> dict[str, Any]:
    """``recall_text`` by 4 clients, as in the idle probe, while ``nodes`` written in 200-node
    writes are embedded and nothing else is written: "queries never wait behind background
    embedding", measured apart from the CPU that concurrent writes' own requests take (the
    backlog probe). The probe ends when the last node written is found by its own text (jobs
    are run oldest first, so the rest were embedded before it)."""
    async with LeanClient(base_url, timeout=120) as c:
        t0 = time.monotonic()
        for i, start in enumerate(range(0, nodes, 200)):
            batch = [{"type": "event", "text_summary": fact(rng)} for _ in range(min(200, nodes - start))]
            scope = scopes[i % len(scopes)]
            body = {"scope": scope, "input_text": "backlog", "memory_lane": "shared", "nodes": batch}
            r = await c.post("/v1/memory/write", json=body)
            r.raise_for_status()
            last = (scope, r.json()["nodes"][-1]["id"], batch[-1]["text_summary"])
        written_s = time.monotonic() - t0

    async def embedded(c: LeanClient) -> bool:
        return await searchable(c, *last)

    load = Load(base_url, scopes=scopes, pid=None, seed=4)
    load.drained_when = embedded
    run = await load.run(4, max_s, ["recall_text"])
    return {
        "nodes": nodes,
        "written_s": round(written_s, 2),
        "drain_s": run["duration_s"],
        "recall_text": {k: v for k, v in run["per_op"]["recall_text"].items() if k != "status"},
        "errors": run["errors"],
    }


async def writes_until_searchable(base_url: str, clients: int, total: int, pid: int | None = None) -> dict[str, Any]:
    """``clients`` concurrent writers, ``total`` one-node writes in all; the clock stops when the
    last write of every client is found by recall_text (it has been embedded)."""
    rng = random.Random(3)
    scope = f"burst-{uuid.uuid4().hex[:6]}"
    texts = [fact(rng) for _ in range(total)]
    last: dict[int, tuple[str, str]] = {}
    async with LeanClient(base_url, connections=clients + 2, timeout=60) as c:

        async def writer(k: int) -> None:
            for text in texts[k::clients]:
                r = await c.post("/v1/memory/write", json=write_body(scope, text))
                r.raise_for_status()
                last[k] = (r.json()["nodes"][0]["id"], text)

        cpu0 = process_cpu_seconds(pid) if pid else None
        t0 = time.perf_counter()
        await asyncio.gather(*(writer(k) for k in range(clients)))
        acked = time.perf_counter() - t0
        pending = dict(last)
        while pending:
            for k, (node_id, text) in list(pending.items()):
                if await searchable(c, scope, node_id, text):
                    del pending[k]
            if pending:
                await asyncio.sleep(0.05)
        until_searchable = time.perf_counter() - t0
    cpu1 = process_cpu_seconds(pid) if pid else None
    return {
        "clients": clients,
        "records": total,
        "acked_s": round(acked, 2),
        "searchable_s": round(until_searchable, 2),
        "records_per_s_until_searchable": round(total / until_searchable, 1),
        # writing and embedding each record, and the recall_text polls at the end
        "server_cpu_ms_per_record": round((cpu1 - cpu0) / total * 1000, 2) if cpu0 is not None and cpu1 else None,
        "loadavg_1m": os.getloadavg()[0],
    }


def missing_after_restart(db_path: Path, ids: list[str]) -> int:
    con = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    try:
        found: set[str] = set()
        for i in range(0, len(ids), 500):
            part = ids[i : i + 500]
            rows = con.execute(f"SELECT id FROM nodes WHERE id IN ({','.join('?' * len(part))})", part)
            found.update(r[0] for r in rows)
        return len(set(ids) - found)
    finally:
        con.close()


def kill_cycles(server: MemlaneServer, db_path: Path, cycles: int, clients: int, seconds: float) -> dict[str, Any]:
    """Writers for ``seconds``, kill -9 while they run, restart, count acknowledged writes lost."""
    out: list[dict[str, Any]] = []
    for i in range(cycles):
        load = Load(server.base_url, scopes=[f"kill-{i}-{j}" for j in range(4)], pid=None, seed=1000 + i)

        async def writers_then_kill(load: Load = load) -> None:
            async def killer() -> None:
                await asyncio.sleep(seconds * random.uniform(0.5, 0.9))
                assert server.proc is not None
                os.killpg(server.proc.pid, signal.SIGKILL)

            await asyncio.gather(load.run(clients, seconds, ops=["write"]), killer())

        asyncio.run(writers_then_kill())
        assert server.proc is not None
        server.proc.wait(timeout=30)
        server.stop()
        server.start()
        server.wait_healthy(120)
        lost = missing_after_restart(db_path, load.acked)
        failed = sum(n for k, n in load.status["write"].items() if not k.startswith("2"))
        out.append({"cycle": i + 1, "acked": len(load.acked), "unacked_or_cut": failed, "lost_after_restart": lost})
        print(f"kill cycle {i + 1}: {len(load.acked)} acknowledged, {lost} missing after restart", flush=True)
    return {
        "cycles": out,
        "acked_total": sum(c["acked"] for c in out),
        "lost_total": sum(c["lost_after_restart"] for c in out),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--url", help="a running server (no kill cycles, no RSS unless --pid)")
    ap.add_argument("--pid", type=int, help="the running server's pid, for RSS")
    ap.add_argument("--clients", type=int, default=32)
    ap.add_argument("--duration", type=float, default=60.0)
    ap.add_argument("--scopes", type=int, default=8)
    ap.add_argument("--seed-nodes", type=int, default=1000, help="nodes per scope written before the load")
    ap.add_argument(
        "--idle-probe", type=float, default=10.0, help="seconds of recall_text alone before the load (0 = skip)"
    )
    ap.add_argument("--backlog-probe", type=float, default=0.0, help="seconds of 3:1 writes:recall_text by 16 clients")
    ap.add_argument(
        "--drain-probe", type=int, default=0, help="recall_text while a backlog of this many nodes drains, no writes"
    )
    ap.add_argument("--burst", type=int, default=0, help="one-node writes by --burst-clients until searchable")
    ap.add_argument("--burst-clients", type=int, default=16)
    ap.add_argument("--kill-cycles", type=int, default=0)
    ap.add_argument("--kill-seconds", type=float, default=6.0)
    ap.add_argument("--env", default="", help="extra server env, K=V,K=V")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()

    rng = random.Random(7)
    scopes = [f"load-{uuid.uuid4().hex[:6]}-{i}" for i in range(args.scopes)]
    result: dict[str, Any] = {"machine": machine_facts(), "args": {k: str(v) for k, v in vars(args).items()}}
    server: MemlaneServer | None = None
    tmp = Path(tempfile.mkdtemp(prefix="memlane-load-"))
    try:
        base_url, pid, server = server_under_test(args.url, args.pid, args.env, tmp, result)
        t0 = time.monotonic()
        asyncio.run(seed(base_url, scopes, args.seed_nodes, rng))
        result["seed_s"] = round(time.monotonic() - t0, 1)
        if args.burst:
            result["burst"] = asyncio.run(writes_until_searchable(base_url, args.burst_clients, args.burst, pid))
            print(json.dumps(result["burst"]), flush=True)
        if args.idle_probe > 0:
            idle = asyncio.run(Load(base_url, scopes=scopes, pid=pid, seed=1).run(4, args.idle_probe, ["recall_text"]))
            result["idle_recall_text"] = {k: v for k, v in idle["per_op"]["recall_text"].items() if k != "status"}
        if args.drain_probe > 0:
            drain = asyncio.run(drain_probe(base_url, scopes, args.drain_probe, rng, max_s=120))
            if "idle_recall_text" in result:
                drain["recall_text_p95_over_idle"] = round(
                    drain["recall_text"]["p95"] / result["idle_recall_text"]["p95"], 2
                )
            result["drain_probe"] = drain
        if args.backlog_probe > 0:
            probe = asyncio.run(
                Load(base_url, scopes=scopes, pid=pid, seed=3).run(
                    16, args.backlog_probe, ["write"] * 3 + ["recall_text"]
                )
            )
            result["backlog_probe"] = {
                "recall_text": {k: v for k, v in probe["per_op"]["recall_text"].items() if k != "status"},
                "write": probe["per_op"]["write"],
                "backlog_max": probe["backlog_max"],
                "shed": probe["shed"],
                "errors": probe["errors"],
            }
            if "idle_recall_text" in result:
                idle_p95 = result["idle_recall_text"]["p95"]
                result["backlog_probe"]["recall_text_p95_over_idle"] = round(
                    probe["per_op"]["recall_text"]["p95"] / idle_p95, 2
                )
        if args.duration > 0:
            result["load"] = asyncio.run(
                Load(base_url, scopes=scopes, pid=pid, seed=2).run(args.clients, args.duration)
            )
        if args.kill_cycles:
            if server is None:
                raise SystemExit("--kill-cycles needs the bench to start the server (no --url)")
            result["kill"] = kill_cycles(server, tmp / "memlane.db", args.kill_cycles, 16, args.kill_seconds)
    finally:
        if server is not None:
            server.stop()
    result["loadavg_end"] = os.getloadavg()
    print(
        json.dumps(
            {k: v for k, v in result.items() if k not in ("machine",)}
            | {"load": {k: v for k, v in result.get("load", {}).items() if k != "timeline"}},
            indent=1,
        )
    )
    print(machine_line(result["machine"]))
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
