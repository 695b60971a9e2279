"""Retrieval quality on LoCoMo: evidence recall@k of memlane's recall_text against two baselines.

Reads the LoCoMo conversations in place (``/work/shared/data/locomo-dev``, see its README),
starts a real ``memlane serve`` subprocess on loopback with a fresh temp data dir and the local
embedder, and writes every turn of every session as a memory through ``POST /v1/memory/write``,
one scope per conversation:

* a turn is an ``event`` node, ``client_id`` = its ``dia_id``; ``title`` = speaker and session
  date; ``text_summary`` = what was said, the caption of a shared image, and (``--memory-text
  contextual``, the default) the turn it replies to; ``slots`` carry ``speaker``,
  ``event_time`` (the session date, ISO-8601), ``session``, ``dia_id``;
* a session is a ``topic`` node; every turn is ``part_of`` its session, and consecutive turns
  are ``related_to`` each other.

With ``--client plain`` the turns are written the way a client that knows none of these
conventions writes them: ``"Speaker (date): words"`` as the text, 100 turns per write request,
no slots (what the server still reads from that: docs/retrieval.md, "Signals from a client that
writes no slots").

Then every question of categories 1-4 is asked through ``POST /v1/memory/recall_text`` (and,
with ``--conversation-api``, through ``GET /api/v1/memories/query``). The ``ranked`` list is
mapped back to ``dia_id``s through the write responses (non-turn nodes are skipped), and
evidence recall@k is the share of a question's evidence turns among the first k turns.
Session-level recall@k (the unit peers publish) is the share of the evidence's sessions among
the first k distinct sessions of the same ranking, in rank order.

Baselines are computed here with the same embedder over the same texts the server embeds
(``title + "\\n" + text_summary``): dense-only cosine top-k, Okapi BM25 (implemented below:
k1=1.2, b=0.75, lowercase word tokens, common English stop words removed, no stemming), and their
reciprocal rank fusion (k=60).

Ablations restart the server on the same data with one ranking signal switched off
(``MEMLANE_RECALL_*``), so every configuration ranks the very same stored memories.

``--validity`` measures facts over time (docs/api-graph.md, "Facts over time"): every turn is
written with ``valid_at`` = its session date, and a question that names a date ("in May 2023")
is asked ``as_of`` the end of that period plus ``--as-of-slack-days`` (a turn often tells of
its period days later), so turns of later sessions drop out. Questions that name no date are
asked as before (valid now: every turn).

Usage:
  .venv/bin/python bench/locomo_retrieval.py --markdown --out bench/results/locomo-retrieval.json
  .venv/bin/python bench/locomo_retrieval.py --configs full --conversations 26,30
  .venv/bin/python bench/locomo_retrieval.py --configs full --no-baselines --client plain --conversations 26,30
  .venv/bin/python bench/locomo_retrieval.py --conversation-api
  .venv/bin/python bench/locomo_retrieval.py --configs full --database-url postgresql://...  # on PostgreSQL
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import datetime as dt
import functools
import hashlib
import json
import math
import re
import shutil
import sqlite3
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import numpy.typing as npt

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import MemlaneServer, ServerError, free_port, machine_facts, machine_line, server_ms, summarize

from memlane.services.ranking.temporal import query_period

DEFAULT_DATA = Path("/work/shared/data/locomo-dev")
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
KS = (1, 5, 10, 20)
#: session-level recall cut-offs (distinct sessions in rank order), as peers publish
SESSION_KS = (5, 10)
#: turns per write request of the plain client
PLAIN_BATCH = 100
TENANT = "default"
#: ranking configurations: name -> server environment (on top of the defaults)
CONFIGS: dict[str, dict[str, str]] = {
    "full": {},
    "no-keyword": {"MEMLANE_RECALL_KEYWORD": "false"},
    "no-graph": {"MEMLANE_RECALL_GRAPH": "false"},
    "no-time": {"MEMLANE_RECALL_TIME": "false"},
    "no-entity": {"MEMLANE_RECALL_ENTITY": "false"},
    "no-question-aware": {"MEMLANE_RECALL_TIME_STATEMENT_BOOST": "0", "MEMLANE_RECALL_EPISODE_WEIGHT": "0"},
    "no-time-statement": {"MEMLANE_RECALL_TIME_STATEMENT_BOOST": "0"},
    "no-episode": {"MEMLANE_RECALL_EPISODE_WEIGHT": "0"},
    "entity-links": {"MEMLANE_RECALL_ENTITY_LINK_WEIGHT": "0.15"},
    "no-category": {"MEMLANE_RECALL_CATEGORY_KEYWORD_WEIGHT": "0"},
    "rrf": {"MEMLANE_RECALL_FUSION": "rrf", "MEMLANE_RECALL_DENSE_WEIGHT": "1", "MEMLANE_RECALL_KEYWORD_WEIGHT": "1"},
    "dense-only": {
        "MEMLANE_RECALL_KEYWORD": "false",
        "MEMLANE_RECALL_GRAPH": "false",
        "MEMLANE_RECALL_TIME": "false",
        "MEMLANE_RECALL_ENTITY": "false",
        "MEMLANE_RECALL_TIME_STATEMENT_BOOST": "0",
        "MEMLANE_RECALL_EPISODE_WEIGHT": "0",
    },
}
Matrix = npt.NDArray[np.float32]


# --- data ----------------------------------------------------------------------------------
@dataclass(slots=True)
class Turn:
    dia_id: str
    speaker: str
    text: str
    caption: str | None
    session: int
    date: dt.datetime
    reply_to: Turn | None = None


@dataclass(slots=True)
class Question:
    index: int
    question: str
    category: int
    evidence: list[str]


@dataclass(slots=True)
class Conversation:
    conv_id: str
    speakers: tuple[str, str]
    turns: list[Turn]
    sessions: dict[int, dt.datetime]
    questions: list[Question]
    dropped_evidence: list[str] = field(default_factory=list)
    questions_without_evidence: int = 0
    source_sha256: str = ""

    @property
    def session_of(self) -> dict[str, int]:
        return {t.dia_id: t.session for t in self.turns}


def parse_session_date(text: str) -> dt.datetime:
    """LoCoMo's ``"1:56 pm on 8 May, 2023"``."""
    return dt.datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y")


