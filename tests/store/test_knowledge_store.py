"""The knowledge repository's tables on every backend: versions that only move on a real change,
filters that keep to one tenant, imports that can be repeated, deletes that take history along,
and the sync bookkeeping the next sync relies on."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from memlane.domain.errors import Conflict
from memlane.store.contracts import Store
from memlane.store.knowledge import (
    ItemFilter,
    ItemWrite,
    KnowledgeRecord,
    KnowledgeStore,
    SyncRunRecord,
    SyncStateRecord,
)

NOW = datetime(2026, 11, 24, 12, 0, tzinfo=UTC)


def item(
    item_id: str,
    content: str = "use postgres",
    *,
    type: str = "adr",
    layer: str = "project",
    status: str = "draft",
    source: str | None = None,
    version: int = 0,
    created_at: datetime | None = None,
    updated_at: datetime | None = None,
) -> KnowledgeRecord:
    return KnowledgeRecord(
        tenant_id="",
        id=item_id,
        type=type,
        layer=layer,
        title=item_id.upper(),
        content=content,
        status=status,
        source=source,
        version=version,
        content_hash=f"h:{content}",
        created_at=created_at,
        updated_at=updated_at,
    )


@pytest.fixture
def kstore(store: Store) -> KnowledgeStore:
    return KnowledgeStore(store)


async def test_an_item_gets_a_new_version_only_when_its_content_changes(kstore: KnowledgeStore) -> None:
    [first] = await kstore.save("t1", [ItemWrite(item("adr-1"), "create", author="ana", user_id="u1")], now=NOW)
    assert (first.version, first.created_at, first.updated_at) == (1, NOW, NOW)

    later = NOW + timedelta(hours=1)
    [same] = await kstore.save("t1", [ItemWrite(item("adr-1"), "again")], now=later)
    assert same.version == 1 and same.updated_at == NOW

    [changed] = await kstore.save("t1", [ItemWrite(item("adr-1", "use sqlite"), "switch", author="bo")], now=later)
    assert (changed.version, changed.created_at, changed.updated_at) == (2, NOW, later)

    stored = await kstore.get("t1", "adr-1")
    assert stored is not None and (stored.version, stored.content, stored.title) == (2, "use sqlite", "ADR-1")
    history = await kstore.history("t1", "adr-1")
    assert [(v.version, v.author, v.message) for v in history] == [(2, "bo", "switch"), (1, "ana", "create")]
    assert history[0].snapshot["content"] == "use sqlite" and history[1].snapshot["content"] == "use postgres"
    assert [v.version for v in await kstore.history("t1", "adr-1", limit=1)] == [2]


async def test_create_only_refuses_an_existing_id_without_inviting_a_retry(kstore: KnowledgeStore) -> None:
    await kstore.save("t1", [ItemWrite(item("adr-1"), "create")], now=NOW)
    with pytest.raises(Conflict) as refused:
        await kstore.save("t1", [ItemWrite(item("adr-1", "other"), "create")], now=NOW, create_only=True)
    assert refused.value.code == "knowledge_item_exists" and refused.value.retryable is False
    stored = await kstore.get("t1", "adr-1")
    assert stored is not None and stored.content == "use postgres"
    # the same id in another tenant is another item
    [other] = await kstore.save("t2", [ItemWrite(item("adr-1", "other"), "create")], now=NOW, create_only=True)
    assert other.tenant_id == "t2" and other.version == 1


async def test_listing_filters_by_each_field_and_never_leaves_the_tenant(kstore: KnowledgeStore) -> None:
    await kstore.save(
        "t1",
        [
            ItemWrite(item("a", type="adr", layer="project", status="accepted", source="docs/adr/a.md"), "m"),
            ItemWrite(item("b", type="policy", layer="project", status="draft", source="docs/policy/b.md"), "m"),
            ItemWrite(item("c", type="adr", layer="workspace", status="accepted", source="docs/adr_x/c.md"), "m"),
        ],
        now=NOW,
    )
    await kstore.save("t2", [ItemWrite(item("z", type="adr"), "m")], now=NOW)

    async def ids(flt: ItemFilter | None = None, limit: int = 100) -> list[str]:
        return [r.id for r in await kstore.list_items("t1", flt, limit=limit)]

    assert await ids() == ["a", "b", "c"]
    assert await ids(ItemFilter(types=["adr"])) == ["a", "c"]
    assert await ids(ItemFilter(layers=["workspace"])) == ["c"]
    assert await ids(ItemFilter(statuses=["draft"])) == ["b"]
    assert await ids(ItemFilter(ids=["c", "z"])) == ["c"]
    assert await ids(ItemFilter(ids=[])) == []
    # a prefix is literal text: "_" is not a wildcard
    assert await ids(ItemFilter(source_prefix="docs/adr/")) == ["a"]
    assert await ids(ItemFilter(source_prefix="docs/adr_")) == ["c"]
    assert await ids(limit=2) == ["a", "b"]
    assert await kstore.get("t1", "z") is None


async def test_importing_the_same_items_twice_changes_nothing(kstore: KnowledgeStore) -> None:
    exported = item("adr-9", "from elsewhere", version=4, created_at=NOW - timedelta(days=3), updated_at=NOW)
    assert await kstore.restore("t1", [exported]) == 1
    assert await kstore.restore("t1", [exported]) == 0
    stored = await kstore.get("t1", "adr-9")
    assert stored is not None and (stored.version, stored.created_at, stored.content) == (
        4,
        exported.created_at,
        "from elsewhere",
    )
    assert [(v.version, v.message) for v in await kstore.history("t1", "adr-9")] == [(4, "imported")]

    newer = item(
        "adr-9", "changed there", version=5, created_at=exported.created_at, updated_at=NOW + timedelta(days=1)
    )
    assert await kstore.restore("t1", [newer]) == 1
    stored = await kstore.get("t1", "adr-9")
    assert stored is not None and (stored.version, stored.content) == (5, "changed there")
    assert [v.version for v in await kstore.history("t1", "adr-9")] == [5, 4]


async def test_deleting_items_removes_their_history_but_keeps_their_sync_state(kstore: KnowledgeStore) -> None:
    await kstore.save("t1", [ItemWrite(item("a"), "m"), ItemWrite(item("b"), "m")], now=NOW)
    await kstore.save("t2", [ItemWrite(item("a"), "m")], now=NOW)
    await kstore.set_sync_state("t1", [SyncStateRecord("a", "node-a", "kb", "h:use postgres", NOW)], [])

    assert await kstore.delete("t1", []) == []
    assert sorted(await kstore.delete("t1", ["a", "missing"])) == ["a"]
    assert await kstore.get("t1", "a") is None and await kstore.history("t1", "a") == []
    assert await kstore.get("t1", "b") is not None
    assert await kstore.get("t2", "a") is not None and len(await kstore.history("t2", "a")) == 1
    assert list(await kstore.sync_state("t1")) == ["a"]


async def test_sync_state_replaces_upserts_and_drops_removed_items(kstore: KnowledgeStore) -> None:
    await kstore.set_sync_state(
        "t1",
        [SyncStateRecord("a", "n1", "kb", "h1", NOW), SyncStateRecord("b", "n2", "kb", "h2", NOW)],
        [],
    )
    await kstore.set_sync_state("t2", [SyncStateRecord("a", "x", "kb", "hx", NOW)], [])
    later = NOW + timedelta(minutes=5)
    await kstore.set_sync_state("t1", [SyncStateRecord("a", "n3", "kb2", "h3", later)], ["b"])

    state = await kstore.sync_state("t1")
    assert list(state) == ["a"]
    assert (state["a"].node_id, state["a"].scope, state["a"].content_hash, state["a"].synced_at) == (
        "n3",
        "kb2",
        "h3",
        later,
    )
    assert (await kstore.sync_state("t2"))["a"].node_id == "x"


def run(tenant: str, run_id: str, finished: datetime, *, added: int, updated: int, ms: float) -> SyncRunRecord:
    return SyncRunRecord(
        tenant_id=tenant,
        id=run_id,
        job_id=None,
        status="ok",
        forced=True,
        added=added,
        updated=updated,
        deleted=1,
        unchanged=2,
        failures=0,
        failed_items=[{"id": "bad", "error": "parse"}],
        duration_ms=ms,
        error=None,
        started_at=finished - timedelta(seconds=1),
        finished_at=finished,
    )


async def test_sync_runs_report_the_latest_and_the_tenant_totals(kstore: KnowledgeStore) -> None:
    assert await kstore.last_run("t1") is None
    assert await kstore.run_stats("t1") == {"total_syncs": 0, "total_items_synced": 0, "avg_duration_ms": 0.0}
    await kstore.record_run(run("t1", "r1", NOW, added=3, updated=1, ms=10.0))
    await kstore.record_run(run("t1", "r2", NOW + timedelta(minutes=1), added=0, updated=2, ms=30.0))
    await kstore.record_run(run("t2", "r3", NOW + timedelta(hours=1), added=9, updated=9, ms=99.0))

    last = await kstore.last_run("t1")
    assert last is not None and last.id == "r2" and last.forced is True
    assert (last.updated, last.deleted, last.unchanged, last.failed_items) == (
        2,
        1,
        2,
        [{"id": "bad", "error": "parse"}],
    )
    assert await kstore.run_stats("t1") == {"total_syncs": 2, "total_items_synced": 6, "avg_duration_ms": 20.0}
