"""The ``thresholds`` phase of bench/memory_truth.py: do the default thresholds keep what answers
a question and drop what does not, when one person has many facts? (issue #27, item 6)

Two kinds of haystack, each one person's facts, asked through the public HTTP API only:

* **persons**: the conversation cases (updates and additive) of one split, ordered by the
  sha256 of their id and pooled eight at a time into one person (one app, one user): about 19
  notes each, on many topics. Every session goes to ``POST /api/v1/memories`` (each task
  awaited, the cases of a person one after another). The conversation haystack is the notes
  the default query can see; the tools haystack is every note the ingestion created, written
  with ``memory_add`` (layer ``user``) for a user of that name.
* **sheets** (bench/memory_truth_cases/sheets.py): twenty short facts about one person ("Alice
  lives in Berlin."), each written once with ``memory_add`` and once with ``POST
  /api/v1/agent/memories`` (the agent's fast path: one note, the text as given).

Every question of the pooled cases or the sheet is then asked with the surface's defaults
(``memory_search {query}``; ``GET /api/v1/memories/query`` with ``app_id``, ``query`` and
``user_id``), and once with no threshold and room for every memory (``threshold: 0, limit:
100``; ``similarity_threshold=0&n_results=100``), which gives the haystack and every score.

Judging (bench/memory_truth_cases/topics.py): a memory answers a question when it states one
of the question's facts (for an update question, the current or the stale one: both are about
what is asked; which of them is true now is the ``updates`` phase's business). A memory of the
question's own case or sheet that states none does not answer it. A memory of *another* pooled
case is judged only when that case touches none of the question's topics; otherwise it is
unjudged and left out of both figures. Precision = answering memories returned / judged
memories returned; recall = answering memories returned / answering memories in the haystack
(micro-averaged over the questions). The sweep recomputes both from the scores for other cuts.
"""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from bench.http_client import LeanClient, Reply
from bench.memory_truth_cases import AdditiveCase, Conversation, Fact, UpdateCase, states
from bench.memory_truth_cases.catalog import assign_splits
from bench.memory_truth_cases.sheets import SHEETS, FactSheet, check_sheets
from bench.memory_truth_cases.topics import may_answer, missing_tags

TENANT = "truth-thresholds"
PERSON_SIZE = 8
SWEEP = (0.0, 0.3, 0.5, 0.6, 0.7, 0.8, 0.9)
SURFACES = ("tools memory_search", "conversation query")
DATASETS = ("persons", "sheets")


# --- HTTP -----------------------------------------------------------------------------------
def headers(user: str) -> dict[str, str]:
    return {"X-Tenant-Id": TENANT, "X-User-Id": user, "X-Agent-Id": "truth-bench"}


async def expect_ok(call: Awaitable[Reply], what: str) -> Any:
    reply = await call
    if reply.status_code >= 400:
        raise RuntimeError(f"{what}: HTTP {reply.status_code}: {reply.text[:400]}")
    return reply.json()


async def post_retrying(client: LeanClient, path: str, body: dict[str, Any], hdrs: Mapping[str, str]) -> Any:
    """A 503 (write backlog full) is waited out and sent again, as a well-behaved client does."""
    while True:
        reply = await client.post(path, body, headers=hdrs)
        if reply.status_code != 503:
            if reply.status_code >= 400:
                raise RuntimeError(f"POST {path}: HTTP {reply.status_code}: {reply.text[:400]}")
            return reply.json()
        await asyncio.sleep(1.0)


async def finished(client: LeanClient, task_id: str, hdrs: Mapping[str, str], timeout: float = 300) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        view: dict[str, Any] = await expect_ok(client.get(f"/api/v1/tasks/{task_id}", headers=hdrs), "task")
        if view["status"] in ("completed", "failed"):
            if view["status"] == "failed":
                raise RuntimeError(f"task {task_id} failed: {view.get('error')}")
            return view
        if time.monotonic() > deadline:
            raise RuntimeError(f"task {task_id} not finished after {timeout:.0f}s")
        await asyncio.sleep(0.1)


