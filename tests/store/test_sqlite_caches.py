"""The embedded store's in-memory search structures agree with the database they mirror."""

from __future__ import annotations

import asyncio
from pathlib import Path

import numpy as np
import pytest
import sqlalchemy as sa

from memlane.domain.model import ACTIVE_TIERS, EdgeRef, EdgeUpsert, SeedFilter
from memlane.domain.visibility import EVERYTHING, Visibility
from memlane.store import migrate
from memlane.store.read_view import one_view_per_scope
from memlane.store.schema import nodes
from memlane.store.sqlite.store import SqliteStore
from memlane.store.sqlite.vector_cache import ScopeVectors
from tests.store.helpers import NOW, info, up
from tests.support.settings import DIM

EVERYONE = SeedFilter(valid_at=None, tiers=ACTIVE_TIERS, visibility=EVERYTHING, exclude_draft_topics=True)


async def _open(path: Path, **kw: int) -> SqliteStore:
    url = f"sqlite:///{path}"
    await asyncio.to_thread(migrate.upgrade, url)
    store = SqliteStore(url, vector_dim=DIM, **kw)
    await store.open()
    return store


def _clustered(n: int, seed: int = 7) -> np.ndarray:
    """Vectors in tight clusters around random centres, like embeddings of related facts."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(max(n // 25, 1), DIM))
    v = centres[rng.integers(len(centres), size=n)] + rng.normal(0, 0.15, size=(n, DIM))
    return (v / np.linalg.norm(v, axis=1, keepdims=True)).astype(np.float32)


async def test_a_second_process_on_the_same_file_sees_new_edges(tmp_path: Path) -> None:
    writer, reader = await _open(tmp_path / "m.db"), await _open(tmp_path / "m.db")
    try:
        await writer.apply_write("t1", "s1", [up("a", client_id="a"), up("b", client_id="b")], [], info(), now=NOW)
        ids = await writer.resolve_client_ids("t1", "s1", ["a", "b"])
        assert await reader.edges_touching("t1", "s1", [ids["a"]], min_weight=0, min_confidence=0, limit=5) == []
        edge = EdgeUpsert(id=None, type="related_to", src=EdgeRef(client_id="a"), dst=EdgeRef(client_id="b"))
        await writer.apply_write("t1", "s1", [], [edge], info(), now=NOW)
        seen = await reader.edges_touching("t1", "s1", [ids["b"]], min_weight=0, min_confidence=0, limit=5)
        assert [(e.src_id, e.dst_id) for e in seen] == [(ids["a"], ids["b"])]
    finally:
        await writer.close()
        await reader.close()


async def test_a_recall_reads_one_moment_of_the_scope_and_the_next_recall_sees_later_writes(tmp_path: Path) -> None:
    """Inside ``one_view_per_scope`` (one recall), a write committed between two stages does not
    show up half-way; the next block (the next recall) sees it."""
    writer, reader = await _open(tmp_path / "m.db"), await _open(tmp_path / "m.db")
    try:
        await writer.apply_write("t1", "s1", [up("a", client_id="a"), up("b", client_id="b")], [], info(), now=NOW)
        ids = await writer.resolve_client_ids("t1", "s1", ["a", "b"])
        edge = EdgeUpsert(id=None, type="related_to", src=EdgeRef(client_id="a"), dst=EdgeRef(client_id="b"))

        async def around_a() -> list[tuple[str, str]]:
            seen = await reader.edges_touching("t1", "s1", [ids["a"]], min_weight=0, min_confidence=0, limit=5)
            return [(e.src_id, e.dst_id) for e in seen]

        with one_view_per_scope():
            assert await around_a() == []
            await writer.apply_write("t1", "s1", [], [edge], info(), now=NOW)
            assert await around_a() == []
        assert await around_a() == [(ids["a"], ids["b"])]
        with one_view_per_scope():
            assert await around_a() == [(ids["a"], ids["b"])]
    finally:
        await writer.close()
        await reader.close()


async def test_direct_reads_build_the_same_values_as_the_sqlalchemy_path(tmp_path: Path) -> None:
    store = await _open(tmp_path / "m.db")
    try:
        node = up("with slots", client_id="x", embedding=list(map(float, _clustered(1)[0])))
        node.node.slots = {"k": [1, "two"], "nested": {"x": 1.5}}
        node.node.tags = ["alpha", "beta"]
        node.node.expires_at = NOW
        await store.apply_write("t1", "s1", [node, up("y", client_id="y")], [], info(), now=NOW)
        ids = list((await store.resolve_client_ids("t1", "s1", ["x", "y"])).values())
        direct = await store.get_nodes("t1", "s1", ids)
        # find_nodes reads through SQLAlchemy and its column types
        plain = {n.id: n for n in await store.find_nodes("t1", "s1", EVERYONE, limit=10)}
        assert direct == [plain[i] for i in ids]
        assert direct[0].created_at is not None and direct[0].created_at.tzinfo is not None
        embeddings = await store.get_embeddings("t1", "s1", ids)
        async with store._read() as conn:
            rows = await conn.execute(sa.select(nodes.c.id, nodes.c.embedding).where(nodes.c.embedding.is_not(None)))
            stored = {r.id: r.embedding for r in rows}
        assert embeddings.keys() == stored.keys() and len(stored) == 1
        for k in stored:
            assert np.array_equal(embeddings[k], stored[k])
    finally:
        await store.close()


def test_the_store_refuses_a_database_that_is_not_a_file() -> None:
    """Its hot reads open the file itself; an in-memory database is private to a connection."""
    for url in ("sqlite:///:memory:", "sqlite://", "sqlite:///"):
        with pytest.raises(ValueError, match="database file"):
            SqliteStore(url, vector_dim=DIM)


def _cache_with(vectors: np.ndarray, approx_min_rows: int, private_every: int = 0) -> ScopeVectors:
    sv = ScopeVectors(dim=DIM, approx_min_rows=approx_min_rows)
    sv.reset()
    rows = []
    for i, v in enumerate(vectors):
        row = _cache_row(i, v)
        if private_every and i % private_every == 0:
            row.update(memory_lane="private", owner_agent_id="someone")
        rows.append(_Row(row))
    sv.apply(rows)
    return sv


class _Row:
    def __init__(self, mapping: dict[str, object]):
        self._mapping = mapping


def test_two_stage_search_finds_what_exact_search_finds_on_clustered_vectors() -> None:
    vectors = _clustered(6000)
    exact, staged = _cache_with(vectors, 0), _cache_with(vectors, 2000)
    assert exact.basis is None and staged.basis is not None
    rng = np.random.default_rng(1)
    overlap = []
    for i in rng.integers(len(vectors), size=50):
        q = vectors[i] + rng.normal(0, 0.05, DIM).astype(np.float32)
        q /= np.linalg.norm(q)
        want = [h.id for h in exact.search(q, 10, EVERYONE)]
        got = [h.id for h in staged.search(q, 10, EVERYONE)]
        overlap.append(len(set(want) & set(got)) / 10)
    assert np.mean(overlap) >= 0.95


def test_two_stage_search_never_returns_what_the_filter_hides() -> None:
    vectors = _clustered(4000)
    sv = _cache_with(vectors, 1000, private_every=3)
    hidden = SeedFilter(
        valid_at=None,
        tiers=ACTIVE_TIERS,
        visibility=Visibility(lanes_enforced=True, agent_id="reader"),
        exclude_draft_topics=True,
    )
    hits = sv.search(vectors[0], 100, hidden)
    assert len(hits) == 100
    assert all(int(h.id[1:]) % 3 != 0 for h in hits)


def test_rows_added_after_the_projection_was_fitted_are_found() -> None:
    vectors = _clustered(3000)
    sv = _cache_with(vectors[:2500], 2000)
    fitted = sv.fitted_rows
    late = [_Row(_cache_row(i, v)) for i, v in enumerate(vectors[2500:], start=2500)]
    sv.apply(late)
    assert sv.fitted_rows == fitted  # not refitted below twice the size
    assert sv.search(vectors[2900], 1, EVERYONE)[0].id == "n2900"


def _cache_row(i: int, v: np.ndarray) -> dict[str, object]:
    return {
        **dict.fromkeys(ScopeVectors.ATTRS),
        "salience": 0.5,
        "confidence": 0.9,
        "id": f"n{i}",
        "row_no": i + 1,
        "text_len": 40,
        "embedding": v,
        "embedding_status": "ready",
        "embedding_dim": DIM,
        "tier": "hot",
        "memory_lane": "shared",
        "type": "event",
        "topic_state": None,
    }


async def test_the_search_caches_stay_within_their_budget_and_a_dropped_scope_is_searched_right(
    tmp_path: Path,
) -> None:
    """Searching many scopes keeps only as many caches as the budget holds, the least recently
    searched dropped first; a dropped scope is reloaded whole at its next search and answers
    exactly as before."""
    small = ScopeVectors(dim=DIM)
    small.reset()
    budget = 3 * small.approx_bytes() + 100  # room for three one-node scopes
    store = await _open(tmp_path / "m.db", vector_cache_bytes=budget)
    try:
        vectors = _clustered(6)
        for i in range(6):
            node = up(f"n{i}", scope=f"s{i}", embedding=list(map(float, vectors[i])))
            await store.apply_write("t1", f"s{i}", [node], [], info(), now=NOW)
        first = await store.vector_search("t1", "s0", vectors[0], 1, EVERYONE)
        for i in range(1, 6):
            await store.vector_search("t1", f"s{i}", vectors[i], 1, EVERYONE)
            stats = await store.pool_stats()
            assert stats["vector_cache_scopes"] <= 3 and stats["vector_cache_bytes"] <= budget
        assert (await store.pool_stats())["vector_cache_scopes"] == 3
        again = await store.vector_search("t1", "s0", vectors[0], 1, EVERYONE)  # s0 was dropped
        assert [(h.id, round(h.score, 6)) for h in again] == [(h.id, round(h.score, 6)) for h in first]
    finally:
        await store.close()
