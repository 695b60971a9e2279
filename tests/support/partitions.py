"""A memlane schema hash-partitioned by ``tenant_id``, and the checker that every statement
memlane sends to it reads or changes one partition.

This is the step towards distributing the tables by tenant (Citus, docs/operations.md): a
distributed table needs what a hash-partitioned one needs (the key in every primary and unique
key), and a statement that PostgreSQL prunes to one partition is one Citus routes to one shard.

The schema is built test-only: the migrations run as always, then every tenant-keyed table is
swapped, while still empty, for a table ``PARTITION BY HASH (tenant_id)`` with ``PARTITIONS``
partitions and the same columns, defaults, generated columns, primary key and indexes under
their own names. Nothing else differs from the migrated schema (docs/testing.md).
"""

from __future__ import annotations

import json
import re
import sys
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from types import FrameType
from typing import Any

import greenlet
import pytest
from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlalchemy.ext.asyncio import create_async_engine
from sqlalchemy.pool import Pool

from memlane.store import migrate
from memlane.store.postgres import direct_reads, vector_codec
from memlane.store.postgres.store import PostgresStore
from memlane.store.urls import async_url
from tests.support.settings import DIM

#: every table keyed by tenant (server_secrets and alembic_version are not tenant data)
TENANT_TABLES = (
    "nodes",
    "edges",
    "commits",
    "scope_heads",
    "jobs",
    "recall_audit",
    "audit_events",
    "knowledge_items",
    "knowledge_versions",
    "knowledge_sync_state",
    "knowledge_sync_runs",
    "batcher_buffers",
)
#: three: enough for the suites' tenants to sit apart (with four or eight "t1" and "t2" share
#: one), and each test's copy of the template has half the files six would give
PARTITIONS = 3
#: the tenants the store suites write side by side; each must hash to a partition of its
#: own, or a statement that reads two of them would look pruned to one
SUITE_TENANTS = ("t1", "t2", "other")


def partition_name(table: str, remainder: int) -> str:
    return f"{table}_p{remainder}"


async def _partition_table(conn: Any, table: str) -> None:
    """Swap an empty table for a hash-partitioned one with the same definition and names."""
    key = await conn.fetchrow(
        "SELECT conname, pg_get_constraintdef(oid) AS def FROM pg_constraint "
        "WHERE conrelid = $1::regclass AND contype = 'p'",
        table,
    )
    indexes = await conn.fetch(
        "SELECT indexdef FROM pg_indexes WHERE schemaname = current_schema() AND tablename = $1 AND indexname <> $2",
        table,
        key["conname"],
    )
    old = f"{table}_unpartitioned"
    await conn.execute(f"ALTER TABLE {table} RENAME TO {old}")
    await conn.execute(
        f"CREATE TABLE {table} (LIKE {old} INCLUDING DEFAULTS INCLUDING GENERATED INCLUDING CONSTRAINTS "
        "INCLUDING STORAGE) PARTITION BY HASH (tenant_id)"
    )
    for remainder in range(PARTITIONS):
        await conn.execute(
            f"CREATE TABLE {partition_name(table, remainder)} PARTITION OF {table} "
            f"FOR VALUES WITH (MODULUS {PARTITIONS}, REMAINDER {remainder})"
        )
    await conn.execute(f"DROP TABLE {old}")
    await conn.execute(f"ALTER TABLE {table} ADD CONSTRAINT {key['conname']} {key['def']}")
    for index in indexes:
        await conn.execute(index["indexdef"])


async def partition_by_tenant(url: str) -> None:
    """Turn a freshly migrated, empty database's tenant tables into hash-partitioned ones."""
    import asyncpg

    conn = await asyncpg.connect(url)
    try:
        async with conn.transaction():
            for table in TENANT_TABLES:
                await _partition_table(conn, table)
        homes = {
            tenant: await conn.fetchval(
                "SELECT r FROM generate_series(0, $2 - 1) AS r "
                "WHERE satisfies_hash_partition('nodes'::regclass, $2, r, $1::varchar)",
                tenant,
                PARTITIONS,
            )
            for tenant in SUITE_TENANTS
        }
        assert len(set(homes.values())) == len(SUITE_TENANTS), f"suite tenants share a partition: {homes}"
    finally:
        await conn.close()


# --- the template database: migrated and partitioned once per session ------------------------
def partitioned_database_url(request: pytest.FixtureRequest) -> str:
    """A new database copied from a session-wide template that holds the partitioned schema
    at the head revision: a copy costs less than migrating and partitioning each time (0.2 s
    against 0.5 s, measured on the 2-core machine)."""
    from tests.support.pg import PgCluster, run_sync

    cluster: PgCluster = request.getfixturevalue("pg_cluster")
    template = request.config.stash.get(_TEMPLATE, None)
    if template is None:
        template, url = cluster.create_database()
        migrate.upgrade(url)
        run_sync(partition_by_tenant(url))
        run_sync(_build_vector_index(url))
        request.config.stash[_TEMPLATE] = template
    name = f"t_{uuid.uuid4().hex}"
    run_sync(cluster._admin(f'CREATE DATABASE "{name}" TEMPLATE "{template}"'))
    request.addfinalizer(lambda: cluster.drop_database(name))
    return cluster.url_for(name)


