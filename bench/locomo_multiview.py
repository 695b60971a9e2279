"""Multi-view vectors on LoCoMo, measured before building them (issue #28 item 3).

The server stores one vector per memory: its text with its speaker, followed by the memory
written just before it (docs/retrieval.md, "Context the server builds"). A multi-view index
would store a second vector per memory, of another *view* of the same turn, and let the
dense search take the better of the two cosines (or the two lists' reciprocal ranks). This
script measures that before any storage is built: it reads the memories a
``locomo_retrieval.py --data-dir DIR`` run left behind, embeds the second view of every turn
in-process (each turn's neighbours taken from the conversation's own order and session, which
is what the server knows from the write order and the session or inferred episode), and asks
every question through ``RecallService`` with the reader's dense search replaced by the union
of the stored vectors and the second view. The rest of recall (keyword list, fusion, boosts,
question-aware signals) is the server's own code.

Views (the turn's own words first, each text prefixed by its speaker, as the server does):

* ``alone``: the turn alone (no neighbour);
* ``next``: the turn, then the turn after it (the reply it prompted);
* ``around``: the turn, the turn before and the turn after;
* ``window2``: the turn and up to two turns on each side;
* ``successor``: no new vector: the stored vector of the turn after it (whose context holds
  this turn), so a turn is found by the reply it prompted.

Union (``--union``): ``only`` (the second view replaces the stored vector: one vector per
memory, of another view), ``max`` (a memory's dense score is the better cosine of its two vectors),
or ``rrf`` (the two dense lists fused by reciprocal rank, ``1 / (10 + rank)``, rescaled to the
first list's cosine range so fusion with the keyword list keeps its balance).

Usage:
  .venv/bin/python bench/locomo_retrieval.py --configs full --no-baselines --client plain --data-dir /tmp/p
  .venv/bin/python bench/locomo_multiview.py --data-dir /tmp/p --conversations 26,30 --views next,around
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.locomo_retrieval import CATEGORIES, DEFAULT_DATA, Conversation, load_conversation, recall_at

from memlane.config import Settings
from memlane.domain.clock import Clock
from memlane.domain.model import ScoredId
from memlane.domain.validity import CURRENT, ValidTime
from memlane.domain.visibility import Viewer
from memlane.embed.local import LocalMiniLMEmbedder
from memlane.services.container import build_store, from_settings
from memlane.services.embedding_context import ContextConfig, spoken
from memlane.services.ranking.config import RankingConfig
from memlane.services.reading import MemoryReader
from memlane.services.recall.model import RecallParams
from memlane.services.recall.service import RecallService
from memlane.store.base import Vector

TENANT = "default"
VIEWS = ("alone", "next", "around", "window2", "successor")


def view_text(texts: Sequence[str], sessions: Sequence[int], i: int, view: str) -> str:
    """The ``view`` of turn ``i``: its own text first, then its neighbours of the same session."""
    before, after = {"stored": (1, 0), "alone": (0, 0), "next": (0, 1), "around": (1, 1), "window2": (2, 2)}[view]
    parts = [texts[i]]
    for d in range(1, max(before, after) + 1):
        if d <= before and i - d >= 0 and sessions[i - d] == sessions[i]:
            parts.append(texts[i - d])
        if d <= after and i + d < len(texts) and sessions[i + d] == sessions[i]:
            parts.append(texts[i + d])
    return "\n".join(parts)


class Scope:
    """One conversation's second views: node ids and unit vectors, in turn order."""

    def __init__(self, ids: list[str], matrix: np.ndarray[Any, Any]):
        self.ids = ids
        self.matrix = matrix


