"""Import: load an export file (records.py) into this store, idempotently.

Every line is checked before anything of it is written: it must be UTF-8 JSON, hold no text
a backend cannot store (domain/inputs.py), and pass the record's model
(record_models.py: the same types as the requests that would have written it). A bad line
stops the import with a 400 naming the line and the field; the good lines before it are
written first (line by line, as the file streams), nothing of the bad line or after it is,
and re-running the fixed file continues where it stopped.

Nodes and edges go through ``WriteService.restore`` (their own times and commit ids kept, one
``import`` commit per batch), commits through ``import_history`` (kept as history: appended to
this store's chain as ``imported`` commits by the importing actor, with the originals' fields
inside), knowledge items through the knowledge service, the memory batcher's buffers through
``BatcherService.restore``. What is already stored exactly as exported is skipped, so a second
run writes nothing, not even a commit. Vectors are kept when the file's embedding model is this
server's (or the client's own, ``client``); otherwise the nodes are queued for embedding.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import AsyncIterable, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import pydantic_core
from typing_extensions import TypedDict

from memlane.domain.errors import Conflict, InvalidRequest
from memlane.domain.hashing import sha256_hex
from memlane.domain.inputs import JsonLimits, find_unstorable, json_limits
from memlane.domain.model import CLIENT_EMBEDDING_MODEL, CommitInfo, Edge, Node
from memlane.services.conversation.batcher import BatcherService
from memlane.services.knowledge.service import KnowledgeService
from memlane.services.reading import MemoryReader
from memlane.services.transfer import records as rec
from memlane.services.transfer.export import PAGE, admin_of
from memlane.services.transfer.record_models import CommitRecord, HeaderRecord
from memlane.services.writing import WriteService
from memlane.store.batcher import BufferState
from memlane.store.knowledge import KnowledgeRecord, SyncStateRecord

#: fields that depend on the store's embedder, not on the memory: never a reason to rewrite
DERIVED_NODE_FIELDS = frozenset({"embedding_status", "embedding_model"})
#: who an import is recorded as when the caller does not say (the CLI)
DEFAULT_ACTOR = "memlane import"


class ImportReportView(TypedDict):
    """An import's report as answered (``POST /v1/admin/import``) and printed (``memlane import``)."""

    records: int
    commits_restored: int
    nodes_written: int
    nodes_unchanged: int
    edges_written: int
    edges_unchanged: int
    knowledge_written: int
    knowledge_unchanged: int
    batcher_buffers_written: int
    batcher_buffers_unchanged: int
    queued_for_embedding: int
    scopes: list[str]


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

    def to_dict(self) -> ImportReportView:
        return {
            "records": self.records,
            "commits_restored": self.commits_restored,
            "nodes_written": self.nodes_written,
            "nodes_unchanged": self.nodes_unchanged,
            "edges_written": self.edges_written,
            "edges_unchanged": self.edges_unchanged,
            "knowledge_written": self.knowledge_written,
            "knowledge_unchanged": self.knowledge_unchanged,
            "batcher_buffers_written": self.batcher_buffers_written,
            "batcher_buffers_unchanged": self.batcher_buffers_unchanged,
            "queued_for_embedding": self.queued_for_embedding,
            "scopes": list(self.scopes),
        }


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
    """What is pending for the scope being read, each record with its line."""

    tenant_id: str
    scope: str
    #: the tenant's admission to the job backlog, asked before each batch of nodes
    admit: Admission | None = None
    commits: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    nodes: list[tuple[int, Node, list[float] | None]] = field(default_factory=list)
    edges: list[tuple[int, Edge]] = field(default_factory=list)
    #: the last commit ``seq`` read: a scope's commits come oldest first
    last_seq: int = 0


