"""The scale-out store: PostgreSQL with pgvector, shared by any number of API and worker processes.

What differs from SQLite, and why:

* **Writes** serialise per scope, not per database: ``_lock_scope_head`` takes a row lock on
  the scope's head (``SELECT ... FOR UPDATE``), so two API processes writing to one scope chain
  their commits one after the other and the hash chain never forks, while writes to other
  scopes run in parallel.
* **Vectors** live in a ``vector`` column without a fixed dimension (so one database can hold
  several models' vectors); search uses an HNSW index on the expression
  ``embedding::vector(<dim>)``, partial on ``embedding_dim = <dim>``, created by ``open()`` for
  the configured dimension. Queries repeat the exact cast so the planner can use it.
* **Keywords** come from the generated ``tsv`` column (GIN index, migration 0001).
* **Jobs** are leased with ``FOR UPDATE SKIP LOCKED``: any number of workers poll one table and
  never take the same job twice; a killed worker's leases simply expire.

Settings read from the environment when the caller does not pass them (the container passes
only the pool size): ``MEMLANE_DB_MAX_OVERFLOW`` (default 10), ``MEMLANE_PG_EF_SEARCH`` (HNSW
candidate list per query, default 100) and ``MEMLANE_PG_ITERATIVE_SCAN`` (``relaxed_order``
by default, or ``strict_order`` / ``off``; pgvector 0.8 keeps scanning the graph until a
filtered query has k results).
"""

from __future__ import annotations

import contextlib
import math
import os
import re
from collections.abc import AsyncIterator, Sequence
from datetime import datetime, timedelta
from typing import Any

import numpy as np
import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.dialects import postgresql
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine

from memlane.domain.model import Job, ScoredId, SeedFilter
from memlane.store.base import PendingEmbedding, Vector, job_from_row
from memlane.store.postgres import vector_codec
from memlane.store.schema import jobs, nodes, scope_heads
from memlane.store.sql_common import ScopeHead, SqlStore, job_row
from memlane.store.types import PgVector
from memlane.store.urls import async_url

DEFAULT_MAX_OVERFLOW = 10
DEFAULT_EF_SEARCH = 100
DEFAULT_ITERATIVE_SCAN = "relaxed_order"
ITERATIVE_SCAN_MODES = ("off", "relaxed_order", "strict_order")
#: pgvector indexes ``vector`` up to 2000 dimensions and ``halfvec`` up to 4000
MAX_VECTOR_INDEX_DIM = 2000
MAX_HALFVEC_INDEX_DIM = 4000
#: ``pg_advisory_xact_lock`` key that serialises index creation between processes ("mlhnsw")
INDEX_LOCK_KEY = 0x6D6C686E7377
#: letters and digits only: nothing that ``to_tsquery`` could read as an operator
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
MAX_QUERY_WORDS = 64


def _env_int(name: str, default: int) -> int:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        return int(raw)
    except ValueError as exc:
        raise ValueError(f"{name} must be an integer, got {raw!r}") from exc


def tsquery_text(text: str) -> str | None:
    """An any-word ``to_tsquery`` argument from free text.

    Only runs of letters and digits survive, so quotes, ``&``, ``|``, ``!``, ``<->``, ``:``,
    ``*`` and parentheses in user input never reach the query parser; the string is also bound
    as a parameter, never spliced into SQL.
    """
    words = list(dict.fromkeys(_WORD.findall(text.lower())))[:MAX_QUERY_WORDS]
    return " | ".join(words) if words else None


class _FixedVector(PgVector):
    """``vector(<dim>)`` / ``halfvec(<dim>)`` for casts (values travel in binary: vector_codec.py)."""

    cache_ok = True

    def __init__(self, dim: int, kind: str = "vector"):
        self.dim = dim
        self.kind = kind

    def get_col_spec(self, **kw: Any) -> str:
        return f"{self.kind}({self.dim})"