def created_ids(view: Mapping[str, Any]) -> list[str]:
    """The notes a task wrote: every one of ``result.memories`` is a new note (its operation
    says what it did to older ones: CREATE, UPDATE, DELETE), but a SKIP stores nothing."""
    result = view.get("result") or {}
    return [str(m["memory_id"]) for m in result.get("memories", []) if m.get("operation") != "SKIP"]


# --- the haystacks --------------------------------------------------------------------------
@dataclass(frozen=True)
class Question:
    text: str
    facts: tuple[Fact, ...]
    #: the case or sheet it belongs to
    home: str


@dataclass
class Haystack:
    """One person: where their memories are, and who wrote which (memory id -> case or sheet)."""

    name: str
    dataset: str
    split: str
    questions: list[Question]
    pooled: bool
    tool_origin: dict[str, str]
    note_origin: dict[str, str]

    def judge(self, origin: str, text: str, q: Question) -> int | None:
        """1: answers the question; 0: does not; None: unjudged (another case on its topic)."""
        if states(text, q.facts):
            return 1
        if not origin:
            raise ValueError(f"{self.name}: a memory of unknown origin was returned: {text!r}")
        if origin == q.home or not self.pooled:
            return 0
        return None if may_answer(q.text, origin) else 0


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def persons_of(cases: Sequence[Conversation], split_of: Mapping[str, str]) -> list[tuple[str, str, list[Conversation]]]:
    """(name, split, cases) of every person: each split's cases by sha256 of their id, eight at a time."""
    out = []
    for split in ("tune", "untouched"):
        mine = sorted((c for c in cases if split_of[c.id] == split), key=lambda c: _sha(c.id))
        for k in range(0, len(mine), PERSON_SIZE):
            out.append((f"thr-{split}-{k // PERSON_SIZE}", split, mine[k : k + PERSON_SIZE]))
    return out


def questions_of(case: Conversation) -> list[Question]:
    if isinstance(case, UpdateCase):
        return [Question(q.text, (*q.current, *q.stale), case.id) for q in case.questions] + [
            Question(q.text, q.current, case.id) for q in case.also_new
        ]
    if isinstance(case, AdditiveCase):
        return [Question(q.text, q.facts, case.id) for q in case.questions]
    return []


def iso(t: datetime) -> str:
    return t.astimezone(UTC).isoformat().replace("+00:00", "Z")


async def build_person(
    client: LeanClient, name: str, split: str, cases: Sequence[Conversation], now: datetime
) -> Haystack:
    """Every session of every case, in order, as one user of one app; then every note the
    ingestion created, written again as the user's tool memory."""
    hdrs = headers(name)
    note_origin: dict[str, str] = {}
    sessions = [(c, k, s) for c in cases for k, s in enumerate(c.sessions)]
    for n, (case, k, session) in enumerate(sessions):
        start = now - timedelta(hours=2 + 24 * (len(sessions) - n))
        messages = [
            {
                "role": case.role_of(line),
                "content": Conversation.words_of(line),
                "timestamp": iso(start + timedelta(seconds=45 * i)),
            }
            for i, line in enumerate(session)
        ]
        body = {"app_id": name, "user_id": name, "session_id": f"{case.id}:s{k}", "messages": messages}
        accepted = await post_retrying(client, "/api/v1/memories", body, hdrs)
        view = await finished(client, accepted["task_id"], hdrs)
        for memory_id in created_ids(view):
            note_origin[memory_id] = case.id
    tool_origin: dict[str, str] = {}
    written: set[str] = set()
    for memory_id, origin in note_origin.items():
        reply = await client.get(f"/api/v1/memories/{memory_id}", params={"app_id": name}, headers=hdrs)
        if reply.status_code == 404:
            continue
        reply.raise_for_status()
        note = reply.json()
        text = " ".join(str(note["document"]).split())
        if not text or text in written:
            continue
        written.add(text)
        out = await post_retrying(client, "/v1/tools/memory_add", {"content": text, "layer": "user"}, hdrs)
        tool_origin[str(out["memoryId"])] = origin
    questions = [q for c in cases for q in questions_of(c)]
    return Haystack(name, "persons", split, questions, True, tool_origin, note_origin)


