"""Conversation surface benchmark on LoCoMo (read in place from ../shared/data/locomo-dev).

Measures:
1. Offline-extractor throughput: messages/s of ``extract_notes`` alone (in this process), and
   end-to-end ingestion through ``POST /api/v1/memories`` on a real ``memlane serve``
   subprocess (extraction + embedding + conflict resolution + writes, until every task is done).
2. Evidence recall@k (k = 1, 5, 10, 20) for questions of categories 1-4: each conversation is
   ingested in chunks of <= 30 messages (one app_id per conversation, message id = the
   dataset's ``dia_id``, timestamps from the session date, 30 s apart), each question is asked
   through ``GET /api/v1/memories/query``, and a question scores the share of its evidence
   turns cited (``metadata.source_messages[].id``) by the top-k notes. The baseline stores every
   raw turn as its own note (``POST /api/v1/agent/memories``, one turn per request) and is
   queried the same way.

Answers and evidence are used only to score, never at query time.

    .venv/bin/python bench/conversation.py                 # all 5 conversations, local embedder
    .venv/bin/python bench/conversation.py --convs 1 --embedder hashing   # quick smoke run
    .venv/bin/python bench/conversation.py --ingestion-only   # throughput only, no recall phase
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import RESULTS_DIR, MemlaneServer, free_port, machine_facts, machine_line

from memlane.services.conversation.extractor import extract_notes
from memlane.services.conversation.messages import messages_from_payload

DATA_DIR = Path(__file__).resolve().parents[2] / "shared" / "data" / "locomo-dev"
CHUNK = 30
KS = (1, 5, 10, 20)
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}


# --- data ---------------------------------------------------------------------------------
def session_time(text: str) -> datetime:
    """LoCoMo writes "1:56 pm on 8 May, 2023"."""
    return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)


def load_conversation(path: Path) -> dict[str, Any]:
    data = json.loads(path.read_text())
    conv = data.get("conversation", data)
    sessions: list[list[dict[str, Any]]] = []
    n = 1
    while f"session_{n}" in conv:
        start = session_time(conv[f"session_{n}_date_time"])
        turns = []
        for i, turn in enumerate(conv[f"session_{n}"]):
            text = str(turn.get("text") or "").strip()
            caption = turn.get("blip_caption")
            if caption:
                text = f"{text} [shares a photo: {caption}]".strip()
            if not text:
                continue
            ts = start + timedelta(seconds=30 * i)
            turns.append(
                {
                    "id": str(turn["dia_id"]),
                    "role": str(turn["speaker"]),
                    "content": text,
                    "timestamp": ts.isoformat().replace("+00:00", "Z"),
                }
            )
        sessions.append(turns)
        n += 1
    questions = [
        q for q in data.get("qa", []) if q.get("category") in CATEGORIES and q.get("evidence") and q.get("question")
    ]
    return {"name": path.stem, "sessions": sessions, "questions": questions}


def chunks(session: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    return [session[i : i + CHUNK] for i in range(0, len(session), CHUNK)]


# --- phases -------------------------------------------------------------------------------
def extractor_throughput(convs: list[dict[str, Any]], repeats: int = 3) -> dict[str, Any]:
    batches = [messages_from_payload(c) for conv in convs for s in conv["sessions"] for c in chunks(s)]
    n_messages = sum(len(b) for b in batches)
    best = float("inf")
    notes = 0
    for _ in range(repeats):
        started = time.perf_counter()
        notes = sum(len(extract_notes(b)) for b in batches)
        best = min(best, time.perf_counter() - started)
    return {
        "messages": n_messages,
        "notes_drafted": notes,
        "seconds_best_of_3": round(best, 3),
        "messages_per_sec": round(n_messages / best, 1),
    }


def wait_tasks(client: httpx.Client, task_ids: list[str], timeout: float) -> list[dict[str, Any]]:
    """Waits on one unfinished task at a time, in submission order (the tasks of one app run
    in that order): polling every pending task would load the server being measured."""
    deadline = time.monotonic() + timeout
    views: list[dict[str, Any]] = []
    for tid in task_ids:
        while True:
            view = client.get(f"/api/v1/tasks/{tid}").json()
            if view["status"] in ("completed", "failed"):
                views.append(view)
                break
            if time.monotonic() > deadline:
                raise RuntimeError(f"task {tid} not finished after {timeout}s")
            time.sleep(0.2)
    return views


def submit(client: httpx.Client, path: str, body: dict[str, Any]) -> httpx.Response:
    """POST as a well-behaved client does: a 503 ``backlog_full`` is waited out for its
    ``Retry-After`` and sent again (the server sheds work beyond MEMLANE_WRITE_BACKLOG_MAX)."""
    while True:
        r = client.post(path, json=body)
        if r.status_code != 503:
            r.raise_for_status()
            return r
        time.sleep(float(r.headers.get("retry-after") or 1))


def ingest_notes(client: httpx.Client, conv: dict[str, Any]) -> list[str]:
    app = f"locomo-{conv['name']}"
    ids = []
    for session in conv["sessions"]:
        for chunk in chunks(session):
            r = submit(client, "/api/v1/memories", {"app_id": app, "user_id": "locomo", "messages": chunk})
            ids.append(r.json()["task_id"])
    return ids


def ingest_raw(client: httpx.Client, conv: dict[str, Any]) -> list[str]:
    app = f"locomo-raw-{conv['name']}"
    ids = []
    for session in conv["sessions"]:
        for turn in session:
            message = {**turn, "content": f"{turn['role']}: {turn['content']}"}
            r = submit(client, "/api/v1/agent/memories", {"app_id": app, "user_id": "locomo", "messages": [message]})
            ids.append(r.json()["task_id"])
    return ids


def recall(client: httpx.Client, app: str, questions: Sequence[dict[str, Any]]) -> dict[str, Any]:
    per_cat: dict[str, list[dict[int, float]]] = defaultdict(list)
    cited_at_10: list[int] = []
    latencies: list[float] = []
    for q in questions:
        started = time.perf_counter()
        r = client.get("/api/v1/memories/query", params={"app_id": app, "query": q["question"], "n_results": max(KS)})
        latencies.append((time.perf_counter() - started) * 1000)
        r.raise_for_status()
        memories = r.json()["memories"]
        evidence = {str(e).strip() for e in q["evidence"]}
        scores: dict[int, float] = {}
        for k in KS:
            cited = {str(s.get("id")) for m in memories[:k] for s in m["metadata"].get("source_messages", [])}
            scores[k] = len(evidence & cited) / len(evidence)
            if k == 10:
                cited_at_10.append(len(cited))
        per_cat[CATEGORIES[q["category"]]].append(scores)
    every = [s for rows in per_cat.values() for s in rows]

    def avg(rows: list[dict[int, float]]) -> dict[str, float]:
        return {f"R@{k}": round(sum(r[k] for r in rows) / len(rows), 4) for k in KS} if rows else {}

    latencies.sort()
    return {
        "questions": len(every),
        "overall": avg(every),
        "by_category": {c: {"n": len(rows), **avg(rows)} for c, rows in sorted(per_cat.items())},
        "mean_cited_messages_in_top10": round(sum(cited_at_10) / max(len(cited_at_10), 1), 2),
        "query_ms_p50": round(latencies[len(latencies) // 2], 1) if latencies else None,
    }


def run(args: argparse.Namespace) -> dict[str, Any]:
    files = sorted(Path(args.data_dir).glob("*.json"))[: args.convs]
    if not files:
        raise SystemExit(f"no LoCoMo files in {args.data_dir}")
    convs = [load_conversation(f) for f in files]
    out: dict[str, Any] = {
        "machine": machine_facts(),
        "embedder": args.embedder,
        "conversations": [c["name"] for c in convs],
        "messages": sum(len(s) for c in convs for s in c["sessions"]),
        "questions": sum(len(c["questions"]) for c in convs),
    }
    out["extractor_only"] = extractor_throughput(convs)
    print(f"extractor alone: {out['extractor_only']}", flush=True)
    with tempfile.TemporaryDirectory(prefix="memlane-bench-conv-") as tmp:
        env = {"MEMLANE_DATA_DIR": tmp, "MEMLANE_EMBEDDER": args.embedder, "MEMLANE_LOG_LEVEL": "warning"}
        server = MemlaneServer(port=free_port(), env=env, log_path=Path(tmp) / "server.log")
        server.start()
        try:
            server.wait_healthy(timeout=180)
            with httpx.Client(base_url=server.base_url, timeout=120) as client:
                started = time.perf_counter()
                task_ids = [t for c in convs for t in ingest_notes(client, c)]
                views = wait_tasks(client, task_ids, timeout=3600)
                elapsed = time.perf_counter() - started
                failed = [v for v in views if v["status"] != "completed"]
                notes = sum(len(v["result"]["memories"]) for v in views if v["result"])
                out["ingestion_api"] = {
                    "requests": len(task_ids),
                    "failed_tasks": len(failed),
                    "notes_created": notes,
                    "seconds": round(elapsed, 2),
                    "messages_per_sec": round(out["messages"] / elapsed, 1),
                    "server_cpu_seconds": server.cpu_seconds(),
                }
                print(f"ingestion via API: {out['ingestion_api']}", flush=True)
                if args.ingestion_only:
                    return out
                raw_started = time.perf_counter()
                raw_ids = [t for c in convs for t in ingest_raw(client, c)]
                wait_tasks(client, raw_ids, timeout=3600)
                out["raw_ingestion_seconds"] = round(time.perf_counter() - raw_started, 2)
                notes_recall: dict[str, Any] = {}
                raw_recall: dict[str, Any] = {}
                all_q: dict[str, list[dict[str, Any]]] = {"notes": [], "raw": []}
                for c in convs:
                    notes_recall[c["name"]] = recall(client, f"locomo-{c['name']}", c["questions"])
                    raw_recall[c["name"]] = recall(client, f"locomo-raw-{c['name']}", c["questions"])
                    all_q["notes"].append(notes_recall[c["name"]])
                    all_q["raw"].append(raw_recall[c["name"]])
                out["recall_notes"] = _pool(notes_recall)
                out["recall_raw_turns"] = _pool(raw_recall)
                out["recall_notes_per_conversation"] = notes_recall
                out["recall_raw_per_conversation"] = raw_recall
        finally:
            server.stop()
    return out


def _pool(per_conv: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Question-weighted overall figures from the per-conversation ones."""
    total = sum(r["questions"] for r in per_conv.values())
    overall = {
        f"R@{k}": round(sum(r["overall"][f"R@{k}"] * r["questions"] for r in per_conv.values()) / total, 4) for k in KS
    }
    cats: dict[str, dict[str, float]] = {}
    for name in CATEGORIES.values():
        rows = [r["by_category"][name] for r in per_conv.values() if name in r["by_category"]]
        n = sum(int(row["n"]) for row in rows)
        if n:
            cats[name] = {"n": n, **{f"R@{k}": round(sum(row[f"R@{k}"] * row["n"] for row in rows) / n, 4) for k in KS}}
    cited = sum(r["mean_cited_messages_in_top10"] * r["questions"] for r in per_conv.values()) / total
    return {
        "questions": total,
        "overall": overall,
        "by_category": cats,
        "mean_cited_messages_in_top10": round(cited, 2),
    }


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data-dir", default=str(DATA_DIR))
    p.add_argument("--convs", type=int, default=5, help="how many conversations (files, sorted by name)")
    p.add_argument("--embedder", default="local", choices=["local", "hashing"])
    p.add_argument("--out", default=str(RESULTS_DIR / "conversation.json"))
    p.add_argument("--ingestion-only", action="store_true", help="stop after the end-to-end ingestion figure")
    args = p.parse_args(argv)

    def on_term(signum: int, _frame: Any) -> None:
        raise SystemExit(128 + signum)  # unwinds through run(), which stops the server

    signal.signal(signal.SIGTERM, on_term)
    res = run(args)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(res, indent=1))
    print(machine_line(res["machine"]))
    print(f"extractor alone: {res['extractor_only']['messages_per_sec']} messages/s")
    print(f"ingestion via API: {res['ingestion_api']['messages_per_sec']} messages/s")
    for label, key in (("notes", "recall_notes"), ("raw turns", "recall_raw_turns")):
        if key not in res:
            continue
        r = res[key]
        print(f"{label:>9}: {r['overall']}  (mean cited messages in top 10: {r['mean_cited_messages_in_top10']})")
        for cat, row in r["by_category"].items():
            print(f"           {cat:<12} {row}")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
