"""``RecallService``: runs recall's stages in order over one moment of each scope.

Seeds (seeds.py), their neighbourhood (neighbourhood.py), graph activation spread over it
(ranking/activation.py), each node's score (its activation times ``RankingConfig.node_weight``),
an optional reranker over the best, then what the response shows: the subgraph of the best
``max_nodes`` (with the draft topics tied to them), the context (context.py), the debug
embeddings (debug.py). Every recall is audited, off the response path.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Protocol

from memlane.domain.clock import Clock
from memlane.domain.errors import InvalidRequest
from memlane.domain.hashing import sha256_hex
from memlane.domain.model import Edge, Node, NodeBrief, RecallAudit
from memlane.metrics import observe_stage, recall_stage
from memlane.rerank.base import Reranker, RerankFailed
from memlane.services.ranking.activation import spread
from memlane.services.ranking.calibration import Background, RelevanceScale
from memlane.services.ranking.config import RankingConfig
from memlane.services.ranking.succession import WINDOW, Said, current_first, said
from memlane.services.reading import MemoryReader
from memlane.services.recall.context import CONTEXT_MAX_ITEMS, render_context
from memlane.services.recall.debug import DEBUG_MAX_SEEDS, check_debug_limit, debug_embeddings
from memlane.services.recall.model import Ranked, RecallOutcome, RecallParams
from memlane.services.recall.neighbourhood import Neighbourhood, neighbourhood, with_draft_topics
from memlane.services.recall.seeds import Seeds, SeedSearch
from memlane.services.recall_audit import RecallAuditLog
from memlane.store.base import Vector
from memlane.store.contracts.audit import AuditOps
from memlane.store.contracts.graph_reads import EdgeReadOps, SearchOps
from memlane.store.read_view import one_view_per_scope

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class _Shown:
    """What the response shows of the ranked nodes: the subgraph and the context's nodes."""

    nodes: list[Node]
    edges: list[Edge]
    context: list[Node]


class RecallStore(SearchOps, EdgeReadOps, AuditOps, Protocol):
    """What recall reads besides the reader (vectors, edges around seeds) and where it records its audits."""