async def build_sheet(client: LeanClient, sheet: FactSheet, split: str) -> Haystack:
    """Each fact once as a tool memory and once as an agent memory of the sheet's app."""
    hdrs = headers(sheet.id)
    tool_origin: dict[str, str] = {}
    note_origin: dict[str, str] = {}
    for fact in sheet.facts:
        out = await post_retrying(client, "/v1/tools/memory_add", {"content": fact, "layer": "user"}, hdrs)
        tool_origin[str(out["memoryId"])] = sheet.id
        body = {"app_id": sheet.id, "user_id": sheet.id, "messages": fact}
        accepted = await post_retrying(client, "/api/v1/agent/memories", body, hdrs)
        view = await finished(client, accepted["task_id"], hdrs)
        for memory_id in created_ids(view):
            note_origin[memory_id] = sheet.id
    questions = [Question(q.text, q.facts, sheet.id) for q in sheet.questions]
    return Haystack(sheet.id, "sheets", split, questions, False, tool_origin, note_origin)


# --- asking ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Hit:
    memory_id: str
    text: str
    score: float


async def search(client: LeanClient, h: Haystack, q: Question, *, everything: bool) -> list[Hit]:
    body: dict[str, Any] = {"query": q.text}
    if everything:
        body.update(threshold=0, limit=100)
    out = await expect_ok(client.post("/v1/tools/memory_search", body, headers=headers(h.name)), "memory_search")
    return [Hit(str(r["memoryId"]), str(r["content"]), float(r["score"])) for r in out["results"]]


async def query(client: LeanClient, h: Haystack, q: Question, *, everything: bool) -> list[Hit]:
    params = {"app_id": h.name, "query": q.text, "user_id": h.name}
    if everything:
        params.update(similarity_threshold="0", n_results="100")
    out = await expect_ok(client.get("/api/v1/memories/query", params=params, headers=headers(h.name)), "query")
    return [Hit(str(m["memory_id"]), str(m["document"]), float(m["similarity_score"])) for m in out["memories"]]


def judged(h: Haystack, origin: Mapping[str, str], hits: Iterable[Hit], q: Question) -> list[dict[str, Any]]:
    return [
        {
            "id": x.memory_id,
            "text": x.text,
            "score": round(x.score, 4),
            "label": h.judge(origin.get(x.memory_id, ""), x.text, q),
        }
        for x in hits
    ]


async def ask(client: LeanClient, h: Haystack) -> list[dict[str, Any]]:
    rows = []
    for q in h.questions:
        for surface, call, origin in (
            ("tools memory_search", search, h.tool_origin),
            ("conversation query", query, h.note_origin),
        ):
            default = await call(client, h, q, everything=False)
            every = await call(client, h, q, everything=True)
            rows.append(
                {
                    "haystack": h.name,
                    "dataset": h.dataset,
                    "split": h.split,
                    "surface": surface,
                    "question": q.text,
                    "returned": judged(h, origin, default, q),
                    "all": judged(h, origin, every, q),
                }
            )
    return rows


