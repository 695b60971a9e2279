"""Export: walk the scopes of one tenant (or every tenant) as an admin reader and yield the
records of the export file (records.py), scope by scope, in pages.

Nodes and edges are read through ``MemoryReader`` with an admin ``Viewer`` of each tenant,
so an export is exactly what that tenant's admin may read; commits are read as the history
they are. The memory batcher's buffers follow the scopes (of the tenant, or of the app the
scope names). Vectors are included only when asked (a backup that skips re-embedding), with the
embedding model recorded in the header.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass

from memlane.domain.clock import Clock
from memlane.domain.roles import ADMIN
from memlane.domain.visibility import Viewer
from memlane.services.conversation.batcher import BatcherService
from memlane.services.knowledge.service import KnowledgeService
from memlane.services.reading import MemoryReader
from memlane.services.transfer import records as rec
from memlane.store.base import Store
from memlane.store.knowledge import ItemFilter

PAGE = 500


def admin_of(tenant_id: str) -> Viewer:
    """The reader an export or import acts as: the tenant's admin."""
    return Viewer(tenant_id=tenant_id, role=ADMIN, authenticated=True)


@dataclass(frozen=True, slots=True)
class ExportRequest:
    #: None: every tenant of the store (the CLI only; the API exports the caller's tenant)
    tenant_id: str | None
    #: None: every scope of the tenant(s), with their knowledge items
    scope: str | None = None
    embeddings: bool = False


class Exporter:
    def __init__(
        self,
        store: Store,
        reader: MemoryReader,
        knowledge: KnowledgeService,
        batcher: BatcherService,
        *,
        clock: Clock,
        model_id: str,
        dimension: int,
    ):
        self.store = store
        self.reader = reader
        self.knowledge = knowledge
        self.batcher = batcher
        self.clock = clock
        self.model_id = model_id
        self.dimension = dimension

    async def scopes(self, req: ExportRequest) -> list[tuple[str, str]]:
        """The ``(tenant, scope)`` pairs the export covers, in the order it writes them."""
        pairs = await self.store.list_scopes(req.tenant_id)
        return [(t, s) for t, s in pairs if req.scope is None or s == req.scope]

    async def records(self, req: ExportRequest) -> AsyncIterator[dict[str, object]]:
        yield {
            "record": rec.HEADER,
            "format": rec.FORMAT,
            "version": rec.VERSION,
            "exported_at": self.clock.now().isoformat(),
            "tenant_id": req.tenant_id,
            "scope": req.scope,
            "embeddings": req.embeddings,
            "embedding_model": self.model_id,
            "embedding_dimension": self.dimension,
        }
        pairs = await self.scopes(req)
        for tenant_id, scope in pairs:
            async for record in self.scope_records(tenant_id, scope, embeddings=req.embeddings):
                yield record
        for buffer in await self.batcher.buffers(req.tenant_id, req.scope):
            yield rec.buffer_record(buffer)
        if req.scope is None:
            for tenant_id in dict.fromkeys(t for t, _ in pairs):
                async for record in self.knowledge_records(tenant_id):
                    yield record

    async def scope_records(self, tenant_id: str, scope: str, *, embeddings: bool) -> AsyncIterator[dict[str, object]]:
        viewer = admin_of(tenant_id)
        after_seq = 0
        while rows := await self.store.commit_rows(tenant_id, scope, after_seq=after_seq, limit=PAGE):
            for row in rows:
                yield rec.commit_record(row)
            after_seq = int(rows[-1]["seq"])
        edge_ids: set[str] = set()
        edges = []
        after: str | None = None
        while True:
            page, after = await self.reader.scan(viewer, scope, after_id=after, limit=PAGE)
            if after is None:
                break
            vectors = await self.reader.embeddings(viewer, page) if embeddings else {}
            for node in page:
                vec = vectors.get(node.id)
                yield rec.node_record(node, [float(x) for x in vec] if vec is not None else None)
            for edge in await self.reader.edges(viewer, scope, page):
                if edge.id not in edge_ids:
                    edge_ids.add(edge.id)
                    edges.append(edge)
        for edge in sorted(edges, key=lambda e: e.id):
            yield rec.edge_record(edge)

    async def knowledge_records(self, tenant_id: str) -> AsyncIterator[dict[str, object]]:
        for item in await self.knowledge.kstore.list_items(tenant_id, ItemFilter(), limit=1_000_000):
            yield rec.knowledge_record(item)
        state = await self.knowledge.kstore.sync_state(tenant_id)
        for item_id in sorted(state):
            yield rec.sync_record(tenant_id, state[item_id])
