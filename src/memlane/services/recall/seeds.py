"""Recall's seeds: the ``limit`` best candidates of the query, each with its true cosine
similarity and its base score.

Without query text or any signal the base score is the cosine similarity itself (pure dense
recall). With keyword fusion it is the fusion (relative scores, or reciprocal ranks) of the
dense and keyword lists; entity and time boosts then multiply it, and the signals of the
question's kind (ranking/question.py) adjust it. Candidates come from both lists,
``RankingConfig.candidates`` deep, so a strong keyword match the dense list missed can still
seed; a question asking for a category's members ("What activities ...") brings a third list,
the keyword search for those members' words (ranking/categories.py).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from memlane.domain.model import ACTIVE_TIERS, Node, ScoredId
from memlane.domain.text_signals import speaker_of
from memlane.metrics import recall_stage
from memlane.services.ranking.categories import Category, asked_category, member_queries
from memlane.services.ranking.config import RankingConfig
from memlane.services.ranking.fusion import Candidates, fuse
from memlane.services.ranking.query_text import keyword_query, named_words, without_words, words
from memlane.services.ranking.question import (
    QuestionKind,
    common_names,
    entity_link_boost,
    episode_boost,
    time_statement_boost,
)
from memlane.services.ranking.signals import QuerySignals
from memlane.services.reading import MemoryReader
from memlane.services.recall.model import RecallParams, Seed
from memlane.services.recall.neighbourhood import seedable
from memlane.services.recall.query import mix
from memlane.store.base import Vector
from memlane.store.contracts.graph_reads import SearchOps


def keyword_weight(weight: float, scope_size: int, depth: int) -> float:
    """The keyword list's weight: in full where the dense list was cut at ``depth``; in a scope
    smaller than that, in proportion to its size. There dense similarity is known for every
    memory, while BM25 statistics from a handful of memories are noise (a word two of four
    memories share gets no weight at all, so one rarer word decides): meaning ranks first and a
    keyword match is evidence, not a veto."""
    if scope_size >= depth or depth <= 0:
        return weight
    return weight * scope_size / depth


@dataclass(frozen=True, slots=True)
class SeedQuery:
    """What the seed search does for one query: which lists it reads, how deep, and how wide
    a head of the fused list it loads whole to boost."""

    text: str | None
    signals: QuerySignals
    #: the words searched in the keyword index; None when there is no keyword list
    keyword_text: str | None
    #: the keyword words the question writes with a capital (names that may be speakers' and
    #: are left out of the keyword search if they are); empty when nothing is to be left out
    names: frozenset[str]
    fusing: bool
    #: whether the signals of the question's kind apply
    aware: bool
    #: the category whose members the question asks for (ranking/categories.py), when their
    #: keyword search is on
    category: Category | None
    depth: int
    window: int

    @classmethod
    def of(cls, p: RecallParams, cfg: RankingConfig) -> SeedQuery:
        text = p.text
        signals = QuerySignals.of(text, cfg)
        fusing = cfg.keyword and text is not None
        aware = text is not None and cfg.question_aware
        boosting = signals.active or aware
        # Boosts only reorder the head of the fused list (on LoCoMo a window of 1.3x ``limit``
        # already ranked exactly like boosting every candidate), and without boosts nothing
        # reorders it: whole nodes are loaded for that head only, which keeps recall_text's
        # latency close to dense-only recall.
        keyword_text = keyword_query(text) if (cfg.keyword and text) else None
        names: frozenset[str] = frozenset()
        if text and keyword_text and cfg.skip_speaker_names:
            names = named_words(text) & frozenset(keyword_text.split())
        category = None
        if text and fusing and cfg.category_keyword_weight > 0:
            category = asked_category(text)
        return cls(
            text=text,
            signals=signals,
            keyword_text=keyword_text,
            names=names,
            fusing=fusing,
            aware=aware,
            category=category,
            depth=max(p.limit, cfg.candidates) if (fusing or boosting) else p.limit,
            window=max(p.limit + 10, -(-4 * p.limit // 3)) if boosting else p.limit,
        )


@dataclass(frozen=True, slots=True)
class DensePool:
    """The dense candidates' cosines, and whether they are every node the caller may see
    there (the query's background, ranking/calibration.py)."""

    cosines: dict[str, float]
    whole: bool


@dataclass(frozen=True, slots=True)
class Seeds:
    seeds: list[Seed]
    #: each seed's base score, by id, in seed order
    base: dict[str, float]
    #: every eligible node the search read whole (the seeds and the rest of the head)
    loaded: dict[str, Node]
    pool: DensePool
    #: why each seed ranked, when the recall asks to explain (empty otherwise)
    signals: dict[str, dict[str, float]]


class SeedSearch:
    def __init__(self, store: SearchOps, reader: MemoryReader, ranking: RankingConfig):
        self.store = store
        self.reader = reader
        self.ranking = ranking

    async def find(self, query: Vector, p: RecallParams) -> Seeds:
        q = SeedQuery.of(p, self.ranking)
        dense_hits, keyword_hits, read = await self._candidates(query, p, q)
        member_hits: list[ScoredId] = []
        if q.category is not None:
            member_hits = await self._members(p, q.category, q.depth)
        if self.ranking.prf_seeds > 0 and self.ranking.prf_weight > 0:
            query, dense_hits = await self._feedback(query, p, q, dense_hits, keyword_hits)
        sims = {h.id: h.score for h in dense_hits}
        pool = DensePool(dict(sims), len(dense_hits) < q.depth)
        fused = self._fuse(q, dense_hits, keyword_hits, member_hits)
        order = sorted(fused, key=lambda nid: (-fused[nid], -sims.get(nid, 0.0), nid))
        loaded, boosted = await self._head(p, q, order, fused, sims, read)
        base = self._question_aware(q.text, boosted, loaded, sims) if q.aware and q.text is not None else boosted
        chosen = sorted(base, key=lambda nid: (-base[nid], -sims.get(nid, 0.0), nid))[: p.limit]
        missing = [nid for nid in chosen if nid not in sims]
        if missing:
            sims.update(await self._cosines(p, query, missing))
        signals: dict[str, dict[str, float]] = {}
        if p.explain:
            keyword_scores = {h.id: h.score for h in keyword_hits}
            member_scores = {h.id: h.score for h in member_hits}
            signals = {
                nid: _why(loaded[nid], q.signals, sims.get(nid, 0.0), keyword_scores.get(nid, 0.0), fused[nid])
                | {"question": base[nid] - boosted[nid], "base": base[nid]}
                | ({"members": member_scores.get(nid, 0.0)} if q.category is not None else {})
                for nid in chosen
            }
        return Seeds(
            seeds=[Seed(loaded[nid], sims.get(nid, 0.0)) for nid in chosen],
            base={nid: base[nid] for nid in chosen},
            loaded=loaded,
            pool=pool,
            signals=signals,
        )

    async def _candidates(
        self, query: Vector, p: RecallParams, q: SeedQuery
    ) -> tuple[list[ScoredId], list[ScoredId], dict[str, Node]]:
        """The dense and keyword lists, ``depth`` deep, and the nodes read on the way. The
        keyword search runs while the dense search does, after the query is embedded: run during
        the embedding it slowed the embedder's two threads on two cores by more than its own
        ~1.5 ms (measured at 100k nodes). When the question writes a name, it runs after."""
        if q.names and q.keyword_text:
            return await self._without_speakers(query, p, q, q.keyword_text)
        keyword_task = asyncio.ensure_future(self._keyword(p, q.keyword_text, q.depth)) if q.keyword_text else None
        try:
            with recall_stage("vector"):
                dense_hits = await self.reader.nearest(p.viewer, p.scope, query, q.depth, p.when, tiers=ACTIVE_TIERS)
            keyword_hits = await keyword_task if keyword_task is not None else []
        finally:
            if keyword_task is not None and not keyword_task.done():
                keyword_task.cancel()
                with contextlib.suppress(BaseException):
                    await keyword_task
        return dense_hits, keyword_hits, {}

    async def _without_speakers(
        self, query: Vector, p: RecallParams, q: SeedQuery, keyword_text: str
    ) -> tuple[list[ScoredId], list[ScoredId], dict[str, Node]]:
        """The dense list, then the keyword list without the question's names that are speakers
        of the dense list's head (the speaker signal carries them). A speaker seldom says their
        own name, the other person's "Hey Caroline!" does: kept, the name ranked the other
        person's greetings first (BENCHMARKS.md, "Why evidence is missed"). The head is read
        whole here, and not again. (Measured: the keyword search run beside the dense one and
        again only when a name is a speaker's was slower, one keyword search wasted.)"""
        with recall_stage("vector"):
            dense_hits = await self.reader.nearest(p.viewer, p.scope, query, q.depth, p.when, tiers=ACTIVE_TIERS)
        head = await self.reader.nodes(p.viewer, p.scope, [h.id for h in dense_hits[: q.window]], p.when)
        speakers = frozenset(w for n in head if (sp := speaker_of(n.slots, n.text)) for w in words(sp))
        text = without_words(keyword_text, q.names & speakers)
        keyword_hits = await self._keyword(p, text, q.depth) if text else []
        return dense_hits, keyword_hits, {n.id: n for n in head}

    async def _feedback(
        self, query: Vector, p: RecallParams, q: SeedQuery, dense_hits: list[ScoredId], keyword_hits: list[ScoredId]
    ) -> tuple[Vector, list[ScoredId]]:
        """Dense pseudo-relevance feedback (Rocchio): the query vector moved toward the mean of the
        first pass's best fused candidates, and the dense list searched again with it; the keyword
        list stands. The moved vector is the query from here on (seeds report their cosine to it)."""
        fused = self._fuse(q, dense_hits, keyword_hits)
        sims = {h.id: h.score for h in dense_hits}
        best = sorted(fused, key=lambda nid: (-fused[nid], -sims.get(nid, 0.0), nid))[: self.ranking.prf_seeds]
        vectors = [
            v for v in (await self.store.get_embeddings(p.tenant_id, p.scope, best)).values() if len(v) == len(query)
        ]
        if not vectors:
            return query, dense_hits
        centroid = np.mean([v / n for v in vectors if (n := float(np.linalg.norm(v))) > 0], axis=0).astype(np.float32)
        moved = mix(query, centroid, self.ranking.prf_weight)
        with recall_stage("vector"):
            again = await self.reader.nearest(p.viewer, p.scope, moved, q.depth, p.when, tiers=ACTIVE_TIERS)
        return moved, again

    async def _members(self, p: RecallParams, category: Category, depth: int) -> list[ScoredId]:
        """The keyword list of every member of ``category``: one keyword search per part of its
        words (a search reads at most 64), each ``depth`` deep, and a memory's scores added up
        (BM25 over disjoint words adds up; categories.member_queries). A memory that only
        a part's cut left out misses that part's score, as the whole list's cut would have."""
        parts = await asyncio.gather(*(self._keyword(p, text, depth) for text in member_queries(category)))
        if len(parts) == 1:
            return parts[0]
        total: dict[str, float] = {}
        for hits in parts:
            for h in hits:
                total[h.id] = total.get(h.id, 0.0) + h.score
        best = sorted(total.items(), key=lambda kv: (-kv[1], kv[0]))[:depth]
        return [ScoredId(nid, score) for nid, score in best]

    async def _keyword(self, p: RecallParams, text: str, depth: int) -> list[ScoredId]:
        with recall_stage("keyword"):
            return await self.reader.keyword(p.viewer, p.scope, text, depth, p.when, tiers=ACTIVE_TIERS)

    def _fuse(
        self,
        q: SeedQuery,
        dense_hits: Sequence[ScoredId],
        keyword_hits: Sequence[ScoredId],
        member_hits: Sequence[ScoredId] = (),
    ) -> dict[str, float]:
        """One score per candidate: the fusion of the lists (dense, keyword, and a category's
        members when the question asks for them), or the (non-negative) cosine."""
        cfg = self.ranking
        dense = [(h.id, h.score) for h in dense_hits]
        if not q.fusing:
            return {nid: max(score, 0.0) for nid, score in dense}
        # A dense list cut at ``depth`` is anchored at its last hit; one that holds the
        # whole scope has no such reference, and similarity's own zero anchors it.
        truncated = len(dense_hits) >= q.depth
        dense_floor = None if truncated or not dense else min(0.0, min(s for _, s in dense))
        lists = [
            Candidates(cfg.dense_weight, dense, floor=dense_floor),
            Candidates(
                keyword_weight(cfg.keyword_weight, len(dense_hits), q.depth),
                [(h.id, h.score) for h in keyword_hits],
                floor=0.0,
            ),
        ]
        if member_hits:
            lists.append(
                Candidates(
                    keyword_weight(cfg.category_keyword_weight, len(dense_hits), q.depth),
                    [(h.id, h.score) for h in member_hits],
                    floor=0.0,
                )
            )
        return fuse(cfg.fusion, lists, rrf_k=cfg.rrf_k)

    async def _head(
        self,
        p: RecallParams,
        q: SeedQuery,
        order: Sequence[str],
        fused: Mapping[str, float],
        sims: Mapping[str, float],
        read: Mapping[str, Node],
    ) -> tuple[dict[str, Node], dict[str, float]]:
        """The first ``window`` eligible candidates of ``order``, read whole (but for those in
        ``read``), and their scores with the query's entity and time boosts. Keyword hits are
        not filtered on readiness by the store; seeds must be ready."""
        signals = q.signals
        loaded: dict[str, Node] = {}
        scores: dict[str, float] = {}
        start = 0
        while start < len(order) and len(scores) < q.window:
            chunk = order[start : start + q.window]
            start += len(chunk)
            unread = [nid for nid in chunk if nid not in read]
            fresh = await self.reader.nodes(p.viewer, p.scope, unread, p.when) if unread else []
            for n in [*(read[nid] for nid in chunk if nid in read), *fresh]:
                if n.id in sims or seedable(n):
                    loaded[n.id] = n
            for nid in chunk:
                if nid in loaded:
                    scores[nid] = fused[nid] * signals.factor(loaded[nid]) if signals.active else fused[nid]
        return loaded, scores

    def _question_aware(
        self, text: str, base: dict[str, float], index: dict[str, Node], sims: Mapping[str, float]
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


def _why(node: Node, signals: QuerySignals, similarity: float, keyword: float, fused: float) -> dict[str, float]:
    """A seed's signals before the question's kind: its similarity, keyword score, their
    fusion and the entity and time boosts."""
    entity, time_boost = signals.boosts(node) if signals.active else (1.0, 1.0)
    return {
        "similarity": similarity,
        "keyword": keyword,
        "fused": fused,
        "entity_boost": entity,
        "time_boost": time_boost,
    }
