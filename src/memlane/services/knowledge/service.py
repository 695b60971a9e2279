"""The knowledge repository use cases: CRUD with version history, the Markdown folder,
query, show and check.

Items from ``MEMLANE_KNOWLEDGE_DIR`` are imported into a tenant the first time that tenant
uses the repository, and again whenever the folder's files change (names, sizes, mtimes):
the folder is the server's shared knowledge base, every tenant gets a copy it can extend
through the API. Items whose file disappeared are removed. File items carry ``source =
"file:<relative path>"``; API items ``source = "api"``.
"""

from __future__ import annotations

import asyncio
import logging
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from memlane.domain.clock import Clock
from memlane.domain.errors import InvalidRequest, MemlaneError, NotFound
from memlane.domain.inputs import JsonLimits
from memlane.services.embedding import EmbeddingService
from memlane.services.knowledge.check import CheckedFile, CheckResult, Dependency, run_check
from memlane.services.knowledge.markdown import folder_signature, parse_document, scan_folder
from memlane.services.knowledge.model import LAYERS, TRANSITIONS, ItemInput, build_record, content_hash
from memlane.store.knowledge import ItemFilter, ItemWrite, KnowledgeRecord, KnowledgeStore, VersionRecord

log = logging.getLogger(__name__)

FILE_SOURCE = "file:"
API_SOURCE = "api"
_WORD = re.compile(r"[\w-]{2,}", re.UNICODE)
STOPWORDS = frozenset(
    [
        "the",
        "a",
        "an",
        "and",
        "or",
        "of",
        "for",
        "to",
        "in",
        "on",
        "with",
        "by",
        "is",
        "are",
        "be",
        "it",
        "this",
        "that",
        "what",
        "which",
        "how",
    ]
)
SEMANTIC_FLOOR = 0.3
#: item vectors kept for query ranking (per process, keyed by tenant and content hash)
VECTOR_CACHE_MAX = 20_000


@dataclass(slots=True)
class QueryInput:
    query: str | None = None
    type: str | None = None
    layer: str | None = None
    tags: list[str] = field(default_factory=list)
    statuses: list[str] = field(default_factory=lambda: ["accepted"])
    limit: int = 10


@dataclass(slots=True)
class FolderReport:
    loaded: int = 0
    removed: int = 0
    errors: list[dict[str, str]] = field(default_factory=list)


