"""Export: walk the scopes of one tenant (or every tenant) as an admin reader and yield the
records of the export file (records.py), scope by scope, in pages.

Nodes and edges are read through ``MemoryReader`` with an admin ``Viewer`` of each tenant,
so an export is exactly what that tenant's admin may read; commits are read as the history
they are. The memory batcher's buffers follow the scopes (of the tenant, or of the app the
scope names). Vectors are included only when asked (a backup that skips re-embedding), with the
embedding model recorded in the header.

Everything is read in keyset pages of ``PAGE`` and written out before the next page is read:
the scope list, each scope's commits, nodes and edges, the buffers, the knowledge items and
their sync state. Memory is bounded by a page, whatever the tenant holds. Before, a scope's
edges were gathered whole, and reading them (and vectors) loaded the whole scope into the
SQLite store's search cache, which then stayed: exporting a 40,000-node scope took the
server's RSS up by 317 MB that it never gave back (BENCHMARKS.md "Noisy neighbour").
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Protocol

from memlane.domain.clock import Clock
from memlane.domain.roles import ADMIN
from memlane.domain.visibility import Viewer
from memlane.services.conversation.batcher import BatcherService
from memlane.services.knowledge.service import KnowledgeService
from memlane.services.reading import MemoryReader
from memlane.services.transfer import records as rec
from memlane.store.batcher import BufferKey
from memlane.store.contracts.history import HistoryOps
from memlane.store.contracts.maintenance import ScopeScanOps
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


class ExportStore(ScopeScanOps, HistoryOps, Protocol):
    """The scopes an export walks and the commit rows it writes (nodes and edges come through the reader)."""


class Exporter:
    def __init__(
        self,
        store: ExportStore,
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

    async def scopes(self, req: ExportRequest) -> AsyncIterator[tuple[str, str]]:
        """The ``(tenant, scope)`` pairs the export covers, in the order it writes them, read
        a page at a time."""
        after: tuple[str, str] | None = None
        while page := await self.store.list_scopes(req.tenant_id, after=after, limit=PAGE):
            for tenant_id, scope in page:
                if req.scope is None or scope == req.scope:
                    yield tenant_id, scope
            after = page[-1]

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
        async for tenant_id, scope in self.scopes(req):
            async for record in self.scope_records(tenant_id, scope, embeddings=req.embeddings):
                yield record
        after_buffer: BufferKey | None = None
        while buffers := await self.batcher.buffers(req.tenant_id, req.scope, after=after_buffer, limit=PAGE):
            for buffer in buffers:
                yield rec.buffer_record(buffer)
            after_buffer = buffers[-1].key
        if req.scope is None:
            tenants = [req.tenant_id] if req.tenant_id is not None else await self._tenants()
            for tenant_id in tenants:
                async for record in self.knowledge_records(tenant_id):
                    yield record

    async def _tenants(self) -> list[str]:
        """Every tenant with a scope (the CLI's export of the whole store), a page at a time."""
        out: list[str] = []
        after: tuple[str, str] | None = None
        while page := await self.store.list_scopes(None, after=after, limit=PAGE):
            for tenant_id, _ in page:
                if not out or out[-1] != tenant_id:
                    out.append(tenant_id)
            after = page[-1]
        return out

    async def scope_records(self, tenant_id: str, scope: str, *, embeddings: bool) -> AsyncIterator[dict[str, object]]:
        viewer = admin_of(tenant_id)
        after_seq = 0
        while rows := await self.store.commit_rows(tenant_id, scope, after_seq=after_seq, limit=PAGE):
            for row in rows:
                yield rec.commit_record(row)
            after_seq = int(rows[-1]["seq"])
        after: str | None = None
        while True:
            page, after = await self.reader.scan(viewer, scope, after_id=after, limit=PAGE)
            if after is None:
                break
            vectors = await self.reader.embeddings(viewer, page) if embeddings else {}
            for node in page:
                vec = vectors.get(node.id)
                yield rec.node_record(node, [float(x) for x in vec] if vec is not None else None)
        edge_key: tuple[str, str, str] | None = None
        while True:
            edges, edge_key = await self.reader.scan_edges(viewer, scope, after=edge_key, limit=PAGE)
            if edge_key is None:
                break
            for edge in edges:
                yield rec.edge_record(edge)

    async def knowledge_records(self, tenant_id: str) -> AsyncIterator[dict[str, object]]:
        after_id: str | None = None
        while items := await self.knowledge.kstore.list_items(tenant_id, ItemFilter(), limit=PAGE, after_id=after_id):
            for item in items:
                yield rec.knowledge_record(item)
            after_id = items[-1].id
        after_item: str | None = None
        while states := await self.knowledge.kstore.sync_state_page(tenant_id, after_item=after_item, limit=PAGE):
            for state in states:
                yield rec.sync_record(tenant_id, state)
            after_item = states[-1].item_id
