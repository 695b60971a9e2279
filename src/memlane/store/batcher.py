"""The memory batcher's buffers: one row per (tenant, app, user, session) with its pending
messages, a side table on the store's own engine (store/side_tables.py).

A buffer changes only inside ``BatcherStore.change``: one transaction that locks the row
(``FOR UPDATE`` on PostgreSQL; SQLite has one writer), lets the caller compute the new state,
and inserts the jobs that state needs (a flush's ingestion task, the idle-flush job) in the
same transaction. So messages taken out of a buffer and the task that ingests them commit
together: a crash loses neither and never ingests a message twice.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite

from memlane.domain.model import Job
from memlane.store.schema import jobs
from memlane.store.side_tables import SideTables
from memlane.store.sql.jobs import job_row
from memlane.store.types import JSONType, UTCDateTime

metadata = sa.MetaData()

batcher_buffers = sa.Table(
    "batcher_buffers",
    metadata,
    sa.Column("tenant_id", sa.String(128), nullable=False),
    sa.Column("app_id", sa.String(256), nullable=False),
    sa.Column("user_id", sa.String(256), nullable=False),
    sa.Column("session_key", sa.String(256), nullable=False),
    sa.Column("session_id", sa.String(256)),
    sa.Column("messages", JSONType, nullable=False),
    sa.Column("next_seq", sa.BigInteger, nullable=False),
    sa.Column("viewer", JSONType, nullable=False),
    sa.Column("last_append_at", UTCDateTime),
    sa.Column("idle_job_id", sa.String(36)),
    sa.Column("last_delivery", sa.String(32)),
    sa.Column("last_task_id", sa.String(36)),
    sa.Column("last_flush_at", UTCDateTime),
    sa.Column("last_flush_reason", sa.String(16)),
    sa.Column("flushed_messages", sa.BigInteger, nullable=False),
    sa.Column("created_at", UTCDateTime, nullable=False),
    sa.Column("updated_at", UTCDateTime, nullable=False),
    sa.PrimaryKeyConstraint("tenant_id", "app_id", "user_id", "session_key"),
)

#: the columns a caller may change through ``change``
STATE_FIELDS = (
    "messages",
    "next_seq",
    "viewer",
    "last_append_at",
    "idle_job_id",
    "last_delivery",
    "last_task_id",
    "last_flush_at",
    "last_flush_reason",
    "flushed_messages",
)


@dataclass(frozen=True, slots=True)
class BufferKey:
    tenant_id: str
    app_id: str
    user_id: str
    session_id: str | None

    @property
    def session_key(self) -> str:
        return self.session_id or ""

    def where(self) -> list[Any]:
        c = batcher_buffers.c
        return [
            c.tenant_id == self.tenant_id,
            c.app_id == self.app_id,
            c.user_id == self.user_id,
            c.session_key == self.session_key,
        ]


@dataclass(slots=True)
class BufferState:
    """A buffer as stored; ``messages`` are the pending ones, oldest first, each with ``seq``."""

    key: BufferKey
    messages: list[dict[str, Any]] = field(default_factory=list)
    next_seq: int = 0
    viewer: dict[str, Any] = field(default_factory=dict)
    last_append_at: datetime | None = None
    idle_job_id: str | None = None
    last_delivery: str | None = None
    last_task_id: str | None = None
    last_flush_at: datetime | None = None
    last_flush_reason: str | None = None
    flushed_messages: int = 0
    #: whether ``idle_job_id`` names a job that is still queued or running (read, not stored)
    idle_job_live: bool = False


#: changes a locked buffer in place and returns the jobs to enqueue with it (pure: no I/O, as
#: the transaction holds SQLite's one writer)
Change = Callable[[BufferState], Sequence[Job]]


def _state(key: BufferKey, row: Any) -> BufferState:
    m = row._mapping
    return BufferState(
        key=key,
        messages=list(m["messages"] or []),
        next_seq=int(m["next_seq"]),
        viewer=dict(m["viewer"] or {}),
        last_append_at=m["last_append_at"],
        idle_job_id=m["idle_job_id"],
        last_delivery=m["last_delivery"],
        last_task_id=m["last_task_id"],
        last_flush_at=m["last_flush_at"],
        last_flush_reason=m["last_flush_reason"],
        flushed_messages=int(m["flushed_messages"]),
    )


class BatcherStore(SideTables):
    purpose = "the memory batcher"

    async def get(self, key: BufferKey) -> BufferState | None:
        async with self.engine.connect() as conn:
            row = (await conn.execute(sa.select(batcher_buffers).where(*key.where()))).first()
        return _state(key, row) if row is not None else None

    async def buffers(
        self,
        tenant_id: str | None,
        app_id: str | None = None,
        *,
        after: BufferKey | None = None,
        limit: int | None = None,
    ) -> list[BufferState]:
        """Every buffer of a tenant (or of every tenant), optionally of one app, in key order:
        what an export carries (services/transfer). A keyset page with ``after`` (the last key
        of the page before) and ``limit``."""
        c = batcher_buffers.c
        order = (c.tenant_id, c.app_id, c.user_id, c.session_key)
        query = sa.select(batcher_buffers).order_by(*order)
        if tenant_id is not None:
            query = query.where(c.tenant_id == tenant_id)
        if app_id is not None:
            query = query.where(c.app_id == app_id)
        if after is not None:
            query = query.where(
                sa.tuple_(*order) > sa.tuple_(after.tenant_id, after.app_id, after.user_id, after.session_key)
            )
        if limit is not None:
            query = query.limit(limit)
        async with self.engine.connect() as conn:
            rows = (await conn.execute(query)).all()
        return [_state(BufferKey(r.tenant_id, r.app_id, r.user_id, r.session_id), r) for r in rows]

    async def change(self, key: BufferKey, change: Change, *, now: datetime) -> tuple[BufferState, list[Job]]:
        """Lock the buffer (creating it empty if new), apply ``change`` to it, store the
        result and insert the jobs ``change`` returns, all in one transaction."""
        async with self._tx() as conn:
            insert = postgresql.insert if conn.dialect.name == "postgresql" else sqlite.insert
            await conn.execute(
                insert(batcher_buffers)
                .values(
                    tenant_id=key.tenant_id,
                    app_id=key.app_id,
                    user_id=key.user_id,
                    session_key=key.session_key,
                    session_id=key.session_id,
                    messages=[],
                    next_seq=0,
                    viewer={},
                    flushed_messages=0,
                    created_at=now,
                    updated_at=now,
                )
                .on_conflict_do_nothing()
            )
            row = (await conn.execute(sa.select(batcher_buffers).where(*key.where()).with_for_update())).one()
            state = _state(key, row)
            if state.idle_job_id is not None:
                idle = sa.select(jobs.c.status).where(jobs.c.tenant_id == key.tenant_id, jobs.c.id == state.idle_job_id)
                status = (await conn.execute(idle)).scalar_one_or_none()
                state.idle_job_live = status in ("queued", "running")
            new_jobs = list(change(state))
            values = {name: getattr(state, name) for name in STATE_FIELDS}
            await conn.execute(batcher_buffers.update().where(*key.where()).values(**values, updated_at=now))
            for job in new_jobs:
                job.created_at = job.updated_at = now
                job.run_after = job.run_after or now
                await conn.execute(jobs.insert().values(**job_row(job, now)))
        return state, new_jobs
