"""Embedding as a derived artifact: jobs fill in vectors, queries get embedded on demand."""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np
from typing_extensions import TypedDict

from memlane.domain.clock import Clock, new_id
from memlane.domain.errors import MemlaneError, UpstreamEmbeddingBadResponse
from memlane.domain.model import Job
from memlane.embed.base import Embedder, UrgentEmbedder
from memlane.jobs.kinds import EMBED_NODES
from memlane.metrics import recall_stage
from memlane.services.embedding_context import LOOKBACK_SPAN, ContextConfig, contextual_text, in_a_conversation
from memlane.services.ranking.calibration import RelevanceScale
from memlane.store.base import PendingEmbedding, Vector
from memlane.store.contracts.embeddings import EmbeddingOps
from memlane.store.contracts.graph_reads import NodeReadOps
from memlane.store.contracts.jobs import JobSubmitOps

log = logging.getLogger(__name__)


def embed_job_size(job: Job) -> int:
    """The work an embedding job carries: the nodes it names (a one-node write's job names one,
    an import's up to 500): what the worker's round budget counts (jobs/fair_share.py)."""
    return len(job.payload.get("node_ids") or ())


class EmbeddingStore(EmbeddingOps, NodeReadOps, JobSubmitOps, Protocol):
    """Text waiting for vectors and the vectors stored, the nodes (and their neighbours in time)
    an embedding reads, and the queue re-embedding goes on."""


class EmbedResult(TypedDict):
    """An embedding job's result: its nodes embedded, those skipped because their text changed
    while embedding (a later job embeds them), and the model."""

    embedded: int
    skipped_changed: int
    model: str