class PostgresStore(SqlStore):
    backend = "postgres"

    def __init__(
        self,
        url: str,
        *,
        vector_dim: int,
        pool_size: int = 10,
        max_overflow: int | None = None,
        ef_search: int | None = None,
        iterative_scan: str | None = None,
        pool_timeout: float = 30.0,
    ):
        super().__init__(url, vector_dim=vector_dim)
        self.pool_size = pool_size
        self.max_overflow = (
            max_overflow if max_overflow is not None else _env_int("MEMLANE_DB_MAX_OVERFLOW", DEFAULT_MAX_OVERFLOW)
        )
        self.ef_search = ef_search if ef_search is not None else _env_int("MEMLANE_PG_EF_SEARCH", DEFAULT_EF_SEARCH)
        if not 1 <= self.ef_search <= 1000:
            raise ValueError(f"MEMLANE_PG_EF_SEARCH must be in 1..1000 (pgvector's range), got {self.ef_search}")
        mode = iterative_scan or os.environ.get("MEMLANE_PG_ITERATIVE_SCAN", "").strip() or DEFAULT_ITERATIVE_SCAN
        if mode not in ITERATIVE_SCAN_MODES:
            raise ValueError(f"MEMLANE_PG_ITERATIVE_SCAN must be one of {ITERATIVE_SCAN_MODES}, got {mode!r}")
        self.iterative_scan = mode
        self.pool_timeout = pool_timeout
        # The index type that fits the dimension; above 4000 there is no ANN index, only exact search.
        if vector_dim <= MAX_VECTOR_INDEX_DIM:
            self.index_kind: str | None = "vector"
        elif vector_dim <= MAX_HALFVEC_INDEX_DIM:
            self.index_kind = "halfvec"
        else:
            self.index_kind = None
        self.index_name = f"ix_nodes_embedding_hnsw_{vector_dim}"

    # --- lifecycle ----------------------------------------------------------------------
    def _create_engine(self) -> AsyncEngine:
        engine = create_async_engine(
            async_url(self.url),
            pool_size=self.pool_size,
            max_overflow=self.max_overflow,
            pool_timeout=self.pool_timeout,
            pool_pre_ping=True,
            pool_recycle=1800,
            # application_name only: poolers such as PgBouncer refuse other startup parameters.
            connect_args={"server_settings": {"application_name": "memlane"}},
        )

        @event.listens_for(engine.sync_engine, "connect")
        def _on_connect(dbapi_conn: Any, _record: Any) -> None:
            dbapi_conn.run_async(vector_codec.register)

        return engine

    async def open(self) -> None:
        await super().open()
        try:
            await self._ensure_vector_index()
        except BaseException:
            await self.close()
            raise

    @contextlib.asynccontextmanager
    async def _read(self) -> AsyncIterator[AsyncConnection]:
        """Reads run in autocommit: no BEGIN/ROLLBACK round trips around each lookup (a recall
        makes about eight). Vector search needs transaction-local settings: ``_read_tx``."""
        async with self.engine.connect() as conn:
            yield await conn.execution_options(isolation_level="AUTOCOMMIT")

    @contextlib.asynccontextmanager
    async def _read_tx(self) -> AsyncIterator[AsyncConnection]:
        async with self.engine.connect() as conn:
            yield conn

    def _one_of(self, column: Any, values: Sequence[str]) -> Any:
        return column == sa.any_(sa.bindparam(None, list(values), type_=postgresql.ARRAY(sa.String)))

    def index_ddl(self) -> str | None:
        """The HNSW index for the configured dimension (also quoted in docs/operations.md)."""
        if self.index_kind is None:
            return None
        dim, kind = self.vector_dim, self.index_kind
        return (
            f"CREATE INDEX IF NOT EXISTS {self.index_name} ON nodes "
            f"USING hnsw ((embedding::{kind}({dim})) {kind}_cosine_ops) WHERE embedding_dim = {dim}"
        )

    async def _ensure_vector_index(self) -> None:
        ddl = self.index_ddl()
        if ddl is None:
            return
        async with self.engine.connect() as conn:
            exists = (
                await conn.execute(sa.text("SELECT to_regclass(:name) IS NOT NULL"), {"name": self.index_name})
            ).scalar()
        if exists:
            return
        async with self.engine.begin() as conn:
            # Several processes may start at once: one builds, the others wait and find it.
            await conn.execute(sa.text("SELECT pg_advisory_xact_lock(:key)"), {"key": INDEX_LOCK_KEY})
            await conn.execute(sa.text(ddl))

    async def pool_stats(self) -> dict[str, Any]:
        stats = await super().pool_stats()
        pool: Any = self.engine.pool
        stats.update(
            pool_size=int(pool.size()),
            max_overflow=self.max_overflow,
            hnsw_index=self.index_name if self.index_kind else None,
            hnsw_ef_search=self.ef_search,
            hnsw_iterative_scan=self.iterative_scan,
        )
        return stats

    # --- write serialisation ------------------------------------------------------------
    async def _lock_scope_head(self, conn: AsyncConnection, tenant_id: str, scope: str, now: datetime) -> ScopeHead:
        """Row-lock the scope's head until the transaction ends; create it on first use.

        The common case (the scope exists) is one round trip. For a new scope, ``ON CONFLICT
        DO NOTHING`` lets two first writers race safely: the loser waits for the winner's
        insert, and both then lock the same row in turn.
        """
        select = (
            sa.select(scope_heads)
            .where(scope_heads.c.tenant_id == tenant_id, scope_heads.c.scope == scope)
            .with_for_update()
        )
        row = (await conn.execute(select)).first()
        if row is None:
            await conn.execute(
                pg_insert(scope_heads)
                .values(
                    tenant_id=tenant_id,
                    scope=scope,
                    head_commit_id=None,
                    head_hash=None,
                    commit_seq=0,
                    rev=0,
                    epoch=0,
                    updated_at=now,
                )
                .on_conflict_do_nothing(index_elements=[scope_heads.c.tenant_id, scope_heads.c.scope])
            )
            row = (await conn.execute(select)).first()
            assert row is not None, "scope head vanished inside the transaction"
        return ScopeHead(row.head_commit_id, row.head_hash, row.commit_seq, row.rev, row.epoch)

    async def _allocate_row_numbers(self, conn: AsyncConnection, count: int) -> list[int]:
        if count <= 0:
            return []
        rows = await conn.execute(
            sa.text("SELECT nextval('nodes_row_no_seq') FROM generate_series(1, :n)"), {"n": count}
        )
        return [int(r[0]) for r in rows]

    async def set_embeddings(
        self, items: Sequence[tuple[PendingEmbedding, Vector]], model_id: str, *, now: datetime
    ) -> list[str]:
        # The shared implementation locks each scope head in first-seen order; two workers
        # holding items of the same two scopes in opposite orders would deadlock on PostgreSQL
        # (SQLite has one database lock). A fixed order makes that impossible.
        ordered = sorted(items, key=lambda item: (item[0].tenant_id, item[0].scope))
        return await super().set_embeddings(ordered, model_id, now=now)

    # --- search -------------------------------------------------------------------------
    def _distance(self) -> tuple[Any, Any]:
        """``(distance expression, query bind)`` with the index's cast on both sides."""
        kind = self.index_kind or "vector"
        cast_type = _FixedVector(self.vector_dim, kind)
        column = sa.cast(nodes.c.embedding, cast_type)
        query = sa.cast(sa.bindparam("query_vector", type_=PgVector()), cast_type)
        return column.op("<=>", return_type=sa.Float)(query), query

    async def vector_search(self, tenant_id: str, scope: str, query: Vector, k: int, flt: SeedFilter) -> list[ScoredId]:
        if k <= 0 or len(query) != self.vector_dim:
            return []
        q = np.asarray(query, dtype=np.float32)
        distance, _ = self._distance()
        cond = [
            *self._filter_conditions(tenant_id, scope, flt),
            nodes.c.embedding_status == "ready",
            # a literal, not a parameter: the planner must see it to use the partial index
            nodes.c.embedding_dim == sa.literal_column(str(int(self.vector_dim))),
        ]
        ann = sa.select(nodes.c.id, distance.label("distance")).where(*cond).order_by(distance).limit(k)
        params = {"query_vector": q}
        async with self._read_tx() as conn:
            # Transaction-local settings (SET LOCAL), so they hold behind a transaction pooler
            # too and never leak to the connection's next user. JIT compiling an exact scan
            # costs tens of milliseconds and saves nothing on queries this size.
            await conn.execute(
                sa.text(
                    "SELECT set_config('hnsw.ef_search', :ef, true), "
                    "set_config('hnsw.iterative_scan', :it, true), set_config('jit', 'off', true)"
                ),
                {"ef": str(min(max(self.ef_search, k), 1000)), "it": self.iterative_scan},
            )
            rows = (await conn.execute(ann, params)).all()
            if len(rows) < k:
                # The index may stop early under a restrictive filter (pgvector scans at most
                # hnsw.max_scan_tuples); an exact scan of the filtered rows settles it. An
                # ORDER BY the index cannot serve keeps the planner off the HNSW index.
                exact = sa.select(nodes.c.id, distance.label("distance")).where(*cond).order_by(distance + 0).limit(k)
                rows = (await conn.execute(exact, params)).all()
        hits = [ScoredId(r.id, _similarity(r.distance)) for r in rows]
        # relaxed_order may return neighbours slightly out of order
        hits.sort(key=lambda h: -h.score)
        return hits

    async def keyword_search(self, tenant_id: str, scope: str, text: str, k: int, flt: SeedFilter) -> list[ScoredId]:
        words = tsquery_text(text)
        if words is None or k <= 0:
            return []
        tsquery = sa.func.to_tsquery(sa.literal_column("'english'::regconfig"), sa.bindparam("words", words))
        tsv: sa.ColumnElement[Any] = sa.literal_column("nodes.tsv")
        rank = sa.func.ts_rank_cd(tsv, tsquery)
        q = (
            sa.select(nodes.c.id, rank.label("rank"))
            .where(tsv.op("@@")(tsquery), *self._filter_conditions(tenant_id, scope, flt))
            .order_by(rank.desc(), nodes.c.id)
            .limit(k)
        )
        async with self._read() as conn:
            rows = (await conn.execute(q)).all()
        return [ScoredId(r.id, float(r.rank)) for r in rows]

    # --- jobs ---------------------------------------------------------------------------
    async def _insert_jobs(self, conn: AsyncConnection, items: Sequence[Job], now: datetime) -> list[Job]:
        """Like the shared version, but two processes enqueueing the same idempotency key at
        once both get the one stored job instead of a unique violation."""
        out: list[Job] = []
        for job in items:
            job.created_at = job.updated_at = now
            job.run_after = job.run_after or now
            stmt = pg_insert(jobs).values(**job_row(job, now))
            if job.idempotency_key is None:
                await conn.execute(stmt)
                out.append(job)
                continue
            inserted = (
                await conn.execute(
                    stmt.on_conflict_do_nothing(
                        index_elements=[jobs.c.tenant_id, jobs.c.kind, jobs.c.idempotency_key]
                    ).returning(jobs.c.id)
                )
            ).first()
            if inserted is not None:
                out.append(job)
                continue
            row = (
                await conn.execute(
                    sa.select(jobs).where(
                        jobs.c.tenant_id == job.tenant_id,
                        jobs.c.kind == job.kind,
                        jobs.c.idempotency_key == job.idempotency_key,
                    )
                )
            ).first()
            assert row is not None, "conflicting job vanished inside the transaction"
            out.append(job_from_row(row))
        return out

    async def lease_jobs(
        self, worker_id: str, kinds: Sequence[str] | None, *, limit: int, lease_sec: float, now: datetime
    ) -> list[Job]:
        """One statement: lock due jobs other workers have not locked, and lease them."""
        if limit <= 0:
            return []
        due = (
            sa.select(jobs.c.tenant_id, jobs.c.id)
            .where(*self._leasable(kinds, now))
            .order_by(jobs.c.run_after)
            .limit(limit)
            .with_for_update(skip_locked=True)
        )
        stmt = (
            jobs.update()
            .where(sa.tuple_(jobs.c.tenant_id, jobs.c.id).in_(due))
            .values(
                status="running",
                lease_owner=worker_id,
                lease_expires_at=now + timedelta(seconds=lease_sec),
                attempts=jobs.c.attempts + 1,
                updated_at=now,
            )
            .returning(*jobs.c)
        )
        async with self._write_tx() as conn:
            rows = (await conn.execute(stmt)).all()
        leased = [job_from_row(r) for r in rows]
        leased.sort(key=lambda j: (j.run_after or now, j.created_at or now))
        return leased


def _similarity(distance: float | None) -> float:
    """Cosine similarity from pgvector's cosine distance; NaN (a zero vector) counts as 0."""
    if distance is None:
        return 0.0
    value = 1.0 - float(distance)
    return 0.0 if math.isnan(value) else value


__all__ = ["PostgresStore", "tsquery_text"]
