"""Recall: hybrid seeds, a bounded neighbourhood, blended graph activation, context.

The pipeline follows docs/api-graph.md ("Recall, in outline"), with hybrid ranking
(docs/api-graph.md, "Ranking signals"): dense and keyword candidates fused (relative score
or reciprocal rank fusion), boosted by the entities and the period the query names, then graph activation added
on top. Each signal is switched by ``RankingConfig`` so its effect can be measured alone.
Only ready nodes in the requested tiers that the consumer may see, valid and not expired at
the recall's instant (seeds, neighbours and what is loaded whole alike), take part; draft
topics never score but may be shown for explainability.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from memlane.config import Settings
from memlane.domain.clock import Clock
from memlane.domain.errors import InvalidRequest
from memlane.domain.filters import compiled
from memlane.domain.hashing import sha256_hex
from memlane.domain.model import ACTIVE_TIERS, Edge, Node, NodeBrief, RecallAudit, ScoredId
from memlane.domain.validity import CURRENT, ValidTime
from memlane.domain.visibility import Viewer
from memlane.metrics import observe_stage, recall_stage
from memlane.rerank.base import Reranker, RerankFailed
from memlane.services.ranking.activation import EDGE_TYPE_FACTOR, HOP_DECAY, spread
from memlane.services.ranking.calibration import Background, RelevanceScale
from memlane.services.ranking.config import RankingConfig
from memlane.services.ranking.fusion import Candidates, fuse
from memlane.services.ranking.query_text import keyword_query
from memlane.services.ranking.question import (
    QuestionKind,
    common_names,
    entity_link_boost,
    episode_boost,
    time_statement_boost,
)
from memlane.services.ranking.signals import QuerySignals
from memlane.services.reading import MemoryReader
from memlane.services.recall_audit import RecallAuditLog
from memlane.store.base import Store, Vector
from memlane.store.read_view import one_view_per_scope

log = logging.getLogger(__name__)

__all__ = ["EDGE_TYPE_FACTOR", "HOP_DECAY", "RankingConfig", "RecallOutcome", "RecallParams", "RecallService"]

DEBUG_MAX_LIMIT = 20
DEBUG_MAX_SEEDS = 5
DEBUG_PREVIEW_DIMS = 16
DEBUG_MAX_BYTES = 64 * 1024
MAX_DRAFT_TOPICS_SHOWN = 3
CONTEXT_MAX_ITEMS = 20


@dataclass(slots=True)
class RecallParams:
    viewer: Viewer
    scope: str
    limit: int = 30
    neighborhood_hops: int = 2
    max_nodes: int = 50
    max_edges: int = 100
    ranked_limit: int = 100
    min_edge_weight: float = 0.0
    min_edge_confidence: float = 0.0
    include_embeddings: bool = False
    debug_embeddings_allowed: bool = False
    endpoint: str = "recall"
    query_text: str | None = None
    #: which facts by their interval: valid now by default (domain/validity.py)
    when: ValidTime = CURRENT
    #: fill ``RecallOutcome.signals`` (why each seed ranked); off on the hot path
    explain: bool = False

    @property
    def tenant_id(self) -> str:
        return self.viewer.tenant_id


@dataclass(slots=True)
class RecallOutcome:
    seeds: list[tuple[Node, float]]
    ranked: list[tuple[str, float, float]]
    nodes: list[Node]
    edges: list[Edge]
    context_text: str
    context_items: list[dict[str, Any]]
    citations: list[dict[str, Any]]
    neighborhood_counts: dict[str, int]
    #: each seed's cosine on the calibrated relevance scale, against the query's background
    #: (ranking/calibration.py), by id
    seed_relevance: dict[str, float]
    debug_embeddings: list[dict[str, Any]] | None = None
    #: why each seed ranked: similarity, keyword score, their fusion, the entity and time
    #: boosts, and what graph activation added (docs/api-graph.md, "Ranking signals")
    signals: dict[str, dict[str, float]] = field(default_factory=dict)


def vector_sha256(vector: Vector) -> str:
    """sha256 of the full vector as JSON text (floats as float32 reads them), for integrity checks."""
    return sha256_hex(json.dumps([float(x) for x in np.asarray(vector, dtype=np.float32)], separators=(",", ":")))


def embedding_preview(vectors: dict[str, Vector], ids: list[str]) -> dict[str, dict[str, Any]]:
    """The debug channel's view of vectors: for at most ``DEBUG_MAX_SEEDS`` of ``ids`` (in
    order), the length, the first ``DEBUG_PREVIEW_DIMS`` values and a sha256 of the whole
    vector; never the vector itself (embeddings can be inverted to text). Every surface that
    shows embeddings shows this, within ``DEBUG_MAX_BYTES``."""
    out: dict[str, dict[str, Any]] = {}
    for nid in ids:
        vec = vectors.get(nid)
        if vec is None:
            continue
        if len(out) >= DEBUG_MAX_SEEDS:
            break
        out[nid] = {
            "dim": len(vec),
            "preview": [round(float(x), 6) for x in vec[:DEBUG_PREVIEW_DIMS]],
            "sha256": vector_sha256(vec),
        }
    size = len(json.dumps(out).encode())
    if size > DEBUG_MAX_BYTES:
        raise InvalidRequest(
            f"debug embeddings payload is {size} bytes, above the {DEBUG_MAX_BYTES} cap",
            code="debug_embeddings_too_large",
            details={"max_debug_bytes": DEBUG_MAX_BYTES},
        )
    return out


def keyword_weight(weight: float, scope_size: int, depth: int) -> float:
    """The keyword list's weight: in full where the dense list was cut at ``depth``; in a scope
    smaller than that, in proportion to its size. There dense similarity is known for every
    memory, while BM25 statistics from a handful of memories are noise (a word two of four
    memories share gets no weight at all, so one rarer word decides): meaning ranks first and a
    keyword match is evidence, not a veto."""
    if scope_size >= depth or depth <= 0:
        return weight
    return weight * scope_size / depth


def is_compression_summary(node: Node) -> bool:
    return node.type == "concept" and node.slots.get("summary_kind") == "compression_rollup"


class RecallService:
    def __init__(
        self,
        store: Store,
        reader: MemoryReader,
        *,
        clock: Clock,
        dimension: int,
        ranking: RankingConfig | None = None,
        relevance: RelevanceScale | None = None,
        reranker: Reranker | None = None,
        rerank_top_k: int = 20,
    ):
        self.store = store
        self.reader = reader
        self.clock = clock
        self.dimension = dimension
        self.ranking = ranking or RankingConfig()
        self.relevance = relevance or RelevanceScale()
        self.reranker = reranker
        self.rerank_top_k = rerank_top_k
        self.audit_log = RecallAuditLog(store)

    @classmethod
    def from_settings(
        cls,
        store: Store,
        reader: MemoryReader,
        settings: Settings,
        *,
        clock: Clock,
        dimension: int,
        reranker: Reranker | None = None,
    ) -> RecallService:
        """Ranking signals come from the ``MEMLANE_RECALL_*`` settings."""
        return cls(
            store,
            reader,
            clock=clock,
            dimension=dimension,
            ranking=RankingConfig.from_settings(settings),
            relevance=RelevanceScale.from_settings(settings),
            reranker=reranker,
            rerank_top_k=settings.rerank_top_k,
        )

    def check_dimension(self, vector: list[float] | Vector, field_name: str = "query_embedding") -> None:
        if len(vector) != self.dimension:
            raise InvalidRequest(
                f"{field_name} has {len(vector)} dimensions; the configured embedder uses {self.dimension}",
                code="invalid_embedding_dimension",
                details={"field": field_name, "expected": self.dimension, "got": len(vector)},
            )

    async def recall(self, query: Vector, p: RecallParams) -> RecallOutcome:
        """Every stage reads the same moment of each scope (store/read_view.py)."""
        with one_view_per_scope():
            return await self._recall(query, p)

    async def _recall(self, query: Vector, p: RecallParams) -> RecallOutcome:
        self.check_dimension(query)
        if p.include_embeddings and p.limit > DEBUG_MAX_LIMIT:
            raise InvalidRequest(
                f"limit must be <= {DEBUG_MAX_LIMIT} when include_embeddings=true (got {p.limit})",
                code="debug_embeddings_limit_exceeded",
                details={"field": "limit", "max": DEBUG_MAX_LIMIT},
            )
        p.when = p.when.pinned(self.clock.now())
        seed_index: dict[str, Node] = {}
        signals: dict[str, dict[str, float]] = {}
        seeds, base, pool = await self._seeds(query, p, seed_index, signals)
        index: dict[str, Node | NodeBrief] = dict(seed_index)

        with recall_stage("graph"):
            edges, drafts = await self._neighbourhood(p, [n.id for n, _ in seeds], index)
            if self.ranking.graph:
                activation = spread(
                    base, edges, index, hops=p.neighborhood_hops, graph_weight=self.ranking.graph_weight
                )
            else:
                activation = dict(base)
        ranking_started = time.perf_counter()
        scored = sorted(
            ((nid, act, act * self._node_weight(index[nid])) for nid, act in activation.items() if nid in index),
            key=lambda t: (-t[2], t[0]),
        )
        if self.reranker is not None and p.query_text and p.query_text.strip():
            scored = await self._rerank(p, p.query_text, scored, index)
        ranked = scored[: p.ranked_limit]
        if signals:
            for nid, act, score in scored:
                if nid in signals:
                    signals[nid].update(graph=act - base[nid], score=score)
        chosen_ids = [nid for nid, _, _ in scored[: p.max_nodes]]
        context_ids = [nid for nid, _, _ in scored[:CONTEXT_MAX_ITEMS]]
        full = await self._full_nodes(p, [*chosen_ids, *context_ids], index)
        chosen_ids = [i for i in chosen_ids if i in full]
        context_ids = [i for i in context_ids if i in full]
        chosen = [full[i] for i in chosen_ids]
        chosen_set = set(chosen_ids)
        sub_edges = [e for e in edges if e.src_id in chosen_set and e.dst_id in chosen_set]
        if drafts:
            shown = {n.id: n for n in await self.reader.nodes(p.viewer, p.scope, list(drafts), p.when)}
            chosen, sub_edges = self._explain_drafts(chosen, sub_edges, shown, edges, p)
        sub_edges = sorted(sub_edges, key=lambda e: (-(e.weight * e.confidence), e.id))[: p.max_edges]

        text, items, citations = self._context(
            [full[nid] for nid in context_ids], {nid: s for nid, _, s in scored}, edges
        )
        outcome = RecallOutcome(
            seeds=seeds,
            ranked=ranked,
            nodes=chosen,
            edges=sub_edges,
            context_text=text,
            context_items=items,
            citations=citations,
            neighborhood_counts={"nodes": len(activation) + len(drafts), "edges": len(edges)},
            seed_relevance=self._seed_relevance(seeds, pool),
            signals=signals,
        )
        observe_stage("rank", time.perf_counter() - ranking_started)
        if p.include_embeddings and p.debug_embeddings_allowed:
            outcome.debug_embeddings = await self._debug_embeddings(p, [n for n, _ in seeds[:DEBUG_MAX_SEEDS]])
        self._audit(p, [n.id for n, _ in seeds], len(chosen))
        return outcome

    def _seed_relevance(self, seeds: list[tuple[Node, float]], pool: tuple[dict[str, float], bool]) -> dict[str, float]:
        """Each seed's cosine on the calibrated scale, against the dense candidates of the query
        (its background, when they are the whole visible scope); a keyword-only seed is not
        one of them."""
        cosines, whole = pool
        background = Background.of(cosines.values(), whole=whole)
        return {n.id: self.relevance(s, background, member=n.id in cosines) for n, s in seeds}

    async def _rerank(
        self,
        p: RecallParams,
        query: str,
        scored: list[tuple[str, float, float]],
        index: dict[str, Node | NodeBrief],
    ) -> list[tuple[str, float, float]]:
        """The reranker's order for the ``rerank_top_k`` best; the scores stay where they were
        (position k keeps the k-th best score, so ``ranked`` stays sorted). If the reranker
        fails, recall's own order stands: it is a valid ranking, only a less refined one."""
        assert self.reranker is not None
        head = scored[: self.rerank_top_k]
        full = await self._full_nodes(p, [nid for nid, _, _ in head], index)
        head = [t for t in head if t[0] in full]
        try:
            scores = await self.reranker.rerank(query, [full[nid].text for nid, _, _ in head])
        except RerankFailed as exc:
            log.warning("reranker %s failed, keeping recall's order: %s", self.reranker.model_id, exc)
            return scored
        order = sorted(range(len(head)), key=lambda i: (-scores[i], i))
        kept = {nid for nid, _, _ in head}
        reranked = [(head[i][0], head[i][1], head[pos][2]) for pos, i in enumerate(order)]
        return reranked + [t for t in scored if t[0] not in kept]

    async def _full_nodes(self, p: RecallParams, ids: list[str], index: dict[str, Node | NodeBrief]) -> dict[str, Node]:
        """Whole nodes for what the response shows; the neighbourhood was ranked on briefs.

        A node deleted since its brief was read is left out, as if it had not been found (and
        so is one expired since: the instant is the recall's own, pinned once)."""
        full = {i: n for i in ids if isinstance(n := index.get(i), Node)}
        missing = [i for i in dict.fromkeys(ids) if i not in full]
        for n in await self.reader.nodes(p.viewer, p.scope, missing, p.when):
            full[n.id] = n
        return full

    async def _seeds(
        self, query: Vector, p: RecallParams, index: dict[str, Node], why: dict[str, dict[str, float]]
    ) -> tuple[list[tuple[Node, float]], dict[str, float], tuple[dict[str, float], bool]]:
        """The ``limit`` best candidates with their true cosine similarity, their base score,
        and the dense candidates' cosines (with whether they are every visible node).

        Without query text or any signal the base score is the cosine similarity itself (pure
        dense recall). With keyword fusion it is the fusion (relative scores, or reciprocal
        ranks) of the dense and keyword lists; entity and time boosts then multiply it.
        Candidates come from both lists, ``candidates`` deep, so a strong keyword match the
        dense list missed can still seed. Fills ``index`` with the eligible nodes it loaded,
        and ``why`` with each seed's signals.
        """
        cfg = self.ranking
        text = p.query_text if p.query_text and p.query_text.strip() else None
        signals = QuerySignals.of(text, cfg)
        kw_text = keyword_query(text) if (cfg.keyword and text) else None
        fusing = cfg.keyword and text is not None
        aware = text is not None and cfg.question_aware
        depth = max(p.limit, cfg.candidates) if (fusing or signals.active or aware) else p.limit

        # The keyword search runs while the dense search does, after the query is embedded: run
        # during the embedding it slowed the embedder's two threads on two cores by more than
        # its own ~1.5 ms (measured at 100k nodes).
        keyword_task = asyncio.ensure_future(self._keyword(p, kw_text, depth)) if kw_text else None
        try:
            with recall_stage("vector"):
                dense_hits = await self.reader.nearest(p.viewer, p.scope, query, depth, p.when, tiers=ACTIVE_TIERS)
            keyword_hits = await keyword_task if keyword_task is not None else []
        finally:
            if keyword_task is not None and not keyword_task.done():
                keyword_task.cancel()
                with contextlib.suppress(BaseException):
                    await keyword_task
        sims = {h.id: h.score for h in dense_hits}
        pool = (dict(sims), len(dense_hits) < depth)
        dense = [(h.id, h.score) for h in dense_hits]
        if fusing:
            # A dense list cut at ``depth`` is anchored at its last hit; one that holds the
            # whole scope has no such reference, and similarity's own zero anchors it.
            truncated = len(dense_hits) >= depth
            dense_floor = None if truncated or not dense else min(0.0, min(s for _, s in dense))
            lists = [
                Candidates(cfg.dense_weight, dense, floor=dense_floor),
                Candidates(
                    keyword_weight(cfg.keyword_weight, len(dense_hits), depth),
                    [(h.id, h.score) for h in keyword_hits],
                    floor=0.0,
                ),
            ]
            fused = fuse(cfg.fusion, lists, rrf_k=cfg.rrf_k)
        else:
            fused = {nid: max(score, 0.0) for nid, score in dense}
        order = sorted(fused, key=lambda nid: (-fused[nid], -sims.get(nid, 0.0), nid))

        # Boosts only reorder the head of the fused list (on LoCoMo a window of 1.3x ``limit``
        # already ranked exactly like boosting every candidate), and without boosts nothing
        # reorders it: whole nodes are loaded for that head only, which keeps recall_text's
        # latency close to dense-only recall.
        window = max(p.limit + 10, -(-4 * p.limit // 3)) if (signals.active or aware) else p.limit
        base: dict[str, float] = {}
        start = 0
        while start < len(order) and len(base) < window:
            chunk = order[start : start + window]
            start += len(chunk)
            for n in await self.reader.nodes(p.viewer, p.scope, chunk, p.when):
                # keyword hits are not filtered on readiness by the store; seeds must be ready
                if n.id in sims or self._seedable(n):
                    index[n.id] = n
            for nid in chunk:
                if nid in index:
                    base[nid] = fused[nid] * signals.factor(index[nid]) if signals.active else fused[nid]
        boosted = base
        if aware and text is not None:
            base = self._question_aware(text, base, index, sims)
        chosen = sorted(base, key=lambda nid: (-base[nid], -sims.get(nid, 0.0), nid))[: p.limit]
        missing = [nid for nid in chosen if nid not in sims]
        if missing:
            sims.update(await self._cosines(p, query, missing))
        seeds = [(index[nid], sims.get(nid, 0.0)) for nid in chosen]
        if p.explain:
            keyword_scores = {h.id: h.score for h in keyword_hits}
            for nid in chosen:
                entity, time_boost = signals.boosts(index[nid]) if signals.active else (1.0, 1.0)
                why[nid] = {
                    "similarity": sims.get(nid, 0.0),
                    "keyword": keyword_scores.get(nid, 0.0),
                    "fused": fused[nid],
                    "entity_boost": entity,
                    "time_boost": time_boost,
                    "question": base[nid] - boosted[nid],
                    "base": base[nid],
                }
        return seeds, {nid: base[nid] for nid in chosen}, pool

    def _question_aware(
        self, text: str, base: dict[str, float], index: dict[str, Node], sims: dict[str, float]
    ) -> dict[str, float]:
        """The signals of the question's kind (ranking/question.py), over the head window."""
        cfg = self.ranking
        kind = QuestionKind.of(text)
        if kind.temporal and cfg.time_statement_boost > 0:
            base = time_statement_boost(base, index, cfg.time_statement_boost)
        if kind.listing and cfg.entity_link_weight > 0:
            order = sorted(base, key=lambda nid: (-base[nid], -sims.get(nid, 0.0), nid))
            base = entity_link_boost(
                base, index, order, weight=cfg.entity_link_weight, ignored=common_names(text, index)
            )
        if cfg.episode_weight > 0:
            base = episode_boost(base, index, cfg.episode_weight)
        return base

    async def _keyword(self, p: RecallParams, text: str, depth: int) -> list[ScoredId]:
        with recall_stage("keyword"):
            return await self.reader.keyword(p.viewer, p.scope, text, depth, p.when, tiers=ACTIVE_TIERS)

    async def _cosines(self, p: RecallParams, query: Vector, ids: list[str]) -> dict[str, float]:
        """True cosine similarity of keyword-only seeds, so every seed reports it."""
        vectors = await self.store.get_embeddings(p.tenant_id, p.scope, ids)  # ids are seeds the reader gave
        q = np.asarray(query, dtype=np.float32)
        qn = float(np.linalg.norm(q))
        out: dict[str, float] = {}
        for nid, vec in vectors.items():
            if len(vec) != len(q):
                continue
            vn = float(np.linalg.norm(vec))
            out[nid] = float(np.dot(q, vec) / (qn * vn)) if qn > 0 and vn > 0 else 0.0
        return out

    async def _neighbourhood(
        self, p: RecallParams, seed_ids: list[str], index: dict[str, Node | NodeBrief]
    ) -> tuple[list[Edge], dict[str, NodeBrief]]:
        """Edges within ``neighborhood_hops`` of the seeds, kept to eligible endpoints.

        Neighbours are read as briefs (eligibility and weight only): up to 200 of them per
        recall, of which at most ``max_nodes`` are returned and loaded whole."""
        kept: dict[str, Edge] = {}
        drafts: dict[str, NodeBrief] = {}
        valid_edge = compiled(self.reader.valid(p.when))
        frontier = list(seed_ids)
        visited = set(seed_ids)
        node_budget = max(p.max_nodes * 4, p.ranked_limit)
        edge_budget = max(p.max_edges * 4, 50)
        for _hop in range(p.neighborhood_hops):
            if not frontier or len(kept) >= edge_budget:
                break
            found = await self.store.edges_touching(
                p.tenant_id,
                p.scope,
                frontier,
                min_weight=p.min_edge_weight,
                min_confidence=p.min_edge_confidence,
                limit=edge_budget - len(kept),
            )
            found = [e for e in found if valid_edge(e)]
            new_ids = [nid for e in found for nid in (e.src_id, e.dst_id) if nid not in index and nid not in drafts]
            new_ids = list(dict.fromkeys(new_ids))[: max(node_budget - len(index), 0)]
            for n in await self.reader.briefs(p.viewer, p.scope, new_ids, p.when):
                if n.type == "topic" and n.topic_state == "draft":
                    drafts[n.id] = n
                elif self._seedable(n):
                    index[n.id] = n
            next_frontier: list[str] = []
            for e in found:
                if e.src_id in index and e.dst_id in index:
                    kept[e.id] = e
                    for nid in (e.src_id, e.dst_id):
                        if nid not in visited:
                            visited.add(nid)
                            next_frontier.append(nid)
                elif (e.src_id in drafts or e.dst_id in drafts) and (e.src_id in index or e.dst_id in index):
                    kept[e.id] = e
            frontier = next_frontier
        return list(kept.values()), drafts

    @staticmethod
    def _seedable(n: Node | NodeBrief) -> bool:
        """Ready and in an active tier; the reader has already kept only what the caller may see."""
        return n.embedding_status == "ready" and n.tier in ACTIVE_TIERS

    @staticmethod
    def _node_weight(n: Node | NodeBrief) -> float:
        return 0.75 + 0.15 * n.salience + 0.10 * n.confidence

    @staticmethod
    def _explain_drafts(
        chosen: list[Node], sub_edges: list[Edge], drafts: dict[str, Node], edges: list[Edge], p: RecallParams
    ) -> tuple[list[Node], list[Edge]]:
        """Show draft topics strongly tied (part_of / derived_from) to returned nodes; never rank them."""
        if not drafts or not chosen:
            return chosen, sub_edges
        chosen_ids = {n.id for n in chosen}
        strength: dict[str, float] = {}
        links: dict[str, list[Edge]] = {}
        for e in edges:
            if e.type not in ("part_of", "derived_from"):
                continue
            for d, other in ((e.src_id, e.dst_id), (e.dst_id, e.src_id)):
                if d in drafts and other in chosen_ids:
                    strength[d] = strength.get(d, 0.0) + e.weight * e.confidence
                    links.setdefault(d, []).append(e)
        picks = sorted(strength, key=lambda d: (-strength[d], d))[:MAX_DRAFT_TOPICS_SHOWN]
        out = list(chosen)
        for d in picks:
            if len(out) < p.max_nodes:
                out.append(drafts[d])
            elif len(out) > 1:
                out[-1] = drafts[d]  # swap out the lowest-ranked node
            else:
                break
        kept_ids = {n.id for n in out}
        new_edges = [e for e in sub_edges if e.src_id in kept_ids and e.dst_id in kept_ids]
        for d in picks:
            if d in kept_ids:
                new_edges += [e for e in links[d] if e.src_id in kept_ids and e.dst_id in kept_ids]
        return out, list({e.id: e for e in new_edges}.values())

    @staticmethod
    def _context(
        top: list[Node], scores: dict[str, float], edges: list[Edge]
    ) -> tuple[str, list[dict[str, Any]], list[dict[str, Any]]]:
        """Render for an LLM prompt; compression summaries first, their cited events left out."""
        summaries = [n for n in top if is_compression_summary(n)]
        cited: set[str] = set()
        for s in summaries:
            cited.update(str(x) for x in s.slots.get("source_ids", []) or [])
            cited.update(e.dst_id for e in edges if e.type == "derived_from" and e.src_id == s.id)
        rest = [n for n in top if not is_compression_summary(n) and n.id not in cited]
        lines: list[str] = []
        items: list[dict[str, Any]] = []
        citations: list[dict[str, Any]] = []
        if summaries:
            lines.append("# Summaries")
            for n in summaries:
                lines.append(f"- {_render(n)} [{n.id}]")
                items.append(_item(n, scores, "summary"))
                citations.append(
                    {
                        "node_id": n.id,
                        "type": n.type,
                        "kind": "summary",
                        "derived_from": sorted(cited & _cites(n, edges)),
                    }
                )
        if rest:
            lines.append("# Memories" if summaries else "# Memory context")
            for n in rest:
                lines.append(f"- ({n.type}) {_render(n)} [{n.id}]")
                items.append(_item(n, scores, "node"))
                citations.append({"node_id": n.id, "type": n.type, "kind": "node"})
        return "\n".join(lines), items, citations

    async def _debug_embeddings(self, p: RecallParams, nodes: list[Node]) -> list[dict[str, Any]]:
        previews = embedding_preview(await self.reader.embeddings(p.viewer, nodes), [n.id for n in nodes])
        return [{"node_id": nid, **preview} for nid, preview in previews.items()]

    def _audit(self, p: RecallParams, seed_ids: list[str], returned: int) -> None:
        """Best effort and off the response path: a failing audit write never fails a recall."""
        self.audit_log.add(
            RecallAudit(
                tenant_id=p.tenant_id,
                scope=p.scope,
                endpoint=p.endpoint,
                consumer_agent_id=p.viewer.agent_id,
                consumer_team_id=p.viewer.team_id,
                query_sha256=sha256_hex(p.query_text) if p.query_text is not None else None,
                seed_ids=list(seed_ids),
                returned_count=returned,
                created_at=self.clock.now(),
            )
        )

    async def drain_audit(self) -> None:
        await self.audit_log.drain()


def _render(n: Node) -> str:
    if n.title and n.text_summary:
        return f"{n.title}: {n.text_summary}"
    return n.title or n.text_summary or ""


def _item(n: Node, scores: dict[str, float], kind: str) -> dict[str, Any]:
    return {
        "id": n.id,
        "type": n.type,
        "kind": kind,
        "title": n.title,
        "text_summary": n.text_summary,
        "score": round(scores.get(n.id, 0.0), 6),
    }


def _cites(n: Node, edges: list[Edge]) -> set[str]:
    out = {str(x) for x in n.slots.get("source_ids", []) or []}
    out.update(e.dst_id for e in edges if e.type == "derived_from" and e.src_id == n.id)
    return out