_EVIDENCE_SPLIT = re.compile(r"[;,\s]+")
_EVIDENCE_TYPO = re.compile(r"^D:(\d+):(\d+)$")


def parse_evidence(raw: Iterable[str], known: set[str]) -> tuple[list[str], list[str]]:
    """Evidence ids, split where one entry holds several (``"D8:6; D9:17"``) and with the
    ``"D:11:26"`` typo read as ``D11:26``; ids that name no turn are returned separately."""
    kept: list[str] = []
    dropped: list[str] = []
    for entry in raw:
        for part in _EVIDENCE_SPLIT.split(str(entry).strip()):
            if not part:
                continue
            m = _EVIDENCE_TYPO.match(part)
            if m:
                part = f"D{m.group(1)}:{m.group(2)}"
            if part in known:
                if part not in kept:
                    kept.append(part)
            else:
                dropped.append(part)
    return kept, dropped


def load_conversation(path: Path) -> Conversation:
    raw = path.read_bytes()
    data = json.loads(raw)
    turns: list[Turn] = []
    sessions: dict[int, dt.datetime] = {}
    n = 1
    while f"session_{n}" in data:
        date = parse_session_date(data[f"session_{n}_date_time"])
        sessions[n] = date
        previous: Turn | None = None
        for t in data[f"session_{n}"]:
            turn = Turn(
                dia_id=t["dia_id"],
                speaker=t["speaker"],
                text=t["text"],
                caption=t.get("blip_caption"),
                session=n,
                date=date,
                reply_to=previous,
            )
            turns.append(turn)
            previous = turn
        n += 1
    known = {t.dia_id for t in turns}
    conv = Conversation(
        conv_id=path.stem,
        speakers=(data["speaker_a"], data["speaker_b"]),
        turns=turns,
        sessions=sessions,
        questions=[],
        source_sha256=hashlib.sha256(raw).hexdigest(),
    )
    for i, qa in enumerate(data["qa"]):
        category = int(qa.get("category", 0))
        if category not in CATEGORIES:
            continue
        evidence, dropped = parse_evidence(qa.get("evidence", []), known)
        conv.dropped_evidence += dropped
        if not evidence:
            conv.questions_without_evidence += 1
            continue
        conv.questions.append(Question(index=i, question=qa["question"], category=category, evidence=evidence))
    return conv


# --- what a memory says ----------------------------------------------------------------------
def plain_text(turn: Turn) -> str:
    """What a client that knows no slot conventions writes: ``"Speaker (date): words"``, the
    session date as LoCoMo gives it."""
    when = turn.date.strftime("%-I:%M %p on %-d %B, %Y").replace("AM", "am").replace("PM", "pm")
    return f"{turn.speaker} ({when}): {turn.text.strip()}"


def plain_body(turns: Sequence[Turn], scope: str) -> dict[str, Any]:
    """Up to ``PLAIN_BATCH`` turns in one write request, as a plain client would batch them:
    each turn a node whose text is ``plain_text``, no slots (``client_id`` only makes re-runs
    idempotent upserts; the server reads nothing from it)."""
    return {
        "tenant_id": TENANT,
        "scope": scope,
        "input_text": "\n".join(plain_text(t) for t in turns),
        "actor": "bench/locomo_retrieval.py",
        "memory_lane": "shared",
        "nodes": [{"client_id": t.dia_id, "type": "event", "text_summary": plain_text(t)} for t in turns],
    }


