"""Several writers and workers at once, as several API and worker processes would be.

Each test opens a second store on the same database next to the fixture's, so two connection
pools (two "processes") compete, and runs many calls concurrently on both.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from memlane.config import Settings
from memlane.domain.clock import new_id
from memlane.domain.hashing import commit_hash
from memlane.domain.model import CommitInfo, Job, Node, NodeUpsert, SeedFilter
from memlane.domain.visibility import EVERYTHING
from memlane.services.container import build_store
from memlane.store.contracts import Store
from tests.support.settings import DIM

NOW = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)
FIELDS = frozenset({"type", "tier", "title", "text_summary", "memory_lane"})

#: an offline job's filter: every active node
UNFILTERED = SeedFilter(valid_at=None, visibility=EVERYTHING)


def up(title: str, *, scope: str = "s1") -> NodeUpsert:
    node = Node(tenant_id="t1", id=new_id(), scope=scope, type="event", tier="hot", title=title, memory_lane="shared")
    return NodeUpsert(node=node, fields_set=FIELDS)


def info() -> CommitInfo:
    return CommitInfo(actor="tester", input_sha256="c" * 64)


@pytest.fixture
async def other_store(store: Store, db_url: str) -> AsyncIterator[Store]:
    """A second store on the fixture's database: another process, as far as the data knows."""
    second = build_store(Settings(MEMLANE_DATABASE_URL=db_url), dimension=DIM)
    await second.open()
    try:
        yield second
    finally:
        await second.close()


async def test_concurrent_writes_to_one_scope_keep_the_commit_chain_linear(store: Store, other_store: Store) -> None:
    writers = [store, other_store]
    count = 40
    # A new scope: the first writers also race to create its head row.
    results = await asyncio.gather(
        *(writers[i % 2].apply_write("t1", "s1", [up(f"note {i}")], [], info(), now=NOW) for i in range(count))
    )
    chain = list(reversed(await store.list_commits("t1", "s1", limit=count + 10)))
    assert len(chain) == count
    assert {c.id for c in chain} == {r.commit.id for r in results}, "every write made exactly one commit"
    prev = None
    for c in chain:
        assert c.parent_id == (prev.id if prev else None), "the chain forked"
        assert c.parent_hash == (prev.commit_hash if prev else None)
        assert c.commit_hash == commit_hash(c.parent_hash, c.diff)
        prev = c
    written = [r.nodes[0].id for r in results]
    assert len(await store.get_nodes("t1", "s1", written)) == count


async def test_concurrent_writes_to_different_scopes_each_chain_on_their_own(store: Store, other_store: Store) -> None:
    writers = [store, other_store]
    await asyncio.gather(
        *(
            writers[i % 2].apply_write("t1", f"s{i % 3}", [up(f"n{i}", scope=f"s{i % 3}")], [], info(), now=NOW)
            for i in range(30)
        )
    )
    for s in ("s0", "s1", "s2"):
        chain = list(reversed(await store.list_commits("t1", s, limit=50)))
        assert len(chain) == 10
        assert [c.parent_id for c in chain] == [None, *[c.id for c in chain[:-1]]]


async def test_concurrent_workers_never_lease_the_same_job(store: Store, other_store: Store) -> None:
    total = 30
    await store.enqueue([Job(tenant_id="t1", id=new_id(), kind="k", payload={"i": i}) for i in range(total)], now=NOW)
    seen: list[str] = []

    async def worker(s: Store, name: str) -> None:
        while True:
            leased = await s.lease_jobs(name, ["k"], limit=4, lease_sec=30, now=NOW)
            if not leased:
                return
            seen.extend(j.id for j in leased)
            assert all(j.lease_owner == name and j.status == "running" for j in leased)

    await asyncio.gather(*(worker(s, f"w{i}") for i, s in enumerate([store, other_store] * 3)))
    assert len(seen) == total and len(set(seen)) == total, "a job was leased twice or lost"
    assert await store.count_jobs("running") == total
    assert await store.lease_jobs("late", ["k"], limit=4, lease_sec=30, now=NOW + timedelta(seconds=10)) == []


