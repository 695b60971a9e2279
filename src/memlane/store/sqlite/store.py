"""The embedded store: one SQLite file in WAL mode holds everything, vectors included.

Only a file will do. Recall's hot reads go through plain read-only ``sqlite3`` connections to
the file (direct_reads.py) and in-memory caches refreshed from it (vector_cache.py), and an
in-memory database is private to each connection, so it could be neither migrated nor read
that way: the constructor refuses one.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine

from memlane.domain.errors import ServiceUnavailable
from memlane.domain.model import Edge, Job, Node, NodeBrief, ScoredId, SeedFilter
from memlane.store.base import LeasePicker, Vector
from memlane.store.error_text import ENGINE_OPTIONS
from memlane.store.read_view import pinned_heads
from memlane.store.schema import jobs, nodes, scope_heads
from memlane.store.sql.core import READ_HEAD, ScopeHead
from memlane.store.sql.store import SqlStore
from memlane.store.sqlite.bulk_insert import insert_statement
from memlane.store.sqlite.checkpointer import BACKSTOP_PAGES, Checkpointer
from memlane.store.sqlite.direct_reads import DirectReader
from memlane.store.sqlite.keyword_terms import TermCounts, query_terms
from memlane.store.sqlite.purge import OPTIMIZE_KEYWORD_INDEX, truncate_wal
from memlane.store.sqlite.vector_cache import APPROX_MIN_ROWS, ScopeVectors
from memlane.store.sqlite.writer import WriterThread
from memlane.store.term_selection import MAX_DOCS_PER_TERM
from memlane.store.urls import async_url

log = logging.getLogger(__name__)
T = TypeVar("T")


#: WAL + NORMAL: a commit is durable against a process crash (kill -9), and a power loss can
#: drop the last commits since the previous checkpoint; FULL syncs the WAL on every commit
SYNCHRONOUS_LEVELS = ("NORMAL", "FULL", "EXTRA")


def _configure(
    engine: AsyncEngine, *, immediate: bool, autocheckpoint: int | None = None, synchronous: str = "NORMAL"
) -> None:
    if synchronous not in SYNCHRONOUS_LEVELS:
        raise ValueError(f"synchronous must be one of {SYNCHRONOUS_LEVELS}, got {synchronous!r}")

    @event.listens_for(engine.sync_engine, "connect")
    def _on_connect(dbapi_conn: Any, _record: Any) -> None:
        dbapi_conn.isolation_level = None
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA journal_mode=WAL")
        cur.execute(f"PRAGMA synchronous={synchronous}")
        cur.execute("PRAGMA busy_timeout=10000")
        cur.execute("PRAGMA foreign_keys=OFF")
        cur.execute("PRAGMA cache_size=-65536")
        # deleted content is overwritten with zeros, so an erasure leaves none in the file
        # (purge.py); costs a little more I/O per delete or update
        cur.execute("PRAGMA secure_delete=ON")
        if autocheckpoint is not None:
            cur.execute(f"PRAGMA wal_autocheckpoint={int(autocheckpoint)}")
        cur.close()

    @event.listens_for(engine.sync_engine, "begin")
    def _on_begin(conn: Any) -> None:
        conn.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")


class SqliteStore(SqlStore):
    backend = "sqlite"

    def __init__(
        self,
        url: str,
        *,
        vector_dim: int,
        read_pool_size: int = 4,
        approx_min_rows: int = APPROX_MIN_ROWS,
        keyword_term_max_docs: int = MAX_DOCS_PER_TERM,
        synchronous: str = "NORMAL",
        vector_cache_bytes: int = 4096 * 1024 * 1024,
    ):
        path = url.removeprefix("sqlite:///")
        if path == url or path in ("", ":memory:"):
            raise ValueError(f"the SQLite store needs a database file (sqlite:///path/to/file.db), got {url!r}")
        super().__init__(url, vector_dim=vector_dim)
        self.path = path
        self._read_pool_size = read_pool_size
        self._synchronous = synchronous
        self._approx_min_rows = approx_min_rows
        self._term_counts = TermCounts(max_docs=keyword_term_max_docs)
        self._reader: AsyncEngine | None = None
        self._direct_reader: DirectReader | None = None
        self._checkpointer: Checkpointer | None = None
        self._writer: WriterThread | None = None
        #: the scopes searched lately, least recently used first, with what they take in all:
        #: beyond ``vector_cache_bytes`` the least recently used are dropped (one is reloaded
        #: whole at its next search). Unbounded, a key that searched 3,000 small scopes kept
        #: them all, for good (issue 26)
        self._vectors: OrderedDict[tuple[str, str], ScopeVectors] = OrderedDict()
        self._vector_bytes = 0
        self._vector_cache_bytes = vector_cache_bytes

    def _create_engine(self) -> AsyncEngine:
        Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        # One writer connection: SQLite serialises writers anyway, and BEGIN IMMEDIATE takes the
        # lock up front so a read-then-write transaction never fails half-way with SQLITE_BUSY.
        writer = create_async_engine(async_url(self.url), pool_size=1, max_overflow=0, **ENGINE_OPTIONS)
        _configure(writer, immediate=True, autocheckpoint=BACKSTOP_PAGES, synchronous=self._synchronous)
        reader = create_async_engine(
            async_url(self.url), pool_size=self._read_pool_size, max_overflow=4, **ENGINE_OPTIONS
        )
        _configure(reader, immediate=False)
        self._reader = reader
        self._direct_reader = DirectReader(self.path, size=self._read_pool_size)
        self._checkpointer = Checkpointer(self.path)
        self._writer = WriterThread(
            self.path,
            configure=lambda engine: _configure(
                engine, immediate=True, autocheckpoint=BACKSTOP_PAGES, synchronous=self._synchronous
            ),
        )
        return writer

    @property
    def _direct(self) -> DirectReader:
        if self._direct_reader is None:
            raise ServiceUnavailable("store is not open")
        return self._direct_reader

    async def open(self) -> None:
        await super().open()
        if self._writer is not None:
            self._writer.start()
        if self._checkpointer is not None:
            self._checkpointer.start()

    @property
    def writer(self) -> WriterThread:
        if self._writer is None:
            raise ServiceUnavailable("store is not open")
        return self._writer

    @contextlib.asynccontextmanager
    async def _write_tx(self) -> AsyncIterator[AsyncConnection]:
        """The less frequent writes run on the event loop's connection, during a turn of
        their own on the writer thread (writer.py)."""
        async with self.writer.exclusive(), super()._write_tx() as conn:
            yield conn
        if self._checkpointer is not None:
            self._checkpointer.note_write()

    async def _in_write_tx(self, fn: Callable[[AsyncConnection], Awaitable[T]]) -> T:
        result = await self.writer.run(fn)
        if self._checkpointer is not None:
            self._checkpointer.note_write()
        return result

    async def close(self) -> None:
        if self._writer is not None:
            await self._writer.stop()
            self._writer = None
        if self._checkpointer is not None:
            await self._checkpointer.stop()
            self._checkpointer = None
        await super().close()
        if self._reader is not None:
            await self._reader.dispose()
            self._reader = None
        if self._direct_reader is not None:
            self._direct_reader.close()
            self._direct_reader = None
        self._vectors.clear()
        self._vector_bytes = 0

    @contextlib.asynccontextmanager
    async def _read(self) -> AsyncIterator[AsyncConnection]:
        assert self._reader is not None, "store is not open"
        async with self._reader.connect() as conn:
            yield conn

    async def pool_stats(self) -> dict[str, Any]:
        stats = await super().pool_stats()
        if self._reader is not None:
            pool: Any = self._reader.pool
            stats["max_connections"] += int(pool.size()) + int(getattr(pool, "_max_overflow", 0))
            stats["checked_out"] += int(pool.checkedout())
            stats["idle"] += int(pool.checkedin())
            stats["created_connections"] += int(pool.checkedout()) + int(pool.checkedin())
            stats["overflow"] += max(int(pool.overflow()), 0)
        stats["vector_cache_scopes"] = len(self._vectors)
        stats["vector_cache_bytes"] = self._vector_bytes
        return stats

    def _in_scope(self, column: Any, scope: str) -> Any:
        # Wrapped in a function, the column no longer drives index choice: without ANALYZE
        # statistics SQLite otherwise prefers the (tenant, scope) indexes over the primary key,
        # measured at 100k nodes: 99 ms instead of 0.6 ms for 64 ids.
        return sa.func.coalesce(column, "") == scope

    async def _lock_scope_head(self, conn: AsyncConnection, tenant_id: str, scope: str, now: datetime) -> ScopeHead:
        # BEGIN IMMEDIATE already holds the database write lock.
        row = (await conn.execute(READ_HEAD, {"k_tenant": tenant_id, "k_scope": scope})).first()
        if row is None:
            await conn.execute(
                scope_heads.insert(),
                {
                    "tenant_id": tenant_id,
                    "scope": scope,
                    "head_commit_id": None,
                    "head_hash": None,
                    "commit_seq": 0,
                    "rev": 0,
                    "epoch": 0,
                    "updated_at": now,
                },
            )
            return ScopeHead(None, None, 0, 0, 0)
        return ScopeHead(row.head_commit_id, row.head_hash, row.commit_seq, row.rev, row.epoch)

    async def _allocate_row_numbers(self, conn: AsyncConnection, count: int) -> list[int]:
        top = (await conn.execute(sa.select(sa.func.max(nodes.c.row_no)))).scalar()
        start = int(top or 0) + 1
        return list(range(start, start + count))

    async def _purge(self, tenant_id: str, scopes: Sequence[str]) -> None:
        """After an erasure (purge.py): this process's caches of the scopes and the keyword
        counts are dropped, the keyword index merged, the WAL checkpointed and truncated."""
        for sc in scopes:
            if (gone := self._vectors.pop((tenant_id, sc), None)) is not None:
                self._vector_bytes -= gone.charged
        self._term_counts.clear()
        async with self._write_tx() as conn:
            await conn.exec_driver_sql(OPTIMIZE_KEYWORD_INDEX)
        if not await asyncio.to_thread(truncate_wal, self.path):
            log.warning("erasure: the WAL of %s stayed busy; it is truncated at the next erasure or restart", self.path)

    # --- search -------------------------------------------------------------------------
    async def _scope_vectors(self, tenant_id: str, scope: str) -> ScopeVectors:
        key = (tenant_id, scope)
        sv = self._vectors.get(key)
        if sv is None:
            sv = self._vectors.setdefault(key, ScopeVectors(dim=self.vector_dim, approx_min_rows=self._approx_min_rows))
        self._vectors.move_to_end(key)
        head = await self._scope_head(tenant_id, scope)
        if head is None:
            sv.reset()
            sv.edges.reset()
            sv.rev, sv.epoch = 0, 0
            return sv
        if sv.covers(head):
            return sv
        async with sv.lock:
            # A refresh that ran while this search waited read a snapshot taken after ``head``
            # was: it holds every write this caller could have seen, so the search uses it
            # instead of refreshing again. Under continuous writes each waiter refreshed in
            # turn before: recall_text p95 1.8 s instead of 0.5 s under 32 mixed clients (BENCHMARKS.md).
            if sv.covers(head):
                return sv
            full = head[1] != sv.epoch
            since = -1 if full else sv.rev
            snap, rows, edge_rows = await self._direct.cache_rows_since(tenant_id, scope, since)
            await asyncio.to_thread(self._apply_rows, sv, rows, full)
            if full:
                sv.edges.reset()
            sv.edges.apply(edge_rows)
            if snap is not None:
                sv.rev, sv.epoch = snap
            self._charge(key, sv)
        return sv

    def _charge(self, key: tuple[str, str], sv: ScopeVectors) -> None:
        """Count what a refreshed scope now takes, then drop the least recently searched
        scopes while the cache is over its budget (never the one just refreshed)."""
        if self._vectors.get(key) is not sv:  # dropped while it refreshed: no longer counted
            return
        now = sv.approx_bytes()
        self._vector_bytes += now - sv.charged
        sv.charged = now
        while self._vector_bytes > self._vector_cache_bytes and len(self._vectors) > 1:
            oldest, gone = next(iter(self._vectors.items()))
            if oldest == key:
                break
            del self._vectors[oldest]
            self._vector_bytes -= gone.charged

    async def _scope_head(self, tenant_id: str, scope: str) -> tuple[int, int] | None:
        """(rev, epoch) of the scope, or None before its first write; inside
        ``one_view_per_scope`` (a recall), the head its first stage read."""
        pinned = pinned_heads()
        key = (tenant_id, scope)
        if pinned is not None and key in pinned:
            return pinned[key]
        head = await self._direct.scope_head(tenant_id, scope)
        if pinned is not None:
            pinned[key] = head
        return head

    # --- hot reads: plain sqlite3 and the scope caches (direct_reads.py, vector_cache.py) --
    async def get_nodes(self, tenant_id: str, scope: str | None, ids: Sequence[str]) -> list[Node]:
        return await self._direct.get_nodes(tenant_id, scope, ids)

    async def edges_touching(
        self,
        tenant_id: str,
        scope: str,
        node_ids: Sequence[str],
        *,
        min_weight: float,
        min_confidence: float,
        limit: int,
        types: Sequence[str] | None = None,
    ) -> list[Edge]:
        if not node_ids or limit <= 0:
            return []
        sv = await self._scope_vectors(tenant_id, scope)
        return sv.edges.around(node_ids, min_weight=min_weight, min_confidence=min_confidence, limit=limit, types=types)

    async def node_briefs(self, tenant_id: str, scope: str, ids: Sequence[str]) -> list[NodeBrief]:
        if not ids:
            return []
        sv = await self._scope_vectors(tenant_id, scope)
        return sv.briefs(ids)

    async def get_embeddings(self, tenant_id: str, scope: str, ids: Sequence[str]) -> dict[str, Vector]:
        if not ids:
            return {}
        if (tenant_id, scope) not in self._vectors:
            # a scope nobody searched (an export's pages): read these rows, not the whole scope
            # into a cache it would then keep
            return await self._direct.get_embeddings(tenant_id, scope, ids)
        found = (await self._scope_vectors(tenant_id, scope)).vectors(ids)
        rest = [i for i in ids if i not in found]  # not ready, or of another dimension
        if rest:
            found.update(await self._direct.get_embeddings(tenant_id, scope, rest))
        return found

    async def _insert_rows(self, conn: AsyncConnection, table: sa.Table, rows: Sequence[dict[str, Any]]) -> None:
        if rows:
            sql, params = insert_statement(table, rows)
            await conn.exec_driver_sql(sql, params)

    @staticmethod
    def _apply_rows(sv: ScopeVectors, rows: Sequence[Any], full: bool) -> None:
        if full:
            sv.reset()
        sv.apply(rows)

    async def vector_search(self, tenant_id: str, scope: str, query: Vector, k: int, flt: SeedFilter) -> list[ScoredId]:
        if len(query) != self.vector_dim:
            return []
        sv = await self._scope_vectors(tenant_id, scope)
        q = np.asarray(query, dtype=np.float32)
        norm = float(np.linalg.norm(q))
        if norm > 0:
            q = q / norm
        return sv.search(q, k, flt)

    async def keyword_search(self, tenant_id: str, scope: str, text: str, k: int, flt: SeedFilter) -> list[ScoredId]:
        terms = query_terms(text)
        if not terms or k <= 0:
            return []
        # Posting lists from the FTS index, BM25 over the scope's cached rows (keyword_rank.py):
        # 0.4 ms instead of 4.5 ms for FTS5's bm25() at 100k nodes.
        sv = await self._scope_vectors(tenant_id, scope)
        postings = await self._direct.keyword_postings(terms, self._term_counts)
        return sv.keyword_hits(postings, k, flt)

    # --- jobs ---------------------------------------------------------------------------
    async def lease_jobs(
        self,
        worker_id: str,
        kinds: Sequence[str] | None,
        *,
        limit: int,
        lease_sec: float,
        now: datetime,
        per_key: bool = False,
        budget: LeasePicker | None = None,
    ) -> list[Job]:
        """The database lock of BEGIN IMMEDIATE keeps other workers out until the leases are
        written, so the heads ``per_key`` picks cannot change under it."""
        if limit <= 0:
            return []
        expires = now + timedelta(seconds=lease_sec)

        async def tx(conn: AsyncConnection) -> list[Job]:
            candidates = await self._lease_candidates(conn, kinds, now, limit=limit, per_key=per_key, lock=False)
            leased = budget.pick(candidates) if budget is not None else candidates
            for job in leased:
                job.status, job.lease_owner, job.lease_expires_at = "running", worker_id, expires
                job.attempts += 1
                job.updated_at = now
                await conn.execute(
                    jobs.update()
                    .where(jobs.c.tenant_id == job.tenant_id, jobs.c.id == job.id)
                    .values(
                        status=job.status,
                        lease_owner=worker_id,
                        lease_expires_at=expires,
                        attempts=job.attempts,
                        updated_at=now,
                    )
                )
            return leased

        return await self._in_write_tx(tx)
