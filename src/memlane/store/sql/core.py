"""The engine, transactions and commit chain every SQL concern builds on.

Each concern of the store (writes.py, reads.py, embeddings.py, jobs.py, lifecycle.py,
audit.py) is a class over this one, and store.py composes them into ``SqlStore``. The
backends subclass that and fill in the hooks declared here, which are what differs between
SQLite and PostgreSQL: how a transaction takes a scope's write lock, how row numbers are
allocated, how many rows are inserted at once, and how a scope is tested in lookups by id.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from memlane.domain.clock import new_id
from memlane.domain.errors import Conflict, ServiceUnavailable
from memlane.domain.hashing import commit_hash
from memlane.domain.model import Commit, CommitInfo
from memlane.store import migrate
from memlane.store.error_text import install_log_redaction
from memlane.store.schema import commits, scope_heads

#: SQLite allows 32766 bound parameters; stay far below for IN lists and multi-row inserts.
CHUNK = 500

T = TypeVar("T")


def chunks(items: Sequence[T], size: int = CHUNK) -> list[Sequence[T]]:
    return [items[i : i + size] for i in range(0, len(items), size)]


#: statements of every write, built once: building one (``.values(...)``, the ``==`` of a
#: ``where``) cost more Python time than SQLite took to run it (profiled one-node writes)
MOVE_HEAD = (
    scope_heads.update()
    .where(scope_heads.c.tenant_id == sa.bindparam("k_tenant"), scope_heads.c.scope == sa.bindparam("k_scope"))
    .values(
        {
            name: sa.bindparam(name, type_=scope_heads.c[name].type)
            for name in ("head_commit_id", "head_hash", "commit_seq", "rev", "epoch", "updated_at")
        }
    )
)
READ_HEAD = sa.select(scope_heads).where(
    scope_heads.c.tenant_id == sa.bindparam("k_tenant"), scope_heads.c.scope == sa.bindparam("k_scope")
)


@dataclass(slots=True)
class ScopeHead:
    head_commit_id: str | None
    head_hash: str | None
    commit_seq: int
    rev: int
    epoch: int


class SqlCore:
    """The engine and the write path's shared steps; subclasses set ``backend`` and the hooks."""

    backend = "sql"

    def __init__(self, url: str, *, vector_dim: int):
        self.url = url
        self.vector_dim = vector_dim
        self._engine: AsyncEngine | None = None

    # --- hooks each backend implements -----------------------------------------------------
    def _create_engine(self) -> AsyncEngine:
        raise NotImplementedError

    async def _lock_scope_head(self, conn: AsyncConnection, tenant_id: str, scope: str, now: datetime) -> ScopeHead:
        """The scope's head, locked against other writers until the transaction ends."""
        raise NotImplementedError

    async def _allocate_row_numbers(self, conn: AsyncConnection, count: int) -> list[int]:
        """``count`` new ``nodes.row_no`` values (the keyword index's rowids)."""
        raise NotImplementedError

    async def _insert_rows(self, conn: AsyncConnection, table: sa.Table, rows: Sequence[dict[str, Any]]) -> None:
        """Insert many rows that share one set of keys (a write's new nodes, or its new edges)."""
        for part in chunks(rows, 200):
            await conn.execute(table.insert(), list(part))

    def _in_scope(self, column: Any, scope: str) -> Any:
        """The scope test of lookups by id. SQLite overrides it so its planner keeps to the
        id index instead of scanning the whole scope through a (tenant, scope, ...) index."""
        return column == scope

    # --- engine ---------------------------------------------------------------------------
    @property
    def engine(self) -> AsyncEngine:
        if self._engine is None:
            raise ServiceUnavailable("store is not open")
        return self._engine

    async def open(self) -> None:
        install_log_redaction()
        self._engine = self._create_engine()
        current = await migrate.current_revision(self._engine)
        head = migrate.head_revision()
        if current != head:
            raise ServiceUnavailable(
                f"database schema is at revision {current!r}, this memlane needs {head!r}: run `memlane migrate`"
            )

    async def close(self) -> None:
        if self._engine is not None:
            await self._engine.dispose()
            self._engine = None

    async def ping(self) -> bool:
        try:
            async with self.engine.connect() as conn:
                await conn.execute(sa.text("SELECT 1"))
            return True
        except Exception:
            return False

    async def pool_stats(self) -> dict[str, Any]:
        pool = self.engine.pool
        size = int(getattr(pool, "size", lambda: 0)())
        checked_out = int(getattr(pool, "checkedout", lambda: 0)())
        checked_in = int(getattr(pool, "checkedin", lambda: 0)())
        overflow = int(getattr(pool, "overflow", lambda: 0)())
        max_overflow = int(getattr(pool, "_max_overflow", 0))
        return {
            "backend": self.backend,
            "pool_class": type(pool).__name__,
            "max_connections": size + max(max_overflow, 0),
            "created_connections": checked_out + checked_in,
            "checked_out": checked_out,
            "idle": checked_in,
            "overflow": overflow,
        }

    # --- transactions -----------------------------------------------------------------------
    @contextlib.asynccontextmanager
    async def _write_tx(self) -> AsyncIterator[AsyncConnection]:
        async with self.engine.begin() as conn:
            yield conn

    async def _in_write_tx(self, fn: Callable[[AsyncConnection], Awaitable[T]]) -> T:
        """``fn`` in a write transaction of its own: the hot write paths (a graph write, job
        leases and outcomes, vectors) go through here so SQLite can run them on its writer
        thread and commit concurrent ones together (sqlite/writer.py)."""
        async with self._write_tx() as conn:
            return await fn(conn)

    @contextlib.asynccontextmanager
    async def _read(self) -> AsyncIterator[AsyncConnection]:
        async with self.engine.connect() as conn:
            yield conn

    @contextlib.asynccontextmanager
    async def _read_primary(self) -> AsyncIterator[AsyncConnection]:
        """A read that must see the primary even inside a request routed to a replica
        (store/read_routing.py): what the process itself just wrote there, like a server
        secret made on first use, which a lagging replica has not replayed yet."""
        async with self.engine.connect() as conn:
            yield conn

    # --- the commit chain ---------------------------------------------------------------------
    async def _chain_commit(
        self,
        conn: AsyncConnection,
        tenant_id: str,
        scope: str,
        head: ScopeHead,
        info: CommitInfo,
        diff: dict[str, Any],
        now: datetime,
        *,
        bump_rev: bool,
        bump_epoch: bool = False,
        commit_id: str | None = None,
    ) -> Commit:
        """Append a commit to the scope's chain and move the head. ``bump_rev`` tells the
        in-memory caches that rows changed; ``bump_epoch`` that some were removed, which an
        incremental refresh cannot see (sqlite/vector_cache.py, sqlite/edge_cache.py)."""
        if info.parent_commit_id is not None and info.parent_commit_id != head.head_commit_id:
            raise Conflict(
                f"parent_commit_id {info.parent_commit_id} is not the head of scope {scope!r} "
                f"(head is {head.head_commit_id}); re-read and retry",
                code="parent_commit_mismatch",
                details={"field": "parent_commit_id", "head_commit_id": head.head_commit_id},
            )
        chained = Commit(
            tenant_id=tenant_id,
            id=commit_id or new_id(),
            scope=scope,
            parent_id=head.head_commit_id,
            parent_hash=head.head_hash,
            commit_hash=commit_hash(head.head_hash, diff),
            actor=info.actor,
            input_sha256=info.input_sha256,
            kind=info.kind,
            diff=diff,
            created_at=now,
        )
        seq = head.commit_seq + 1
        row = {f.name: getattr(chained, f.name) for f in dataclasses.fields(Commit)}
        row.update(seq=seq, model_version=info.model_version, prompt_version=info.prompt_version)
        await conn.execute(commits.insert(), row)
        await conn.execute(
            MOVE_HEAD,
            {
                "k_tenant": tenant_id,
                "k_scope": scope,
                "head_commit_id": chained.id,
                "head_hash": chained.commit_hash,
                "commit_seq": seq,
                "rev": head.rev + (1 if bump_rev else 0),
                "epoch": head.epoch + (1 if bump_epoch else 0),
                "updated_at": now,
            },
        )
        return chained

    async def _bump_rev(self, conn: AsyncConnection, tenant_id: str, scope: str, now: datetime) -> int:
        """A new revision without a commit (vectors arriving change no content, but the
        caches must reload the rows)."""
        head = await self._lock_scope_head(conn, tenant_id, scope, now)
        await conn.execute(
            scope_heads.update()
            .where(scope_heads.c.tenant_id == tenant_id, scope_heads.c.scope == scope)
            .values(rev=head.rev + 1, updated_at=now)
        )
        return head.rev + 1


__all__ = ["CHUNK", "ScopeHead", "SqlCore", "chunks"]
