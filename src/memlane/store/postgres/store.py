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

Tuning comes from the caller (``build_store`` passes ``Settings``; config.py documents each):
the pool's overflow, the HNSW candidate list per query (``ef_search``), pgvector 0.8's
iterative scan (``relaxed_order`` keeps scanning the graph until a filtered query has k
results), and the index's graph parameters, used when the index is created. The store checks
the ranges again, since it can be built without ``Settings``; errors name the variables.
"""

from __future__ import annotations

import contextlib
import math
import re
import time
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import numpy as np
import sqlalchemy as sa
from sqlalchemy import event, exc
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine

from memlane.domain.model import Edge, Job, Node, NodeBrief, ScoredId, SeedFilter
from memlane.store import availability, read_routing
from memlane.store.base import LeasePicker, PendingEmbedding, Vector, job_from_row
from memlane.store.error_text import ENGINE_OPTIONS
from memlane.store.postgres import direct_reads, vector_codec
from memlane.store.schema import jobs, scope_heads
from memlane.store.sql.core import ScopeHead
from memlane.store.sql.erasure import ERASED_TABLES
from memlane.store.sql.jobs import job_row, stored_job
from memlane.store.sql.store import SqlStore
from memlane.store.term_selection import CACHE_SECONDS, CACHE_SIZE, MAX_DOCS_PER_TERM, CountCache, choose_terms
from memlane.store.urls import async_url

DEFAULT_MAX_OVERFLOW = 10
DEFAULT_EF_SEARCH = 100
#: HNSW graph parameters: pgvector's m, and twice its ef_construction (at 1M clustered
#: vectors recall@10 at ef_search 100 rose from 0.945 to 0.968; the build took 36% longer)
DEFAULT_HNSW_M = 16
DEFAULT_HNSW_EF_CONSTRUCTION = 128
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
#: words are counted up to this many times the keyword bound, enough to tell the rarest apart
TERM_COUNT_CAP = 20
#: a word the statistics estimate in more than this many times the keyword bound is common
#: without counting it: at 1M nodes their sampled estimates were within 5% of the counts
STATS_MARGIN = 2
#: at most this many times the keyword bound of documents are ranked per statement
RANKED_FACTOR = 2


def two_words_or_one(chosen: Sequence[str], present: Sequence[str]) -> tuple[str | None, str]:
    """``to_tsquery`` expressions that split the documents of ``chosen``: those that hold
    another word of ``present`` too, and those that hold only the one (``None`` for the first
    when there is no other word)."""
    two: list[str] = []
    one: list[str] = []
    for word in chosen:
        others = " | ".join(w for w in present if w != word)
        two += [f"({word} & ({others}))"] if others else []
        one.append(f"({word} & !({others}))" if others else word)
    return (" | ".join(two) or None), " | ".join(one)


def query_words(text: str) -> list[str]:
    """Distinct words of free text for an any-word ``to_tsquery``.

    Only runs of letters and digits survive, so quotes, ``&``, ``|``, ``!``, ``<->``, ``:``,
    ``*`` and parentheses in user input never reach the query parser; the query string is
    also bound as a parameter, never spliced into SQL.
    """
    return list(dict.fromkeys(_WORD.findall(text.lower())))[:MAX_QUERY_WORDS]


@dataclass(frozen=True, slots=True)
class KeywordQuery:
    """One keyword search's fixed part: where it looks, what the reader may see, and the
    scope's size and mean length that BM25 scores with (direct_reads.keyword_statement)."""

    tenant_id: str
    scope: str
    flt: SeedFilter
    docs: int
    average_length: float

    async def ranked(
        self,
        conn: Any,
        match: str,
        rank_words: Sequence[str],
        k: int,
        *,
        doc_freqs: Sequence[int] | None = None,
        candidates: int | None = None,
    ) -> list[tuple[str, float]]:
        statement = direct_reads.keyword_statement(
            self.tenant_id,
            self.scope,
            match,
            rank_words,
            k,
            self.flt,
            docs=self.docs,
            average_length=self.average_length,
            doc_freqs=doc_freqs,
            candidates=candidates,
        )
        return await direct_reads.keyword_ranked(conn, statement)


