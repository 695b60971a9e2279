"""Reading and removing notes: ranked query, get by id, delete, evolution chains.

A memory id is the node id itself (one id scheme inside). The app's scope holds the notes;
the tenant is always the caller's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from typing_extensions import TypedDict

from memlane.domain.clock import Clock
from memlane.domain.errors import NotFound
from memlane.domain.hashing import sha256_hex
from memlane.domain.model import CommitInfo, EdgeRef, Node
from memlane.domain.validity import CURRENT, ValidTime
from memlane.domain.visibility import Viewer
from memlane.rules.governance import rule_rights_of
from memlane.services.conversation.ingestion import SEARCH_TIERS
from memlane.services.conversation.notes import ACTIVE, NOTE_TYPE, event_time, note_metadata
from memlane.services.conversation.ranking import composite
from memlane.services.embedding import EmbeddingService
from memlane.services.ranking.calibration import CONVERSATION_CUT, Background
from memlane.services.ranking.succession import current_first, said
from memlane.services.reading import MemoryReader
from memlane.services.writing import WriteCommand, WriteEdgeSpec, WriteNodeSpec, WriteService
from memlane.store.contracts.graph_reads import EdgeReadOps


class MemoryView(TypedDict):
    """A note as every conversation endpoint answers it (api/conversation/responses.py)."""

    memory_id: str
    document: str
    metadata: dict[str, Any]


class ScoredMemoryView(MemoryView):
    """A note as a query answers it: with the scores that ranked it."""

    composite_score: float
    similarity_score: float
    cosine_similarity: float
    recency_score: float
    importance_score: float
    query_status: str


#: how many nearest notes are re-ranked per result asked for (never fewer than MIN_POOL). An
#: app user with fewer notes than the pool is read whole, and each note is judged against the
#: others (services/ranking/calibration.py); 50, as memory_search's smallest depth
POOL_FACTOR = 3
MIN_POOL = 50
MAX_POOL = 300
MAX_CHAIN = 1000


@dataclass(slots=True)
class QueryParams:
    viewer: Viewer
    app_id: str
    query: str
    user_id: str | None = None
    session_id: str | None = None
    n_results: int = 10
    #: the least relevance a note needs (the API's default: MEMLANE_CONVERSATION_SIMILARITY_THRESHOLD)
    similarity_threshold: float = CONVERSATION_CUT
    #: which notes by their interval; asking about another time drops the "active" status
    #: rule, since a note closed later was active then (domain/validity.py)
    when: ValidTime = CURRENT


@dataclass(slots=True)
class Chain:
    nodes: list[Node]
    cycle_at: str | None = None
    missing: str | None = None


class MemoryService:
    def __init__(
        self,
        *,
        store: EdgeReadOps,
        reader: MemoryReader,
        embedding: EmbeddingService,
        writes: WriteService,
        clock: Clock,
        half_life_days: float,
    ):
        self.store = store
        self.reader = reader
        self.embedding = embedding
        self.writes = writes
        self.clock = clock
        self.half_life_days = half_life_days

    async def query(self, p: QueryParams) -> list[ScoredMemoryView]:
        """Active notes by composite score. ``similarity_score`` is the relevance: the cosine
        on the calibrated scale, against the background of the other nearest notes when the
        pool holds them all (services/ranking/calibration.py); ``similarity_threshold`` applies
        to it. The composite is built on the absolute scale alone (the relevance with no
        background), so the order is the one it always was; the raw cosine is reported as
        ``cosine_similarity``."""
        vector = await self.embedding.query_vector(p.query)
        pool = min(MAX_POOL, max(MIN_POOL, p.n_results * POOL_FACTOR))
        hits = await self.reader.nearest(
            p.viewer,
            p.app_id,
            vector,
            pool,
            p.when,
            tiers=SEARCH_TIERS,
            types=(NOTE_TYPE,),
            statuses=(ACTIVE,) if p.when == CURRENT else None,
            user_id=p.user_id,
            session_id=p.session_id,
        )
        scale = self.embedding.relevance
        background = Background.of((h.score for h in hits), whole=len(hits) < pool)
        relevance = {h.id: scale(h.score, background) for h in hits}
        hits = [h for h in hits if relevance[h.id] >= p.similarity_threshold]
        index = {n.id: n for n in await self.reader.nodes(p.viewer, p.app_id, [h.id for h in hits], p.when)}
        now = self.clock.now()
        scored = []
        for h in hits:
            node = index.get(h.id)
            if node is None:
                continue
            # ranked on the absolute scale, as before the background existed: a threshold
            # chooses which notes are returned, never in which order (the boosts' 20 % head
            # room must keep meaning what ranking.py says)
            s = composite(
                scale.absolute(h.score),
                occurred_at=event_time(node),
                importance=node.importance,
                now=now,
                half_life_days=self.half_life_days,
            )
            scored.append((s, node, h.score, relevance[h.id]))
        scored.sort(key=lambda t: (-t[0].composite, -t[0].relevance, t[1].id))
        # of two notes that answer alike and disagree, the later one first (ranking/succession.py)
        by_id = {t[1].id: t for t in scored}
        scored = [by_id[i] for i in current_first([said(node, cos) for _, node, cos, _ in scored], p.query)]
        return [
            {
                "memory_id": node.id,
                "document": node.text_summary or node.title or "",
                "metadata": note_metadata(node),
                "composite_score": round(s.composite, 6),
                "similarity_score": round(rel, 6),
                "cosine_similarity": round(cosine, 6),
                "recency_score": round(s.recency_boost, 6),
                "importance_score": round(s.importance_boost, 6),
                "query_status": "completed",
            }
            for s, node, cosine, rel in scored[: p.n_results]
        ]

    async def get(self, viewer: Viewer, app_id: str, memory_id: str) -> Node:
        """A memory the caller may see; any other id, whoever holds it, is the same 404."""
        node = await self.reader.node(viewer, app_id, memory_id)
        if node is None:
            raise NotFound(f"memory {memory_id!r} not found in app {app_id!r}", code="memory_not_found")
        return node

    async def delete(self, viewer: Viewer, app_id: str, memory_id: str) -> None:
        """Delete a note; a chain through it is relinked (predecessor -> successor) first, so
        evolution never ends at a hole left by this delete. A rule is deleted only by a caller
        who governs it (rules/governance.py): deleting a rule would switch it off."""
        tenant_id = viewer.tenant_id
        node = await self.get(viewer, app_id, memory_id)
        if node.type == "rule":  # any node of the app's scope is reachable here, rules included
            rule_rights_of(viewer).require(node, field="memory_id", action="delete it")
        successor = node.slots.get("next_id")
        incoming = await self.store.edges_touching(
            tenant_id, app_id, [node.id], min_weight=0.0, min_confidence=0.0, limit=100, types=["next"]
        )
        pred_ids = [e.src_id for e in incoming if e.dst_id == node.id and e.src_id != node.id]
        preds = [p for p in await self.reader.nodes(viewer, app_id, pred_ids) if p.slots.get("next_id") == node.id]
        succ_exists = bool(successor) and await self.reader.node(viewer, app_id, str(successor)) is not None
        if preds:
            new_next = str(successor) if succ_exists else None
            specs = [
                WriteNodeSpec(
                    type=p.type,
                    id=p.id,
                    slots={**p.slots, "next_id": new_next},
                    fields_set=frozenset({"type", "slots"}),
                )
                for p in preds
            ]
            edges = (
                [WriteEdgeSpec(type="next", src=EdgeRef(id=p.id), dst=EdgeRef(id=new_next)) for p in preds]
                if new_next
                else []
            )
            await self.writes.write(
                WriteCommand(
                    tenant_id=tenant_id,
                    scope=app_id,
                    input_sha256=sha256_hex(f"relink {node.id}"),
                    actor=viewer.actor,
                    kind="conversation_relink",
                    nodes=specs,
                    edges=edges,
                    viewer=viewer,
                )
            )
        await self.writes.delete(
            tenant_id,
            app_id,
            [node.id],
            CommitInfo(actor=viewer.actor, input_sha256=sha256_hex(f"delete {node.id}"), kind="conversation_delete"),
        )

    async def evolution(self, viewer: Viewer, app_id: str, memory_id: str) -> Chain:
        """Follow ``next_id`` from ``memory_id`` (oldest -> newest). Stops at the end of the
        chain, at a link to a note that no longer exists, or where a cycle would start."""
        chain = Chain(nodes=[])
        seen: set[str] = set()
        current: str | None = memory_id
        while current and len(chain.nodes) < MAX_CHAIN:
            if current in seen:
                chain.cycle_at = current
                break
            seen.add(current)
            found = await self.reader.node(viewer, app_id, current)
            if found is None:
                if chain.nodes:
                    chain.missing = current
                break
            chain.nodes.append(found)
            nxt = found.slots.get("next_id")
            current = str(nxt) if nxt else None
        return chain


def memory_view(node: Node) -> MemoryView:
    return {"memory_id": node.id, "document": node.text_summary or node.title or "", "metadata": note_metadata(node)}