@dataclass(slots=True)
class _Pending:
    """Records written at the end of the file (or before a bad line): per tenant."""

    buffers: list[BufferState] = field(default_factory=list)
    items: dict[str, list[KnowledgeRecord]] = field(default_factory=dict)
    syncs: dict[str, list[SyncStateRecord]] = field(default_factory=dict)


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
        json_limits: JsonLimits | None = None,
    ):
        self.reader = reader
        self.writes = writes
        self.knowledge = knowledge
        self.batcher = batcher
        self.model_id = model_id
        self.dimension = dimension
        self.json_limits = json_limits or JsonLimits()

    async def run(
        self,
        lines: AsyncIterable[str],
        *,
        only_tenant: str | None = None,
        on_record: Callable[[ImportReport], None] | None = None,
        actor: str = DEFAULT_ACTOR,
        admit: Admission | None = None,
    ) -> ImportReport:
        """Load the file's lines. With ``only_tenant`` (the API, for one tenant's admin) a
        record of any other tenant is refused. ``actor`` is who the import's commits name; with
        ``admit``, each batch of nodes (which queues embedding) is admitted first, like a write."""
        report = ImportReport()
        header: HeaderRecord | None = None
        current: _Scope | None = None
        pending = _Pending()
        number = 0
        with json_limits(self.json_limits):
            try:
                async for line in lines:
                    number += 1
                    if not line.strip():
                        continue
                    d = _object(line, number)
                    if header is None:
                        header = rec.parse_header(d, number)
                        continue
                    report.records += 1
                    current = await self._record(d, number, header, current, pending, report, only_tenant, actor, admit)
                    if on_record is not None:
                        on_record(report)
            except InvalidRequest:
                # the good lines before the bad one are written; nothing of it or after it
                await self._finish(current, pending, report, actor)
                raise
            if header is None:
                raise InvalidRequest("the export file is empty", code="invalid_export_file", details={"field": "body"})
            await self._finish(current, pending, report, actor)
        if on_record is not None:
            on_record(report)
        return report

    async def _record(
        self,
        d: dict[str, Any],
        line: int,
        header: HeaderRecord,
        current: _Scope | None,
        pending: _Pending,
        report: ImportReport,
        only_tenant: str | None,
        actor: str,
        admit: Admission | None = None,
    ) -> _Scope | None:
        """Check one record and queue it (writing a full batch); the scope now being read."""
        kind = d.get("record")
        tenant = d.get("tenant_id")
        if only_tenant is not None and tenant != only_tenant:
            raise InvalidRequest(
                f"line {line}: record of tenant {tenant!r}; this import is for tenant {only_tenant!r}",
                code="tenant_mismatch",
                details={"line": line, "field": "tenant_id"},
            )
        if kind in (rec.COMMIT, rec.NODE, rec.EDGE):
            current = await self._scope_of(d, current, report, actor, admit)
            await self._graph_record(kind, d, line, header, current, report, actor)
        else:
            self._side_record(kind, d, line, pending)
        return current

    async def _scope_of(
        self, d: dict[str, Any], current: _Scope | None, report: ImportReport, actor: str, admit: Admission | None
    ) -> _Scope:
        """The scope a graph record belongs to: the current one, or a new one once the file moves
        on (the previous scope written out first)."""
        key = (str(d.get("tenant_id") or ""), str(d.get("scope") or ""))
        if current is not None and (current.tenant_id, current.scope) == key:
            return current
        if current is not None:
            await self._flush_scope(current, report, actor)
        report.scopes.append(f"{key[0]}/{key[1]}")
        return _Scope(*key, admit=admit)

    async def _graph_record(
        self,
        kind: object,
        d: dict[str, Any],
        line: int,
        header: HeaderRecord,
        current: _Scope,
        report: ImportReport,
        actor: str,
    ) -> None:
        """Queue a commit, node or edge of ``current``, writing a batch once it is full."""
        if kind == rec.COMMIT:
            self._queue_commit(current, rec.parse_commit(d, line), d, line)
            if len(current.commits) >= PAGE:
                await self._flush_commits(current, report, actor)
        elif kind == rec.NODE:
            node, vector = rec.parse_node(d, line, header)
            current.nodes.append((line, node, self._usable(node, vector, header)))
            if len(current.nodes) >= PAGE:
                await self._flush_nodes(current, report, actor)
        else:
            edge = rec.parse_edge(d, line)
            await self._flush_nodes(current, report, actor)
            current.edges.append((line, edge))
            if len(current.edges) >= PAGE:
                await self._flush_edges(current, report, actor)

    def _side_record(self, kind: object, d: dict[str, Any], line: int, pending: _Pending) -> None:
        """Batcher buffers and knowledge items and sync states, written after the graph."""
        if kind == rec.BATCHER_BUFFER:
            pending.buffers.append(rec.parse_buffer(d, line))
        elif kind == rec.KNOWLEDGE_ITEM:
            item = rec.parse_knowledge(d, line, self.json_limits)
            pending.items.setdefault(item.tenant_id, []).append(item)
        elif kind == rec.KNOWLEDGE_SYNC:
            t, state = rec.parse_sync(d, line)
            pending.syncs.setdefault(t, []).append(state)
        else:
            raise rec.record_error(line, "record", f"unknown record kind {kind!r} (one of {', '.join(rec.KINDS)})")

    def _queue_commit(self, scope: _Scope, commit: CommitRecord, d: dict[str, Any], line: int) -> None:
        """A scope's commits come oldest first, each id once: ``seq`` must grow."""
        if commit.seq <= scope.last_seq:
            raise rec.record_error(
                line, "seq", f"{commit.seq} does not follow the scope's previous commit ({scope.last_seq})"
            )
        earlier = next((n for n, queued in scope.commits if queued["id"] == commit.id), None)
        if earlier is not None:
            raise rec.record_error(line, "id", f"commit {commit.id} repeats line {earlier}")
        scope.last_seq = commit.seq
        original = {k: v for k, v in d.items() if k not in ("record", "tenant_id", "scope")}
        scope.commits.append((line, original))

    def _usable(self, node: Node, vector: list[float] | None, header: HeaderRecord) -> list[float] | None:
        """Keep a vector only in a space this server searches: its own model's, or a client's."""
        if vector is None or len(vector) != self.dimension:
            return None
        same_model = header.embedding_model == self.model_id and node.embedding_model == self.model_id
        if same_model or node.embedding_model == CLIENT_EMBEDDING_MODEL:
            return vector
        return None

    async def _flush_commits(self, scope: _Scope, report: ImportReport, actor: str) -> None:
        if not scope.commits:
            return
        batch, scope.commits = scope.commits, []
        try:
            appended = await self.writes.import_history(
                scope.tenant_id, scope.scope, [original for _, original in batch], actor=actor
            )
        except Conflict as exc:
            taken = (exc.details or {}).get("commit_id")
            line = next((n for n, o in batch if o["id"] == taken), batch[0][0])
            raise rec.record_error(line, "id", f"commit id {taken} is taken by another commit of this tenant") from None
        report.commits_restored += appended

    async def _flush_nodes(self, scope: _Scope, report: ImportReport, actor: str) -> None:
        await self._flush_commits(scope, report, actor)
        if not scope.nodes:
            return
        # a node repeated in the file: the later record wins, as a second import would
        last = {node.id: (line, node, vector) for line, node, vector in scope.nodes}
        batch = list(last.values())
        scope.nodes = []
        viewer = admin_of(scope.tenant_id)
        stored = {n.id: n for n in await self.reader.nodes(viewer, scope.scope, [n.id for _, n, _ in batch])}
        changed = [(line, n, v) for line, n, v in batch if n.id not in stored or not same_node(stored[n.id], n)]
        report.nodes_unchanged += len(batch) - len(changed)
        if not changed:
            return
        await self._refuse_taken_client_ids(scope, changed)
        if scope.admit is not None:
            await scope.admit(scope.tenant_id)
        nodes = [(n, v) for _, n, v in changed]
        outcome = await self.writes.restore(scope.tenant_id, scope.scope, nodes, [], _info(nodes, [], actor))
        report.nodes_written += len(changed)
        if outcome is not None:
            report.queued_for_embedding += len(outcome.result.pending_node_ids)

    async def _refuse_taken_client_ids(
        self, scope: _Scope, changed: list[tuple[int, Node, list[float] | None]]
    ) -> None:
        """A ``client_id`` names one node of a scope: not one stored under another id, nor two
        of the file's nodes."""
        seen: dict[str, tuple[int, str]] = {}
        for line, node, _ in changed:
            if node.client_id is None:
                continue
            first = seen.setdefault(node.client_id, (line, node.id))
            if first[1] != node.id:
                raise rec.record_error(
                    line, "client_id", f"{node.client_id!r} is also the client_id of line {first[0]}"
                )
        if not seen:
            return
        owners = await self.reader.store.resolve_client_ids(scope.tenant_id, scope.scope, list(seen))
        for client_id, (line, node_id) in seen.items():
            owner = owners.get(client_id)
            if owner is not None and owner != node_id:
                raise rec.record_error(line, "client_id", f"{client_id!r} names another node of the scope ({owner})")

    async def _flush_edges(self, scope: _Scope, report: ImportReport, actor: str) -> None:
        if not scope.edges:
            return
        last = {edge.id: edge for _, edge in scope.edges}
        batch = list(last.values())
        scope.edges = []
        viewer = admin_of(scope.tenant_id)
        # by id, not through the scope's edge cache: an import must not load every scope it
        # touches into the search caches (issue 26: +436 MB for 3,000 scopes)
        stored = {e.id: e for e in await self.reader.edges_by_id(viewer, scope.scope, [e.id for e in batch])}
        changed = [e for e in batch if stored.get(e.id) != e]
        report.edges_unchanged += len(batch) - len(changed)
        if changed:
            await self.writes.restore(scope.tenant_id, scope.scope, [], changed, _info([], changed, actor))
            report.edges_written += len(changed)

    async def _flush_scope(self, scope: _Scope, report: ImportReport, actor: str) -> None:
        await self._flush_nodes(scope, report, actor)
        await self._flush_edges(scope, report, actor)

    async def _finish(self, current: _Scope | None, pending: _Pending, report: ImportReport, actor: str) -> None:
        """Write what is queued: the current scope's records, then buffers and knowledge."""
        if current is not None:
            await self._flush_scope(current, report, actor)
        buffers, pending.buffers = pending.buffers, []
        for buffer in buffers:
            if await self.batcher.restore(buffer):
                report.batcher_buffers_written += 1
            else:
                report.batcher_buffers_unchanged += 1
        items, pending.items = pending.items, {}
        for tenant, records in items.items():
            written = await self.knowledge.restore(tenant, records)
            report.knowledge_written += written
            report.knowledge_unchanged += len(records) - written
        syncs, pending.syncs = pending.syncs, {}
        for tenant, states in syncs.items():
            await self.knowledge.kstore.set_sync_state(tenant, states, [])


def _object(line: str, number: int) -> dict[str, Any]:
    """One line as a JSON object, parsed as request bodies are (pydantic-core: lone surrogates
    and nesting beyond its limit are not JSON), with no text a backend cannot store."""
    try:
        raw = line.encode("utf-8")
    except UnicodeEncodeError:
        raise rec.record_error(number, "line", "not UTF-8 text") from None
    try:
        value = pydantic_core.from_json(raw)
    except ValueError as exc:
        raise rec.record_error(number, "line", f"not JSON ({exc})") from None
    if not isinstance(value, dict):
        raise rec.record_error(number, "line", "not a JSON object")
    found = find_unstorable(value)
    if found is not None:
        path, why = found
        where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path).lstrip(".")
        raise rec.record_error(number, where or "line", f"contains {why}, which memlane does not store")
    return value


def _info(nodes: list[tuple[Node, list[float] | None]], edges: list[Edge], actor: str) -> CommitInfo:
    ids = sorted([n.id for n, _ in nodes] + [e.id for e in edges])
    return CommitInfo(actor=actor, input_sha256=sha256_hex(json.dumps(ids)), kind="import")