class PostgresStore(SqlStore):
    backend = "postgres"

    def __init__(
        self,
        url: str,
        *,
        vector_dim: int,
        pool_size: int = 10,
        max_overflow: int = DEFAULT_MAX_OVERFLOW,
        ef_search: int = DEFAULT_EF_SEARCH,
        iterative_scan: str = DEFAULT_ITERATIVE_SCAN,
        hnsw_m: int = DEFAULT_HNSW_M,
        hnsw_ef_construction: int = DEFAULT_HNSW_EF_CONSTRUCTION,
        pool_timeout: float = 30.0,
        keyword_term_max_docs: int = MAX_DOCS_PER_TERM,
    ):
        super().__init__(url, vector_dim=vector_dim)
        self.keyword_term_max_docs = keyword_term_max_docs
        self._term_counts = CountCache()
        self._scope_sizes: dict[tuple[str, str], tuple[float, int, float]] = {}
        self.pool_size = pool_size
        if max_overflow < 0:
            raise ValueError(f"MEMLANE_DB_MAX_OVERFLOW must be 0 or more, got {max_overflow}")
        self.max_overflow = max_overflow
        if not 1 <= ef_search <= 1000:
            raise ValueError(f"MEMLANE_PG_EF_SEARCH must be in 1..1000 (pgvector's range), got {ef_search}")
        self.ef_search = ef_search
        if iterative_scan not in ITERATIVE_SCAN_MODES:
            raise ValueError(f"MEMLANE_PG_ITERATIVE_SCAN must be one of {ITERATIVE_SCAN_MODES}, got {iterative_scan!r}")
        self.iterative_scan = iterative_scan
        self.hnsw_m = hnsw_m
        self.hnsw_ef_construction = hnsw_ef_construction
        if not 2 <= self.hnsw_m <= 100:
            raise ValueError(f"MEMLANE_PG_HNSW_M must be in 2..100 (pgvector's range), got {self.hnsw_m}")
        if not 2 * self.hnsw_m <= self.hnsw_ef_construction <= 1000:
            raise ValueError(
                "MEMLANE_PG_HNSW_EF_CONSTRUCTION must be in 2 x MEMLANE_PG_HNSW_M..1000 (pgvector's range), "
                f"got {self.hnsw_ef_construction} with m {self.hnsw_m}"
            )
        self.pool_timeout = pool_timeout
        # The index type that fits the dimension; above 4000 there is no ANN index, only exact search.
        if vector_dim <= MAX_VECTOR_INDEX_DIM:
            self.index_kind: str | None = "vector"
        elif vector_dim <= MAX_HALFVEC_INDEX_DIM:
            self.index_kind = "halfvec"
        else:
            self.index_kind = None
        self.index_name = f"ix_nodes_embedding_hnsw_{vector_dim}"

    async def _purge(self, tenant_id: str, scopes: Sequence[str]) -> None:
        """After an erasure: VACUUM the tables it wrote, outside any transaction (VACUUM
        refuses one). It removes the dead rows' index entries (the HNSW and GIN indexes
        included) and makes their space reusable; it does not rewrite the files, so bytes may
        stay in free space and in WAL segments until overwritten (docs/operations.md)."""
        self._term_counts.clear()
        self._scope_sizes.clear()
        async with self.engine.connect() as conn:
            auto = await conn.execution_options(isolation_level="AUTOCOMMIT")
            for table in (*ERASED_TABLES, "audit_events", "scope_heads"):
                await auto.exec_driver_sql(f"VACUUM (ANALYZE) {table}")

    # --- lifecycle ----------------------------------------------------------------------
    def _create_engine(self) -> AsyncEngine:
        engine = create_pg_engine(
            self.url, pool_size=self.pool_size, max_overflow=self.max_overflow, pool_timeout=self.pool_timeout
        )
        # a commit on the primary: the request's response carries a position (read_routing.py)
        event.listen(engine.sync_engine, "commit", lambda _conn: read_routing.note_commit())
        return engine

    async def open(self) -> None:
        await super().open()
        try:
            await self._ensure_vector_index()
        except BaseException:
            await self.close()
            raise

    def _read_engine(self) -> AsyncEngine:
        """The replica the current request's reads were routed to (store/read_routing.py), or
        the primary: every read connection below is taken from it, every write's from the primary."""
        routed: AsyncEngine | None = read_routing.routed_engine()
        return routed if routed is not None else self.engine

    @contextlib.asynccontextmanager
    async def _read(self) -> AsyncIterator[AsyncConnection]:
        """Reads run in autocommit: no BEGIN/ROLLBACK round trips around each lookup."""
        async with self._read_engine().connect() as conn:
            yield await conn.execution_options(isolation_level="AUTOCOMMIT")

    @contextlib.asynccontextmanager
    async def _driver(self) -> AsyncIterator[Any]:
        """A pooled connection's asyncpg connection, for direct_reads.py. Statements run in
        asyncpg's autocommit; the pool still checks the connection out and back in."""
        async with self._read_engine().connect() as conn:
            raw = await conn.get_raw_connection()
            driver = raw.driver_connection
            try:
                yield driver
            except Exception as error:
                # these statements bypass SQLAlchemy's error hook (availability.install)
                unavailable = availability.as_store_unavailable(error)
                if unavailable is None:
                    raise
                # drop it: closed, mid-operation, or on a node that is no longer the primary
                await conn.invalidate()
                raise unavailable from error
            except BaseException:
                # cancelled mid-statement: the connection would go back to the pool with an
                # operation in progress; closed now, the checkout hook discards it
                if driver is not None:
                    driver.terminate()
                raise

    # --- lookups by id (direct_reads.py) ----------------------------------------------------
    async def get_nodes(self, tenant_id: str, scope: str | None, ids: Sequence[str]) -> list[Node]:
        if not ids:
            return []
        async with self._driver() as conn:
            return await direct_reads.get_nodes(conn, tenant_id, scope, ids)

    async def node_briefs(self, tenant_id: str, scope: str, ids: Sequence[str]) -> list[NodeBrief]:
        if not ids:
            return []
        async with self._driver() as conn:
            return await direct_reads.node_briefs(conn, tenant_id, scope, ids)

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
        async with self._driver() as conn:
            return await direct_reads.edges_touching(
                conn,
                tenant_id,
                scope,
                node_ids,
                min_weight=min_weight,
                min_confidence=min_confidence,
                limit=limit,
                types=types,
            )

    async def get_embeddings(self, tenant_id: str, scope: str, ids: Sequence[str]) -> dict[str, Vector]:
        if not ids:
            return {}
        async with self._driver() as conn:
            return await direct_reads.get_embeddings(conn, tenant_id, scope, ids)

    def index_ddl(self) -> str | None:
        """The HNSW index for the configured dimension (also quoted in docs/operations.md).
        An index that exists is kept as it is: other graph parameters take a rebuild."""
        if self.index_kind is None:
            return None
        dim, kind = self.vector_dim, self.index_kind
        return (
            f"CREATE INDEX IF NOT EXISTS {self.index_name} ON nodes "
            f"USING hnsw ((embedding::{kind}({dim})) {kind}_cosine_ops) "
            f"WITH (m = {int(self.hnsw_m)}, ef_construction = {int(self.hnsw_ef_construction)}) "
            f"WHERE embedding_dim = {dim}"
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
            hnsw_m=self.hnsw_m,
            hnsw_ef_construction=self.hnsw_ef_construction,
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
    async def vector_search(self, tenant_id: str, scope: str, query: Vector, k: int, flt: SeedFilter) -> list[ScoredId]:
        if k <= 0 or len(query) != self.vector_dim:
            return []
        kind = self.index_kind or "vector"
        ef = min(max(self.ef_search, k), 1000)
        # JIT compiling an exact scan costs tens of milliseconds and saves nothing here.
        settings = (
            f"SET LOCAL hnsw.ef_search = {ef}; SET LOCAL hnsw.iterative_scan = {self.iterative_scan}; "
            "SET LOCAL jit = off"
        )
        async with self._driver() as conn:
            rows = await direct_reads.nearest(
                conn,
                tenant_id,
                scope,
                np.asarray(query, dtype=np.float32),
                k,
                flt,
                kind=kind,
                dim=self.vector_dim,
                settings=settings,
            )
        hits = [ScoredId(nid, _similarity(distance)) for nid, distance in rows]
        # relaxed_order may return neighbours slightly out of order
        hits.sort(key=lambda h: -h.score)
        return hits

    async def keyword_search(self, tenant_id: str, scope: str, text: str, k: int, flt: SeedFilter) -> list[ScoredId]:
        """The ``k`` best matches of the rarer words (term_selection.py), scored by BM25 as
        SQLite scores them (store/bm25.py).

        When the chosen words match more than ``RANKED_FACTOR`` x the keyword bound of
        documents (every word of the question common: at 1M nodes a first name matched 28,000,
        and ranking them all took 100 ms), the documents that hold two words of the question
        are ranked first (the index intersects the words, no row is read for the rest), and if
        they are fewer than ``k``, those that hold one fill up from a bounded sample of them:
        at most that many documents per statement."""
        words = query_words(text)
        if not words or k <= 0:
            return []
        async with self._driver() as conn:
            counts = await self._word_counts(conn, words)
            chosen = choose_terms([(w, counts.get(w, 0)) for w in words], self.keyword_term_max_docs)
            if not chosen:
                return []
            docs, average_length = await self._scope_stats(conn, tenant_id, scope)
            query = KeywordQuery(tenant_id, scope, flt, docs=docs, average_length=average_length)
            bound = RANKED_FACTOR * self.keyword_term_max_docs
            if self.keyword_term_max_docs <= 0 or sum(counts.get(w, 0) for w in chosen) <= bound:
                # every document of the chosen words, scored by them: SQLite's ranking
                rows = await query.ranked(conn, " | ".join(chosen), chosen, k)
                return [ScoredId(nid, rank) for nid, rank in rows]
            rows = await self._bounded_matches(conn, query, words, counts, chosen, k=k, bound=bound)
        rows.sort(key=lambda r: (-r[1], r[0]))
        return [ScoredId(nid, rank) for nid, rank in rows]

    @staticmethod
    async def _bounded_matches(
        conn: Any,
        query: KeywordQuery,
        words: Sequence[str],
        counts: Mapping[str, int],
        chosen: Sequence[str],
        *,
        k: int,
        bound: int,
    ) -> list[tuple[str, float]]:
        """Too many matches to rank them all: those holding two words of the question first,
        then those holding one, each statement reading at most ``bound`` of them."""
        present = [w for w in words if counts.get(w, 0) > 0]
        # a sample of the matches cannot count the words: their counts over the whole
        # index stand in, at most the scope's size
        freqs = [min(counts[w], query.docs) for w in present]
        two, one = two_words_or_one(chosen, present)
        rows: list[tuple[str, float]] = []
        if two:
            rows = await query.ranked(conn, two, present, k, doc_freqs=freqs, candidates=bound)
        if len(rows) < k:
            rows += await query.ranked(conn, one, present, k - len(rows), doc_freqs=freqs, candidates=bound)
        return rows

    async def _scope_stats(self, conn: Any, tenant_id: str, scope: str) -> tuple[int, float]:
        """The scope's document count and mean length for BM25. Read fresh for a scope of up
        to ``SCOPE_LENGTH_SAMPLE`` rows (cheap, and exactly what SQLite uses); a larger one's
        are cached as briefly as the word counts (counting 300k rows took 15-22 ms), where a
        minute's writes barely move them."""
        key = (tenant_id, scope)
        hit = self._scope_sizes.get(key)
        now = time.monotonic()
        if hit is not None and now - hit[0] < CACHE_SECONDS:
            return hit[1], hit[2]
        docs, average_length = await direct_reads.scope_stats(conn, tenant_id, scope)
        if docs > direct_reads.SCOPE_LENGTH_SAMPLE:
            if len(self._scope_sizes) >= CACHE_SIZE:
                self._scope_sizes.clear()
            self._scope_sizes[key] = (now, docs, average_length)
        return docs, average_length

    async def _word_counts(self, conn: Any, words: list[str]) -> dict[str, int]:
        """Documents per word (every tenant), for term_selection.py: ranking every match of
        every word took 1 s per query at 1M nodes. Words the planner's statistics put well
        above the bound are common without counting them (direct_reads.frequent_words); the
        others are counted."""
        if self.keyword_term_max_docs <= 0:
            return {w: 1 for w in words}
        counts = {w: n for w in words if (n := self._term_counts.get(w)) is not None}
        missing = [w for w in words if w not in counts]
        if missing:
            fresh = await direct_reads.frequent_words(conn, missing, above=STATS_MARGIN * self.keyword_term_max_docs)
            unknown = [w for w in missing if w not in fresh]
            if unknown:
                cap = TERM_COUNT_CAP * self.keyword_term_max_docs
                fresh.update(await direct_reads.term_counts(conn, unknown, cap=cap))
            for word, docs in fresh.items():
                self._term_counts.put(word, docs)
            counts.update(fresh)
        return counts

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
            stored = await stored_job(conn, job)
            assert stored is not None, "conflicting job vanished inside the transaction"
            out.append(stored)
        return out

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
        """Lock due jobs other workers have not locked, pick what the budget allows, lease
        those; the rows passed over are unlocked at the commit.

        ``per_key`` picks only the head of each idle key: another worker that is leasing that
        head holds its row lock, so this one skips the key rather than taking the job behind
        it; a head that another worker leased and committed meanwhile fails the recheck of
        ``leasable`` on the locked row."""
        if limit <= 0:
            return []
        async with self._write_tx() as conn:
            candidates = await self._lease_candidates(conn, kinds, now, limit=limit, per_key=per_key, lock=True)
            chosen = budget.pick(candidates) if budget is not None else candidates
            if not chosen:
                return []
            key = sa.tuple_(jobs.c.tenant_id, jobs.c.id)
            stmt = (
                jobs.update()
                .where(key.in_([(j.tenant_id, j.id) for j in chosen]))
                .values(
                    status="running",
                    lease_owner=worker_id,
                    lease_expires_at=now + timedelta(seconds=lease_sec),
                    attempts=jobs.c.attempts + 1,
                    updated_at=now,
                )
                .returning(*jobs.c)
            )
            rows = (await conn.execute(stmt)).all()
        order = {(j.tenant_id, j.id): i for i, j in enumerate(chosen)}
        return sorted((job_from_row(r) for r in rows), key=lambda j: order[(j.tenant_id, j.id)])


def create_pg_engine(url: str, *, pool_size: int, max_overflow: int, pool_timeout: float) -> AsyncEngine:
    """An engine on ``url`` as memlane uses PostgreSQL: the primary's and each read replica's."""
    engine = create_async_engine(
        async_url(url),
        pool_size=pool_size,
        max_overflow=max_overflow,
        pool_timeout=pool_timeout,
        pool_recycle=1800,
        # application_name only: poolers such as PgBouncer refuse other startup parameters.
        # The connection class fails a COMMIT whose synchronous replication was cancelled.
        connect_args={
            "server_settings": {"application_name": "memlane"},
            "connection_class": availability.SyncRepCheckedConnection,
        },
        **ENGINE_OPTIONS,
    )
    # failover, restarts, lost connections: StoreUnavailable (503 + Retry-After), not a 500
    availability.install(engine)

    @event.listens_for(engine.sync_engine, "connect")
    def _on_connect(dbapi_conn: Any, _record: Any) -> None:
        dbapi_conn.run_async(vector_codec.register)

    @event.listens_for(engine.sync_engine, "checkout")
    def _on_checkout(dbapi_conn: Any, _record: Any, _proxy: Any) -> None:
        # Instead of pool_pre_ping's round trip on every checkout (a recall checks out
        # about seven times): a connection the server has closed (restart, failover,
        # idle timeout) is already marked closed by asyncpg, because the event loop reads
        # its socket. The pool then discards it and tries another.
        if dbapi_conn.driver_connection.is_closed():
            raise exc.DisconnectionError("connection closed by the server")

    return engine


def _similarity(distance: float | None) -> float:
    """Cosine similarity from pgvector's cosine distance; NaN (a zero vector) counts as 0."""
    if distance is None:
        return 0.0
    value = 1.0 - float(distance)
    return 0.0 if math.isnan(value) else value


__all__ = ["PostgresStore", "create_pg_engine", "query_words", "two_words_or_one"]