async def test_concurrent_workers_never_run_two_jobs_of_one_scope_at_once_and_keep_its_order(
    store: Store, other_store: Store
) -> None:
    scopes = ("app-a", "app-b", "app-c")
    per_scope = 8
    queued = [
        Job(tenant_id="t1", id=new_id(), kind="k", scope=scopes[i % 3], payload={"i": i // 3})
        for i in range(per_scope * len(scopes))
    ]
    for i, job in enumerate(queued):  # one at a time: submission order is run_after order
        await store.enqueue([job], now=NOW - timedelta(seconds=len(queued) - i))
    running: set[str] = set()
    started: dict[str, list[int]] = {s: [] for s in scopes}
    overlaps: list[str] = []

    async def worker(s: Store, name: str) -> None:
        idle_rounds = 0
        while idle_rounds < 20:  # other workers' jobs may still be running: look again
            leased = await s.lease_jobs(name, ["k"], limit=2, lease_sec=30, now=NOW, per_key=True)
            idle_rounds = 0 if leased else idle_rounds + 1
            for job in leased:
                assert job.scope is not None
                if job.scope in running:
                    overlaps.append(job.scope)
                running.add(job.scope)
                started[job.scope].append(job.payload["i"])
            await asyncio.sleep(random.random() / 100)
            for job in leased:
                assert job.scope is not None
                running.discard(job.scope)  # before the commit that frees the scope
                await s.complete_job(job, {}, now=NOW)

    await asyncio.gather(*(worker(s, f"w{i}") for i, s in enumerate([store, other_store] * 3)))
    assert overlaps == [], "two jobs of one scope were running at once"
    assert started == {s: list(range(per_scope)) for s in scopes}, "a scope's jobs started out of order"
    assert await store.count_jobs("done") == len(queued)


async def test_concurrent_enqueues_of_one_idempotency_key_store_one_job(store: Store, other_store: Store) -> None:
    stores = [store, other_store]
    results = await asyncio.gather(
        *(
            stores[i % 2].enqueue(
                [Job(tenant_id="t1", id=new_id(), kind="k", payload={}, idempotency_key="same")], now=NOW
            )
            for i in range(10)
        )
    )
    ids = {r[0].id for r in results}
    assert len(ids) == 1
    assert await store.count_jobs() == 1


NASTY_QUERIES = [
    "",
    " ",
    "'",
    "''",
    '"',
    "\\",
    "\\'",
    ":*",
    "a:*",
    "a & b",
    "a | b",
    "!a",
    "a <-> b",
    "a <2> b",
    "(",
    ")",
    "((a",
    "a))",
    "&&&",
    "|||",
    "!!!",
    "-a",
    "a -b",
    '"a b',
    "a:A",
    "a:ABCD",
    "NEAR(",
    "a OR",
    "OR AND NOT",
    "a AND (b OR",
    "* / %",
    "1e10",
    "0x1F",
    "a_b_c",
    "___",
    "'; DROP TABLE nodes; --",
    "$1",
    "$$",
    "%s",
    "?",
    "\x00",
    "\t\n",
    "🙂 emoji",
    "café naïve",
    "東京 タワー",
    "مرحبا",
    "a" * 3000,
    " ".join(["w"] * 500),
]


async def test_keyword_search_survives_any_input(store: Store) -> None:
    await store.apply_write("t1", "s1", [up("alpha beta gamma"), up("café naïve 東京")], [], info(), now=NOW)
    rng = random.Random(7)
    alphabet = "ab :*&|!()<>-'\"\\_%$;0123456789éø東🙂\t"
    fuzz = ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 40))) for _ in range(200)]
    for text in NASTY_QUERIES + fuzz:
        hits = await store.keyword_search("t1", "s1", text, 5, UNFILTERED)
        assert isinstance(hits, list)
    hits = await store.keyword_search("t1", "s1", "gamma & !(", 5, UNFILTERED)
    assert len(hits) == 1


async def test_vector_search_with_a_zero_or_wrong_sized_query_is_harmless(store: Store) -> None:
    v = np.random.default_rng(3).normal(size=DIM).astype(np.float32)
    n = up("vec")
    n.embedding = list(map(float, v / np.linalg.norm(v)))
    n.node.embedding_model = "client"
    await store.apply_write("t1", "s1", [n], [], info(), now=NOW)
    assert await store.vector_search("t1", "s1", np.ones(DIM + 1, np.float32), 5, UNFILTERED) == []
    hits = await store.vector_search("t1", "s1", np.zeros(DIM, np.float32), 5, UNFILTERED)
    assert all(np.isfinite(h.score) for h in hits)


async def test_every_writer_finds_its_own_write_while_others_write_and_search(store: Store, other_store: Store) -> None:
    # Searches that wait for a refresh of the scope's cached copy may use one another's: each
    # must still see every write acknowledged before it asked, whichever process wrote it.
    rng = np.random.default_rng(7)
    vectors = rng.normal(size=(30, DIM)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    await store.vector_search("t1", "s1", vectors[0], 1, UNFILTERED)  # an empty scope, cached

    async def write_then_find(i: int) -> tuple[str, list[str]]:
        writer = (store, other_store)[i % 2]
        u = up(f"note {i}")
        u.embedding = list(map(float, vectors[i]))
        u.node.embedding_model = "client"
        await writer.apply_write("t1", "s1", [u], [], info(), now=NOW)
        hits = await store.vector_search("t1", "s1", vectors[i], 1, UNFILTERED)
        return u.node.id, [h.id for h in hits]

    for own, found in await asyncio.gather(*(write_then_find(i) for i in range(len(vectors)))):
        assert found == [own]
