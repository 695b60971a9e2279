"""What only the PostgreSQL backend has: the HNSW index, its use by the planner, filtered
ANN search that still returns k results, halfvec for wide models, the pool, migrations."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime

import numpy as np
import pytest
import sqlalchemy as sa

from memlane.config import Settings
from memlane.domain.clock import new_id
from memlane.domain.model import CommitInfo, Node, NodeUpsert, SeedFilter
from memlane.domain.visibility import EVERYTHING, Visibility
from memlane.services.container import build_store
from memlane.store import migrate
from memlane.store.postgres import direct_reads
from memlane.store.postgres.direct_reads import keyword_statement, nearest_statements
from memlane.store.postgres.store import PostgresStore, query_words, two_words_or_one
from tests.support.pg import fresh_database_url
from tests.support.settings import DIM

pytestmark = pytest.mark.postgres

#: an offline job's filter: every active node
UNFILTERED = SeedFilter(valid_at=None, visibility=EVERYTHING)
NOW = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)
FIELDS = frozenset({"type", "tier", "title", "memory_lane", "owner_agent_id"})


@pytest.fixture
def pg_url(request: pytest.FixtureRequest) -> str:
    url = fresh_database_url(request)
    migrate.upgrade(url)
    return url


@pytest.fixture
async def pg(pg_url: str) -> AsyncIterator[PostgresStore]:
    store = PostgresStore(pg_url, vector_dim=DIM, pool_size=4)
    await store.open()
    try:
        yield store
    finally:
        await store.close()


def clustered(n: int, dim: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(max(n // 50, 1), dim))
    x = centres[rng.integers(0, len(centres), n)] + 0.35 * rng.normal(size=(n, dim))
    out: np.ndarray = (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)
    return out


def upsert(title: str, vector: np.ndarray, *, owner: str | None = None, user_id: str | None = None) -> NodeUpsert:
    node = Node(
        tenant_id="t1",
        id=new_id(),
        scope="s1",
        type="event",
        tier="hot",
        title=title,
        memory_lane="private" if owner else "shared",
        owner_agent_id=owner,
        user_id=user_id,
        embedding_model="client",
    )
    return NodeUpsert(node=node, embedding=list(map(float, vector)), fields_set=FIELDS)


def info() -> CommitInfo:
    return CommitInfo(actor="tester", input_sha256="d" * 64)


async def write_titles(store: PostgresStore, titles: list[str], owners: list[str | None], seed: int) -> list[Node]:
    """One node per title in scope s1, private to its owner where one is given."""
    vectors = clustered(len(titles), DIM, seed)
    ups = [upsert(t, v, owner=o) for t, v, o in zip(titles, vectors, owners, strict=True)]
    return (await store.apply_write("t1", "s1", ups, [], info(), now=NOW)).nodes


async def test_open_creates_the_partial_hnsw_index_for_the_dimension(pg: PostgresStore) -> None:
    async with pg.engine.connect() as conn:
        indexdef = (
            await conn.execute(sa.text("SELECT indexdef FROM pg_indexes WHERE indexname = :n"), {"n": pg.index_name})
        ).scalar_one()
    assert "USING hnsw" in indexdef and "vector_cosine_ops" in indexdef
    assert "(embedding)::vector(384)" in indexdef and "WHERE (embedding_dim = 384)" in indexdef
    assert "m='16'" in indexdef and "ef_construction='128'" in indexdef


async def test_hnsw_graph_parameters_come_from_settings_and_are_checked(pg_url: str) -> None:
    env = {"MEMLANE_PG_HNSW_M": "8", "MEMLANE_PG_HNSW_EF_CONSTRUCTION": "40", "MEMLANE_PG_EF_SEARCH": "60"}
    settings = Settings(MEMLANE_DATABASE_URL=pg_url, MEMLANE_PG_ITERATIVE_SCAN="strict_order", **env)
    store = build_store(settings, dimension=48)
    assert isinstance(store, PostgresStore)
    assert (store.ef_search, store.iterative_scan, store.max_overflow) == (60, "strict_order", 10)
    await store.open()
    try:
        async with store.engine.connect() as conn:
            indexdef = (
                await conn.execute(
                    sa.text("SELECT indexdef FROM pg_indexes WHERE indexname = :n"), {"n": store.index_name}
                )
            ).scalar_one()
        assert "m='8'" in indexdef and "ef_construction='40'" in indexdef
        assert (await store.pool_stats())["hnsw_ef_construction"] == 40
    finally:
        await store.close()
    with pytest.raises(ValueError, match="MEMLANE_PG_HNSW_EF_CONSTRUCTION"):
        PostgresStore(pg_url, vector_dim=48, hnsw_m=16, hnsw_ef_construction=20)
    with pytest.raises(ValueError, match="MEMLANE_PG_HNSW_M"):
        PostgresStore(pg_url, vector_dim=48, hnsw_m=1)
    with pytest.raises(ValueError, match="MEMLANE_PG_HNSW_EF_CONSTRUCTION"):
        Settings(MEMLANE_PG_HNSW_M=16, MEMLANE_PG_HNSW_EF_CONSTRUCTION=20)
    with pytest.raises(ValueError, match="MEMLANE_PG_EF_SEARCH"):
        Settings(MEMLANE_PG_EF_SEARCH=0)


async def test_the_planner_can_serve_vector_search_from_the_hnsw_index(pg: PostgresStore) -> None:
    vectors = clustered(300, DIM, 1)
    await pg.apply_write("t1", "s1", [upsert(f"n{i}", v) for i, v in enumerate(vectors)], [], info(), now=NOW)
    hits = await pg.vector_search("t1", "s1", vectors[0], 10, UNFILTERED)
    assert hits[0].score == pytest.approx(1.0, abs=1e-5)
    # the statement vector_search sends
    ann, _exact, args = nearest_statements("t1", "s1", vectors[0], 10, UNFILTERED, kind="vector", dim=DIM)
    async with pg._driver() as conn, conn.transaction():
        # Leave the planner no other ordered path: if the query's expression did not match
        # the index expression, the plan would need a (disabled) sort instead.
        await conn.execute(
            "SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = off; SET LOCAL enable_sort = off"
        )
        plan = "\n".join(r[0] for r in await conn.fetch("EXPLAIN " + ann, *args))
    assert pg.index_name in plan, plan


async def test_filtered_search_returns_every_match_and_agrees_with_exact_search(pg: PostgresStore) -> None:
    n = 2000
    vectors = clustered(n, DIM, 2)
    owners = ["bob" if i % 3 else None for i in range(n)]  # two thirds private to bob
    users = ["u1" if i % 250 == 7 else None for i in range(n)]  # 8 nodes
    ups = [upsert(f"n{i}", v, owner=owners[i], user_id=users[i]) for i, v in enumerate(vectors)]
    res = await pg.apply_write("t1", "s1", ups, [], info(), now=NOW)
    ids = np.array([node.id for node in res.nodes])

    # a very selective filter: every one of the 8 matches comes back, best first
    only_u1 = np.array([u == "u1" for u in users])
    hits = await pg.vector_search(
        "t1", "s1", vectors[7], 10, SeedFilter(valid_at=None, visibility=EVERYTHING, user_id="u1")
    )
    assert {h.id for h in hits} == set(ids[only_u1])
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)

    # a filter that removes two thirds of the graph: still k results, close to exact
    alice = SeedFilter(valid_at=None, visibility=Visibility(lanes_enforced=True, agent_id="alice"))
    visible = np.array([o is None for o in owners])
    agree = []
    for qi in range(1, 400, 40):
        q = vectors[qi]
        hits = await pg.vector_search("t1", "s1", q, 10, alice)
        assert len(hits) == 10
        assert all(visible[np.where(ids == h.id)[0][0]] for h in hits)
        exact = np.where(visible, vectors @ q, -np.inf)
        truth = set(ids[np.argsort(-exact)[:10]])
        agree.append(len(truth & {h.id for h in hits}) / 10)
    assert np.mean(agree) >= 0.9, agree


async def test_vectors_travel_in_binary_and_read_back_bit_for_bit(pg: PostgresStore) -> None:
    vectors = clustered(3, DIM, 9)
    res = await pg.apply_write("t1", "s1", [upsert(f"b{i}", v) for i, v in enumerate(vectors)], [], info(), now=NOW)
    ids = [n.id for n in res.nodes]
    got = await pg.get_embeddings("t1", "s1", ids)
    for nid, v in zip(ids, vectors, strict=True):
        assert got[nid].dtype == np.float32 and np.array_equal(got[nid], v)
    # What PostgreSQL stored is the same vector its own text parser reads back.
    async with pg.engine.connect() as conn:
        text = (
            await conn.execute(sa.text("SELECT embedding::text FROM nodes WHERE id = :id"), {"id": ids[0]})
        ).scalar_one()
    assert np.array_equal(np.array(text.strip("[]").split(","), dtype=np.float32), vectors[0])


async def test_models_wider_than_2000_dimensions_use_a_halfvec_index(pg_url: str) -> None:
    dim = 2500
    store = PostgresStore(pg_url, vector_dim=dim, pool_size=2)
    await store.open()
    try:
        assert store.index_kind == "halfvec"
        vectors = clustered(20, dim, 3)
        res = await store.apply_write(
            "t1", "s1", [upsert(f"w{i}", v) for i, v in enumerate(vectors)], [], info(), now=NOW
        )
        hits = await store.vector_search("t1", "s1", vectors[4], 3, UNFILTERED)
        assert hits[0].id == res.nodes[4].id and hits[0].score == pytest.approx(1.0, abs=1e-3)
        async with store.engine.connect() as conn:
            indexdef = (
                await conn.execute(
                    sa.text("SELECT indexdef FROM pg_indexes WHERE indexname = :n"), {"n": store.index_name}
                )
            ).scalar_one()
        assert "halfvec_cosine_ops" in indexdef
    finally:
        await store.close()


async def test_many_processes_opening_at_once_build_the_index_once(pg_url: str) -> None:
    stores = [PostgresStore(pg_url, vector_dim=DIM, pool_size=1) for _ in range(4)]
    await asyncio.gather(*(s.open() for s in stores))
    try:
        async with stores[0].engine.connect() as conn:
            count = (
                await conn.execute(
                    sa.text("SELECT count(*) FROM pg_indexes WHERE indexname LIKE 'ix_nodes_embedding_hnsw%'")
                )
            ).scalar_one()
        assert count == 1
    finally:
        await asyncio.gather(*(s.close() for s in stores))


async def test_reads_survive_the_server_dropping_idle_connections(pg: PostgresStore) -> None:
    """A restarted or failed-over PostgreSQL ends every pooled connection; the next reads
    must get fresh ones instead of failing."""
    vectors = clustered(5, DIM, 4)
    res = await pg.apply_write("t1", "s1", [upsert(f"d{i}", v) for i, v in enumerate(vectors)], [], info(), now=NOW)
    ids = [n.id for n in res.nodes]
    # fill the pool with idle connections
    await asyncio.gather(*(pg.get_nodes("t1", "s1", ids) for _ in range(4)))
    async with pg._driver() as conn:
        own = await conn.fetchval("SELECT pg_backend_pid()")
        ended = await conn.fetchval(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
            "WHERE application_name = 'memlane' AND datname = current_database() AND pid <> $1",
            own,
        )
    assert ended >= 1
    await asyncio.sleep(0.2)  # the loop sees the closed sockets
    for _ in range(6):
        assert [n.id for n in await pg.get_nodes("t1", "s1", ids)] == ids
        assert len(await pg.vector_search("t1", "s1", vectors[0], 3, UNFILTERED)) == 3


async def test_pool_stats_are_the_real_pool(pg: PostgresStore) -> None:
    conns = [await pg.engine.connect() for _ in range(3)]
    try:
        for c in conns:
            await c.execute(sa.text("SELECT 1"))
        stats = await pg.pool_stats()
        assert stats["backend"] == "postgres" and stats["pool_class"] == "AsyncAdaptedQueuePool"
        assert stats["checked_out"] == 3 and stats["pool_size"] == 4
        assert stats["max_connections"] == 4 + pg.max_overflow
        assert stats["hnsw_ef_search"] == pg.ef_search
    finally:
        for c in conns:
            await c.close()
    assert (await pg.pool_stats())["checked_out"] == 0


async def test_keyword_search_takes_candidates_from_rare_words_and_ranks_them_by_every_word(pg_url: str) -> None:
    store = PostgresStore(pg_url, vector_dim=DIM, pool_size=2, keyword_term_max_docs=20)
    await store.open()
    try:
        vectors = clustered(201, DIM, 6)
        titles = [f"gita walked to town number {i}" for i in range(60)]  # "gita": common
        titles += [f"goldfish {i}" for i in range(40)]  # "goldfish": rarer, still over 20
        titles.append("gita keeps a goldfish")
        # neither word in half the scope, so each still carries weight (BM25's idf)
        titles += [f"an axolotl named {i}" for i in range(100)]
        res = await store.apply_write(
            "t1", "s1", [upsert(t, v) for t, v in zip(titles, vectors, strict=True)], [], info(), now=NOW
        )
        hits = await store.keyword_search("t1", "s1", "gita goldfish", 10, UNFILTERED)
        # only goldfish notes are candidates, and the one that also says "gita" ranks first
        assert hits[0].id == res.nodes[100].id
        assert {h.id for h in hits} <= {n.id for n in res.nodes[60:101]}
        assert await store.keyword_search("t1", "s1", "unheard-of words", 10, UNFILTERED) == []
    finally:
        await store.close()


async def test_keyword_search_ranks_the_same_once_the_statistics_name_the_common_words(pg_url: str) -> None:
    """Before ANALYZE every word is counted; after it the planner's statistics name the
    common ones without counting, and the search answers the same."""
    titles = [f"gita walked to town number {i}" for i in range(150)]  # "gita": 151 documents
    titles += [f"goldfish {i}" for i in range(100)]  # "goldfish": 101 documents, rarer
    titles.append("gita keeps a goldfish")
    titles += [f"an axolotl named {i}" for i in range(5)]
    titles += [f"parrot {i}" for i in range(200)]  # neither common word in half the scope
    writer = PostgresStore(pg_url, vector_dim=DIM, pool_size=2, keyword_term_max_docs=20)
    await writer.open()
    try:
        vectors = clustered(len(titles), DIM, 8)
        res = await writer.apply_write(
            "t1", "s1", [upsert(t, v) for t, v in zip(titles, vectors, strict=True)], [], info(), now=NOW
        )
        async with writer._driver() as conn:
            await conn.execute("ANALYZE nodes")
            # each common word is placed by the statistics (its estimate is well above twice the
            # bound of 20); a rare word, a word no document holds and a stop word are left to be counted
            frequent = await direct_reads.frequent_words(conn, ["gita", "goldfish", "axolotl", "zebra", "the"], 40)
        assert set(frequent) == {"gita", "goldfish"}
        assert frequent["gita"] == pytest.approx(151, rel=0.05)
        assert frequent["goldfish"] == pytest.approx(101, rel=0.05)
        async with writer._driver() as conn:
            await conn.execute("DELETE FROM pg_statistic WHERE starelid = 'nodes'::regclass")
            assert await direct_reads.frequent_words(conn, ["gita"], 40) == {}
            counted = [
                await writer.keyword_search("t1", "s1", q, 10, UNFILTERED) for q in ("gita goldfish", "axolotl gita")
            ]
            await conn.execute("ANALYZE nodes")
    finally:
        await writer.close()
    reader = PostgresStore(pg_url, vector_dim=DIM, pool_size=2, keyword_term_max_docs=20)  # a cold word cache
    await reader.open()
    try:
        estimated = [
            await reader.keyword_search("t1", "s1", q, 10, UNFILTERED) for q in ("gita goldfish", "axolotl gita")
        ]
    finally:
        await reader.close()
    # the estimates stand in for the counts in the common words' idf: the same ranking
    assert [[h.id for h in hits] for hits in estimated] == [[h.id for h in hits] for hits in counted]
    for hits, exact in zip(estimated, counted, strict=True):
        assert [h.score for h in hits] == pytest.approx([h.score for h in exact], rel=0.05)
    # the rarer common word picks the candidates, the other still ranks them
    assert estimated[0][0].id == res.nodes[250].id
    assert {h.id for h in estimated[0]} <= {n.id for n in res.nodes[150:251]}
    # a rare word alone picks the candidates
    assert {h.id for h in estimated[1]} == {n.id for n in res.nodes[251:256]}


async def test_keyword_search_ranks_only_what_the_reader_may_see(pg: PostgresStore) -> None:
    """Private notes that match best are neither returned nor allowed to push a visible
    match out of the k best: the filter is applied before the ranking, in the statement."""
    titles = ["axolotl tank"] * 4  # alice's: the best matches (both words, and shortest)
    titles += ["a green axolotl tank", "the axolotl tank by the window", "axolotl", "tank cleaning day with an axolotl"]
    nodes = await write_titles(pg, titles, ["alice"] * 4 + [None] * 4, seed=9)
    private = {n.id for n in nodes[:4]}
    bob = SeedFilter(valid_at=None, visibility=Visibility(lanes_enforced=True, agent_id="bob"))
    everything = await pg.keyword_search("t1", "s1", "axolotl tank", 8, UNFILTERED)
    assert {h.id for h in everything[:4]} == private  # they do rank first for a reader who may see them
    seen_by_bob = await pg.keyword_search("t1", "s1", "axolotl tank", 8, bob)
    assert [h.id for h in seen_by_bob] == [h.id for h in everything if h.id not in private]
    top2 = await pg.keyword_search("t1", "s1", "axolotl tank", 2, bob)
    assert [h.id for h in top2] == [h.id for h in seen_by_bob[:2]]
    alice = SeedFilter(valid_at=None, visibility=Visibility(lanes_enforced=True, agent_id="alice"))
    assert [h.id for h in await pg.keyword_search("t1", "s1", "axolotl tank", 8, alice)] == [h.id for h in everything]


async def test_a_keyword_search_of_common_words_ranks_a_bounded_set_and_still_finds_the_best(pg_url: str) -> None:
    """Every word common: documents that hold two of the words are ranked first (the index
    intersects them), the rest fill up from a bounded sample, and a private match of
    another agent is neither shown nor counted among the best."""
    store = PostgresStore(pg_url, vector_dim=DIM, pool_size=2, keyword_term_max_docs=5)  # ranks at most 10
    await store.open()
    try:
        titles = [f"gita walked to town number {i}" for i in range(40)]  # "gita": common
        titles += [f"goldfish {i}" for i in range(30)]  # "goldfish": rarer, still common
        titles += ["gita keeps a goldfish", "a goldfish gita feeds", "gita and the goldfish bowl"]
        titles.append("gita goldfish")  # alice's, and the shortest of all
        titles += [f"parrot {i}" for i in range(100)]  # neither word in half the scope
        nodes = await write_titles(store, titles, [None] * 73 + ["alice"] + [None] * 100, seed=10)
        both = {n.id for n in nodes[70:73]}
        goldfish = {n.id for n in nodes[40:73]}
        bob = SeedFilter(valid_at=None, visibility=Visibility(lanes_enforced=True, agent_id="bob"))
        hits = await store.keyword_search("t1", "s1", "gita goldfish", 10, bob)
        assert len(hits) == 10
        assert {h.id for h in hits[:3]} == both
        assert {h.id for h in hits} <= goldfish
        assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
        alice = SeedFilter(valid_at=None, visibility=Visibility(lanes_enforced=True, agent_id="alice"))
        assert (await store.keyword_search("t1", "s1", "gita goldfish", 10, alice))[0].id == nodes[73].id
        # the same search with the bound lifted ranks every match: the same best three
        unbounded = PostgresStore(pg_url, vector_dim=DIM, pool_size=1, keyword_term_max_docs=0)
        await unbounded.open()
        try:
            every = await unbounded.keyword_search("t1", "s1", "gita goldfish", 10, bob)
        finally:
            await unbounded.close()
        assert {h.id for h in every[:3]} == both
    finally:
        await store.close()


async def test_the_keyword_statement_parses_its_queries_once_outside_the_scan(pg: PostgresStore) -> None:
    """asyncpg prepares the statement and PostgreSQL moves to a generic plan after five runs;
    a query written inline in the scan would then be parsed again for every candidate row.
    As one-row sub-plans (InitPlans) they are parsed once per statement, whatever the plan."""
    sql, args = keyword_statement(
        "t1", "s1", "goldfish", ["gita", "goldfish"], 10, UNFILTERED, docs=100, average_length=30.0
    )
    async with pg._driver() as conn:
        plan = [r[0] for r in await conn.fetch("EXPLAIN (VERBOSE) " + sql, *args)]
    text = "\n".join(plan)
    assert "tsv @@ (InitPlan" in text and "CTE q" in text and "(m.tsv @@ idf.tq)" in text, text
    # the words are parsed where the CTE's rows are made, never in a scan's condition
    parsing = [line for line in plan if "to_tsquery" in line]
    assert parsing and all(line.strip().startswith("Output:") for line in parsing), text


def test_the_bounded_ranking_splits_matches_into_two_words_and_one() -> None:
    assert two_words_or_one(["gita"], ["gita", "goldfish", "town"]) == (
        "(gita & (goldfish | town))",
        "(gita & !(goldfish | town))",
    )
    two, one = two_words_or_one(["axolotl", "tank"], ["axolotl", "tank"])
    assert two == "(axolotl & (tank)) | (tank & (axolotl))" and one == "(axolotl & !(tank)) | (tank & !(axolotl))"
    assert two_words_or_one(["foods"], ["foods"]) == (None, "foods")


def test_query_words_keep_only_letters_and_digits() -> None:
    assert query_words('support "group" AND (NEAR') == ["support", "group", "and", "near"]
    assert query_words("a:* & b | !c <-> 'd'") == ["a", "b", "c", "d"]
    assert query_words("__ ::: ***") == []
    assert query_words("東京 café") == ["東京", "café"]


async def test_migrations_go_down_to_base_and_up_again(pg_url: str) -> None:
    await asyncio.to_thread(migrate.downgrade, pg_url, "base")
    await asyncio.to_thread(migrate.upgrade, pg_url)
    store = PostgresStore(pg_url, vector_dim=DIM, pool_size=1)
    await store.open()
    try:
        assert await store.ping()
    finally:
        await store.close()