def turn_body(turn: Turn, scope: str, validity: bool = False) -> dict[str, Any]:
    """One turn written alone, as a chat client would write it: the words said are the memory's
    text, and who said it, when, in which session and the caption of a shared image are slots.
    The benchmark composes no text; whatever context a turn needs, the server has to build."""
    slots: dict[str, Any] = {
        "speaker": turn.speaker,
        "event_time": turn.date.isoformat(),
        "session": turn.session,
        "dia_id": turn.dia_id,
    }
    if turn.caption:
        slots["image_caption"] = turn.caption
    return {
        "tenant_id": TENANT,
        "scope": scope,
        "input_text": turn.text,
        "actor": "bench/locomo_retrieval.py",
        "memory_lane": "shared",
        "nodes": [
            {
                "client_id": turn.dia_id,
                "type": "event",
                "text_summary": turn.text.strip(),
                "slots": slots,
                # --validity: the session date, as an instant in UTC (LoCoMo's dates are naive)
                **({"valid_at": turn.date.replace(tzinfo=dt.UTC).isoformat()} if validity else {}),
            }
        ],
    }


# --- baselines -------------------------------------------------------------------------------
_TOKEN = re.compile(r"[a-z0-9]+")
#: a common English stop-word list, kept here so the baseline needs no package
_BASELINE_STOP_WORDS_TEXT = (
    "i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her "
    "hers herself it its itself they them their theirs themselves what which who whom this that these "
    "those am is are was were be been being have has had having do does did doing a an the and but if "
    "or because as until while of at by for with about against between into through during before after "
    "above below to from up down in out on off over under again further then once here there when where "
    "why how all any both each few more most other some such no nor not only own same so than too very "
    "s t can will just don should now d ll m o re ve y"
)
BASELINE_STOP_WORDS = frozenset(_BASELINE_STOP_WORDS_TEXT.split())


def bm25_tokens(text: str) -> list[str]:
    return [w for w in _TOKEN.findall(text.lower()) if w not in BASELINE_STOP_WORDS]


class BM25:
    """Okapi BM25 (k1=1.2, b=0.75, idf = ln(1 + (N - df + 0.5) / (df + 0.5)))."""

    def __init__(self, docs: Sequence[Sequence[str]], *, k1: float = 1.2, b: float = 0.75):
        self.k1, self.b = k1, b
        self.n = len(docs)
        self.lengths = np.asarray([len(d) for d in docs], dtype=np.float64)
        self.avg = float(self.lengths.mean()) if self.n else 0.0
        postings: dict[str, list[tuple[int, int]]] = collections.defaultdict(list)
        for i, d in enumerate(docs):
            for term, tf in collections.Counter(d).items():
                postings[term].append((i, tf))
        self.postings = dict(postings)

    def scores(self, query: Sequence[str]) -> npt.NDArray[np.float64]:
        out = np.zeros(self.n, dtype=np.float64)
        norm = self.k1 * (1 - self.b + self.b * self.lengths / max(self.avg, 1e-9))
        for term in set(query):
            plist = self.postings.get(term)
            if not plist:
                continue
            idf = math.log(1 + (self.n - len(plist) + 0.5) / (len(plist) + 0.5))
            idx = np.fromiter((i for i, _ in plist), dtype=np.int64)
            tf = np.fromiter((f for _, f in plist), dtype=np.float64)
            out[idx] += idf * tf * (self.k1 + 1) / (tf + norm[idx])
        return out


def top_ids(scores: npt.NDArray[Any], ids: Sequence[str], k: int) -> list[str]:
    order = np.argsort(-scores, kind="stable")[:k]
    return [ids[i] for i in order]


def rrf_ids(lists: Sequence[Sequence[str]], k: int, depth: int) -> list[str]:
    score: dict[str, float] = {}
    for ids in lists:
        for rank, d in enumerate(ids, start=1):
            score[d] = score.get(d, 0.0) + 1.0 / (k + rank)
    return sorted(score, key=lambda d: (-score[d], d))[:depth]


# --- scoring ---------------------------------------------------------------------------------
def recall_at(ranked: Sequence[str], evidence: Sequence[str], k: int) -> float:
    top = set(ranked[:k])
    return sum(1 for e in evidence if e in top) / len(evidence)


def session_recall_at(ranked_sessions: Sequence[int], evidence_sessions: set[int], k: int) -> float:
    """Share of the evidence's sessions among the first ``k`` distinct sessions of the ranking."""
    return len(evidence_sessions & set(ranked_sessions[:k])) / len(evidence_sessions)