def union(first: list[ScoredId], scope: Scope, q: np.ndarray[Any, Any], k: int, how: str) -> list[ScoredId]:
    """The stored vectors' list and the second view's, as one dense list ``k`` deep."""
    cos = scope.matrix @ (q / max(float(np.linalg.norm(q)), 1e-9))
    top = np.argsort(-cos)[:k]
    second = [(scope.ids[i], float(cos[i])) for i in top]
    if how == "only":
        return [ScoredId(nid, s) for nid, s in second]
    if how == "max":
        best = {h.id: h.score for h in first}
        for nid, s in second:
            best[nid] = max(best.get(nid, -1.0), s)
        order = sorted(best.items(), key=lambda kv: -kv[1])[:k]
        return [ScoredId(nid, s) for nid, s in order]
    # rrf, rescaled to the first list's cosine range
    rr: dict[str, float] = {}
    for lst in ([(h.id, h.score) for h in first], second):
        for rank, (nid, _) in enumerate(lst, start=1):
            rr[nid] = rr.get(nid, 0.0) + 1.0 / (10 + rank)
    order = sorted(rr.items(), key=lambda kv: -kv[1])[:k]
    hi, lo = (first[0].score, first[-1].score) if first else (1.0, 0.0)
    top_rr, low_rr = order[0][1], order[-1][1]
    span = max(top_rr - low_rr, 1e-9)
    return [ScoredId(nid, lo + (hi - lo) * (s - low_rr) / span) for nid, s in order]


class MultiViewReader(MemoryReader):
    """The server's reader, with its dense search joined to the second views of the scopes in
    ``views`` (every other read is the server's own)."""

    def __init__(self, store: Any, clock: Clock):
        super().__init__(store, clock)
        self.views: dict[str, Scope] = {}
        self.how = "max"

    async def nearest(
        self, viewer: Viewer, scope: str, query: Vector, k: int, when: ValidTime = CURRENT, **attrs: Any
    ) -> list[ScoredId]:
        first = await super().nearest(viewer, scope, query, k, when, **attrs)
        if scope not in self.views:
            return first
        return union(first, self.views[scope], np.asarray(query, dtype=np.float32), k, self.how)


async def write_cost(
    embedder: LocalMiniLMEmbedder,
    reader: MemoryReader,
    convs: Sequence[Conversation],
    views: Sequence[str],
    rounds: int,
) -> None:
    """Embedding time of the stored view (the turn and the one before it, what the server embeds
    now) against each second view, over the same turns, alternating, ``rounds`` times each."""
    cfg = ContextConfig(window=0, speaker=True)
    texts: dict[str, list[str]] = {v: [] for v in ["stored", *views]}
    for c in convs:
        nodes = await reader.find(Viewer(TENANT), f"locomo-{c.conv_id}", limit=100_000, order_by_recent=False)
        by_dia = {n.client_id: n for n in nodes if n.client_id}
        turns = [t for t in c.turns if t.dia_id in by_dia]
        spoken_texts = [spoken(by_dia[t.dia_id], cfg) for t in turns]
        sessions = [t.session for t in turns]
        for v in texts:
            texts[v] += [view_text(spoken_texts, sessions, i, v) for i in range(len(turns))]
    took: dict[str, list[float]] = {v: [] for v in texts}
    for _ in range(rounds):
        for v, batch in texts.items():
            started = time.perf_counter()
            await embedder.embed(batch)
            took[v].append(time.perf_counter() - started)
    base = min(took["stored"])
    for v, secs in took.items():
        n = len(texts[v])
        chars = sum(len(t) for t in texts[v]) / n
        print(
            f"write cost {v:8s} {n} texts, mean {chars:.0f} chars: best {n / min(secs):.0f} texts/s "
            f"({min(secs) / base:.2f}x the stored view)"
        )