_TEMPLATE = pytest.StashKey[str]()


async def _build_vector_index(url: str) -> None:
    """The HNSW index the store creates when it opens, for the suites' dimension, built once
    in the template (one graph per partition) rather than by each test's store."""
    store = PostgresStore(url, vector_dim=DIM)
    await store.open()
    await store.close()


# --- recording what memlane sends ----------------------------------------------------------
@dataclass(frozen=True)
class Sent:
    """One statement as the driver received it, with its arguments and the memlane function
    that sent it (the innermost frame of the ``memlane`` package on the stack)."""

    sql: str
    args: tuple[Any, ...]
    caller: str


def _memlane_caller() -> str:
    """SQLAlchemy's asyncio layer runs the statement in a greenlet of its own, whose stack
    ends at its start: the coroutines that awaited it are on the stack of the greenlet that
    switched to it, where that one is suspended (``parent.gr_frame``)."""
    frame: FrameType | None = sys._getframe(2)
    current: Any = greenlet.getcurrent()
    while True:
        while frame is not None:
            module = frame.f_globals.get("__name__", "")
            if module.startswith("memlane.") and not module.startswith(_PLUMBING):
                return f"{module}.{frame.f_code.co_qualname}"
            frame = frame.f_back
        current = current.parent
        if current is None:
            return "?"
        frame = current.gr_frame


def _direct_read(sql: str) -> str:
    for name, value in vars(direct_reads).items():
        if value == sql:
            return f"{direct_reads.__name__}.{name}"
    return f"{direct_reads.__name__} (a statement built per call)"


#: memlane modules every statement passes through on its way to the driver
_PLUMBING = ("memlane.store.availability", "memlane.store.error_text")


@dataclass
class StatementLog:
    """Every statement sent to PostgreSQL in this process while it is installed.

    Two paths reach asyncpg: SQLAlchemy's (seen by ``before_cursor_execute``: asyncpg runs
    those as prepared statements, which its query logger does not see) and the store's direct
    reads on the asyncpg connection (postgres/direct_reads.py, seen by asyncpg's query logger,
    which each new pooled connection gets)."""

    sent: list[Sent] = field(default_factory=list)

    def _on_cursor(self, _conn: Any, _cursor: Any, sql: str, params: Any, _ctx: Any, many: bool) -> None:
        caller = _memlane_caller()
        for args in params if many else [params]:
            self.sent.append(Sent(sql, tuple(args or ()), caller))

    def _on_query(self, logged: Any) -> None:
        # asyncpg calls its loggers from the event loop after the statement, off the caller's
        # stack: only the store's direct reads come this way, named by their statement
        caller = _direct_read(logged.query)
        # ``fetch`` and friends log their arguments as a tuple, ``executemany`` its list of rows
        rows = [logged.args] if isinstance(logged.args, tuple) else list(logged.args or [()])
        for args in rows:
            self.sent.append(Sent(logged.query, tuple(args), caller))

    def _on_connect(self, dbapi_conn: Any, _record: Any) -> None:
        driver = getattr(dbapi_conn, "driver_connection", None)
        if driver is not None and hasattr(driver, "add_query_logger"):
            driver.add_query_logger(self._on_query)

    def __enter__(self) -> StatementLog:
        event.listen(Engine, "before_cursor_execute", self._on_cursor)
        event.listen(Pool, "connect", self._on_connect)
        return self

    def __exit__(self, *_exc: object) -> None:
        event.remove(Engine, "before_cursor_execute", self._on_cursor)
        event.remove(Pool, "connect", self._on_connect)


# --- checking each statement's plan ------------------------------------------------------------
_TOUCHES = re.compile(r"\b(" + "|".join(TENANT_TABLES) + r")\b")
_PARTITION = re.compile(r"^(" + "|".join(TENANT_TABLES) + r")_p(\d+)$")
_EXPLAINABLE = ("SELECT", "INSERT", "UPDATE", "DELETE", "WITH")


def partitions_in(plan: Any) -> dict[str, set[str]]:
    """The partitions a plan reads or changes, by table: every ``Relation Name`` of a scan
    and every ``Target Tables`` entry of an UPDATE or DELETE, wherever it sits in the tree."""
    found: dict[str, set[str]] = {}
    stack = [plan]
    while stack:
        item = stack.pop()
        if isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, dict):
            name = item.get("Relation Name")
            if isinstance(name, str) and (m := _PARTITION.match(name)):
                found.setdefault(m.group(1), set()).add(name)
            stack.extend(v for v in item.values() if isinstance(v, list | dict))
    return found