@dataclass(slots=True)
class Scored:
    conv_id: str
    category: int
    recalls: dict[int, float]
    #: session-level recall (distinct sessions in rank order) at ``SESSION_KS``
    session_recalls: dict[int, float] = field(default_factory=dict)


def score(conv: Conversation, q: Question, ranked: Sequence[str]) -> Scored:
    """Turn-level evidence recall and session-level recall of one ranking of ``dia_id``s."""
    session_of = conv.session_of
    sessions: list[int] = []
    for d in ranked:
        if session_of[d] not in sessions:
            sessions.append(session_of[d])
    wanted = {session_of[e] for e in q.evidence}
    return Scored(
        conv.conv_id,
        q.category,
        {k: recall_at(ranked, q.evidence, k) for k in KS},
        {k: session_recall_at(sessions, wanted, k) for k in SESSION_KS},
    )


def aggregate(rows: Sequence[Scored], conv_ids: Iterable[str] | None = None) -> dict[str, Any]:
    keep = set(conv_ids) if conv_ids is not None else None
    rows = [r for r in rows if keep is None or r.conv_id in keep]

    def block(sel: Sequence[Scored]) -> dict[str, Any]:
        out: dict[str, Any] = {"n": len(sel)}
        for k in KS:
            out[f"R@{k}"] = round(float(np.mean([r.recalls[k] for r in sel])), 4) if sel else None
        for k in SESSION_KS:
            out[f"session R@{k}"] = round(float(np.mean([r.session_recalls[k] for r in sel])), 4) if sel else None
        return out

    return {
        "overall": block(rows),
        "by_category": {f"{c} {name}": block([r for r in rows if r.category == c]) for c, name in CATEGORIES.items()},
    }


# --- talking to the server -------------------------------------------------------------------
class Api:
    def __init__(self, base_url: str):
        self.client = httpx.Client(base_url=base_url, timeout=120.0, trust_env=False)

    def close(self) -> None:
        self.client.close()

    def post(self, path: str, body: Mapping[str, Any]) -> httpx.Response:
        r = self.client.post(path, json=body)
        if r.status_code != 200:
            raise RuntimeError(f"POST {path} -> {r.status_code}: {r.text[:500]}")
        return r


def start_server(data_dir: Path, env: Mapping[str, str], log_path: Path, timeout: float) -> MemlaneServer:
    server = MemlaneServer(
        port=free_port(),
        env={
            "MEMLANE_DATA_DIR": str(data_dir),
            "MEMLANE_EMBEDDER": "local",
            "MEMLANE_LOG_LEVEL": "warning",
            "MEMLANE_WORKER_POLL_INTERVAL_SEC": "0.2",
            **env,
        },
        log_path=log_path,
    )
    server.start()
    try:
        server.wait_healthy(timeout)
    except ServerError:
        server.stop()
        raise
    return server


def pending_embeddings(db_path: Path, scope: str) -> int:
    """Nodes of ``scope`` still waiting for a vector, read (read-only) from the benchmark's own
    temp database: waiting on the worker this way costs nothing, while asking the API about
    every node would take minutes on a busy machine."""
    with contextlib.closing(sqlite3.connect(f"file:{db_path}?mode=ro", uri=True, timeout=30)) as db:
        row = db.execute(
            "SELECT count(*) FROM nodes WHERE tenant_id = ? AND scope = ? AND embedding_status != 'ready'",
            (TENANT, scope),
        ).fetchone()
    return int(row[0])


def pending_embeddings_pg(database_url: str, scope: str) -> int:
    """The same count on the PostgreSQL backend (``--database-url``)."""
    import asyncpg

    async def count() -> int:
        conn = await asyncpg.connect(database_url)
        try:
            return int(
                await conn.fetchval(
                    "SELECT count(*) FROM nodes WHERE tenant_id = $1 AND scope = $2 AND embedding_status != 'ready'",
                    TENANT,
                    scope,
                )
            )
        finally:
            await conn.close()

    return asyncio.run(count())


def wait_until_embedded(pending: Callable[[str], int], scope: str, timeout: float) -> None:
    """Wait for the worker to embed every node of ``scope``."""
    deadline = time.monotonic() + timeout
    while (left := pending(scope)) > 0:
        if time.monotonic() > deadline:
            raise RuntimeError(f"{left} nodes of {scope} were not embedded within {timeout:.0f}s")
        time.sleep(1.0)


@dataclass(slots=True)
class Written:
    conv: Conversation
    scope: str
    node_to_dia: dict[str, str]
    write_seconds: float