async def thresholds_phase(
    client: LeanClient,
    cases: Sequence[Conversation],
    split_of: Mapping[str, str],
    splits: Sequence[str],
    concurrency: int,
) -> dict[str, Any]:
    problems = check_sheets(SHEETS) + missing_tags(
        [c.id for c in cases], [q.text for c in cases for q in questions_of(c)]
    )
    if problems:
        raise ValueError("the thresholds cases are inconsistent:\n  " + "\n  ".join(problems))
    sheet_split = assign_splits({"sheet": [s.id for s in SHEETS]})
    now = datetime.now(UTC)
    gate = asyncio.Semaphore(concurrency)

    async def one(build: Callable[[], Awaitable[Haystack]]) -> Haystack:
        async with gate:
            return await build()

    builds: list[Callable[[], Awaitable[Haystack]]] = [
        lambda n=n, s=s, cs=cs: build_person(client, n, s, cs, now)
        for n, s, cs in persons_of(cases, split_of)
        if s in splits
    ]
    builds += [
        lambda sh=sh: build_sheet(client, sh, sheet_split[sh.id]) for sh in SHEETS if sheet_split[sh.id] in splits
    ]
    started = time.perf_counter()
    haystacks = list(await asyncio.gather(*(one(b) for b in builds)))
    written = round(time.perf_counter() - started, 1)
    rows: list[dict[str, Any]] = []
    for part in await asyncio.gather(*(ask(client, h) for h in haystacks)):
        rows.extend(part)
    return {
        "write_seconds": written,
        "haystacks": [
            {"name": h.name, "dataset": h.dataset, "split": h.split, "tool_memories": len(h.tool_origin),
             "notes": len(h.note_origin), "questions": len(h.questions)}
            for h in haystacks
        ],
        "sheet_split": sheet_split,
        "rows": rows,
    }  # fmt: skip


# --- figures --------------------------------------------------------------------------------
def figures(rows: Sequence[Mapping[str, Any]], cut: float | None = None) -> dict[str, Any]:
    """Precision and recall of what the default call returned (``cut`` None), or of the
    memories of the no-threshold call scoring at least ``cut``."""
    tp = fp = fn = returned = empty = 0
    for r in rows:
        everything = r["all"]
        shown = r["returned"] if cut is None else [x for x in everything if x["score"] >= cut]
        shown_ids = {x["id"] for x in shown}
        tp += sum(x["label"] == 1 for x in shown)
        fp += sum(x["label"] == 0 for x in shown)
        fn += sum(x["label"] == 1 and x["id"] not in shown_ids for x in everything)
        returned += len(shown)
        empty += not shown
    n = len(rows)
    return {
        "questions": n,
        "precision": round(tp / (tp + fp), 4) if tp + fp else None,
        "recall": round(tp / (tp + fn), 4) if tp + fn else None,
        "results_per_question": round(returned / n, 2) if n else None,
        "questions_without_result": empty,
        "answering_memories": tp + fn,
    }


def summarize_thresholds(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for dataset in DATASETS:
        for surface in SURFACES:
            mine = [r for r in rows if r["dataset"] == dataset and r["surface"] == surface]
            if not mine:
                continue
            out[f"{dataset} / {surface}"] = {
                "default": figures(mine),
                "sweep": {str(t): figures(mine, t) for t in SWEEP},
            }
    return out


def _pr(d: Mapping[str, Any]) -> str:
    p, r = d["precision"], d["recall"]
    fmt = lambda x: "-" if x is None else f"{100 * x:.1f} %"  # noqa: E731
    return f"{fmt(p)} / {fmt(r)} ({d['results_per_question']}/q, {d['questions_without_result']} empty)"


def thresholds_table(summary: Mapping[str, Mapping[str, Any]]) -> str:
    """Precision / recall at the default threshold, one column per split."""
    splits = [s for s in summary if "thresholds" in summary[s]]
    keys = sorted({k for s in splits for k in summary[s]["thresholds"]})
    lines = ["| thresholds: precision / recall at the defaults | " + " | ".join(splits) + " |"]
    lines.append("|---|" + "---:|" * len(splits))
    for k in keys:
        cells = [_pr(summary[s]["thresholds"][k]["default"]) if k in summary[s]["thresholds"] else "-" for s in splits]
        lines.append(f"| {k} | " + " | ".join(cells) + " |")
    return "\n".join(lines)