class RecallService:
    def __init__(
        self,
        store: RecallStore,
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
        self.seed_search = SeedSearch(store, reader, self.ranking)
        self.audit_log = RecallAuditLog(store)

    def check_dimension(self, vector: list[float] | Vector, field_name: str = "query_embedding") -> None:
        if len(vector) != self.dimension:
            raise InvalidRequest(
                f"{field_name} has {len(vector)} dimensions; the configured embedder uses {self.dimension}",
                code="invalid_embedding_dimension",
                details={"field": field_name, "expected": self.dimension, "got": len(vector)},
            )

    async def recall(self, query: Vector, params: RecallParams) -> RecallOutcome:
        """Every stage reads the same moment of each scope (store/read_view.py), and the same
        instant of validity: "now" is pinned once, for this recall only."""
        self.check_dimension(query)
        check_debug_limit(params.include_embeddings, params.limit)
        p = replace(params, when=params.when.pinned(self.clock.now()))
        with one_view_per_scope():
            return await self._recall(query, p)

    async def _recall(self, query: Vector, p: RecallParams) -> RecallOutcome:
        found = await self.seed_search.find(query, p)
        with recall_stage("graph"):
            hood = await neighbourhood(self.store, self.reader, p, [s.node.id for s in found.seeds], found.loaded)
            activation = self._activation(found.base, hood, p.neighborhood_hops)
        ranking_started = time.perf_counter()
        scored = self._scored(activation, hood.nodes)
        if self.reranker is not None and p.text is not None:
            scored = await self._rerank(p, p.text, scored, hood.nodes)
        scored = _current_first(scored, found, p.text)
        shown = await self._shown(p, scored, hood)
        outcome = RecallOutcome(
            seeds=found.seeds,
            ranked=scored[: p.ranked_limit],
            nodes=shown.nodes,
            edges=shown.edges,
            context=render_context(shown.context, {r.id: r.score for r in scored}, hood.edges),
            neighborhood_counts={"nodes": len(activation) + len(hood.drafts), "edges": len(hood.edges)},
            seed_relevance=self._seed_relevance(found),
            signals=_with_graph(found, scored),
        )
        observe_stage("rank", time.perf_counter() - ranking_started)
        if p.include_embeddings and p.debug_embeddings_allowed:
            first = [s.node for s in found.seeds[:DEBUG_MAX_SEEDS]]
            outcome = replace(outcome, debug_embeddings=await debug_embeddings(self.reader, p.viewer, first))
        self._audit(p, [s.node.id for s in found.seeds], len(shown.nodes))
        return outcome

    def _activation(self, base: Mapping[str, float], hood: Neighbourhood, hops: int) -> dict[str, float]:
        """The seeds' base scores with what graph activation passes on (ranking/activation.py)."""
        if not self.ranking.graph:
            return dict(base)
        return spread(base, hood.edges, hood.nodes, hops=hops, config=self.ranking)

    def _scored(self, activation: Mapping[str, float], nodes: Mapping[str, Node | NodeBrief]) -> list[Ranked]:
        """Every activated node, best score first (ties by id)."""
        weight = self.ranking.node_weight
        scored = [
            Ranked(nid, act, act * weight(nodes[nid].salience, nodes[nid].confidence))
            for nid, act in activation.items()
            if nid in nodes
        ]
        return sorted(scored, key=lambda r: (-r.score, r.id))

    def _seed_relevance(self, found: Seeds) -> dict[str, float]:
        """Each seed's cosine on the calibrated scale, against the dense candidates of the query
        (its background, when they are the whole visible scope); a keyword-only seed is not
        one of them."""
        cosines = found.pool.cosines
        background = Background.of(cosines.values(), whole=found.pool.whole)
        return {s.node.id: self.relevance(s.similarity, background, member=s.node.id in cosines) for s in found.seeds}

    async def _rerank(
        self, p: RecallParams, query: str, scored: list[Ranked], index: Mapping[str, Node | NodeBrief]
    ) -> list[Ranked]:
        """The reranker's order for the ``rerank_top_k`` best; the scores stay where they were
        (position k keeps the k-th best score, so ``ranked`` stays sorted). If the reranker
        fails, recall's own order stands: it is a valid ranking, only a less refined one."""
        assert self.reranker is not None
        head = scored[: self.rerank_top_k]
        full = await self._full_nodes(p, [r.id for r in head], index)
        head = [r for r in head if r.id in full]
        try:
            scores = await self.reranker.rerank(query, [full[r.id].text for r in head])
        except RerankFailed as exc:
            log.warning("reranker %s failed, keeping recall's order: %s", self.reranker.model_id, exc)
            return scored
        order = sorted(range(len(head)), key=lambda i: (-scores[i], i))
        kept = {r.id for r in head}
        reranked = [replace(head[i], score=head[pos].score) for pos, i in enumerate(order)]
        return reranked + [r for r in scored if r.id not in kept]

    async def _shown(self, p: RecallParams, scored: Sequence[Ranked], hood: Neighbourhood) -> _Shown:
        """The best ``max_nodes`` loaded whole, the edges between them (the strongest
        ``max_edges``), the draft topics tied to them, and the best nodes for the context."""
        chosen_ids = [r.id for r in scored[: p.max_nodes]]
        context_ids = [r.id for r in scored[:CONTEXT_MAX_ITEMS]]
        full = await self._full_nodes(p, [*chosen_ids, *context_ids], hood.nodes)
        chosen = [full[i] for i in chosen_ids if i in full]
        chosen_set = {n.id for n in chosen}
        sub_edges = [e for e in hood.edges if e.src_id in chosen_set and e.dst_id in chosen_set]
        if hood.drafts:
            drafts = {n.id: n for n in await self.reader.nodes(p.viewer, p.scope, list(hood.drafts), p.when)}
            chosen, sub_edges = with_draft_topics(chosen, sub_edges, drafts, hood.edges, p.max_nodes)
        sub_edges = sorted(sub_edges, key=lambda e: (-(e.weight * e.confidence), e.id))[: p.max_edges]
        return _Shown(chosen, sub_edges, [full[i] for i in context_ids if i in full])

    async def _full_nodes(
        self, p: RecallParams, ids: list[str], index: Mapping[str, Node | NodeBrief]
    ) -> dict[str, Node]:
        """Whole nodes for what the response shows; the neighbourhood was ranked on briefs.

        A node deleted since its brief was read is left out, as if it had not been found (and
        so is one expired since: the instant is the recall's own, pinned once)."""
        full = {i: n for i in ids if isinstance(n := index.get(i), Node)}
        missing = [i for i in dict.fromkeys(ids) if i not in full]
        for n in await self.reader.nodes(p.viewer, p.scope, missing, p.when):
            full[n.id] = n
        return full

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


def _with_graph(found: Seeds, scored: Sequence[Ranked]) -> dict[str, dict[str, float]]:
    """Each explained seed's signals, with what graph activation added and its final score."""
    if not found.signals:
        return {}
    final = {r.id: r for r in scored if r.id in found.signals}
    out: dict[str, dict[str, float]] = {}
    for nid, why in found.signals.items():
        r = final.get(nid)
        out[nid] = why if r is None else why | {"graph": r.activation - found.base[nid], "score": r.score}
    return out


def _current_first(scored: list[Ranked], found: Seeds, question: str | None) -> list[Ranked]:
    """Of two seeds that answer alike and disagree, the later one first (ranking/succession.py);
    the scores stay where they were, as after a rerank, so the list stays sorted. A node with no
    cosine to the query (a neighbour) neither moves nor is passed."""
    cosines = {s.node.id: s.similarity for s in found.seeds}
    head = [
        said(found.loaded[r.id], cosines[r.id])
        if r.id in cosines and r.id in found.loaded
        else Said(r.id, "", 0.0, None, None)
        for r in scored[:WINDOW]
    ]
    by_id = {r.id: r for r in scored[:WINDOW]}
    order = current_first(head, question)
    return [replace(by_id[i], score=scored[pos].score) for pos, i in enumerate(order)] + scored[WINDOW:]