def write_conversation(
    api: Api, conv: Conversation, scope: str, validity: bool = False, client: str = "documented"
) -> Written:
    """Every turn in its own ``POST /v1/memory/write`` with slots (documented client), or
    ``PLAIN_BATCH`` turns per request as plain text (plain client); in conversation order."""
    node_to_dia: dict[str, str] = {}
    started = time.perf_counter()
    if client == "plain":
        for i in range(0, len(conv.turns), PLAIN_BATCH):
            batch = conv.turns[i : i + PLAIN_BATCH]
            resp = api.post("/v1/memory/write", plain_body(batch, scope)).json()
            for n, turn in zip(resp["nodes"], batch, strict=True):
                node_to_dia[n["id"]] = turn.dia_id
        return Written(conv=conv, scope=scope, node_to_dia=node_to_dia, write_seconds=time.perf_counter() - started)
    for turn in conv.turns:
        resp = api.post("/v1/memory/write", turn_body(turn, scope, validity)).json()
        for n in resp["nodes"]:
            node_to_dia[n["id"]] = turn.dia_id
    elapsed = time.perf_counter() - started
    return Written(conv=conv, scope=scope, node_to_dia=node_to_dia, write_seconds=elapsed)


def ask_recall_text(api: Api, w: Written, args: argparse.Namespace) -> tuple[list[Scored], list[float]]:
    rows: list[Scored] = []
    latencies: list[float] = []
    for q in w.conv.questions:
        body = {
            "tenant_id": TENANT,
            "scope": w.scope,
            "query_text": q.question,
            "limit": args.limit,
            "ranked_limit": args.ranked_limit,
        }
        if args.validity and (period := query_period(q.question)) is not None:
            end = dt.datetime.combine(period.end, dt.time.max, tzinfo=dt.UTC)
            body["as_of"] = (end + dt.timedelta(days=args.as_of_slack_days)).isoformat()
        r = api.post("/v1/memory/recall_text", body)
        ms = server_ms(r)
        if ms is not None:
            latencies.append(ms)
        ranked = [w.node_to_dia[x["id"]] for x in r.json()["ranked"] if x["id"] in w.node_to_dia]
        rows.append(score(w.conv, q, ranked))
    return rows, latencies


def ask_conversation_api(
    api: Api, w: Written, n_results: int, threshold: float | None = None
) -> tuple[list[Scored] | None, str]:
    """``GET /api/v1/memories/query`` with ``app_id`` = the scope (and ``similarity_threshold``
    when given; else the server's default). Results map back to turns by node id or client id
    in their metadata, else by their document text."""
    by_text = {t.text.strip(): t.dia_id for t in w.conv.turns}
    dia_ids = {t.dia_id for t in w.conv.turns}
    rows: list[Scored] = []
    unmapped = 0
    how: collections.Counter[str] = collections.Counter()
    for q in w.conv.questions:
        params: dict[str, str | int | float] = {"app_id": w.scope, "query": q.question, "n_results": n_results}
        if threshold is not None:
            params["similarity_threshold"] = threshold
        r = api.client.get("/api/v1/memories/query", params=params)
        if r.status_code == 404 and "memories" not in r.text:
            return None, f"GET /api/v1/memories/query is not served (404: {r.text[:200]})"
        if r.status_code != 200:
            return None, f"GET /api/v1/memories/query -> {r.status_code}: {r.text[:300]}"
        ranked: list[str] = []
        for m in r.json().get("memories", []):
            meta = m.get("metadata") or {}
            dia: str | None = None
            for key in ("memory_id", "id", "node_id"):
                value = str(meta.get(key) or m.get(key) or "")
                value = value.removeprefix("mem_")
                if value in w.node_to_dia:
                    dia = w.node_to_dia[value]
                    how[f"metadata.{key}"] += 1
                    break
            if dia is None:
                for key in ("client_id", "dia_id"):
                    found = meta.get(key) or (meta.get("slots") or {}).get(key)
                    if found in dia_ids:
                        dia = str(found)
                        how[f"metadata.{key}"] += 1
                        break
            if dia is None:
                dia = by_text.get(str(m.get("document", "")).strip())
                how["document text"] += dia is not None
            if dia is None:
                unmapped += 1
            elif dia not in ranked:
                ranked.append(dia)
        rows.append(score(w.conv, q, ranked))
    note = f"ok; results mapped to turns by {dict(how)}"
    if unmapped:
        note += f"; {unmapped} results could not be mapped to a turn (skipped)"
    return rows, note


# --- baselines over the same texts -----------------------------------------------------------
@functools.cache
def local_embedder() -> Any:
    from memlane.embed.local import LocalMiniLMEmbedder

    return LocalMiniLMEmbedder.load()