@dataclass(frozen=True)
class Spread:
    """A statement that a tenant-partitioned schema cannot route to one partition."""

    caller: str
    sql: str
    partitions: dict[str, set[str]]

    def __str__(self) -> str:
        tables = ", ".join(f"{t} ({len(p)} partitions)" for t, p in sorted(self.partitions.items()))
        return f"{self.caller}: {tables}\n    {self.sql[:300]}"


async def spread_statements(url: str, sent: Sequence[Sent]) -> list[Spread]:
    """Every statement of ``sent`` on a tenant table whose plan, with its own arguments,
    reads or changes more than one partition of a table.

    ``EXPLAIN`` plans the statement with its arguments bound (a custom plan, so pruning by
    ``tenant_id = $1`` happens at planning and pruned partitions are absent from the plan);
    it runs nothing. An INSERT's rows go to the partition of their own ``tenant_id`` (NOT
    NULL in every tenant table), so only what it reads is counted."""
    engine = create_async_engine(async_url(url))
    spread: list[Spread] = []
    seen: set[tuple[str, str]] = set()
    try:
        async with engine.connect() as conn:
            driver = (await conn.get_raw_connection()).driver_connection
            assert driver is not None
            await vector_codec.register(driver)
            await driver.execute("SET plan_cache_mode = force_custom_plan")
            for item in sent:
                if not item.sql.lstrip().upper().startswith(_EXPLAINABLE) or not _TOUCHES.search(item.sql):
                    continue
                key = (item.sql, repr(item.args))
                if key in seen:
                    continue
                seen.add(key)
                plan = await driver.fetchval(f"EXPLAIN (FORMAT JSON) {item.sql}", *item.args)
                touched = partitions_in(json.loads(plan) if isinstance(plan, str) else plan)
                wide = {table: names for table, names in touched.items() if len(names) > 1}
                if wide:
                    spread.append(Spread(item.caller, item.sql, wide))
    finally:
        await engine.dispose()
    return spread


def report(spread: Sequence[Spread]) -> Iterator[str]:
    """One line per sender (its first statement): a test that fails names what to fix."""
    by_caller: dict[str, Spread] = {}
    for item in spread:
        by_caller.setdefault(item.caller, item)
    for item in by_caller.values():
        yield str(item)


# --- the statements that span tenants, and why ---------------------------------------------------
#: sender (module.function) -> why it reads or changes every tenant's partitions
CROSS_TENANT: dict[str, str] = {
    # job leasing: workers serve every tenant from one queue
    "memlane.store.sql.jobs.JobQueue._lease_candidates": (
        "job leasing: a worker looks for the due jobs of every tenant, oldest tenant first (fair lease)"
    ),
    "memlane.store.postgres.store.PostgresStore.lease_jobs": (
        "job leasing: the jobs chosen, of any tenants, are leased in one UPDATE"
    ),
    # operator figures: metrics, /health, the UI's queue, the backlog's fair share
    "memlane.store.sql.jobs.JobQueue.count_jobs": "operator figures: jobs of the whole server",
    "memlane.store.sql.jobs.JobQueue.count_due_jobs": "operator figures: the whole backlog (/health, metrics)",
    "memlane.store.sql.jobs.JobQueue.count_due_jobs_by_tenant": (
        "operator figures: each tenant's share of the backlog (services/backlog.py)"
    ),
    "memlane.store.sql.jobs.JobQueue.job_counts": "operator figures: jobs by kind and state (metrics, UI)",
    "memlane.store.sql.embeddings.EmbeddingWrites.embedding_counts": "operator figures: embeddings not ready (metrics)",
    # retention and maintenance sweeps over every tenant
    "memlane.store.sql.jobs.JobQueue.delete_finished_jobs_before": "retention sweep: finished jobs of every tenant",
    "memlane.store.sql.audit.RecallAuditLog.delete_recall_audits_before": (
        "retention sweep: recall audit rows of every tenant"
    ),
    "memlane.store.sql.embeddings.EmbeddingWrites.mark_stale_embeddings": (
        "model change: every tenant's server-embedded nodes go back to pending"
    ),
    # admin export of every tenant (a tenant's own export filters on it and is pruned)
    "memlane.store.sql.lifecycle.Lifecycle.list_scopes": "admin export of all tenants: the scopes of every tenant",
    "memlane.store.batcher.BatcherStore.buffers": "admin export of all tenants: every tenant's batcher buffers",
    # keyword search's cost bound
    "memlane.store.postgres.direct_reads._TERM_COUNT_SQL": (
        "keyword search counts a word's documents over the whole index to bound its cost "
        "(term_selection.py); it picks the words to score, never the documents a tenant sees"
    ),
}


async def outside_one_partition(url: str, sent: Sequence[Sent]) -> list[Spread]:
    """``spread_statements`` less the senders ``CROSS_TENANT`` allows."""
    return [s for s in await spread_statements(url, sent) if s.caller not in CROSS_TENANT]
