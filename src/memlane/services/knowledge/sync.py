"""sync_now / sync_status: knowledge items projected into memory nodes, with delta detection.

Every accepted item becomes one shared node (type ``concept``, ``slots.kind =
"knowledge_item"``, ``client_id = "knowledge:<id>"``, ``layer`` = the item's layer) in the
default scope, so graph recall and memory_search see policies in force. A sync compares each
item's projection hash with the hash recorded at its last sync: new -> added, different ->
updated, equal -> unchanged (``force`` re-projects everything), items deleted or no longer
accepted -> their node is deleted. Runs as a durable job; each run is recorded.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, NotRequired

from typing_extensions import TypedDict

from memlane.domain.clock import Clock, new_id
from memlane.domain.errors import MemlaneError
from memlane.domain.hashing import canonical_json, sha256_hex
from memlane.domain.model import CommitInfo, Job
from memlane.services.embedding import EmbeddingService
from memlane.services.knowledge.service import KnowledgeService
from memlane.services.layers.service import memory_text
from memlane.services.writing import WriteCommand, WriteNodeSpec, WriteService
from memlane.store.knowledge import ItemFilter, KnowledgeRecord, KnowledgeStore, SyncRunRecord, SyncStateRecord

log = logging.getLogger(__name__)

KIND = "knowledge_item"
CLIENT_PREFIX = "knowledge:"
BATCH = 64
NODE_FIELDS = frozenset(
    {"type", "tier", "title", "text_summary", "slots", "memory_lane", "salience", "importance", "confidence",
     "status", "layer", "tags"}
)  # fmt: skip


class SyncCounts(TypedDict):
    added: int
    updated: int
    deleted: int
    unchanged: int
    failures: int


class SyncRun(TypedDict):
    """A sync's result (the ``knowledge_sync`` job's, which ``sync_now`` reads back)."""

    result: SyncCounts
    durationMs: float
    failedItems: list[dict[str, Any]]


@dataclass(slots=True)
class SyncOutcome:
    added: int = 0
    updated: int = 0
    deleted: int = 0
    unchanged: int = 0
    failures: int = 0
    failed_items: list[dict[str, Any]] = field(default_factory=list)
    duration_ms: float = 0.0

    def as_result(self) -> SyncCounts:
        return {
            "added": self.added,
            "updated": self.updated,
            "deleted": self.deleted,
            "unchanged": self.unchanged,
            "failures": self.failures,
        }


def node_text(item: KnowledgeRecord) -> str:
    lines = [item.summary] if item.summary else []
    for c in item.constraints:
        severity = c.get("severity") or item.severity
        lines.append(
            f"Constraint ({severity}): {c['operator']} {c['target']} /{c['pattern']}/"
            + (f" - {c['message']}" if c.get("message") else "")
        )
    return "\n".join(lines) or item.title


def projection(item: KnowledgeRecord) -> dict[str, Any]:
    return {
        "title": item.title,
        "text": node_text(item),
        "layer": item.layer,
        "tags": [*item.tags, item.type],
        "slots": {
            "kind": KIND,
            "knowledge_id": item.id,
            "knowledge_type": item.type,
            "knowledge_status": item.status,
            "severity": item.severity,
            "version": item.version,
            "has_constraints": bool(item.constraints),
            "supersedes": item.supersedes,
        },
    }


def projection_hash(item: KnowledgeRecord) -> str:
    return sha256_hex(canonical_json(projection(item)))


class SyncStats(TypedDict):
    totalSyncs: int
    totalItemsSynced: int
    avgSyncDurationMs: float


class SyncStatusView(TypedDict):
    """The sync's health as the ``sync_status`` tool answers it (docs/api-tools.md)."""

    healthy: bool
    lastSyncAt: str | None
    timeSinceSync: str
    failedItems: int
    stats: SyncStats
    pendingChanges: int
    failures: NotRequired[list[dict[str, Any]]]
    lastError: NotRequired[str]
    folderErrors: NotRequired[list[dict[str, str]]]


