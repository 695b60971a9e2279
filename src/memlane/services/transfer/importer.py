"""Import: load an export file (records.py) into this store, idempotently.

Every record keeps its id. Nodes and edges go through ``WriteService.restore`` (their own
times and commit ids kept, one ``import`` commit per batch), commits through
``restore_history`` (only into a scope with no history), knowledge items through the
knowledge service, the memory batcher's buffers through ``BatcherService.restore``.
What is already stored exactly as exported is skipped, so a second run
writes nothing, not even a commit. Vectors are kept when the file's embedding model is this
server's (or the client's own, ``client``); otherwise the nodes are queued for embedding.

The file is read line by line and written in batches of ``PAGE``: what is held at any time is
one batch of nodes or edges and at most ``PAGE`` knowledge items, sync states and buffers,
whatever the file's size. Stored edges are compared by id, from the tables: reading them
around their ends loaded each scope whole into the SQLite store's search cache, where it
stayed (3,000 one-node scopes took the server's RSS up by 436 MB, issue 26). With ``admit``
(the API: the tenant's share of the job backlog, services/backlog.py), each batch that queues
embedding waits for it, so an import cannot fill the queue past its tenant's share.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import AsyncIterable, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from memlane.domain.errors import InvalidRequest
from memlane.domain.hashing import sha256_hex
from memlane.domain.model import CLIENT_EMBEDDING_MODEL, CommitInfo, Edge, Node
from memlane.services.conversation.batcher import BatcherService
from memlane.services.knowledge.service import KnowledgeService
from memlane.services.reading import MemoryReader
from memlane.services.transfer import records as rec
from memlane.services.transfer.export import PAGE, admin_of
from memlane.services.writing import WriteService
from memlane.store.batcher import BufferState
from memlane.store.knowledge import KnowledgeRecord, SyncStateRecord

#: fields that depend on the store's embedder, not on the memory: never a reason to rewrite
DERIVED_NODE_FIELDS = frozenset({"embedding_status", "embedding_model"})


@dataclass(slots=True)
class ImportReport:
    records: int = 0
    commits_restored: int = 0
    nodes_written: int = 0
    nodes_unchanged: int = 0
    edges_written: int = 0
    edges_unchanged: int = 0
    knowledge_written: int = 0
    knowledge_unchanged: int = 0
    batcher_buffers_written: int = 0
    batcher_buffers_unchanged: int = 0
    #: nodes imported without a vector usable here, queued for embedding
    queued_for_embedding: int = 0
    scopes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def same_node(stored: Node, given: Node) -> bool:
    return all(
        getattr(stored, f.name) == getattr(given, f.name)
        for f in dataclasses.fields(Node)
        if f.name not in DERIVED_NODE_FIELDS
    )


#: waits for (or refuses, with ``Overloaded``) a batch of the tenant that queues work
Admission = Callable[[str], Awaitable[None]]


@dataclass(slots=True)
class _Scope:
    tenant_id: str
    scope: str
    commits: list[dict[str, Any]] = field(default_factory=list)
    nodes: list[tuple[Node, list[float] | None]] = field(default_factory=list)
    edges: list[Edge] = field(default_factory=list)
    history_done: bool = False
    admit: Admission | None = None


class Importer:
    def __init__(
        self,
        reader: MemoryReader,
        writes: WriteService,
        knowledge: KnowledgeService,
        batcher: BatcherService,
        *,
        model_id: str,
        dimension: int,
    ):
        self.reader = reader
        self.writes = writes
        self.knowledge = knowledge
        self.batcher = batcher
        self.model_id = model_id
        self.dimension = dimension

    async def run(
        self,
        lines: AsyncIterable[str],
        *,
        only_tenant: str | None = None,
        on_record: Callable[[ImportReport], None] | None = None,
        admit: Admission | None = None,
    ) -> ImportReport:
        """Load the file's lines. With ``only_tenant`` (the API, for one tenant's admin) a
        record of any other tenant is refused; with ``admit``, each batch of nodes that queues
        embedding is admitted first."""
        report = ImportReport()
        header: dict[str, Any] | None = None
        current: _Scope | None = None
        items: dict[str, list[KnowledgeRecord]] = {}
        syncs: dict[str, list[SyncStateRecord]] = {}
        buffers: list[BufferState] = []
        number = 0
        async for line in lines:
            number += 1
            if not line.strip():
                continue
            where = f"line {number}"
            d = _object(line, where)
            kind = d.get("record")
            if header is None:
                if kind != rec.HEADER or d.get("format") != rec.FORMAT:
                    raise InvalidRequest(
                        f"{where}: an export file starts with its header record (format {rec.FORMAT!r})",
                        code="invalid_export_file",
                        details={"field": "record"},
                    )
                if d.get("version") != rec.VERSION:
                    raise InvalidRequest(
                        f"{where}: export format version {d.get('version')!r} is not {rec.VERSION}",
                        code="invalid_export_file",
                        details={"field": "version"},
                    )
                header = d
                continue
            report.records += 1
            tenant = str(d.get("tenant_id") or "")
            if only_tenant is not None and tenant != only_tenant:
                raise InvalidRequest(
                    f"{where}: record of tenant {tenant!r}; this import is for tenant {only_tenant!r}",
                    code="tenant_mismatch",
                    details={"field": "tenant_id"},
                )
            if kind in (rec.COMMIT, rec.NODE, rec.EDGE):
                key = (tenant, str(d.get("scope") or ""))
                if current is None or (current.tenant_id, current.scope) != key:
                    if current is not None:
                        await self._finish(current, report)
                    current = _Scope(*key, admit=admit)
                    report.scopes.append(f"{key[0]}/{key[1]}")
                if kind == rec.COMMIT:
                    current.commits.append(rec.parse_commit(d, where))
                elif kind == rec.NODE:
                    current.nodes.append(self._usable(rec.parse_node(d, where), header))
                    if len(current.nodes) >= PAGE:
                        await self._flush_nodes(current, report)
                else:
                    await self._flush_nodes(current, report)
                    current.edges.append(rec.parse_edge(d, where))
                    if len(current.edges) >= PAGE:
                        await self._flush_edges(current, report)
            elif kind == rec.BATCHER_BUFFER:
                buffers.append(rec.parse_buffer(d, where))
            elif kind == rec.KNOWLEDGE_ITEM:
                items.setdefault(tenant, []).append(rec.parse_knowledge(d, where))
            elif kind == rec.KNOWLEDGE_SYNC:
                t, state = rec.parse_sync(d, where)
                syncs.setdefault(t, []).append(state)
            else:
                raise InvalidRequest(
                    f"{where}: unknown record kind {kind!r} (one of {', '.join(rec.KINDS)})",
                    code="invalid_export_record",
                    details={"field": "record"},
                )
            if len(buffers) + sum(map(len, items.values())) + sum(map(len, syncs.values())) >= PAGE:
                await self._flush_side(buffers, items, syncs, report)
            if on_record is not None:
                on_record(report)
        if header is None:
            raise InvalidRequest("the export file is empty", code="invalid_export_file", details={"field": "body"})
        if current is not None:
            await self._finish(current, report)
        await self._flush_side(buffers, items, syncs, report)
        if on_record is not None:
            on_record(report)
        return report

    async def _flush_side(
        self,
        buffers: list[BufferState],
        items: dict[str, list[KnowledgeRecord]],
        syncs: dict[str, list[SyncStateRecord]],
        report: ImportReport,
    ) -> None:
        """Write the buffers, knowledge items and sync states held so far, and let go of them."""
        for buffer in buffers:
            if await self.batcher.restore(buffer):
                report.batcher_buffers_written += 1
            else:
                report.batcher_buffers_unchanged += 1
        for tenant, records in items.items():
            written = await self.knowledge.restore(tenant, records)
            report.knowledge_written += written
            report.knowledge_unchanged += len(records) - written
        for tenant, states in syncs.items():
            await self.knowledge.kstore.set_sync_state(tenant, states, [])
        buffers.clear()
        items.clear()
        syncs.clear()

    def _usable(
        self, parsed: tuple[Node, list[float] | None], header: dict[str, Any]
    ) -> tuple[Node, list[float] | None]:
        """Keep a vector only in a space this server searches: its own model's, or a client's."""
        node, vector = parsed
        if vector is None or len(vector) != self.dimension:
            return node, None
        same_model = header.get("embedding_model") == self.model_id and node.embedding_model == self.model_id
        if same_model or node.embedding_model == CLIENT_EMBEDDING_MODEL:
            return node, vector
        return node, None

    async def _history(self, scope: _Scope, report: ImportReport) -> None:
        if not scope.history_done:
            scope.history_done = True
            report.commits_restored += await self.writes.restore_history(scope.tenant_id, scope.scope, scope.commits)
            scope.commits = []

    async def _flush_nodes(self, scope: _Scope, report: ImportReport) -> None:
        await self._history(scope, report)
        if not scope.nodes:
            return
        batch, scope.nodes = scope.nodes, []
        viewer = admin_of(scope.tenant_id)
        stored = {n.id: n for n in await self.reader.nodes(viewer, scope.scope, [n.id for n, _ in batch])}
        changed = [(n, v) for n, v in batch if n.id not in stored or not same_node(stored[n.id], n)]
        report.nodes_unchanged += len(batch) - len(changed)
        if not changed:
            return
        if scope.admit is not None:
            await scope.admit(scope.tenant_id)
        outcome = await self.writes.restore(scope.tenant_id, scope.scope, changed, [], _info(changed, []))
        report.nodes_written += len(changed)
        if outcome is not None:
            report.queued_for_embedding += len(outcome.result.pending_node_ids)

    async def _flush_edges(self, scope: _Scope, report: ImportReport) -> None:
        if not scope.edges:
            return
        batch, scope.edges = scope.edges, []
        viewer = admin_of(scope.tenant_id)
        stored = {e.id: e for e in await self.reader.edges_by_id(viewer, scope.scope, [e.id for e in batch])}
        changed = [e for e in batch if stored.get(e.id) != e]
        report.edges_unchanged += len(batch) - len(changed)
        if changed:
            await self.writes.restore(scope.tenant_id, scope.scope, [], changed, _info([], changed))
            report.edges_written += len(changed)

    async def _finish(self, scope: _Scope, report: ImportReport) -> None:
        await self._flush_nodes(scope, report)
        await self._flush_edges(scope, report)


def _object(line: str, where: str) -> dict[str, Any]:
    try:
        value = json.loads(line)
    except json.JSONDecodeError as exc:
        raise InvalidRequest(
            f"{where}: not JSON ({exc.msg})", code="invalid_export_record", details={"field": "line"}
        ) from None
    if not isinstance(value, dict):
        raise InvalidRequest(f"{where}: not a JSON object", code="invalid_export_record", details={"field": "line"})
    return value


def _info(nodes: list[tuple[Node, list[float] | None]], edges: list[Edge]) -> CommitInfo:
    ids = sorted([n.id for n, _ in nodes] + [e.id for e in edges])
    return CommitInfo(actor="import", input_sha256=sha256_hex(json.dumps(ids)), kind="import")
