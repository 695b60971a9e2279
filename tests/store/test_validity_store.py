"""Validity intervals in the store, on both backends: what a write keeps of a stored interval,
when the server stamps ``expired_at``, and that migration 0005 goes down and up on SQLite with
the keyword index intact."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from memlane.config import Settings
from memlane.domain.model import CommitInfo, EdgeRef, EdgeUpsert, Node, NodeUpsert, SeedFilter
from memlane.domain.visibility import EVERYTHING
from memlane.services.container import build_store
from memlane.store import migrate
from memlane.store.base import NodePatch
from memlane.store.contracts import Store

NOW = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)
ENDED = datetime(2025, 1, 1, tzinfo=UTC)
INFO = CommitInfo(actor="t", input_sha256="a" * 64)


def _node(client_id: str) -> NodeUpsert:
    return NodeUpsert(
        node=Node(tenant_id="t1", id=client_id, scope="s", type="event", client_id=client_id, title=client_id),
        match_by_client_id=True,
        fields_set=frozenset({"type", "title"}),
    )


def _edge(**interval: datetime | None) -> EdgeUpsert:
    return EdgeUpsert(
        id=None,
        type="related_to",
        src=EdgeRef(client_id="a"),
        dst=EdgeRef(client_id="b"),
        interval_set=frozenset(interval),
        **interval,
    )


async def test_an_edge_update_keeps_the_interval_it_does_not_name(store: Store) -> None:
    first = await store.apply_write("t1", "s", [_node("a"), _node("b")], [_edge(invalid_at=ENDED)], INFO, now=NOW)
    assert first.edges[0].invalid_at == ENDED and first.edges[0].expired_at is None, "created ended: never current"
    kept = await store.apply_write("t1", "s", [], [_edge()], INFO, now=NOW + timedelta(hours=1))
    assert kept.edges[0].invalid_at == ENDED
    reopened = await store.apply_write("t1", "s", [], [_edge(invalid_at=None)], INFO, now=NOW + timedelta(hours=2))
    assert reopened.edges[0].invalid_at is None and reopened.edges[0].expired_at is None
    closed_at = NOW + timedelta(hours=3)
    closed = await store.apply_write("t1", "s", [], [_edge(invalid_at=ENDED)], INFO, now=closed_at)
    assert closed.edges[0].expired_at == closed_at, "a later commit closed a current fact"
    (stored,) = await store.edges_touching("t1", "s", [first.nodes[0].id], min_weight=0, min_confidence=0, limit=5)
    assert (stored.invalid_at, stored.expired_at) == (ENDED, closed_at)


async def test_a_patch_that_ends_a_node_stamps_when_the_server_learned_it(store: Store) -> None:
    written = await store.apply_write("t1", "s", [_node("a")], [], INFO, now=NOW)
    node_id = written.nodes[0].id
    later = NOW + timedelta(days=1)
    await store.patch_nodes("t1", "s", [NodePatch(id=node_id, invalid_at=ENDED)], INFO, now=later, diff={"p": 1})
    (node,) = await store.get_nodes("t1", "s", [node_id])
    assert (node.invalid_at, node.expired_at) == (ENDED, later)
    assert await store.find_nodes("t1", "s", SeedFilter(EVERYTHING, NOW), limit=5) == []
    assert [n.id for n in await store.find_nodes("t1", "s", SeedFilter(EVERYTHING, None), limit=5)] == [node_id]


async def test_a_write_that_ends_a_stored_node_stamps_expired_at_and_one_that_reopens_it_clears_it(
    store: Store,
) -> None:
    await store.apply_write("t1", "s", [_node("a")], [], INFO, now=NOW)

    def ending(invalid_at: datetime | None) -> NodeUpsert:
        up = _node("a")
        up.node.invalid_at = invalid_at
        up.fields_set = up.fields_set | {"invalid_at"}
        return up

    closed_at = NOW + timedelta(hours=1)
    (ended,) = (await store.apply_write("t1", "s", [ending(ENDED)], [], INFO, now=closed_at)).nodes
    (stored,) = await store.get_nodes("t1", "s", [ended.id])
    assert (stored.invalid_at, stored.expired_at) == (ENDED, closed_at)
    moved = ENDED + timedelta(days=1)
    await store.apply_write("t1", "s", [ending(moved)], [], INFO, now=closed_at + timedelta(hours=1))
    (stored,) = await store.get_nodes("t1", "s", [ended.id])
    assert (stored.invalid_at, stored.expired_at) == (moved, closed_at), "moving an end keeps when it was learned"
    await store.apply_write("t1", "s", [ending(None)], [], INFO, now=closed_at + timedelta(hours=2))
    (stored,) = await store.get_nodes("t1", "s", [ended.id])
    assert (stored.invalid_at, stored.expired_at) == (None, None)


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
async def test_migration_0005_goes_down_and_up_with_the_keyword_index_intact(backend: str, tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'm.db'}"
    await asyncio.to_thread(migrate.upgrade, url)
    await asyncio.to_thread(migrate.downgrade, url, "0004")
    await asyncio.to_thread(migrate.upgrade, url)
    store = build_store(Settings(MEMLANE_DATABASE_URL=url), dimension=384)
    await store.open()
    try:
        await store.apply_write("t1", "s", [_node("zebra")], [], INFO, now=NOW)
        hits = await store.keyword_search("t1", "s", "zebra", 5, SeedFilter(EVERYTHING, NOW))
        assert len(hits) == 1
    finally:
        await store.close()
