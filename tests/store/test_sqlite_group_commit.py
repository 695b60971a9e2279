"""SQLite commits concurrent writes together (store/sqlite/writer.py): every acknowledged write
is stored and readable, the commit chain stays linear, and a write that fails inside a group
fails alone."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from memlane.config import Settings
from memlane.domain.clock import new_id
from memlane.domain.errors import Conflict
from memlane.domain.hashing import commit_hash
from memlane.domain.model import CommitInfo, Node, NodeUpsert, SeedFilter, WriteResult
from memlane.domain.visibility import EVERYTHING
from memlane.services.container import build_store
from memlane.store import migrate
from memlane.store.schema import scope_heads
from memlane.store.sqlite.store import SqliteStore

NOW = datetime(2026, 11, 24, 12, 0, tzinfo=UTC)
FIELDS = frozenset({"type", "tier", "title", "text_summary", "memory_lane"})


def up(title: str) -> NodeUpsert:
    node = Node(tenant_id="t1", id=new_id(), scope="s1", type="event", tier="hot", title=title, memory_lane="shared")
    return NodeUpsert(node=node, fields_set=FIELDS)


def info(parent: str | None = None) -> CommitInfo:
    return CommitInfo(actor="tester", input_sha256="c" * 64, parent_commit_id=parent)


@pytest.fixture
async def sqlite_store(tmp_path: Path) -> AsyncIterator[SqliteStore]:
    url = f"sqlite:///{tmp_path / 'memlane.db'}"
    await asyncio.to_thread(migrate.upgrade, url)
    store = build_store(Settings(MEMLANE_DATABASE_URL=url), dimension=8)
    assert isinstance(store, SqliteStore)
    await store.open()
    try:
        yield store
    finally:
        await store.close()


async def test_concurrent_writes_share_commits_and_each_acknowledged_write_is_stored(sqlite_store: SqliteStore) -> None:
    store = sqlite_store
    count = 50
    async with store.writer.exclusive():
        writes = [
            asyncio.create_task(store.apply_write("t1", "s1", [up(f"note {i}")], [], info(), now=NOW))
            for i in range(count)
        ]
        while len(store.writer._queue) < count:
            await asyncio.sleep(0.01)
    results = await asyncio.gather(*writes)

    assert store.writer.largest_group == count, "the queued writes went into one commit"
    ids = [r.nodes[0].id for r in results]
    stored = await store.get_nodes("t1", "s1", ids)
    assert sorted(n.id for n in stored) == sorted(ids)
    chain = list(reversed(await store.list_commits("t1", "s1", limit=count + 10)))
    assert [c.id for c in chain] == [r.commit.id for r in results], "one commit per write, in queue order"
    parent_hash = None
    for c in chain:
        assert c.parent_hash == parent_hash
        assert c.commit_hash == commit_hash(parent_hash, c.diff)
        parent_hash = c.commit_hash


async def test_a_write_failing_inside_a_group_fails_alone(sqlite_store: SqliteStore) -> None:
    store = sqlite_store
    first = await store.apply_write("t1", "s1", [up("first")], [], info(), now=NOW)
    async with store.writer.exclusive():
        before = asyncio.create_task(store.apply_write("t1", "s1", [up("before")], [], info(), now=NOW))
        # names a parent that is no longer the head once ``before`` is in: refused
        stale = asyncio.create_task(
            store.apply_write("t1", "s1", [up("stale")], [], info(parent=first.commit.id), now=NOW)
        )
        after = asyncio.create_task(store.apply_write("t1", "s1", [up("after")], [], info(), now=NOW))
        while len(store.writer._queue) < 3:
            await asyncio.sleep(0.01)
    outcomes = await asyncio.gather(before, stale, after, return_exceptions=True)

    assert isinstance(outcomes[1], Conflict)
    kept = [o for o in outcomes if isinstance(o, WriteResult)]
    assert len(kept) == 2
    stored = await store.find_nodes("t1", "s1", SeedFilter(valid_at=None, visibility=EVERYTHING), limit=10)
    assert sorted((n.title for n in stored), key=str) == ["after", "before", "first"], "the refused write left nothing"
    chain = await store.list_commits("t1", "s1", limit=10)
    assert len(chain) == 3


async def test_a_write_raising_after_its_statements_leaves_none_of_them(sqlite_store: SqliteStore) -> None:
    store = sqlite_store

    async def half_done(conn: AsyncConnection) -> None:
        await conn.execute(
            scope_heads.insert(),
            {"tenant_id": "t1", "scope": "half", "commit_seq": 0, "rev": 0, "epoch": 0, "updated_at": NOW},
        )
        raise RuntimeError("failed after its insert")

    async with store.writer.exclusive():
        other = asyncio.create_task(store.apply_write("t1", "s1", [up("other")], [], info(), now=NOW))
        broken = asyncio.create_task(store.writer.run(half_done))
        while len(store.writer._queue) < 2:
            await asyncio.sleep(0.01)
    other_result, broken_result = await asyncio.gather(other, broken, return_exceptions=True)

    assert isinstance(broken_result, RuntimeError)
    assert isinstance(other_result, WriteResult)
    assert [n.title for n in await store.get_nodes("t1", "s1", [other_result.nodes[0].id])] == ["other"]

    async def count(conn: AsyncConnection) -> int:
        query = sa.select(sa.func.count()).select_from(scope_heads).where(scope_heads.c.scope == "half")
        return int((await conn.execute(query)).scalar_one())

    assert await store.writer.run(count) == 0