def embed_all(texts: Sequence[str]) -> Matrix:
    vectors = asyncio.run(local_embedder().embed(list(texts)))
    return np.asarray(vectors, dtype=np.float32)


def baselines(written: Sequence[Written], depth: int) -> dict[str, list[Scored]]:
    out: dict[str, list[Scored]] = {"dense-cosine": [], "bm25": [], "bm25+dense-rrf60": []}
    for w in written:
        ids = [t.dia_id for t in w.conv.turns]
        docs = [t.text.strip() for t in w.conv.turns]
        doc_vecs = embed_all(docs)
        q_vecs = embed_all([q.question for q in w.conv.questions])
        bm25 = BM25([bm25_tokens(d) for d in docs])
        for q, qv in zip(w.conv.questions, q_vecs, strict=True):
            dense = top_ids(doc_vecs @ qv, ids, depth)
            lexical = top_ids(bm25.scores(bm25_tokens(q.question)), ids, depth)
            fused = rrf_ids([dense, lexical], 60, depth)
            for name, ranked in (("dense-cosine", dense), ("bm25", lexical), ("bm25+dense-rrf60", fused)):
                out[name].append(score(w.conv, q, ranked))
    return out


# --- report ----------------------------------------------------------------------------------
def fmt_row(name: str, block: Mapping[str, Any]) -> str:
    keys = [f"R@{k}" for k in KS] + [f"session R@{k}" for k in SESSION_KS]
    cells = " | ".join(f"{block[key]:.3f}" if block.get(key) is not None else "-" for key in keys)
    return f"| {name} | {block['n']} | {cells} |"


def markdown_tables(results: Mapping[str, Any]) -> str:
    lines: list[str] = []
    header = (
        "| system | questions | R@1 | R@5 | R@10 | R@20 | session R@5 | session R@10 |\n"
        "|---|---|---|---|---|---|---|---|"
    )
    for split in ("all", "tune", "held_out"):
        lines.append(f"\n**{split}** ({', '.join(results['splits'][split])})\n")
        lines.append(header)
        for name, agg in results["systems"].items():
            if split in agg:
                lines.append(fmt_row(name, agg[split]["overall"]))
    cats = [f"{c} {n}" for c, n in CATEGORIES.items()]
    for split in ("tune", "held_out"):
        lines.append(
            f"\n**per category, {split} ({', '.join(results['splits'][split])}), R@5 / R@10; session R@5 / R@10**\n"
        )
        lines.append("| system | " + " | ".join(cats) + " |")
        lines.append("|---|" + "---|" * len(cats))
        for name, agg in results["systems"].items():
            if split not in agg:
                continue
            by = agg[split]["by_category"]
            cells = " | ".join(
                f"{by[c]['R@5']:.3f} / {by[c]['R@10']:.3f}; {by[c]['session R@5']:.3f} / {by[c]['session R@10']:.3f}"
                if by[c]["n"]
                else "-"
                for c in cats
            )
            lines.append(f"| {name} | {cells} |")
    return "\n".join(lines)


def print_summary(results: Mapping[str, Any]) -> None:
    print("\nevidence recall@k (questions of categories 1-4)")
    for name, agg in results["systems"].items():
        o = agg["all"]["overall"]
        t = agg.get("tune", {}).get("overall")
        h = agg.get("held_out", {}).get("overall")
        line = f"  {name:34s} n={o['n']:4d} " + " ".join(f"R@{k}={o[f'R@{k}']:.3f}" for k in KS)
        if t and h and t["n"] and h["n"]:
            line += (
                f" | tune R@5={t['R@5']:.3f} R@10={t['R@10']:.3f} | held-out R@5={h['R@5']:.3f} R@10={h['R@10']:.3f}"
            )
        print(line)
        for split in ("tune", "held_out"):
            for cat, b in agg.get(split, {}).get("by_category", {}).items():
                if b["n"]:
                    cells = (
                        " ".join(f"R@{k}={b[f'R@{k}']:.3f}" for k in KS)
                        + " "
                        + " ".join(f"sR@{k}={b[f'session R@{k}']:.3f}" for k in SESSION_KS)
                    )
                    print(f"      {split:8s} {cat:16s} n={b['n']:4d} {cells}")


