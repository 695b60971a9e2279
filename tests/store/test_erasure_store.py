"""Erasure in the store, on every backend: what a subject owns goes, with its edges, what was
derived from it and its vectors, and everyone else's memory stays whole. The HTTP tests
(tests/security/test_erasure.py) search every table for leftover text; these say which rows."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np

from memlane.domain.clock import new_id
from memlane.domain.erasure import ErasureSubject, SubjectKind
from memlane.domain.model import CommitInfo, EdgeRef, EdgeUpsert, Job, Node, NodeUpsert, RecallAudit, SeedFilter
from memlane.domain.visibility import EVERYTHING
from memlane.store.contracts import Store
from memlane.store.knowledge import ItemWrite, KnowledgeRecord, KnowledgeStore, SyncStateRecord

NOW = datetime(2026, 11, 24, 12, 0, tzinfo=UTC)
INFO = CommitInfo(actor="test", input_sha256="e" * 64, kind="test")
FIELDS = frozenset({"type", "title", "tier", "memory_lane", "user_id", "slots"})
EVERYTHING_NOW = SeedFilter(visibility=EVERYTHING, valid_at=None, tiers=())


def upsert(
    title: str,
    *,
    user: str | None,
    scope: str = "s1",
    slots: dict[str, object] | None = None,
    type_: str = "event",
    vector: int | None = None,
) -> NodeUpsert:
    node = Node(
        tenant_id="t1",
        id=new_id(),
        scope=scope,
        type=type_,
        title=title,
        tier="hot",
        memory_lane="shared",
        user_id=user,
        slots=dict(slots or {}),
        embedding_model="client",
    )
    embedding = list(map(float, np.eye(1, 384, vector, dtype=np.float32)[0])) if vector is not None else None
    return NodeUpsert(node=node, embedding=embedding, fields_set=FIELDS)


def link(src: NodeUpsert, dst: NodeUpsert, type_: str) -> EdgeUpsert:
    return EdgeUpsert(None, type_, EdgeRef(id=src.node.id), EdgeRef(id=dst.node.id), weight=0.5, confidence=0.5)


async def erase(store: Store, kind: SubjectKind, value: str) -> dict[str, object]:
    receipt = await store.erase(
        ErasureSubject("t1", kind, value),
        erasure_id=new_id(),
        actor="admin",
        now=NOW,
        knowledge_scope="kb",
        subject_digest="d" * 64,
    )
    return receipt.counts


async def titles(store: Store, scope: str = "s1") -> list[str]:
    return sorted(n.title or "" for n in await store.scan_nodes("t1", scope, after_id=None, limit=100))


async def test_erasing_a_user_takes_their_nodes_edges_vectors_and_summaries_and_nothing_else(store: Store) -> None:
    diary = upsert("u1 diary", user="u1", vector=1)
    plans = upsert("u1 plans", user="u1")
    other = upsert("u2 note", user="u2", vector=2)
    shared = upsert("team fact", user=None)
    summary = upsert("rollup of u1", user=None, type_="concept", slots={"source_ids": [diary.node.id]})
    cited = upsert("digest", user=None, type_="concept")
    await store.apply_write(
        "t1",
        "s1",
        [diary, plans, other, shared, summary, cited],
        [link(diary, other, "related_to"), link(shared, other, "related_to"), link(cited, plans, "derived_from")],
        INFO,
        now=NOW,
    )
    elsewhere = upsert("u1 in another scope", user="u1")
    await store.apply_write("t1", "s2", [elsewhere], [], INFO, now=NOW)
    assert len(await store.vector_search("t1", "s1", np.eye(1, 384, 1, dtype=np.float32)[0], 5, EVERYTHING_NOW)) == 2

    counts = await erase(store, "user", "u1")

    assert await titles(store) == ["team fact", "u2 note"]
    assert await titles(store, "s2") == []
    assert counts["nodes"] == 5 and counts["embeddings"] == 1 and counts["edges"] == 2
    hits = await store.vector_search("t1", "s1", np.eye(1, 384, 1, dtype=np.float32)[0], 5, EVERYTHING_NOW)
    assert [h.id for h in hits] == [other.node.id]
    left = await store.edges_touching("t1", "s1", [other.node.id], min_weight=0, min_confidence=0, limit=10)
    assert [(e.src_id, e.dst_id) for e in left] == [(shared.node.id, other.node.id)]


async def test_erasing_an_agent_takes_what_it_owns_or_produced(store: Store) -> None:
    owned, produced, theirs = upsert("owned", user=None), upsert("produced", user=None), upsert("theirs", user=None)
    owned.node.owner_agent_id, owned.node.memory_lane = "a1", "private"
    produced.node.producer_agent_id = "a1"
    theirs.node.producer_agent_id = "a2"
    for u in (owned, produced, theirs):
        u.fields_set = FIELDS | {"owner_agent_id", "producer_agent_id"}
    await store.apply_write("t1", "s1", [owned, produced, theirs], [], INFO, now=NOW)

    counts = await erase(store, "agent", "a1")

    assert await titles(store) == ["theirs"] and counts["nodes"] == 2


async def test_erasing_a_scope_or_a_tenant_takes_all_of_it_and_leaves_other_tenants(store: Store) -> None:
    await store.apply_write("t1", "s1", [upsert("a", user="u1"), upsert("b", user=None)], [], INFO, now=NOW)
    await store.apply_write("t1", "s2", [upsert("c", user=None)], [], INFO, now=NOW)
    other_tenant = upsert("other tenant", user="u1")
    other_tenant.node.tenant_id = "t2"
    await store.apply_write("t2", "s1", [other_tenant], [], INFO, now=NOW)

    assert (await erase(store, "scope", "s1"))["nodes"] == 2
    assert await titles(store) == [] and await titles(store, "s2") == ["c"]

    counts = await erase(store, "tenant", "t1")
    assert counts["nodes"] == 1 and await titles(store, "s2") == []
    assert [n.title for n in await store.scan_nodes("t2", "s1", after_id=None, limit=10)] == ["other tenant"]


RECEIPT_KEYS = {
    "nodes",
    "edges",
    "embeddings",
    "keyword_rows",
    "commits",
    "nodes_by_kind",
    "jobs",
    "jobs_by_kind",
    "recall_audits",
    "knowledge_items",
    "knowledge_versions",
    "knowledge_sync_runs",
    "batcher_buffers",
}


async def test_erasing_an_agent_takes_its_recall_audits_and_queued_jobs_and_the_receipt_says_so(
    store: Store,
) -> None:
    mine = upsert("a1's note", user=None)
    mine.node.producer_agent_id = "a1"
    mine.fields_set = FIELDS | {"producer_agent_id"}
    await store.apply_write("t1", "s1", [mine, upsert("fact", user=None)], [], INFO, now=NOW)
    audits = [RecallAudit("t1", "s1", "recall", agent, None, "q" * 64, [], 1, NOW) for agent in ("a1", "a2", "a1")]
    await store.record_recall_audits(audits)
    await store.enqueue(
        [
            Job("t1", new_id(), "ingest", {"agent_id": "a1", "text": "from a1"}, scope="s1"),
            Job("t1", new_id(), "ingest", {"agent_id": "a2", "text": "from a2"}, scope="s1"),
        ],
        now=NOW,
    )

    counts = await erase(store, "agent", "a1")

    assert set(counts) == RECEIPT_KEYS
    assert counts["recall_audits"] == 2 and counts["jobs"] == 1 and counts["jobs_by_kind"] == {"ingest": 1}
    left = await store.list_recall_audit("t1", "s1", limit=10)
    assert [a["consumer_agent_id"] for a in left] == ["a2"]
    assert await store.count_jobs("queued") == 1


async def test_erasing_the_knowledge_scope_or_an_author_takes_their_items_and_synced_copies(store: Store) -> None:
    kstore = KnowledgeStore(store)
    record = KnowledgeRecord(tenant_id="t1", id="adr-1", type="adr", layer="project", title="ADR", content_hash="h")
    await kstore.save("t1", [ItemWrite(record, "create", author="a9", user_id="u9")], now=NOW)
    copy = upsert("ADR copy", user=None, scope="kb")
    await store.apply_write("t1", "kb", [copy], [], INFO, now=NOW)
    await kstore.set_sync_state("t1", [SyncStateRecord("adr-1", copy.node.id, "kb", "h", NOW)], [])

    counts = await erase(store, "user", "u9")
    assert counts["knowledge_items"] == 1 and counts["knowledge_versions"] == 1 and counts["nodes"] == 1
    assert await kstore.get("t1", "adr-1") is None and await titles(store, "kb") == []

    await kstore.save("t1", [ItemWrite(record, "again")], now=NOW)
    assert (await erase(store, "scope", "kb"))["knowledge_items"] == 1
    assert await kstore.list_items("t1") == []
