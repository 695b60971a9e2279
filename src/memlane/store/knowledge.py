"""Knowledge repository tables, and the expiry queries of the layered surface.

Side tables on the store's own engine (store/side_tables.py, which also says what to avoid on
SQLite). Every query takes ``tenant_id`` first; every method opens and closes its own
connection.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection

from memlane.domain.errors import Conflict
from memlane.store.schema import nodes
from memlane.store.side_tables import SideTables
from memlane.store.types import JSONType, UTCDateTime

metadata = sa.MetaData()

knowledge_items = sa.Table(
    "knowledge_items",
    metadata,
    sa.Column("tenant_id", sa.String(128), nullable=False),
    sa.Column("id", sa.String(200), nullable=False),
    sa.Column("type", sa.String(16), nullable=False),
    sa.Column("layer", sa.String(16), nullable=False),
    sa.Column("title", sa.Text, nullable=False),
    sa.Column("summary", sa.Text, nullable=False),
    sa.Column("content", sa.Text, nullable=False),
    sa.Column("status", sa.String(16), nullable=False),
    sa.Column("severity", sa.String(8), nullable=False),
    sa.Column("tags", JSONType, nullable=False),
    sa.Column("constraints", JSONType, nullable=False),
    sa.Column("metadata", JSONType, nullable=False),
    sa.Column("supersedes", sa.String(200)),
    sa.Column("superseded_by", JSONType, nullable=False),
    sa.Column("version", sa.Integer, nullable=False),
    sa.Column("content_hash", sa.String(64), nullable=False),
    sa.Column("source", sa.String(1024)),
    sa.Column("created_at", UTCDateTime, nullable=False),
    sa.Column("updated_at", UTCDateTime, nullable=False),
    sa.PrimaryKeyConstraint("tenant_id", "id"),
)

knowledge_versions = sa.Table(
    "knowledge_versions",
    metadata,
    sa.Column("tenant_id", sa.String(128), nullable=False),
    sa.Column("item_id", sa.String(200), nullable=False),
    sa.Column("version", sa.Integer, nullable=False),
    sa.Column("author", sa.String(256)),
    sa.Column("user_id", sa.String(256)),
    sa.Column("message", sa.Text, nullable=False),
    sa.Column("snapshot", JSONType, nullable=False),
    sa.Column("created_at", UTCDateTime, nullable=False),
    sa.PrimaryKeyConstraint("tenant_id", "item_id", "version"),
)

knowledge_sync_state = sa.Table(
    "knowledge_sync_state",
    metadata,
    sa.Column("tenant_id", sa.String(128), nullable=False),
    sa.Column("item_id", sa.String(200), nullable=False),
    sa.Column("node_id", sa.String(36), nullable=False),
    sa.Column("scope", sa.String(256), nullable=False),
    sa.Column("content_hash", sa.String(64), nullable=False),
    sa.Column("synced_at", UTCDateTime, nullable=False),
    sa.PrimaryKeyConstraint("tenant_id", "item_id"),
)

knowledge_sync_runs = sa.Table(
    "knowledge_sync_runs",
    metadata,
    sa.Column("tenant_id", sa.String(128), nullable=False),
    sa.Column("id", sa.String(36), nullable=False),
    sa.Column("job_id", sa.String(36)),
    sa.Column("status", sa.String(16), nullable=False),
    sa.Column("forced", sa.Boolean, nullable=False),
    sa.Column("added", sa.Integer, nullable=False),
    sa.Column("updated", sa.Integer, nullable=False),
    sa.Column("deleted", sa.Integer, nullable=False),
    sa.Column("unchanged", sa.Integer, nullable=False),
    sa.Column("failures", sa.Integer, nullable=False),
    sa.Column("failed_items", JSONType, nullable=False),
    sa.Column("duration_ms", sa.Float, nullable=False),
    sa.Column("error", sa.Text),
    sa.Column("started_at", UTCDateTime, nullable=False),
    sa.Column("finished_at", UTCDateTime, nullable=False),
    sa.PrimaryKeyConstraint("tenant_id", "id"),
)

ITEM_FIELDS = (
    "type",
    "layer",
    "title",
    "summary",
    "content",
    "status",
    "severity",
    "tags",
    "constraints",
    "metadata",
    "supersedes",
    "superseded_by",
    "source",
)


@dataclass(slots=True)
class KnowledgeRecord:
    """One stored knowledge item (ADR, policy, pattern or spec)."""

    tenant_id: str
    id: str
    type: str
    layer: str
    title: str
    summary: str = ""
    content: str = ""
    status: str = "draft"
    severity: str = "warn"
    tags: list[str] = field(default_factory=list)
    constraints: list[dict[str, Any]] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)
    supersedes: str | None = None
    superseded_by: list[str] = field(default_factory=list)
    version: int = 0
    content_hash: str = ""
    source: str | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None


@dataclass(slots=True)
class VersionRecord:
    version: int
    author: str | None
    message: str
    created_at: datetime
    snapshot: dict[str, Any]


@dataclass(slots=True)
class SyncStateRecord:
    item_id: str
    node_id: str
    scope: str
    content_hash: str
    synced_at: datetime


@dataclass(slots=True)
class SyncRunRecord:
    tenant_id: str
    id: str
    job_id: str | None
    status: str
    forced: bool
    added: int
    updated: int
    deleted: int
    unchanged: int
    failures: int
    failed_items: list[dict[str, Any]]
    duration_ms: float
    error: str | None
    started_at: datetime
    finished_at: datetime


def _item_from_row(row: Any) -> KnowledgeRecord:
    m = row._mapping
    return KnowledgeRecord(
        tenant_id=m["tenant_id"],
        id=m["id"],
        type=m["type"],
        layer=m["layer"],
        title=m["title"],
        summary=m["summary"],
        content=m["content"],
        status=m["status"],
        severity=m["severity"],
        tags=list(m["tags"] or []),
        constraints=list(m["constraints"] or []),
        metadata=dict(m["metadata"] or {}),
        supersedes=m["supersedes"],
        superseded_by=list(m["superseded_by"] or []),
        version=m["version"],
        content_hash=m["content_hash"],
        source=m["source"],
        created_at=m["created_at"],
        updated_at=m["updated_at"],
    )


def _run_from_row(row: Any) -> SyncRunRecord:
    m = row._mapping
    return SyncRunRecord(
        tenant_id=m["tenant_id"],
        id=m["id"],
        job_id=m["job_id"],
        status=m["status"],
        forced=bool(m["forced"]),
        added=m["added"],
        updated=m["updated"],
        deleted=m["deleted"],
        unchanged=m["unchanged"],
        failures=m["failures"],
        failed_items=list(m["failed_items"] or []),
        duration_ms=float(m["duration_ms"]),
        error=m["error"],
        started_at=m["started_at"],
        finished_at=m["finished_at"],
    )


@dataclass(slots=True)
class ItemWrite:
    """An item to store, the version message that explains the change, and its author."""

    record: KnowledgeRecord
    message: str
    author: str | None = None
    #: the user the author acted for (an erasure of that user erases the item)
    user_id: str | None = None


@dataclass(slots=True)
class ItemFilter:
    types: Sequence[str] | None = None
    layers: Sequence[str] | None = None
    statuses: Sequence[str] | None = None
    ids: Sequence[str] | None = None
    source_prefix: str | None = None


class KnowledgeStore(SideTables):
    """Knowledge items with version history, sync state and sync runs, on the store's engine."""

    purpose = "the knowledge repository"

    # --- items --------------------------------------------------------------------------
    async def get(self, tenant_id: str, item_id: str) -> KnowledgeRecord | None:
        async with self._tx() as conn:
            row = (
                await conn.execute(
                    sa.select(knowledge_items).where(
                        knowledge_items.c.tenant_id == tenant_id, knowledge_items.c.id == item_id
                    )
                )
            ).first()
        return _item_from_row(row) if row else None

    async def list_items(
        self, tenant_id: str, flt: ItemFilter | None = None, *, limit: int = 10_000, after_id: str | None = None
    ) -> list[KnowledgeRecord]:
        """Items in id order; a keyset page with ``after_id`` (the last id of the page before)."""
        flt = flt or ItemFilter()
        cond: list[Any] = [knowledge_items.c.tenant_id == tenant_id]
        if after_id is not None:
            cond.append(knowledge_items.c.id > after_id)
        if flt.types:
            cond.append(knowledge_items.c.type.in_(list(flt.types)))
        if flt.layers:
            cond.append(knowledge_items.c.layer.in_(list(flt.layers)))
        if flt.statuses:
            cond.append(knowledge_items.c.status.in_(list(flt.statuses)))
        if flt.ids is not None:
            cond.append(knowledge_items.c.id.in_(list(flt.ids)))
        if flt.source_prefix is not None:
            cond.append(knowledge_items.c.source.startswith(flt.source_prefix, autoescape=True))
        q = sa.select(knowledge_items).where(*cond).order_by(knowledge_items.c.id).limit(limit)
        async with self._tx() as conn:
            return [_item_from_row(r) for r in await conn.execute(q)]

    async def save(
        self, tenant_id: str, writes: Sequence[ItemWrite], *, now: datetime, create_only: bool = False
    ) -> list[KnowledgeRecord]:
        """Insert or update items and append one version row each, in one transaction.

        An item whose stored ``content_hash`` equals the new one is left alone (no new
        version). With ``create_only`` an existing id is a ``Conflict``.
        """
        out: list[KnowledgeRecord] = []
        try:
            async with self._tx() as conn:
                for w in writes:
                    out.append(await self._save_one(conn, tenant_id, w, now, create_only))
        except IntegrityError:
            raise Conflict("a knowledge item was written concurrently; retry", code="knowledge_item_conflict") from None
        return out

    async def _save_one(
        self, conn: AsyncConnection, tenant_id: str, w: ItemWrite, now: datetime, create_only: bool
    ) -> KnowledgeRecord:
        rec = w.record
        rec.tenant_id = tenant_id
        row = (
            await conn.execute(
                sa.select(knowledge_items).where(
                    knowledge_items.c.tenant_id == tenant_id, knowledge_items.c.id == rec.id
                )
            )
        ).first()
        values = {name: getattr(rec, name) for name in ITEM_FIELDS}
        if row is None:
            rec.version = 1
            rec.created_at = rec.updated_at = now
            await conn.execute(
                knowledge_items.insert().values(
                    tenant_id=tenant_id,
                    id=rec.id,
                    version=1,
                    content_hash=rec.content_hash,
                    created_at=now,
                    updated_at=now,
                    **values,
                )
            )
        else:
            prior = _item_from_row(row)
            if create_only:
                raise Conflict(
                    f"knowledge item {rec.id!r} already exists; update it instead",
                    code="knowledge_item_exists",
                    details={"field": "id", "id": rec.id},
                    retryable=False,
                )
            if prior.content_hash == rec.content_hash:
                return prior
            rec.version = prior.version + 1
            rec.created_at, rec.updated_at = prior.created_at, now
            await conn.execute(
                knowledge_items.update()
                .where(knowledge_items.c.tenant_id == tenant_id, knowledge_items.c.id == rec.id)
                .values(version=rec.version, content_hash=rec.content_hash, updated_at=now, **values)
            )
        snapshot = {name: getattr(rec, name) for name in ITEM_FIELDS}
        await conn.execute(
            knowledge_versions.insert().values(
                tenant_id=tenant_id,
                item_id=rec.id,
                version=rec.version,
                author=w.author,
                user_id=w.user_id,
                message=w.message,
                snapshot=snapshot,
                created_at=now,
            )
        )
        return rec

    async def restore(self, tenant_id: str, records: Sequence[KnowledgeRecord]) -> int:
        """Items exported from another store, as they were (version, times, content hash),
        each with one version row saying so. An item stored with the same content hash is
        left alone, so importing twice changes nothing; returns how many were written."""
        written = 0
        async with self._tx() as conn:
            for rec in records:
                stored = (
                    await conn.execute(
                        sa.select(knowledge_items.c.content_hash).where(
                            knowledge_items.c.tenant_id == tenant_id, knowledge_items.c.id == rec.id
                        )
                    )
                ).first()
                if stored is not None and stored[0] == rec.content_hash:
                    continue
                values = {name: getattr(rec, name) for name in ITEM_FIELDS}
                values.update(
                    version=rec.version,
                    content_hash=rec.content_hash,
                    created_at=rec.created_at,
                    updated_at=rec.updated_at,
                )
                key = (knowledge_items.c.tenant_id == tenant_id, knowledge_items.c.id == rec.id)
                if stored is None:
                    await conn.execute(knowledge_items.insert().values(tenant_id=tenant_id, id=rec.id, **values))
                else:
                    await conn.execute(knowledge_items.update().where(*key).values(**values))
                await conn.execute(
                    knowledge_versions.delete().where(
                        knowledge_versions.c.tenant_id == tenant_id,
                        knowledge_versions.c.item_id == rec.id,
                        knowledge_versions.c.version == rec.version,
                    )
                )
                await conn.execute(
                    knowledge_versions.insert().values(
                        tenant_id=tenant_id,
                        item_id=rec.id,
                        version=rec.version,
                        author=None,
                        message="imported",
                        snapshot={name: getattr(rec, name) for name in ITEM_FIELDS},
                        created_at=rec.updated_at,
                    )
                )
                written += 1
        return written

    async def delete(self, tenant_id: str, item_ids: Sequence[str]) -> list[str]:
        """Remove items and their history; their sync state stays so the next sync removes
        the memory nodes they produced."""
        if not item_ids:
            return []
        async with self._tx() as conn:
            rows = (
                await conn.execute(
                    sa.select(knowledge_items.c.id).where(
                        knowledge_items.c.tenant_id == tenant_id, knowledge_items.c.id.in_(list(item_ids))
                    )
                )
            ).all()
            found = [r.id for r in rows]
            if found:
                await conn.execute(
                    knowledge_versions.delete().where(
                        knowledge_versions.c.tenant_id == tenant_id, knowledge_versions.c.item_id.in_(found)
                    )
                )
                await conn.execute(
                    knowledge_items.delete().where(
                        knowledge_items.c.tenant_id == tenant_id, knowledge_items.c.id.in_(found)
                    )
                )
        return found

    async def history(self, tenant_id: str, item_id: str, *, limit: int = 100) -> list[VersionRecord]:
        q = (
            sa.select(knowledge_versions)
            .where(knowledge_versions.c.tenant_id == tenant_id, knowledge_versions.c.item_id == item_id)
            .order_by(knowledge_versions.c.version.desc())
            .limit(limit)
        )
        async with self._tx() as conn:
            return [
                VersionRecord(
                    version=r.version, author=r.author, message=r.message, created_at=r.created_at, snapshot=r.snapshot
                )
                for r in await conn.execute(q)
            ]

    # --- sync state ---------------------------------------------------------------------
    async def sync_state(self, tenant_id: str) -> dict[str, SyncStateRecord]:
        q = sa.select(knowledge_sync_state).where(knowledge_sync_state.c.tenant_id == tenant_id)
        async with self._tx() as conn:
            return {
                r.item_id: SyncStateRecord(r.item_id, r.node_id, r.scope, r.content_hash, r.synced_at)
                for r in await conn.execute(q)
            }

    async def sync_state_page(self, tenant_id: str, *, after_item: str | None, limit: int) -> list[SyncStateRecord]:
        """``sync_state`` in item order, a keyset page at a time (an export)."""
        c = knowledge_sync_state.c
        q = sa.select(knowledge_sync_state).where(c.tenant_id == tenant_id).order_by(c.item_id).limit(limit)
        if after_item is not None:
            q = q.where(c.item_id > after_item)
        async with self._tx() as conn:
            return [
                SyncStateRecord(r.item_id, r.node_id, r.scope, r.content_hash, r.synced_at)
                for r in await conn.execute(q)
            ]

    async def set_sync_state(self, tenant_id: str, upserts: Sequence[SyncStateRecord], removed: Sequence[str]) -> None:
        async with self._tx() as conn:
            ids = [u.item_id for u in upserts] + list(removed)
            for start in range(0, len(ids), 500):
                part = ids[start : start + 500]
                await conn.execute(
                    knowledge_sync_state.delete().where(
                        knowledge_sync_state.c.tenant_id == tenant_id, knowledge_sync_state.c.item_id.in_(part)
                    )
                )
            if upserts:
                await conn.execute(
                    knowledge_sync_state.insert(),
                    [
                        {
                            "tenant_id": tenant_id,
                            "item_id": u.item_id,
                            "node_id": u.node_id,
                            "scope": u.scope,
                            "content_hash": u.content_hash,
                            "synced_at": u.synced_at,
                        }
                        for u in upserts
                    ],
                )

    async def record_run(self, run: SyncRunRecord) -> None:
        async with self._tx() as conn:
            await conn.execute(
                knowledge_sync_runs.insert().values(
                    tenant_id=run.tenant_id,
                    id=run.id,
                    job_id=run.job_id,
                    status=run.status,
                    forced=run.forced,
                    added=run.added,
                    updated=run.updated,
                    deleted=run.deleted,
                    unchanged=run.unchanged,
                    failures=run.failures,
                    failed_items=run.failed_items,
                    duration_ms=run.duration_ms,
                    error=run.error,
                    started_at=run.started_at,
                    finished_at=run.finished_at,
                )
            )

    async def last_run(self, tenant_id: str) -> SyncRunRecord | None:
        q = (
            sa.select(knowledge_sync_runs)
            .where(knowledge_sync_runs.c.tenant_id == tenant_id)
            .order_by(knowledge_sync_runs.c.finished_at.desc(), knowledge_sync_runs.c.id)
            .limit(1)
        )
        async with self._tx() as conn:
            row = (await conn.execute(q)).first()
        return _run_from_row(row) if row else None

    async def run_stats(self, tenant_id: str) -> dict[str, float]:
        t = knowledge_sync_runs
        q = sa.select(
            sa.func.count(),
            sa.func.coalesce(sa.func.sum(t.c.added + t.c.updated), 0),
            sa.func.coalesce(sa.func.avg(t.c.duration_ms), 0.0),
        ).where(t.c.tenant_id == tenant_id)
        async with self._tx() as conn:
            count, synced, avg = (await conn.execute(q)).one()
        return {"total_syncs": int(count), "total_items_synced": int(synced), "avg_duration_ms": float(avg)}

    # --- expiry -------------------------------------------------------------------------
    async def expired_nodes(self, tenant_id: str, *, now: datetime, limit: int) -> list[tuple[str, str]]:
        """``(node_id, scope)`` of the tenant's nodes, of any layer or none, whose ``expires_at``
        has passed (index ``ix_nodes_expires``). Reads already leave them out; the sweep
        deletes them to reclaim the space."""
        q = (
            sa.select(nodes.c.id, nodes.c.scope)
            .where(
                nodes.c.tenant_id == tenant_id,
                nodes.c.expires_at.is_not(None),
                nodes.c.expires_at <= now,
            )
            .limit(limit)
        )
        async with self._tx() as conn:
            return [(r.id, r.scope) for r in await conn.execute(q)]

    async def inactive_workspace_nodes(
        self, tenant_id: str, *, idle_before: datetime, limit: int
    ) -> list[tuple[str, str]]:
        """Workspace nodes idle since ``idle_before``: a task's items go together, when no item
        of that task changed since; items without a task go on their own age."""
        active_tasks = (
            sa.select(nodes.c.task_id)
            .where(
                nodes.c.tenant_id == tenant_id,
                nodes.c.layer == "workspace",
                nodes.c.task_id.is_not(None),
                nodes.c.updated_at > idle_before,
            )
            .distinct()
        )
        q = (
            sa.select(nodes.c.id, nodes.c.scope)
            .where(
                nodes.c.tenant_id == tenant_id,
                nodes.c.layer == "workspace",
                sa.or_(
                    sa.and_(nodes.c.task_id.is_(None), nodes.c.updated_at <= idle_before),
                    sa.and_(nodes.c.task_id.is_not(None), nodes.c.task_id.not_in(active_tasks)),
                ),
            )
            .limit(limit)
        )
        async with self._tx() as conn:
            return [(r.id, r.scope) for r in await conn.execute(q)]
