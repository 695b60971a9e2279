"""The schema can be distributed by tenant: every tenant table takes a hash partitioning by
``tenant_id`` (PostgreSQL then holds ``tenant_id`` to be in every primary and unique key, as
Citus does), and the statement checker that the store suites run under on that schema
(tests/store/conftest.py) tells a statement that stays in one tenant's partition from one
that reads them all."""

from __future__ import annotations

import importlib

import asyncpg
import pytest

from memlane.store import batcher, knowledge, schema
from memlane.store.contracts import Store
from tests.store.helpers import NOW, info, up
from tests.support.partitions import (
    CROSS_TENANT,
    PARTITIONS,
    TENANT_TABLES,
    StatementLog,
    spread_statements,
)
from tests.support.pg import run_sync

#: the tests that need the partitioned database
on_partitioned_schema = pytest.mark.parametrize(
    "backend", [pytest.param("postgres-partitioned", marks=pytest.mark.postgres)], indirect=True
)


def test_every_table_with_a_tenant_column_is_partitioned_in_the_test_schema() -> None:
    tables = [*schema.metadata.tables.values(), *knowledge.metadata.tables.values(), *batcher.metadata.tables.values()]
    keyed = {t.name for t in tables if "tenant_id" in t.c}
    assert keyed == set(TENANT_TABLES)
    for table in tables:
        if table.name in keyed:
            assert table.primary_key.columns.keys()[0] == "tenant_id", f"{table.name}: tenant_id leads the key"


def _resolve(dotted: str) -> object:
    """The object a dotted name names: the longest importable module, then attributes."""
    parts = dotted.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        try:
            target: object = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for name in parts[cut:]:
            target = getattr(target, name)
        return target
    raise LookupError(dotted)


def test_every_sender_the_allow_list_names_exists() -> None:
    """A renamed or removed sender must leave the list, or the list would excuse nothing and
    hide that it does."""
    for sender in CROSS_TENANT:
        assert callable(_resolve(sender)) or isinstance(_resolve(sender), str), sender


@on_partitioned_schema
async def test_each_tenant_table_is_hash_partitioned_by_tenant_id(db_url: str) -> None:
    conn = await asyncpg.connect(db_url)
    try:
        rows = await conn.fetch(
            "SELECT c.relname, p.partstrat::text AS partstrat, a.attname, "
            "(SELECT count(*) FROM pg_inherits i WHERE i.inhparent = c.oid) AS parts "
            "FROM pg_partitioned_table p JOIN pg_class c ON c.oid = p.partrelid "
            "JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = p.partattrs[0]"
        )
    finally:
        await conn.close()
    assert {r["relname"]: (r["partstrat"], r["attname"], r["parts"]) for r in rows} == {
        t: ("h", "tenant_id", PARTITIONS) for t in TENANT_TABLES
    }


@on_partitioned_schema
async def test_the_checker_tells_a_statement_of_one_tenant_from_one_of_every_tenant(store: Store, db_url: str) -> None:
    await store.apply_write("t1", "s1", [up("one tenant")], [], info(), now=NOW)
    await store.apply_write("t2", "s1", [up("another tenant")], [], info(), now=NOW)
    with StatementLog() as log:
        await store.list_scopes("t1")
        await store.list_scopes(None)
    spread = run_sync(spread_statements(db_url, log.sent))
    assert [s.caller for s in spread] == ["memlane.store.sql.lifecycle.Lifecycle.list_scopes"]
    assert spread[0].partitions == {"scope_heads": {f"scope_heads_p{i}" for i in range(PARTITIONS)}}
    assert "scope_heads.tenant_id = $" in log.sent[0].sql and spread[0].sql == log.sent[1].sql
    assert spread[0].caller in CROSS_TENANT, "the export of every tenant is an allowed exception"