class EmbeddingService:
    def __init__(
        self,
        store: EmbeddingStore,
        embedder: Embedder,
        *,
        clock: Clock,
        batch_size: int = 64,
        context: ContextConfig | None = None,
        relevance: RelevanceScale | None = None,
        query_cache_size: int = 0,
    ):
        self.store = store
        self.embedder = embedder
        self.clock = clock
        self.batch_size = batch_size
        self.context = context or ContextConfig()
        #: the embedder's cosines on the calibrated 0..1 scale every surface reports
        self.relevance = relevance or RelevanceScale()
        #: the vectors of the last ``query_cache_size`` query texts: agents repeat their
        #: questions, and a query's embedding was the largest part of a recall's CPU
        self.query_cache_size = query_cache_size
        self._query_cache: OrderedDict[str, Vector] = OrderedDict()

    async def vectors(self, texts: Sequence[str], *, urgent: bool = True) -> list[Vector]:
        """Embed now: for queries, and for writes that must be searchable the moment they are
        stored (layered, tool and knowledge memories). Every surface embeds through here, so
        provider failures reach them as the same typed errors (``UpstreamEmbedding*``), and a
        misbehaving embedder is caught before its vectors reach the store. A caller is waiting,
        so this takes the embedder's urgent path where it has one (never behind a job's batch).
        Jobs pass ``urgent=False``: their texts queue with the other background work instead of
        making queries wait behind them."""
        try:
            if urgent and isinstance(self.embedder, UrgentEmbedder):
                raw = await self.embedder.embed_urgent(list(texts))
            else:
                raw = await self.embedder.embed(list(texts))
        except MemlaneError:
            raise
        except Exception as exc:
            log.exception("embedder raised")
            raise UpstreamEmbeddingBadResponse(f"embedding failed: {type(exc).__name__}: {exc}") from exc
        out = [np.asarray(v, dtype=np.float32) for v in raw]
        if len(out) != len(texts) or any(v.shape != (self.embedder.dimension,) for v in out):
            raise UpstreamEmbeddingBadResponse(
                f"embedder returned {len(out)} vectors of the wrong shape for {len(texts)} texts"
            )
        return out

    async def query_vector(self, text: str) -> Vector:
        """The vector of a query text, from the cache when the same text was embedded lately
        (the embedder is fixed for the process, so a cached vector is the one it would make)."""
        with recall_stage("embed"):
            cached = self._query_cache.get(text)
            if cached is not None:
                self._query_cache.move_to_end(text)
                return cached.copy()
            vector = (await self.vectors([text]))[0]
            if self.query_cache_size > 0:
                self._query_cache[text] = vector.copy()
                while len(self._query_cache) > self.query_cache_size:
                    self._query_cache.popitem(last=False)
            return vector

    async def run_embed_job(self, job: Job) -> EmbedResult:
        """Embed the job's pending nodes; nodes whose text changed meanwhile are re-read."""
        return (await self.run_embed_jobs([job]))[0]

    async def run_embed_jobs(self, batch: list[Job]) -> list[EmbedResult]:
        """Embed the pending nodes of several jobs with one embedder call and one transaction
        per round: one-node writes arrive as one job each, and a model call and a commit per
        node was most of the time until a write became searchable (see BENCHMARKS.md)."""
        wanted: dict[str, list[str]] = {}
        for job in batch:
            wanted.setdefault(job.tenant_id, []).extend(job.payload.get("node_ids", []))
        embedded: set[tuple[str, str]] = set()
        skipped: set[tuple[str, str]] = set()
        for attempt in range(3):
            pending = [p for tenant, ids in wanted.items() for p in await self.store.pending_embeddings(tenant, ids)]
            if not pending:
                break
            stale: set[tuple[str, str]] = set()
            for start in range(0, len(pending), self.batch_size):
                part = pending[start : start + self.batch_size]
                vectors = await self.embedder.embed(await self._texts(part))
                items = [(p, np.asarray(v, dtype=np.float32)) for p, v in zip(part, vectors, strict=True)]
                stale_ids = set(await self.store.set_embeddings(items, self.embedder.model_id, now=self.clock.now()))
                for p in part:
                    (stale if p.id in stale_ids else embedded).add((p.tenant_id, p.id))
            if not stale:
                break
            wanted = {}
            for tenant, node_id in stale:
                wanted.setdefault(tenant, []).append(node_id)
            log.info("embed jobs: %d nodes changed while embedding, retry %d", len(stale), attempt + 1)
        else:
            skipped = {(t, i) for t, ids in wanted.items() for i in ids}
        return [
            {
                "embedded": sum((job.tenant_id, i) in embedded for i in job.payload.get("node_ids", [])),
                "skipped_changed": sum((job.tenant_id, i) in skipped for i in job.payload.get("node_ids", [])),
                "model": self.embedder.model_id,
            }
            for job in batch
        ]

    async def _texts(self, batch: Sequence[PendingEmbedding]) -> list[str]:
        """What each pending node is embedded as (services/embedding_context.py)."""
        cfg = self.context
        if not cfg.active or not batch:
            return [p.text for p in batch]
        nodes: dict[tuple[str, str], Any] = {}
        for tenant in {p.tenant_id for p in batch}:  # a batch of jobs can span tenants
            ids = [p.id for p in batch if p.tenant_id == tenant]
            nodes.update({(tenant, n.id): n for n in await self.store.get_nodes(tenant, None, ids)})
        out: list[str] = []
        for p in batch:
            node = nodes.get((p.tenant_id, p.id))
            if node is None:
                out.append(p.text)
                continue
            preceding = (
                await self.store.preceding_nodes(
                    p.tenant_id, p.scope, p.id, limit=cfg.window + LOOKBACK_SPAN // 8, span=LOOKBACK_SPAN
                )
                if cfg.window and in_a_conversation(node)
                else []
            )
            out.append(contextual_text(node, preceding, cfg) or p.text)
        return out

    async def requeue_stale_model(self, *, limit: int = 10_000) -> int:
        """After a model change, put other-model vectors back to pending and enqueue jobs.

        Recall never mixes vector spaces: a node leaves the seed set until it is re-embedded.
        """
        now = self.clock.now()
        total = 0
        while True:
            pairs = await self.store.mark_stale_embeddings(
                self.embedder.model_id, self.embedder.dimension, now=now, limit=limit
            )
            if not pairs:
                return total
            by_tenant: dict[str, list[str]] = {}
            for tenant_id, node_id in pairs:
                by_tenant.setdefault(tenant_id, []).append(node_id)
            jobs = [
                Job(tenant_id=t, id=new_id(), kind=EMBED_NODES, payload={"node_ids": ids[i : i + 500]})
                for t, ids in by_tenant.items()
                for i in range(0, len(ids), 500)
            ]
            await self.store.enqueue(jobs, now=now)
            total += len(pairs)