async def second_views(
    embedder: LocalMiniLMEmbedder, reader: MemoryReader, conv: Conversation, scope: str, view: str
) -> tuple[Scope, float]:
    """Every turn's second view, embedded; returns the scope and the embedding seconds."""
    nodes = await reader.find(Viewer(TENANT), scope, limit=100_000, order_by_recent=False)
    by_dia = {n.client_id: n for n in nodes if n.client_id}
    turns = [t for t in conv.turns if t.dia_id in by_dia]
    cfg = ContextConfig(window=0, speaker=True)
    texts = [spoken(by_dia[t.dia_id], cfg) for t in turns]
    sessions = [t.session for t in turns]
    ids = [by_dia[t.dia_id].id for t in turns]
    if view == "successor":
        # no new vector: the stored vector of the turn after it (which holds this turn as its
        # context), so a turn is found by the reply it prompted
        stored = await reader.store.get_embeddings(TENANT, scope, ids)
        m = np.asarray(
            [
                stored[ids[i + 1] if i + 1 < len(ids) and sessions[i + 1] == sessions[i] else ids[i]]
                for i in range(len(ids))
            ],
            dtype=np.float32,
        )
        m /= np.maximum(np.linalg.norm(m, axis=1, keepdims=True), 1e-9)
        return Scope(ids, m), 0.0
    started = time.perf_counter()
    vecs = await embedder.embed([view_text(texts, sessions, i, view) for i in range(len(turns))])
    seconds = time.perf_counter() - started
    m = np.asarray(vecs, dtype=np.float32)
    m /= np.maximum(np.linalg.norm(m, axis=1, keepdims=True), 1e-9)
    return Scope(ids, m), seconds


def summary(rows: Sequence[tuple[int, dict[int, float]]]) -> str:
    def cell(sel: Sequence[dict[int, float]]) -> str:
        return f"{np.mean([r[5] for r in sel]):.3f}/{np.mean([r[10] for r in sel]):.3f}" if sel else "-"

    cats = " ".join(f"c{c}:{cell([r for k, r in rows if k == c])}" for c in CATEGORIES)
    return f"{cell([r for _, r in rows])} [{cats}]"


async def run(args: argparse.Namespace) -> None:
    settings = Settings(MEMLANE_DATA_DIR=str(args.data_dir))
    embedder = LocalMiniLMEmbedder.load()
    store = build_store(settings, dimension=embedder.dimension)
    await store.open()
    clock = Clock()
    reader = MultiViewReader(store, clock)
    convs = [load_conversation(args.data / f"{c}.json") for c in args.conversations.split(",")]
    qvecs = {c.conv_id: await embedder.embed([q.question for q in c.questions]) for c in convs}
    ranking = from_settings(RankingConfig, settings.recall)
    if args.cost_rounds:
        await write_cost(embedder, reader, convs, args.views.split(","), args.cost_rounds)
        await store.close()
        return
    try:
        for view in ["none", *args.views.split(",")]:
            scopes: dict[str, Scope] = {}
            seconds = 0.0
            if view != "none":
                for c in convs:
                    scopes[f"locomo-{c.conv_id}"], s = await second_views(
                        embedder, reader, c, f"locomo-{c.conv_id}", view
                    )
                    seconds += s
            for how in ["max"] if view == "none" else args.union.split(","):
                reader.views, reader.how = scopes, how
                recall = RecallService(store, reader, clock=clock, dimension=embedder.dimension, ranking=ranking)
                rows: list[tuple[int, dict[int, float]]] = []
                for c in convs:
                    for q, vec in zip(c.questions, qvecs[c.conv_id], strict=True):
                        p = RecallParams(
                            viewer=Viewer(TENANT), scope=f"locomo-{c.conv_id}", query_text=q.question, limit=30
                        )
                        out = await recall.recall(vec, p)
                        dia = {s.node.id: s.node.client_id for s in out.seeds}
                        ranked = [d for r in out.ranked if (d := dia.get(r.id))]
                        rows.append((q.category, {k: recall_at(ranked, q.evidence, k) for k in (5, 10)}))
                await recall.drain_audit()
                turns = sum(len(s.ids) for s in scopes.values())
                cost = f"{turns / seconds:.0f} texts/s" if seconds else "-"
                print(f"{view:8s} {how:4s} {summary(rows)}  (second views: {turns} embedded, {cost})", flush=True)
    finally:
        await store.close()


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data-dir", type=Path, required=True, help="the server data dir of a locomo_retrieval.py run")
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--conversations", default="26,30")
    ap.add_argument("--views", default=",".join(VIEWS), help=f"second views to measure, of: {', '.join(VIEWS)}")
    ap.add_argument("--union", default="max,rrf", help="how the two dense lists are joined: only, max, rrf")
    ap.add_argument("--cost-rounds", type=int, default=0, help="only time embedding each view, this many rounds")
    args = ap.parse_args(argv)
    asyncio.run(run(args))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
