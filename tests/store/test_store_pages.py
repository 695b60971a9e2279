"""Reads whose size grows with the data come in keyset pages, on every backend: the scope
list, a scope's edges, edges by id, the due job backlog per tenant. Export and the UI's scope
list walk them a page at a time (issue 26)."""

from __future__ import annotations

from datetime import timedelta

from memlane.domain.clock import new_id
from memlane.domain.model import EdgeRef, EdgeUpsert, Job
from memlane.store.contracts import Store
from tests.store.helpers import NOW, info, up


async def test_scopes_are_listed_in_pages_by_keyset_or_by_place(store: Store) -> None:
    for tenant in ("t1", "t2"):
        for i in range(5):
            await store.apply_write(tenant, f"s{i}", [up("x", tenant=tenant, scope=f"s{i}")], [], info(), now=NOW)
    every = await store.list_scopes("t1")
    assert every == [("t1", f"s{i}") for i in range(5)]
    pages, after = [], None
    while page := await store.list_scopes("t1", after=after, limit=2):
        pages.append(page)
        after = page[-1]
    assert [len(p) for p in pages] == [2, 2, 1] and [pair for p in pages for pair in p] == every
    assert await store.list_scopes("t1", limit=2, offset=4) == [("t1", "s4")]
    assert await store.list_scopes(None, after=("t1", "s4"), limit=2) == [("t2", "s0"), ("t2", "s1")]


async def test_a_scopes_edges_come_in_keyset_pages_and_by_id(store: Store) -> None:
    ends = [up(f"n{i}", client_id=f"n{i}") for i in range(6)]
    links = [
        EdgeUpsert(id=None, type="related_to", src=EdgeRef(client_id=f"n{i}"), dst=EdgeRef(client_id=f"n{i + 1}"))
        for i in range(5)
    ]
    res = await store.apply_write("t1", "s1", ends, links, info(), now=NOW)
    await store.apply_write("t1", "other", [up("elsewhere", scope="other")], [], info(), now=NOW)
    seen, after = [], None
    while page := await store.scan_edges("t1", "s1", after=after, limit=2):
        assert len(page) <= 2
        seen += page
        after = (page[-1].type, page[-1].src_id, page[-1].dst_id)
    assert sorted(e.id for e in seen) == sorted(e.id for e in res.edges)
    assert [(e.type, e.src_id, e.dst_id) for e in seen] == sorted((e.type, e.src_id, e.dst_id) for e in seen)
    assert await store.scan_edges("t1", "other", after=None, limit=10) == []
    wanted = [res.edges[1].id, res.edges[3].id, new_id()]
    assert sorted(e.id for e in await store.get_edges("t1", "s1", wanted)) == sorted(wanted[:2])
    assert await store.get_edges("t2", "s1", wanted) == []  # tenants never see each other


async def test_the_due_backlog_is_counted_per_tenant(store: Store) -> None:
    jobs = [Job(tenant_id=t, id=new_id(), kind="k", payload={}) for t in ("a", "a", "a", "b")]
    later = Job(tenant_id="b", id=new_id(), kind="k", payload={}, run_after=NOW + timedelta(hours=1))
    await store.enqueue([*jobs, later], now=NOW)
    assert await store.count_due_jobs_by_tenant(now=NOW) == {"a": 3, "b": 1}
    assert await store.count_due_jobs(now=NOW) == 4
