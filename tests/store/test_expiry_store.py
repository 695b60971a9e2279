"""Expiry at the store and the reader, on both backends: a node is found until its expiry and
not from that instant, by every read (search, keyword, listing, by id, as a neighbour),
asked at the read's own instant. Nothing is written in between: on SQLite the scope cache is
not reloaded either, it evaluates the expiry at each read as it does validity."""

from __future__ import annotations

from datetime import datetime, timedelta

import numpy as np

from memlane.domain.clock import Clock
from memlane.domain.model import EdgeRef, EdgeUpsert, SeedFilter
from memlane.domain.validity import HISTORY, ValidTime
from memlane.domain.visibility import EVERYTHING, Viewer
from memlane.services.reading import MemoryReader
from memlane.store.contracts import Store
from memlane.store.sqlite.store import SqliteStore
from tests.store.helpers import NOW, info, up, vec

EXPIRY = NOW + timedelta(seconds=10)
ADMIN = Viewer(tenant_id="t1", role="admin")


def _at(instant: datetime) -> SeedFilter:
    return SeedFilter(EVERYTHING, instant, tiers=())


async def test_a_node_is_read_until_its_expiry_and_not_from_then_without_any_write(store: Store) -> None:
    going, staying = up("pelican going", client_id="going", embedding=vec(1)), up("pelican staying", embedding=vec(2))
    going.node.expires_at = EXPIRY
    hub = up("hub", client_id="hub", embedding=vec(3))
    edge = EdgeUpsert(id=None, type="related_to", src=EdgeRef(client_id="hub"), dst=EdgeRef(client_id="going"))
    written = await store.apply_write("t1", "s1", [going, staying, hub], [edge], info(), now=NOW)
    going_id, staying_id, hub_id = (n.id for n in written.nodes)
    query = np.asarray(vec(1), np.float32)
    now = [NOW]
    reader = MemoryReader(store, Clock(lambda: now[0]))

    async def seen(instant: datetime) -> dict[str, set[str]]:
        now[0] = instant
        when = ValidTime(as_of=instant)
        return {
            "vector": {h.id for h in await store.vector_search("t1", "s1", query, 10, _at(instant))},
            "keyword": {h.id for h in await store.keyword_search("t1", "s1", "pelican", 10, _at(instant))},
            "listing": {n.id for n in await store.find_nodes("t1", "s1", _at(instant), limit=10)},
            "by id": {n.id for n in await reader.nodes(ADMIN, "s1", [going_id, staying_id])},
            "neighbour": {b.id for b in await reader.briefs(ADMIN, "s1", [going_id, staying_id], when)},
            "edge end": {e.dst_id for e in await reader.edges(ADMIN, "s1", [n for n in written.nodes[2:]])},
        }

    before = await seen(EXPIRY - timedelta(milliseconds=1))
    head = await _head(store)
    after = await seen(EXPIRY)
    assert all(going_id in ids for ids in before.values()), before
    assert not any(going_id in ids for ids in after.values()), after
    assert all(staying_id in ids for name, ids in after.items() if name != "edge end"), after
    assert await _head(store) == head, "no write in between"
    now[0] = EXPIRY + timedelta(days=1)
    history = await reader.nodes(ADMIN, "s1", [going_id], HISTORY)
    assert [n.id for n in history] == [going_id], "a history read still finds it until the sweep deletes it"
    assert hub_id in {n.id for n in await store.find_nodes("t1", "s1", _at(now[0]), limit=10)}


async def _head(store: Store) -> object:
    """The scope's (rev, epoch) and, on SQLite, what its cache holds: a write would move both."""
    if isinstance(store, SqliteStore):
        cached = store._vectors[("t1", "s1")]
        return await store._scope_head("t1", "s1"), (cached.rev, cached.epoch)
    return [c.id for c in await store.list_commits("t1", "s1", limit=10)]