# --- main ------------------------------------------------------------------------------------
def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA, help="folder of LoCoMo conversation JSON files")
    ap.add_argument("--conversations", default="", help="comma-separated ids (file stems); default: all")
    ap.add_argument("--tune", default="26,30", help="conversations the defaults were tuned on (reported apart)")
    ap.add_argument(
        "--configs", default=",".join(CONFIGS), help=f"ranking configurations to run, of: {', '.join(CONFIGS)}"
    )
    ap.add_argument(
        "--env",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="server setting for every configuration (repeatable), e.g. MEMLANE_CONTEXT_WINDOW=0",
    )
    ap.add_argument(
        "--client",
        choices=("documented", "plain"),
        default="documented",
        help="documented: one turn per write with slots.speaker/session/event_time (docs/retrieval.md); "
        f"plain: 'Speaker (date): words' as the text, {PLAIN_BATCH} turns per write, no slots",
    )
    ap.add_argument("--limit", type=int, default=30, help="recall_text seeds (the API default)")
    ap.add_argument("--ranked-limit", type=int, default=100, help="recall_text ranked_limit (the API default)")
    ap.add_argument("--conversation-api", action="store_true", help="also query GET /api/v1/memories/query")
    ap.add_argument(
        "--query-threshold",
        type=float,
        action="append",
        default=[],
        help="also ask the conversation query with this similarity_threshold, one row each (repeatable)",
    )
    ap.add_argument(
        "--validity",
        action="store_true",
        help="write turns with valid_at (the session date); ask questions naming a date as_of its end",
    )
    ap.add_argument(
        "--as-of-slack-days",
        type=float,
        default=30.0,
        help="with --validity: days after the period (30 was chosen on conversations 26 and 30, BENCHMARKS.md)",
    )
    ap.add_argument(
        "--database-url",
        help="run the server on this PostgreSQL database (postgresql://...; empty, or holding an earlier "
        "run's scopes, which are then upserted unchanged) instead of SQLite in the temp data dir",
    )
    ap.add_argument("--no-baselines", action="store_true")
    ap.add_argument("--startup-timeout", type=float, default=120.0)
    ap.add_argument("--embed-timeout", type=float, default=900.0)
    ap.add_argument("--out", type=Path, help="write the JSON results here")
    ap.add_argument("--markdown", action="store_true", help="print markdown tables")
    ap.add_argument("--keep", action="store_true", help="keep the temp data dir (printed)")
    ap.add_argument(
        "--data-dir",
        type=Path,
        help="server data dir to use and keep (default: a fresh temp dir); on a second run the "
        "writes are idempotent upserts of unchanged memories, so nothing is embedded again",
    )
    return ap.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    paths = sorted(args.data.glob("*.json"))
    wanted = [c for c in args.conversations.split(",") if c]
    if wanted:
        paths = [p for p in paths if p.stem in wanted]
        missing = set(wanted) - {p.stem for p in paths}
        if missing:
            raise SystemExit(f"no such conversations in {args.data}: {sorted(missing)}")
    if not paths:
        raise SystemExit(f"no conversation files in {args.data}")
    configs = [c for c in args.configs.split(",") if c]
    unknown = [c for c in configs if c not in CONFIGS]
    if unknown or not configs:
        raise SystemExit(f"unknown configs {unknown}; choose from {list(CONFIGS)}")
    bad_env = [e for e in args.env if "=" not in e or not e.startswith("MEMLANE_")]
    if bad_env:
        raise SystemExit(f"--env takes MEMLANE_KEY=VALUE, got {bad_env}")
    server_env = dict(e.split("=", 1) for e in args.env)
    if args.database_url:
        if not args.database_url.startswith(("postgresql://", "postgres://")):
            raise SystemExit("--database-url must be a postgresql:// URL")
        server_env["MEMLANE_DATABASE_URL"] = args.database_url
    convs = [load_conversation(p) for p in paths]
    tune = [c.conv_id for c in convs if c.conv_id in set(args.tune.split(","))]
    held = [c.conv_id for c in convs if c.conv_id not in set(tune)]
    for c in convs:
        print(
            f"conversation {c.conv_id}: {len(c.turns)} turns, {len(c.sessions)} sessions, "
            f"{len(c.questions)} questions (cat 1-4 with evidence); {c.questions_without_evidence} without usable "
            f"evidence; unknown evidence ids dropped: {c.dropped_evidence}"
        )

    machine = machine_facts()
    work = Path(tempfile.mkdtemp(prefix="memlane-locomo-"))
    data_dir = args.data_dir.resolve() if args.data_dir else work / "data"
    results: dict[str, Any] = {
        "benchmark": "memlane retrieval quality on LoCoMo (bench/locomo_retrieval.py)",
        "command": " ".join(["bench/locomo_retrieval.py", *(argv if argv is not None else sys.argv[1:])]),
        "machine": machine,
        "dataset": {
            "path": str(args.data),
            "conversations": {
                c.conv_id: {
                    "turns": len(c.turns),
                    "sessions": len(c.sessions),
                    "questions": len(c.questions),
                    "questions_without_evidence": c.questions_without_evidence,
                    "dropped_evidence_ids": c.dropped_evidence,
                    "sha256": c.source_sha256,
                }
                for c in convs
            },
        },
        "config": {
            "embedder": "local all-MiniLM-L6-v2 (ONNX int8)",
            "recall_text": {"limit": args.limit, "ranked_limit": args.ranked_limit, "other fields": "API defaults"},
            "client": args.client,
            "memory_text": (
                f"plain: {PLAIN_BATCH} turns per write request, text_summary = 'Speaker (date): words', no slots"
                if args.client == "plain"
                else "documented: one turn per write request; text_summary = the turn's words, nothing composed; "
                "slots speaker, event_time, session, dia_id"
            ),
            "server_env": server_env,
            "validity": {"on": args.validity, "as_of_slack_days": args.as_of_slack_days},
            "ranking_configs": {c: CONFIGS[c] for c in configs},
        },
        "splits": {"all": [c.conv_id for c in convs], "tune": tune, "held_out": held},
        "systems": {},
        "latency_ms": {},
        "notes": [],
    }
    server: MemlaneServer | None = None
    api: Api | None = None
    try:
        print(f"starting memlane serve (data {data_dir}) ...", flush=True)
        server = start_server(
            data_dir, {**server_env, **CONFIGS[configs[0]]}, work / f"server-{configs[0]}.log", args.startup_timeout
        )
        api = Api(server.base_url)
        started = time.perf_counter()
        if args.client == "plain" and args.validity:
            raise SystemExit("--validity writes valid_at, which a plain client does not know: use --client documented")
        written = [write_conversation(api, c, f"locomo-{c.conv_id}", args.validity, args.client) for c in convs]
        print(
            f"wrote {sum(len(w.conv.turns) for w in written)} turns ({args.client} client); embedding ...", flush=True
        )
        pending = (
            functools.partial(pending_embeddings_pg, args.database_url)
            if args.database_url
            else functools.partial(pending_embeddings, data_dir / "memlane.db")
        )
        for w in written:
            wait_until_embedded(pending, w.scope, args.embed_timeout)
        results["write_and_embed_seconds"] = round(time.perf_counter() - started, 1)
        print(f"all turns embedded ({results['write_and_embed_seconds']} s)", flush=True)

        def record(name: str, rows: list[Scored]) -> None:
            results["systems"][name] = {
                "all": aggregate(rows),
                "tune": aggregate(rows, tune),
                "held_out": aggregate(rows, held),
                "per_conversation": {c.conv_id: aggregate(rows, [c.conv_id])["overall"] for c in convs},
            }

        for i, cfg in enumerate(configs):
            if i > 0:
                assert server is not None and api is not None
                api.close()
                server.stop()
                server = start_server(
                    data_dir, {**server_env, **CONFIGS[cfg]}, work / f"server-{cfg}.log", args.startup_timeout
                )
                api = Api(server.base_url)
            assert api is not None
            name = f"memlane recall_text [{cfg}] ({args.client} client)"
            if args.validity:
                name += f" + validity (as_of +{args.as_of_slack_days:g} d)"
            rows: list[Scored] = []
            lat: list[float] = []
            for w in written:
                r, ms = ask_recall_text(api, w, args)
                rows += r
                lat += ms
            record(name, rows)
            results["latency_ms"][name] = summarize(lat)
            t, h = results["systems"][name]["tune"]["overall"], results["systems"][name]["held_out"]["overall"]
            print(
                f"  {name}: tune R@5={t['R@5']} R@10={t['R@10']} session R@5={t['session R@5']} "
                f"R@10={t['session R@10']} | untouched R@5={h['R@5']} R@10={h['R@10']} "
                f"session R@5={h['session R@5']} R@10={h['session R@10']}",
                flush=True,
            )
            for threshold in [None, *args.query_threshold] if cfg == "full" and args.conversation_api else []:
                name = "memlane /api/v1/memories/query"
                if threshold is not None:
                    name += f" (similarity_threshold {threshold:g})"
                rows = []
                note = ""
                for w in written:
                    got, note = ask_conversation_api(api, w, 20, threshold)
                    if got is None:
                        rows = []
                        break
                    rows += got
                results["notes"].append(f"{name}: {note}")
                print(f"  {name}: {note}", flush=True)
                if rows:
                    record(name, rows)

        if not args.no_baselines:
            print("baselines (same embedder, the turns' own words) ...", flush=True)
            for name, rows in baselines(written, max(KS)).items():
                record(f"baseline {name}", rows)
    finally:
        if api is not None:
            api.close()
        if server is not None:
            server.stop()
        if args.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)

    print(f"\nmachine: {machine_line(machine)}; date {machine['date_utc']}")
    print_summary(results)
    if args.markdown:
        print(markdown_tables(results))
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(results, indent=2) + "\n")
        print(f"\nwrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