def human_since(then: datetime | None, now: datetime) -> str:
    if then is None:
        return "never"
    secs = max(0, int((now - then).total_seconds()))
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if secs >= size:
            n = secs // size
            return f"{n} {unit}{'s' if n != 1 else ''} ago"
    return f"{secs} second{'s' if secs != 1 else ''} ago"


class SyncService:
    def __init__(
        self,
        *,
        writes: WriteService,
        kstore: KnowledgeStore,
        knowledge: KnowledgeService,
        embedding: EmbeddingService,
        clock: Clock,
        scope: str,
    ):
        self.writes = writes
        self.kstore = kstore
        self.knowledge = knowledge
        self.embedding = embedding
        self.clock = clock
        self.scope = scope
        self._locks: dict[str, asyncio.Lock] = {}

    async def run_job(self, job: Job) -> SyncRun:
        p = job.payload
        return await self.run(
            job.tenant_id,
            force=bool(p.get("force", False)),
            types=p.get("types") or None,
            layers=p.get("layers") or None,
            job_id=job.id,
        )

    async def run(
        self,
        tenant_id: str,
        *,
        force: bool = False,
        types: list[str] | None = None,
        layers: list[str] | None = None,
        job_id: str | None = None,
    ) -> SyncRun:
        lock = self._locks.setdefault(tenant_id, asyncio.Lock())
        async with lock:
            started_at = self.clock.now()
            t0 = time.perf_counter()
            out = SyncOutcome()
            error: str | None = None
            try:
                await self._sync(tenant_id, out, force=force, types=types, layers=layers)
            except MemlaneError as exc:
                error = exc.message
                raise
            finally:
                out.duration_ms = round((time.perf_counter() - t0) * 1000, 3)
                await self.kstore.record_run(
                    SyncRunRecord(
                        tenant_id=tenant_id,
                        id=new_id(),
                        job_id=job_id,
                        status="ok" if error is None and out.failures == 0 else "failed" if error else "partial",
                        forced=force,
                        failed_items=out.failed_items[:100],
                        error=error,
                        started_at=started_at,
                        finished_at=self.clock.now(),
                        duration_ms=out.duration_ms,
                        **out.as_result(),
                    )
                )
            return {"result": out.as_result(), "durationMs": out.duration_ms, "failedItems": out.failed_items[:100]}

    async def _sync(
        self, tenant_id: str, out: SyncOutcome, *, force: bool, types: list[str] | None, layers: list[str] | None
    ) -> None:
        await self.knowledge.ensure_folder(tenant_id)
        items = {i.id: i for i in await self.kstore.list_items(tenant_id, ItemFilter())}
        state = await self.kstore.sync_state(tenant_id)

        def in_filter(item: KnowledgeRecord) -> bool:
            return (not types or item.type in types) and (not layers or item.layer in layers)

        removed: list[SyncStateRecord] = [
            s
            for s in state.values()
            if s.item_id not in items or (in_filter(items[s.item_id]) and items[s.item_id].status != "accepted")
        ]
        todo: list[tuple[KnowledgeRecord, str, bool]] = []
        for item in items.values():
            if item.status != "accepted" or not in_filter(item):
                continue
            h = projection_hash(item)
            prior = state.get(item.id)
            if prior is not None and prior.content_hash == h and not force:
                out.unchanged += 1
                continue
            todo.append((item, h, prior is None))

        synced: list[SyncStateRecord] = []
        for start in range(0, len(todo), BATCH):
            synced += await self._project(tenant_id, todo[start : start + BATCH], out)
        if removed:
            ids_by_scope: dict[str, list[str]] = {}
            for s in removed:
                ids_by_scope.setdefault(s.scope, []).append(s.node_id)
            for scope, ids in ids_by_scope.items():
                await self.writes.delete(tenant_id, scope, ids, self._commit("knowledge_unsync", ids))
            out.deleted = len(removed)
        await self.kstore.set_sync_state(tenant_id, synced, [s.item_id for s in removed])

    async def _project(
        self, tenant_id: str, batch: list[tuple[KnowledgeRecord, str, bool]], out: SyncOutcome
    ) -> list[SyncStateRecord]:
        texts = [memory_text(i.title, node_text(i)) for i, _, _ in batch]
        try:
            vectors = await self.embedding.vectors(texts, urgent=False)
        except MemlaneError as exc:
            for item, _, _ in batch:
                out.failures += 1
                out.failed_items.append({"id": item.id, "error": exc.message})
            return []
        specs: list[WriteNodeSpec] = []
        for (item, _, _), vec in zip(batch, vectors, strict=True):
            proj = projection(item)
            specs.append(
                WriteNodeSpec(
                    type="concept",
                    client_id=CLIENT_PREFIX + item.id,
                    title=proj["title"],
                    text_summary=proj["text"],
                    slots=proj["slots"],
                    memory_lane="shared",
                    importance=0.8,
                    salience=0.7,
                    confidence=1.0,
                    embedding=[float(x) for x in vec],
                    embedding_model=self.embedding.embedder.model_id,
                    layer=item.layer,
                    tags=proj["tags"],
                    fields_set=NODE_FIELDS,
                )
            )
        info = self._commit("knowledge_sync", [i.id for i, _, _ in batch])
        try:
            outcome = await self.writes.write(
                WriteCommand(
                    tenant_id=tenant_id,
                    scope=self.scope,
                    input_sha256=info.input_sha256,
                    actor=info.actor,
                    kind=info.kind,
                    nodes=specs,
                    auto_embed=False,
                )
            )
            result = outcome.result
        except MemlaneError as exc:
            for item, _, _ in batch:
                out.failures += 1
                out.failed_items.append({"id": item.id, "error": exc.message})
            return []
        now = self.clock.now()
        synced: list[SyncStateRecord] = []
        for (item, h, is_new), node in zip(batch, result.nodes, strict=True):
            if is_new:
                out.added += 1
            else:
                out.updated += 1
            synced.append(SyncStateRecord(item.id, node.id, self.scope, h, now))
        return synced

    async def status(self, tenant_id: str) -> SyncStatusView:
        now = self.clock.now()
        last = await self.kstore.last_run(tenant_id)
        stats = await self.kstore.run_stats(tenant_id)
        pending = await self._pending(tenant_id)
        folder_errors = self.knowledge.folder_errors.get(tenant_id, [])
        failed = last.failures if last else 0
        healthy = (last is None or (last.status == "ok")) and not folder_errors
        out: SyncStatusView = {
            "healthy": healthy,
            "lastSyncAt": last.finished_at.isoformat().replace("+00:00", "Z") if last else None,
            "timeSinceSync": human_since(last.finished_at if last else None, now),
            "failedItems": failed,
            "stats": {
                "totalSyncs": int(stats["total_syncs"]),
                "totalItemsSynced": int(stats["total_items_synced"]),
                "avgSyncDurationMs": round(stats["avg_duration_ms"], 3),
            },
            "pendingChanges": pending,
        }
        if last is not None and last.failed_items:
            out["failures"] = last.failed_items[:20]
        if last is not None and last.error:
            out["lastError"] = last.error
        if folder_errors:
            out["folderErrors"] = folder_errors[:20]
        return out

    async def _pending(self, tenant_id: str) -> int:
        with contextlib.suppress(MemlaneError):
            await self.knowledge.ensure_folder(tenant_id)
        items = {i.id: i for i in await self.kstore.list_items(tenant_id, ItemFilter())}
        state = await self.kstore.sync_state(tenant_id)
        pending = sum(1 for s in state.values() if s.item_id not in items or items[s.item_id].status != "accepted")
        for item in items.values():
            if item.status == "accepted":
                prior = state.get(item.id)
                if prior is None or prior.content_hash != projection_hash(item):
                    pending += 1
        return pending

    @staticmethod
    def _commit(kind: str, ids: list[str]) -> CommitInfo:
        return CommitInfo(
            actor="memlane:knowledge-sync", input_sha256=sha256_hex(canonical_json(sorted(ids))), kind=kind
        )