class KnowledgeService:
    def __init__(
        self,
        kstore: KnowledgeStore,
        embedding: EmbeddingService,
        *,
        clock: Clock,
        folder: Path | None,
        json_limits: JsonLimits | None = None,
    ):
        #: the bound of an item's free-form ``metadata`` (MEMLANE_JSON_MAX_*), whatever way it comes
        self.json_limits = json_limits or JsonLimits()
        self.kstore = kstore
        self.embedding = embedding
        self.clock = clock
        self.folder = folder
        self._signatures: dict[str, tuple[tuple[str, int, int], ...]] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self._vectors: dict[tuple[str, str], np.ndarray] = {}
        #: problems of the last folder import per tenant (shown by sync_status)
        self.folder_errors: dict[str, list[dict[str, str]]] = {}

    # --- the Markdown folder ----------------------------------------------------------------
    async def ensure_folder(self, tenant_id: str, *, force: bool = False) -> FolderReport | None:
        if self.folder is None:
            return None
        if not self.folder.is_dir():
            raise InvalidRequest(
                f"MEMLANE_KNOWLEDGE_DIR {str(self.folder)!r} is not a directory", code="knowledge_dir_missing"
            )
        sig = await asyncio.to_thread(folder_signature, self.folder)
        if not force and self._signatures.get(tenant_id) == sig:
            return None
        lock = self._locks.setdefault(tenant_id, asyncio.Lock())
        async with lock:
            if not force and self._signatures.get(tenant_id) == sig:
                return None
            report = await self._import_folder(tenant_id)
            self._signatures[tenant_id] = sig
            return report

    async def _import_folder(self, tenant_id: str) -> FolderReport:
        assert self.folder is not None
        report = FolderReport()
        docs = await asyncio.to_thread(scan_folder, self.folder)
        records: list[KnowledgeRecord] = []
        seen: set[str] = set()
        for rel, text in docs:
            try:
                rec = build_record(tenant_id, parse_document(text, path=rel), where=rel, limits=self.json_limits)
            except MemlaneError as exc:
                report.errors.append({"file": rel, "error": exc.message})
                continue
            if rec.id in seen:
                report.errors.append({"file": rel, "error": f"duplicate id {rec.id!r}"})
                continue
            seen.add(rec.id)
            rec.source = FILE_SOURCE + rel
            records.append(rec)
        _apply_supersession(records)
        now = self.clock.now()
        writes = [ItemWrite(r, message=f"loaded from {r.source}", author="knowledge-folder") for r in records]
        saved = await self.kstore.save(tenant_id, writes, now=now)
        report.loaded = len(saved)
        stale = [
            r.id
            for r in await self.kstore.list_items(tenant_id, ItemFilter(source_prefix=FILE_SOURCE))
            if r.id not in seen
        ]
        report.removed = len(await self.kstore.delete(tenant_id, stale))
        self.folder_errors[tenant_id] = report.errors
        for err in report.errors:
            log.warning("knowledge folder: %s: %s", err["file"], err["error"])
        return report

    # --- CRUD -------------------------------------------------------------------------------
    async def create(
        self, tenant_id: str, raw: ItemInput, *, author: str | None, message: str | None, user_id: str | None = None
    ) -> KnowledgeRecord:
        await self.ensure_folder(tenant_id)
        raw.source = API_SOURCE
        rec = build_record(tenant_id, raw, limits=self.json_limits)
        saved = await self.kstore.save(
            tenant_id, [ItemWrite(rec, message or "created", author, user_id)], now=self.clock.now(), create_only=True
        )
        await self._supersede(tenant_id, saved[0], author, user_id)
        return saved[0]

    async def update(
        self,
        tenant_id: str,
        item_id: str,
        changes: dict[str, Any],
        *,
        author: str | None,
        message: str | None,
        user_id: str | None = None,
    ) -> KnowledgeRecord:
        prior = await self.get(tenant_id, item_id)
        new_status = changes.get("status", prior.status)
        if new_status != prior.status and new_status not in TRANSITIONS.get(prior.status, ()):
            allowed = ", ".join(TRANSITIONS.get(prior.status, ())) or "none (terminal)"
            raise InvalidRequest(
                f"status cannot change from {prior.status!r} to {new_status!r}; allowed: {allowed}",
                code="invalid_status_transition",
                details={"field": "status", "from": prior.status, "to": new_status},
            )
        raw = ItemInput(
            id=prior.id,
            type=changes.get("type", prior.type),
            layer=changes.get("layer", prior.layer),
            title=changes.get("title", prior.title),
            summary=changes.get("summary", prior.summary),
            content=changes.get("content", prior.content),
            status=new_status,
            severity=changes.get("severity", prior.severity),
            tags=changes.get("tags", prior.tags),
            constraints=changes.get("constraints", prior.constraints),
            metadata=changes.get("metadata", prior.metadata),
            supersedes=changes.get("supersedes", prior.supersedes),
            source=prior.source,
        )
        rec = build_record(tenant_id, raw, limits=self.json_limits)
        rec.superseded_by = list(prior.superseded_by)
        rec.content_hash = content_hash(rec)
        if rec.content_hash == prior.content_hash:
            return prior
        default = f"status {prior.status} -> {new_status}" if new_status != prior.status else "updated"
        write = ItemWrite(rec, message or default, author, user_id)
        saved = await self.kstore.save(tenant_id, [write], now=self.clock.now())
        await self._supersede(tenant_id, saved[0], author, user_id)
        return saved[0]

    async def delete(self, tenant_id: str, item_id: str) -> None:
        await self.get(tenant_id, item_id)
        await self.kstore.delete(tenant_id, [item_id])

    async def get(self, tenant_id: str, item_id: str) -> KnowledgeRecord:
        await self.ensure_folder(tenant_id)
        rec = await self.kstore.get(tenant_id, item_id)
        if rec is None:
            raise NotFound(
                f"Knowledge item {item_id!r} not found",
                code="knowledge_item_not_found",
                details={"requestedId": item_id, "searchedLayers": list(LAYERS)},
            )
        return rec

    async def history(self, tenant_id: str, item_id: str) -> list[VersionRecord]:
        await self.get(tenant_id, item_id)
        return await self.kstore.history(tenant_id, item_id)

    async def list_items(self, tenant_id: str, flt: ItemFilter, *, limit: int) -> list[KnowledgeRecord]:
        await self.ensure_folder(tenant_id)
        return await self.kstore.list_items(tenant_id, flt, limit=limit)

    async def restore(self, tenant_id: str, records: list[KnowledgeRecord]) -> int:
        """Items from an export, as they were (store/knowledge.py ``restore``); the vector
        cache is keyed by content hash, so it needs no invalidation."""
        return await self.kstore.restore(tenant_id, records)

    async def import_documents(
        self, tenant_id: str, documents: list[tuple[str, str]], *, author: str | None, user_id: str | None = None
    ) -> list[KnowledgeRecord]:
        """Markdown documents posted by a client; all are validated before any is stored."""
        await self.ensure_folder(tenant_id)
        records: list[KnowledgeRecord] = []
        for i, (path, text) in enumerate(documents):
            raw = parse_document(text, path=path)
            raw.source = API_SOURCE
            records.append(build_record(tenant_id, raw, where=f"documents[{i}]", limits=self.json_limits))
        ids = [r.id for r in records]
        if len(set(ids)) != len(ids):
            raise InvalidRequest(
                "two documents have the same id", code="invalid_request", details={"field": "documents"}
            )
        stored = {r.id: r for r in await self.kstore.list_items(tenant_id, ItemFilter(ids=ids))}
        for r in records:
            if r.id in stored:
                r.superseded_by = list(stored[r.id].superseded_by)
                r.content_hash = content_hash(r)
        saved = await self.kstore.save(
            tenant_id,
            [ItemWrite(r, f"imported from {r.source}", author, user_id) for r in records],
            now=self.clock.now(),
        )
        for rec in saved:
            await self._supersede(tenant_id, rec, author, user_id)
        return saved

    async def _supersede(
        self, tenant_id: str, rec: KnowledgeRecord, author: str | None, user_id: str | None = None
    ) -> None:
        """An accepted item that supersedes another marks that one superseded (and links back)."""
        if not rec.supersedes or rec.status != "accepted":
            return
        old = await self.kstore.get(tenant_id, rec.supersedes)
        if old is None or (old.status == "superseded" and rec.id in old.superseded_by):
            return
        old.status = "superseded"
        old.superseded_by = [*old.superseded_by, rec.id] if rec.id not in old.superseded_by else old.superseded_by
        old.content_hash = content_hash(old)
        write = ItemWrite(old, f"superseded by {rec.id}", author, user_id)
        await self.kstore.save(tenant_id, [write], now=self.clock.now())

    # --- query / check ----------------------------------------------------------------------
    async def query(self, tenant_id: str, q: QueryInput) -> tuple[list[tuple[KnowledgeRecord, float]], int]:
        flt = ItemFilter(
            types=[q.type] if q.type else None, layers=[q.layer] if q.layer else None, statuses=q.statuses or None
        )
        items = await self.list_items(tenant_id, flt, limit=10_000)
        if q.tags:
            wanted = {t.lower() for t in q.tags}
            items = [i for i in items if wanted <= {t.lower() for t in i.tags}]
        if not q.query or not q.query.strip():
            ranked = sorted(items, key=lambda i: (-(i.updated_at.timestamp() if i.updated_at else 0), i.id))
            return [(i, 1.0) for i in ranked[: q.limit]], len(ranked)
        scored = await self._score(tenant_id, q.query, items)
        hits = sorted(((i, s) for i, s in scored if s > 0), key=lambda t: (-t[1], t[0].id))
        return hits[: q.limit], len(hits)

    async def _score(
        self, tenant_id: str, query: str, items: list[KnowledgeRecord]
    ) -> list[tuple[KnowledgeRecord, float]]:
        terms = [t for t in dict.fromkeys(w.lower() for w in _WORD.findall(query)) if t not in STOPWORDS]
        missing = [i for i in items if (tenant_id, i.content_hash) not in self._vectors]
        if len(self._vectors) + len(missing) > VECTOR_CACHE_MAX:
            self._vectors.clear()  # a rebuild costs one batch of embeddings; memory stays bounded
            missing = list(items)
        if missing:
            texts = [f"{i.title}\n{i.summary}\n{' '.join(i.tags)}" for i in missing]
            for i, v in zip(missing, await self.embedding.vectors(texts), strict=True):
                self._vectors[(tenant_id, i.content_hash)] = v
        qvec = await self.embedding.query_vector(query)
        out: list[tuple[KnowledgeRecord, float]] = []
        for i in items:
            head = f"{i.title} {i.summary} {' '.join(i.tags)}".lower()
            body = i.content.lower()
            lexical = 0.0
            if terms:
                lexical = sum(1.0 if t in head else 0.5 if t in body else 0.0 for t in terms) / len(terms)
            semantic = max(float(np.dot(self._vectors[(tenant_id, i.content_hash)], qvec)), 0.0)
            if lexical == 0 and semantic < SEMANTIC_FLOOR:
                out.append((i, 0.0))
                continue
            out.append((i, round(0.5 * lexical + 0.5 * semantic, 6)))
        return out

    async def check(
        self,
        tenant_id: str,
        files: list[CheckedFile],
        deps: list[Dependency],
        *,
        min_severity: str,
        item_ids: list[str] | None,
    ) -> CheckResult:
        if item_ids:
            items = await self.list_items(tenant_id, ItemFilter(ids=item_ids), limit=len(item_ids))
            missing = sorted(set(item_ids) - {i.id for i in items})
            if missing:
                raise NotFound(
                    f"Knowledge item {missing[0]!r} not found",
                    code="knowledge_item_not_found",
                    details={"requestedId": missing[0], "missing": missing, "searchedLayers": list(LAYERS)},
                )
        else:
            items = await self.list_items(tenant_id, ItemFilter(statuses=["accepted"]), limit=100_000)
        # off the event loop: RE2 releases the GIL while it matches, so /health and every other
        # request keep being served during a large check
        return await asyncio.to_thread(run_check, items, files, deps, min_severity)


def _apply_supersession(records: list[KnowledgeRecord]) -> None:
    """Within one folder: accepted items that supersede others mark them (before hashing)."""
    by_id = {r.id: r for r in records}
    for r in records:
        if r.supersedes and r.status == "accepted" and r.supersedes in by_id:
            old = by_id[r.supersedes]
            old.status = "superseded"
            if r.id not in old.superseded_by:
                old.superseded_by.append(r.id)
    for r in records:
        r.content_hash = content_hash(r)
