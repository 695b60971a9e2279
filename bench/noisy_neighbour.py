"""One tenant cannot starve another: a large import beside another tenant's small writes.

Against a real ``memlane serve`` (SQLite, started here like bench/load.py's, or ``--url``):

- tenant A imports ``--nodes`` nodes through ``POST /v1/admin/import`` (in parts of
  ``--part-nodes``, each under ``MEMLANE_MAX_REQUEST_BYTES``; a part answered 503
  ``backlog_full`` is sent again after its ``Retry-After``: an import is idempotent);
- meanwhile tenant B writes one node at a time with ``POST /v1/memory/write``,
  ``--writes-per-s`` a second, until A's import has been sent and every node of both tenants
  is embedded (or ``--max-s``). For each write: the time to its acknowledgement, its status,
  and the time until ``recall_text`` finds it by its own text (it is searchable);
- every ``--sample-s`` the server's RSS and its due job backlog (``/health``).

Then, optionally: ``--export``: tenant A's export (``GET /v1/admin/export``), streamed to
nowhere, with its time and the server's RSS before, at its peak and after;
``--scope-nodes N``: tenant C imports N scopes of two linked nodes, its scope list
(``/ui/part/scopes``) is read, and ``recall_text`` asked once in each scope, with the server's
RSS after each step.

    .venv/bin/python bench/noisy_neighbour.py --nodes 40000 --export --scope-nodes 3000 \\
        --out bench/results/noisy_neighbour.json
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime as dt
import json
import os
import random
import sys
import tempfile
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import aiohttp
from bench.common import MemlaneServer, machine_facts, machine_line, process_rss_mb, server_under_test, summarize
from bench.http_client import CLIENT_ERRORS, LeanClient
from bench.load import fact, searchable, write_body

NDJSON = {"content-type": "application/x-ndjson"}
#: every how many nodes the import file links a node to the one before it
EDGE_EVERY = 10


def iso(t: dt.datetime) -> str:
    return t.isoformat()


def import_parts(
    tenant: str, nodes: int, part_nodes: int, scopes: int, rng: random.Random, *, edge_every: int = EDGE_EVERY
) -> list[bytes]:
    """Export files (services/transfer/records.py) of ``nodes`` nodes over ``scopes`` scopes,
    cut in parts of at most ``part_nodes`` nodes, each a file of its own with its header. Every
    ``edge_every``-th node of a scope is linked to the node before it (which an earlier part
    may hold: an edge's end need only be stored in the scope). Nodes carry the fields an export
    gives them (times, the commit that made them), so sending a part again changes nothing."""
    now = dt.datetime.now(dt.UTC)
    header = {
        "record": "header",
        "format": "memlane-export",
        "version": 1,
        "exported_at": iso(now),
        "tenant_id": tenant,
        "scope": None,
        "embeddings": False,
        "embedding_model": None,
        "embedding_dimension": None,
    }
    parts: list[bytes] = []
    lines: list[str] = [json.dumps(header)]
    edges: list[str] = []
    in_part = 0
    per_scope = -(-nodes // scopes)
    previous: str | None = None
    for i in range(nodes):
        scope = f"import-{i // per_scope}"
        if i % per_scope == 0:
            previous = None
        node_id = str(uuid.uuid4())
        lines.append(
            json.dumps(
                {
                    "record": "node",
                    "tenant_id": tenant,
                    "id": node_id,
                    "scope": scope,
                    "type": "event",
                    "text_summary": fact(rng),
                    "memory_lane": "shared",
                    "created_at": iso(now),
                    "updated_at": iso(now),
                    "commit_id": str(uuid.uuid4()),
                }
            )
        )
        if previous is not None and i % edge_every == 0:
            edges.append(
                json.dumps(
                    {
                        "record": "edge",
                        "tenant_id": tenant,
                        "id": str(uuid.uuid4()),
                        "scope": scope,
                        "type": "related_to",
                        "src_id": node_id,
                        "dst_id": previous,
                        "created_at": iso(now),
                        "updated_at": iso(now),
                    }
                )
            )
        previous = node_id
        in_part += 1
        # a scope's edges follow its nodes, as in an export; a part may end anywhere (an edge
        # into the part before it finds its end stored)
        if (i + 1) % per_scope == 0 or in_part >= part_nodes or i == nodes - 1:
            lines += edges
            edges = []
        if in_part >= part_nodes or i == nodes - 1:
            parts.append(("\n".join(lines) + "\n").encode())
            lines, in_part = [json.dumps(header)], 0
    return parts


@dataclass
class Run:
    pid: int | None
    t0: float = field(default_factory=time.monotonic)
    samples: list[dict[str, Any]] = field(default_factory=list)
    ack_ms: list[float] = field(default_factory=list)
    status: Counter[str] = field(default_factory=Counter)
    #: (acknowledged at, node id, text) of B's writes not yet found by recall_text
    pending: list[tuple[float, str, str]] = field(default_factory=list)
    #: (acknowledged at, seconds into the run; ms until searchable) of B's writes
    searchable: list[tuple[float, float]] = field(default_factory=list)
    import_done: bool = False
    import_parts: list[dict[str, Any]] = field(default_factory=list)
    stop: bool = False

    def now(self) -> float:
        return round(time.monotonic() - self.t0, 2)


async def backlog_of(c: LeanClient) -> int | None:
    with contextlib.suppress(*CLIENT_ERRORS, ValueError, KeyError):
        value = (await c.get("/health")).json()["backlog"]["jobs"]
        return int(value) if value is not None else None
    return None


async def sampler(run: Run, c: LeanClient, every: float) -> None:
    while not run.stop:
        run.samples.append(
            {
                "t": run.now(),
                "rss_mb": process_rss_mb(run.pid) if run.pid else None,
                "backlog": await backlog_of(c),
                "b_pending": len(run.pending),
                "load1": os.getloadavg()[0],
            }
        )
        await asyncio.sleep(every)


async def importer(run: Run, session: aiohttp.ClientSession, tenant: str, parts: list[bytes]) -> None:
    """Sends the parts one after another; a 503 is honoured (Retry-After) and the part sent again."""
    for k, body in enumerate(parts):
        t0 = time.monotonic()
        tries = 0
        while True:
            tries += 1
            async with session.post(
                "/v1/admin/import", params={"tenant_id": tenant}, data=body, headers={**NDJSON, "X-Tenant-Id": tenant}
            ) as r:
                text = await r.text()
                if r.status == 503:
                    await asyncio.sleep(float(r.headers.get("retry-after", "1")))
                    continue
                if r.status != 200:
                    raise RuntimeError(f"import part {k}: HTTP {r.status}: {text[:300]}")
                report = json.loads(text)
                break
        run.import_parts.append(
            {
                "part": k,
                "t_end": run.now(),
                "s": round(time.monotonic() - t0, 2),
                "tries": tries,
                "nodes_written": report["nodes_written"],
                "queued_for_embedding": report["queued_for_embedding"],
            }
        )
        print(f"import part {k + 1}/{len(parts)}: {run.import_parts[-1]}", flush=True)
    run.import_done = True


async def writer(run: Run, c: LeanClient, tenant: str, scope: str, per_s: float, rng: random.Random) -> None:
    """One-node writes at ``per_s`` a second, each on its own task so a slow answer does not
    slow the rate (an open-loop client, as a few agents writing would be)."""
    inflight: set[asyncio.Task[None]] = set()

    async def one(text: str) -> None:
        t0 = time.monotonic()
        try:
            r = await c.post("/v1/memory/write", write_body(scope, text), headers={"X-Tenant-Id": tenant})
            code = str(r.status_code)
            if r.status_code == 503 and "backlog_full" in r.text:
                code = "shed"
            elif r.status_code == 200:
                run.pending.append((time.monotonic(), r.json()["nodes"][0]["id"], text))
        except CLIENT_ERRORS as exc:
            code = type(exc).__name__
        run.ack_ms.append((time.monotonic() - t0) * 1000)
        run.status[code] += 1

    next_at = time.monotonic()
    while not run.stop:
        task = asyncio.create_task(one(fact(rng)))
        inflight.add(task)
        task.add_done_callback(inflight.discard)
        next_at += 1.0 / per_s
        await asyncio.sleep(max(0.0, next_at - time.monotonic()))
    await asyncio.gather(*inflight)


#: B's writes checked at once by the searcher: one at a time, it fell behind after a stall (a
#: recall_text takes 50-200 ms on a busy machine, B writes 4 a second) and its own backlog
#: showed as time until searchable
CHECKS_AT_ONCE = 16


async def searcher(run: Run, c: LeanClient, tenant: str, scope: str) -> None:
    """Every 0.2 s, asks ``recall_text`` for each of B's oldest writes not yet found (up to
    ``CHECKS_AT_ONCE``, side by side), each by its own text; a write is searchable from the
    answer that finds it."""

    async def found(node_id: str, text: str) -> bool:
        with contextlib.suppress(*CLIENT_ERRORS, ValueError):
            return await searchable(c, scope, node_id, text, {"X-Tenant-Id": tenant})
        return False

    while not run.stop or run.pending:
        batch = run.pending[:CHECKS_AT_ONCE]
        if batch:
            answers = await asyncio.gather(*(found(node_id, text) for _, node_id, text in batch))
            at = time.monotonic()
            done = {node_id for (_, node_id, _), yes in zip(batch, answers, strict=True) if yes}
            for acked_at, node_id, _ in batch:
                if node_id in done:
                    run.searchable.append((round(acked_at - run.t0, 2), round((at - acked_at) * 1000, 1)))
            run.pending = [p for p in run.pending if p[1] not in done]
        await asyncio.sleep(0.2)


async def noisy_neighbour(
    base_url: str, pid: int | None, parts: list[bytes], *, per_s: float, max_s: float, sample_s: float
) -> dict[str, Any]:
    run = Run(pid)
    rng = random.Random(11)
    scope_b = f"quiet-{uuid.uuid4().hex[:6]}"
    rss0 = process_rss_mb(pid) if pid else None
    async with (
        LeanClient(base_url, connections=64, timeout=600) as c,
        aiohttp.ClientSession(base_url, timeout=aiohttp.ClientTimeout(total=3600), trust_env=False) as s,
    ):
        tasks = [
            asyncio.create_task(sampler(run, c, sample_s)),
            asyncio.create_task(writer(run, c, "tenant-b", scope_b, per_s, rng)),
            asyncio.create_task(searcher(run, c, "tenant-b", scope_b)),
        ]
        imp = asyncio.create_task(importer(run, s, "tenant-a", parts))
        deadline = run.t0 + max_s
        # B keeps writing until A's import is in and everything it queued is embedded
        while time.monotonic() < deadline:
            await asyncio.sleep(1.0)
            if imp.done():
                imp.result()
                if await backlog_of(c) == 0 and await pending_embeddings(c) == 0:
                    break
        drained_at = run.now()
        run.stop = True
        await asyncio.wait_for(asyncio.gather(*tasks), timeout=120)
        if not imp.done():
            imp.cancel()
        await asyncio.sleep(2.0)
        rss_after = process_rss_mb(pid) if pid else None
    rss = [x["rss_mb"] for x in run.samples if x["rss_mb"] is not None]
    import_sent = run.import_parts[-1]["t_end"] if run.import_parts else float("inf")
    return {
        "import": {
            "nodes": sum(p["nodes_written"] for p in run.import_parts),
            "parts": len(parts),
            "sent_s": run.import_parts[-1]["t_end"] if run.import_done else None,
            "retries_after_503": sum(p["tries"] - 1 for p in run.import_parts),
            "complete": run.import_done,
        },
        "drained_s": drained_at,
        "b_writes": {
            "per_s": per_s,
            "ack_ms": summarize(run.ack_ms),
            "status": dict(run.status),
            "errors": sum(n for k, n in run.status.items() if k != "200"),
            "searchable_ms": summarize([ms for _, ms in run.searchable]),
            # while A's import is being sent, and after (while its nodes are embedded)
            "searchable_ms_during_import": summarize([ms for t, ms in run.searchable if t <= import_sent]),
            "searchable_ms_after_import": summarize([ms for t, ms in run.searchable if t > import_sent]),
            "never_searchable": len(run.pending),
        },
        "rss_mb": {"start": rss0, "peak": max(rss, default=None), "after": rss_after},
        "backlog_max": max((x["backlog"] or 0 for x in run.samples), default=None),
        "load1": summarize([x["load1"] for x in run.samples]),
        "timeline": run.samples,
        "import_parts": run.import_parts,
        "b_searchable": run.searchable,
    }


async def pending_embeddings(c: LeanClient) -> int | None:
    """Nodes of any tenant still waiting for their vector (``/metrics``' embedding backlog)."""
    with contextlib.suppress(*CLIENT_ERRORS, ValueError):
        for line in (await c.get("/metrics")).text.splitlines():
            if line.startswith('memlane_embedding_backlog{state="pending"}'):
                return int(float(line.split()[-1]))
        return 0
    return None


async def export(base_url: str, pid: int | None, tenant: str, sample_s: float) -> dict[str, Any]:
    """Tenant A's export streamed and counted, with the server's RSS sampled meanwhile."""
    rss: list[float] = []
    done = False

    async def sample() -> None:
        while not done:
            if pid and (value := process_rss_mb(pid)) is not None:
                rss.append(value)
            await asyncio.sleep(sample_s)

    before = process_rss_mb(pid) if pid else None
    sampling = asyncio.create_task(sample())
    t0 = time.monotonic()
    records: Counter[str] = Counter()
    first_byte_s = None
    async with (
        aiohttp.ClientSession(base_url, timeout=aiohttp.ClientTimeout(total=3600), trust_env=False) as s,
        s.get("/v1/admin/export", params={"tenant_id": tenant}, headers={"X-Tenant-Id": tenant}) as r,
    ):
        if r.status != 200:
            raise RuntimeError(f"export: HTTP {r.status}: {(await r.text())[:300]}")
        async for line in r.content:
            if first_byte_s is None:
                first_byte_s = round(time.monotonic() - t0, 3)
            if line.strip():
                records[json.loads(line)["record"]] += 1
    took = time.monotonic() - t0
    done = True
    await sampling
    await asyncio.sleep(2.0)
    after = process_rss_mb(pid) if pid else None
    return {
        "s": round(took, 2),
        "first_record_s": first_byte_s,
        "records": dict(records),
        "rss_mb": {"before": before, "peak": max(rss, default=None), "after": after},
        "rss_growth_mb": round(max(rss) - before, 1) if rss and before is not None else None,
    }


async def many_scopes(
    base_url: str, pid: int | None, tenant: str, scopes: int, rng: random.Random, *, max_s: float
) -> dict[str, Any]:
    """``scopes`` scopes of two linked nodes imported for one tenant, then its scope list read
    (the UI's first page), then one ``recall_text`` in each scope: what the server holds per
    scope, after an import and after searches."""
    parts = import_parts(tenant, 2 * scopes, 500, scopes, rng, edge_every=1)
    rss: dict[str, float | None] = {"before": process_rss_mb(pid) if pid else None}
    t0 = time.monotonic()
    async with (
        aiohttp.ClientSession(base_url, timeout=aiohttp.ClientTimeout(total=3600), trust_env=False) as s,
        LeanClient(base_url, connections=8, timeout=600) as c,
    ):
        for body in parts:
            while True:
                headers = {**NDJSON, "X-Tenant-Id": tenant}
                async with s.post("/v1/admin/import", params={"tenant_id": tenant}, data=body, headers=headers) as r:
                    text = await r.text()
                    if r.status == 503:
                        await asyncio.sleep(float(r.headers.get("retry-after", "1")))
                        continue
                    if r.status != 200:
                        raise RuntimeError(f"import: HTTP {r.status}: {text[:300]}")
                    break
        imported_s = time.monotonic() - t0
        rss["after_import"] = process_rss_mb(pid) if pid else None
        deadline = time.monotonic() + max_s
        while time.monotonic() < deadline and (await backlog_of(c) or await pending_embeddings(c)):
            await asyncio.sleep(1.0)
        rss["after_embedding"] = process_rss_mb(pid) if pid else None
        t1 = time.monotonic()
        async with s.get("/ui/part/scopes", headers={"X-Tenant-Id": tenant}) as r:
            html = await r.text()
            status = r.status
        part_s = time.monotonic() - t1
        rss["after_scope_list"] = process_rss_mb(pid) if pid else None
        names = [f"import-{i}" for i in range(scopes)]
        t2 = time.monotonic()

        async def search(k: int) -> None:
            for name in names[k::8]:
                body = {"scope": name, "query_text": fact(rng), "limit": 5}
                (await c.post("/v1/memory/recall_text", body, headers={"X-Tenant-Id": tenant})).raise_for_status()

        await asyncio.gather(*(search(k) for k in range(8)))
        searched_s = time.monotonic() - t2
        await asyncio.sleep(2.0)
        rss["after_searching_each"] = process_rss_mb(pid) if pid else None
    return {
        "scopes": scopes,
        "nodes": 2 * scopes,
        "import_s": round(imported_s, 2),
        "rss_mb": rss,
        "ui_part_scopes": {"status": status, "s": round(part_s, 3), "rows": html.count("<tr>") - 1},
        "recall_text_each_scope_s": round(searched_s, 2),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--url", help="a running server (auth off, loopback admin channel)")
    ap.add_argument("--pid", type=int, help="the running server's pid, for RSS")
    ap.add_argument("--nodes", type=int, default=40_000, help="nodes tenant A imports")
    ap.add_argument("--import-scopes", type=int, default=1, help="scopes tenant A's nodes are spread over")
    ap.add_argument("--part-nodes", type=int, default=5000, help="nodes per import request")
    ap.add_argument("--writes-per-s", type=float, default=4.0, help="tenant B's one-node writes a second")
    ap.add_argument("--max-s", type=float, default=900.0)
    ap.add_argument("--sample-s", type=float, default=0.5)
    ap.add_argument("--export", action="store_true", help="then export tenant A")
    ap.add_argument("--scope-nodes", type=int, default=0, help="then import this many two-node scopes (tenant C)")
    ap.add_argument("--env", default="", help="extra server env, K=V,K=V")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()

    rng = random.Random(5)
    result: dict[str, Any] = {"machine": machine_facts(), "args": {k: str(v) for k, v in vars(args).items()}}
    parts = import_parts("tenant-a", args.nodes, args.part_nodes, args.import_scopes, rng)
    result["import_bytes"] = sum(len(p) for p in parts)
    server: MemlaneServer | None = None
    tmp = Path(tempfile.mkdtemp(prefix="memlane-noisy-"))
    try:
        base_url, pid, server = server_under_test(args.url, args.pid, args.env, tmp, result)
        result["noisy_neighbour"] = asyncio.run(
            noisy_neighbour(base_url, pid, parts, per_s=args.writes_per_s, max_s=args.max_s, sample_s=args.sample_s)
        )
        summary = {
            k: v for k, v in result["noisy_neighbour"].items() if k not in ("timeline", "import_parts", "b_searchable")
        }
        print(json.dumps(summary, indent=1), flush=True)
        if args.export:
            result["export"] = asyncio.run(export(base_url, pid, "tenant-a", args.sample_s / 5))
            print(json.dumps({"export": result["export"]}, indent=1), flush=True)
        if args.scope_nodes:
            result["many_scopes"] = asyncio.run(
                many_scopes(base_url, pid, "tenant-c", args.scope_nodes, rng, max_s=args.max_s)
            )
            print(json.dumps({"many_scopes": result["many_scopes"]}, indent=1), flush=True)
        result["rss_mb_end"] = process_rss_mb(pid) if pid else None
    finally:
        if server is not None:
            server.stop()
    result["loadavg_end"] = os.getloadavg()
    print(machine_line(result["machine"]))
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
