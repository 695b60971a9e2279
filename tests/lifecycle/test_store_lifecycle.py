"""The Store methods the lifecycle relies on, on every backend: keyset scans, scopes,
read-modify-write under the scope lock, conflict-safe edge redirection, edge deletion."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any

import numpy as np
import pytest

from memlane.domain.clock import new_id
from memlane.domain.errors import Conflict
from memlane.domain.hashing import commit_hash
from memlane.domain.model import CommitInfo, EdgeRef, EdgeUpsert, Node, NodeUpsert, SeedFilter
from memlane.domain.visibility import EVERYTHING
from memlane.store.base import NodePatch
from memlane.store.contracts import Store

NOW = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)
INFO = CommitInfo(actor="test", input_sha256="a" * 64, kind="test")


def node(title: str, *, tenant: str = "t1", scope: str = "s1", type_: str = "event", tier: str = "hot") -> NodeUpsert:
    n = Node(tenant_id=tenant, id=new_id(), scope=scope, type=type_, title=title, tier=tier, memory_lane="shared")
    return NodeUpsert(node=n, fields_set=frozenset({"type", "title", "tier", "memory_lane"}))


def edge(src: str, dst: str, type_: str = "related_to", weight: float = 0.5, confidence: float = 0.5) -> EdgeUpsert:
    return EdgeUpsert(None, type_, EdgeRef(id=src), EdgeRef(id=dst), weight=weight, confidence=confidence)


async def seed(
    store: Store, titles: list[str], edges: list[tuple[int, int, str]] | None = None, **kw: Any
) -> list[str]:
    ups = [node(t, **kw) for t in titles]
    ids = [u.node.id for u in ups]
    es = [edge(ids[a], ids[b], t) for a, b, t in edges or []]
    await store.apply_write(kw.get("tenant", "t1"), kw.get("scope", "s1"), ups, es, INFO, now=NOW)
    return ids


async def test_scan_nodes_pages_by_id_with_tier_and_type_filters(store: Store) -> None:
    ids = await seed(store, [f"n{i}" for i in range(7)])
    await seed(store, ["rule"], type_="rule")
    await seed(store, ["cold"], tier="cold")
    await seed(store, ["elsewhere"], scope="s2")
    pages: list[str] = []
    after = None
    while True:
        page = await store.scan_nodes("t1", "s1", after_id=after, limit=3, types=["event"], tiers=["hot"])
        pages += [n.id for n in page]
        if len(page) < 3:
            break
        after = page[-1].id
    assert pages == sorted(ids)
    assert [n.title for n in await store.scan_nodes("t1", "s1", after_id=None, limit=10, types=["rule"])] == ["rule"]
    assert len(await store.scan_nodes("t1", "s1", after_id=None, limit=100)) == 9
    assert await store.scan_nodes("t2", "s1", after_id=None, limit=100) == []


async def test_list_scopes_per_tenant_and_overall(store: Store) -> None:
    await seed(store, ["a"], tenant="t1", scope="b")
    await seed(store, ["a"], tenant="t1", scope="a")
    await seed(store, ["a"], tenant="t2", scope="z")
    assert await store.list_scopes("t1") == [("t1", "a"), ("t1", "b")]
    assert await store.list_scopes() == [("t1", "a"), ("t1", "b"), ("t2", "z")]


async def test_mutate_nodes_chains_a_commit_and_sees_only_its_scope(store: Store) -> None:
    ids = await seed(store, ["a", "b"])
    other = await seed(store, ["c"], scope="s2")
    seen: list[list[str]] = []

    def mutate(found: list[Node]) -> tuple[list[NodePatch], dict[str, Any]]:
        seen.append([n.id for n in found])
        return [NodePatch(id=n.id, slots={"k": n.title}, tier="warm") for n in found], {"op": "test"}

    head = (await store.list_commits("t1", "s1", limit=1))[0]
    commit = await store.mutate_nodes("t1", "s1", [ids[1], other[0], ids[0], "missing"], mutate, INFO, now=NOW)
    assert commit is not None and seen == [[ids[1], ids[0]]]
    assert commit.parent_id == head.id and commit.commit_hash == commit_hash(head.commit_hash, {"op": "test"})
    got = {n.id: n for n in await store.get_nodes("t1", "s1", ids)}
    assert got[ids[0]].slots == {"k": "a"} and got[ids[0]].tier == "warm" and got[ids[0]].commit_id == commit.id
    assert (await store.get_nodes("t1", None, other))[0].slots == {}


async def test_a_mutated_node_is_found_by_its_new_values_in_the_next_search(store: Store) -> None:
    # the embedded store's search reads an in-memory copy that follows the scope's revision:
    # a mutation must move the revision forward or the copy keeps the old tier
    vectors = np.eye(4, 384, dtype=np.float32)
    ups = [
        NodeUpsert(
            node=Node(
                tenant_id="t1",
                id=new_id(),
                scope="s1",
                type="event",
                title=f"v{i}",
                tier="hot",
                memory_lane="shared",
                embedding_model="client",
            ),
            embedding=list(map(float, v)),
            fields_set=frozenset({"type", "title", "tier", "memory_lane"}),
        )
        for i, v in enumerate(vectors)
    ]
    await store.apply_write("t1", "s1", ups, [], INFO, now=NOW)
    warm = SeedFilter(visibility=EVERYTHING, valid_at=None, tiers=("warm",))
    target = ups[2].node.id
    assert await store.vector_search("t1", "s1", vectors[2], 4, warm) == []  # the copy is loaded now

    await store.mutate_nodes(
        "t1", "s1", [target], lambda found: ([NodePatch(id=target, tier="warm")], {"op": "t"}), INFO, now=NOW
    )

    hits = await store.vector_search("t1", "s1", vectors[2], 4, warm)
    assert [h.id for h in hits] == [target]
    everything = SeedFilter(visibility=EVERYTHING, valid_at=None, tiers=())
    assert len(await store.vector_search("t1", "s1", vectors[0], 4, everything)) == 4


async def test_mutate_nodes_without_patches_writes_nothing(store: Store) -> None:
    ids = await seed(store, ["a"])
    before = await store.list_commits("t1", "s1", limit=5)
    assert await store.mutate_nodes("t1", "s1", ids, lambda found: ([], {}), INFO, now=NOW) is None
    assert await store.list_commits("t1", "s1", limit=5) == before


async def test_an_error_inside_the_mutation_rolls_everything_back(store: Store) -> None:
    ids = await seed(store, ["a"])

    def boom(found: list[Node]) -> tuple[list[NodePatch], dict[str, Any]]:
        raise Conflict("refused", code="refused")

    with pytest.raises(Conflict):
        await store.mutate_nodes("t1", "s1", ids, boom, INFO, now=NOW)
    assert len(await store.list_commits("t1", "s1", limit=5)) == 1


async def test_concurrent_read_modify_writes_lose_no_update(store: Store) -> None:
    ids = await seed(store, ["counter"])

    def bump(found: list[Node]) -> tuple[list[NodePatch], dict[str, Any]]:
        n = found[0]
        return [NodePatch(id=n.id, slots={"count": int(n.slots.get("count", 0)) + 1})], {"bump": 1}

    await asyncio.gather(*(store.mutate_nodes("t1", "s1", ids, bump, INFO, now=NOW) for _ in range(25)))
    assert (await store.get_nodes("t1", "s1", ids))[0].slots == {"count": 25}
    assert len(await store.list_commits("t1", "s1", limit=100)) == 26


async def test_redirect_edges_moves_merges_and_drops_self_loops(store: Store) -> None:
    # 0 = canonical, 1 and 2 = aliases, 3 and 4 = neighbours
    ids = await seed(
        store,
        ["canon", "dup1", "dup2", "x", "y"],
        [
            (1, 3, "related_to"),
            (0, 3, "related_to"),
            (4, 1, "part_of"),
            (1, 0, "related_to"),
            (2, 4, "derived_from"),
            (1, 2, "related_to"),
            (2, 3, "related_to"),
        ],
    )
    canon, dup1, dup2, x, _y = ids
    # a stronger duplicate edge: the merge keeps the larger weight
    await store.apply_write("t1", "s1", [], [edge(dup1, x, weight=0.9, confidence=0.2)], INFO, now=NOW)
    res = await store.redirect_edges("t1", "s1", {dup1: canon, dup2: dup1}, INFO, now=NOW)
    assert res.commit is not None
    assert (res.redirected, res.merged, res.removed_self_loops) == (2, 2, 2)
    edges = await store.edges_touching("t1", "s1", ids, min_weight=0, min_confidence=0, limit=100)
    keys = sorted((e.type, ids.index(e.src_id), ids.index(e.dst_id)) for e in edges)
    assert keys == [("derived_from", 0, 4), ("part_of", 4, 0), ("related_to", 0, 3)]
    merged = next(e for e in edges if e.type == "related_to")
    assert merged.weight == 0.9 and merged.confidence == 0.5
    assert all(e.commit_id == res.commit.id for e in edges)
    ops = {op["op"] for op in res.commit.diff["edge_redirects"]}
    assert ops == {"redirect", "merge", "remove_self_loop"}
    assert res.commit.diff["redirects"] == {dup1: canon, dup2: canon}
    again = await store.redirect_edges("t1", "s1", {dup1: canon, dup2: canon}, INFO, now=NOW)
    assert again.commit is None and again.redirected == 0


async def test_redirect_ignores_cycles_and_other_scopes(store: Store) -> None:
    a, b, c = await seed(store, ["a", "b", "c"], [(0, 2, "related_to"), (1, 2, "related_to")])
    res = await store.redirect_edges("t1", "s1", {a: b, b: a}, INFO, now=NOW)
    assert res.commit is None
    res = await store.redirect_edges("t1", "s2", {a: c}, INFO, now=NOW)
    assert res.commit is None


async def test_delete_edges_by_id_with_a_commit(store: Store) -> None:
    a, _b = await seed(store, ["a", "b"], [(0, 1, "related_to"), (1, 0, "part_of")])
    edges = await store.edges_touching("t1", "s1", [a], min_weight=0, min_confidence=0, limit=10)
    gone = next(e for e in edges if e.type == "part_of")
    commit = await store.delete_edges("t1", "s1", [gone.id, "not-an-edge"], INFO, now=NOW)
    assert commit is not None and commit.diff["deleted_edges"][0]["id"] == gone.id
    left = await store.edges_touching("t1", "s1", [a], min_weight=0, min_confidence=0, limit=10)
    assert [e.type for e in left] == ["related_to"]
    assert await store.delete_edges("t1", "s1", [gone.id], INFO, now=NOW) is None
    assert await store.delete_edges("t1", "s2", [left[0].id], INFO, now=NOW) is None


async def test_head_commit_id_follows_every_commit(store: Store) -> None:
    assert await store.head_commit_id("t1", "s1") is None
    ids = await seed(store, ["a"])
    assert await store.head_commit_id("t1", "s1") == (await store.list_commits("t1", "s1", limit=1))[0].id
    commit = await store.mutate_nodes(
        "t1", "s1", ids, lambda found: ([NodePatch(id=ids[0], tier="warm")], {"x": 1}), INFO, now=NOW
    )
    assert commit is not None and await store.head_commit_id("t1", "s1") == commit.id
    assert await store.head_commit_id("t2", "s1") is None
