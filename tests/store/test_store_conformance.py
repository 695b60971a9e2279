"""The Store protocol's contract, checked on every backend through the protocol only."""

from __future__ import annotations

import math
from dataclasses import fields
from datetime import timedelta

import numpy as np
import pytest

from memlane.domain.clock import new_id
from memlane.domain.errors import Conflict, InvalidRequest
from memlane.domain.hashing import commit_hash
from memlane.domain.model import (
    EdgeRef,
    EdgeUpsert,
    Job,
    NodeBrief,
    SeedFilter,
)
from memlane.domain.visibility import EVERYTHING, Visibility
from memlane.store.base import NodePatch
from memlane.store.contracts import Store
from tests.store.helpers import NOW, info, up, vec
from tests.support.settings import DIM

#: an offline job's filter: every active node
UNFILTERED = SeedFilter(valid_at=None, visibility=EVERYTHING)


async def test_written_nodes_read_back_with_their_fields(store: Store) -> None:
    res = await store.apply_write("t1", "s1", [up("Alice moved to Berlin", client_id="a")], [], info(), now=NOW)
    [node] = await store.get_nodes("t1", "s1", [res.nodes[0].id])
    assert node.title == "Alice moved to Berlin"
    assert node.client_id == "a"
    assert node.embedding_status == "pending"
    assert node.commit_id == res.commit.id
    assert node.created_at == NOW


async def test_client_id_upsert_updates_the_same_node_and_only_given_fields(store: Store) -> None:
    first = await store.apply_write("t1", "s1", [up("v1", client_id="k", tier="warm")], [], info(), now=NOW)
    again = up("v2", client_id="k", fields=frozenset({"type", "title"}))
    second = await store.apply_write("t1", "s1", [again], [], info(), now=NOW + timedelta(seconds=1))
    assert second.nodes[0].id == first.nodes[0].id
    [node] = await store.get_nodes("t1", "s1", [first.nodes[0].id])
    assert node.title == "v2"
    assert node.tier == "warm", "a field the update did not give must keep its value"
    assert node.created_at == NOW


async def test_edges_resolve_client_ids_in_the_same_write_and_in_the_store(store: Store) -> None:
    await store.apply_write("t1", "s1", [up("stored", client_id="old")], [], info(), now=NOW)
    res = await store.apply_write(
        "t1",
        "s1",
        [up("new", client_id="new")],
        [
            EdgeUpsert(
                id=None,
                type="related_to",
                src=EdgeRef(client_id="new"),
                dst=EdgeRef(client_id="old"),
                weight=0.7,
                confidence=0.9,
            )
        ],
        info(),
        now=NOW,
    )
    [edge] = res.edges
    ids = await store.resolve_client_ids("t1", "s1", ["old", "new"])
    assert (edge.src_id, edge.dst_id) == (ids["new"], ids["old"])
    touching = await store.edges_touching("t1", "s1", [ids["old"]], min_weight=0, min_confidence=0, limit=10)
    assert [e.id for e in touching] == [edge.id]


async def test_edge_to_an_unknown_node_is_refused_and_nothing_is_written(store: Store) -> None:
    with pytest.raises(InvalidRequest) as err:
        await store.apply_write(
            "t1",
            "s1",
            [up("lonely", client_id="x")],
            [EdgeUpsert(id=None, type="part_of", src=EdgeRef(client_id="x"), dst=EdgeRef(client_id="missing"))],
            info(),
            now=NOW,
        )
    assert err.value.code == "edge_endpoint_not_found"
    assert await store.resolve_client_ids("t1", "s1", ["x"]) == {}


async def test_commits_form_a_hash_chain_per_scope(store: Store) -> None:
    c1 = (await store.apply_write("t1", "s1", [up("a")], [], info(), now=NOW)).commit
    c2 = (await store.apply_write("t1", "s1", [up("b")], [], info(), now=NOW)).commit
    other = (await store.apply_write("t1", "s2", [up("c", scope="s2")], [], info(), now=NOW)).commit
    assert c1.parent_id is None and c1.commit_hash == commit_hash(None, c1.diff)
    assert c2.parent_id == c1.id and c2.parent_hash == c1.commit_hash
    assert c2.commit_hash == commit_hash(c1.commit_hash, c2.diff)
    assert other.parent_id is None, "each scope has its own chain"
    stored = await store.get_commit("t1", c2.id)
    assert stored is not None and stored.commit_hash == c2.commit_hash


async def test_stale_parent_commit_is_a_conflict(store: Store) -> None:
    c1 = (await store.apply_write("t1", "s1", [up("a")], [], info(), now=NOW)).commit
    await store.apply_write("t1", "s1", [up("b")], [], info(parent=c1.id), now=NOW)
    with pytest.raises(Conflict):
        await store.apply_write("t1", "s1", [up("c")], [], info(parent=c1.id), now=NOW)


async def test_tenants_never_see_each_other(store: Store) -> None:
    """Same scope, same task id, same text in two tenants: every read returns the caller's
    tenant's node (the positive control) and never the other's."""
    v = vec(1)
    ids: dict[str, str] = {}
    for tenant in ("t1", "t2"):
        node = up("secret plan alpha", embedding=v, tenant=tenant, client_id="plan")
        node.node.task_id, node.node.layer = "task-7", "workspace"
        hub = up("hub", tenant=tenant, client_id="hub")
        edge = EdgeUpsert(id=None, type="part_of", src=EdgeRef(client_id="plan"), dst=EdgeRef(client_id="hub"))
        written = await store.apply_write(tenant, "s1", [node, hub], [edge], info(), now=NOW)
        ids[tenant] = written.nodes[0].id
    for me, other in (("t1", "t2"), ("t2", "t1")):
        mine, theirs = ids[me], ids[other]
        assert [n.id for n in await store.get_nodes(me, "s1", [mine, theirs])] == [mine]
        assert [n.id for n in await store.get_nodes(me, None, [mine, theirs])] == [mine]
        by_task = SeedFilter(valid_at=None, visibility=EVERYTHING, task_id="task-7", layers=("workspace",))
        assert [n.id for n in await store.find_nodes(me, "s1", by_task, limit=10)] == [mine]
        assert [n.id for n in await store.find_nodes(me, None, by_task, limit=10)] == [mine]
        hits = await store.vector_search(me, "s1", np.asarray(v, np.float32), 10, UNFILTERED)
        assert mine in {h.id for h in hits} and theirs not in {h.id for h in hits}
        words = await store.keyword_search(me, "s1", "secret plan alpha", 10, UNFILTERED)
        assert [h.id for h in words] == [mine]
        assert set(await store.get_embeddings(me, "s1", [mine, theirs])) == {mine}
        assert await store.resolve_client_ids(me, "s1", ["plan"]) == {"plan": mine}
        around = await store.edges_touching(me, "s1", [mine, theirs], min_weight=0, min_confidence=0, limit=10)
        assert around and all(mine in (e.src_id, e.dst_id) for e in around)
        assert [b.id for b in await store.node_briefs(me, "s1", [mine, theirs])] == [mine]
        scanned = await store.scan_nodes(me, "s1", after_id=None, limit=10)
        assert mine in {n.id for n in scanned} and theirs not in {n.id for n in scanned}


async def test_vector_search_ranks_by_cosine_and_obeys_filters(store: Store) -> None:
    target = vec(10)
    near = list(np.asarray(target) * 0.9 + np.asarray(vec(11)) * 0.1)
    ups = [
        up("exact", embedding=target),
        up("near", embedding=near),
        up("cold", embedding=target, tier="cold"),
        up("private other", embedding=target, lane="private", owner_agent="bob"),
        up("private mine", embedding=target, lane="private", owner_agent="alice"),
        up("draft topic", embedding=target, type_="topic", topic_state="draft"),
        up("topic without state", embedding=near, type_="topic"),
        up("pending"),
    ]
    res = await store.apply_write("t1", "s1", ups, [], info(), now=NOW)
    by_title = {n.title: n.id for n in res.nodes}
    flt = SeedFilter(valid_at=None, visibility=Visibility(lanes_enforced=True, agent_id="alice"))
    hits = await store.vector_search("t1", "s1", np.asarray(target, np.float32), 10, flt)
    titles = {v: k for k, v in by_title.items()}
    got = [titles[h.id] for h in hits]
    assert set(got) == {"exact", "near", "private mine", "topic without state"}
    assert got.index("exact") < got.index("near")
    assert hits[0].score == pytest.approx(1.0, abs=1e-4)


async def test_keyword_search_finds_words_and_ignores_query_syntax(store: Store) -> None:
    await store.apply_write(
        "t1", "s1", [up("Caroline went to the LGBTQ support group"), up("Melanie paints")], [], info(), now=NOW
    )
    hits = await store.keyword_search("t1", "s1", 'support "group" AND (NEAR', 5, UNFILTERED)
    [node] = await store.get_nodes("t1", "s1", [hits[0].id])
    assert node.title is not None and node.title.startswith("Caroline")


async def test_keyword_search_for_the_single_best_match_returns_it(store: Store) -> None:
    await store.apply_write(
        "t1", "s1", [up("Caroline went to the support group"), up("Melanie paints a lake")], [], info(), now=NOW
    )
    [best] = await store.keyword_search("t1", "s1", "melanie lake", 1, UNFILTERED)
    [node] = await store.get_nodes("t1", "s1", [best.id])
    assert node.title == "Melanie paints a lake"
    assert await store.keyword_search("t1", "s1", "melanie lake", 0, UNFILTERED) == []


def bm25_idf(docs_with_word: int, docs: int) -> float:
    return max(math.log((docs - docs_with_word + 0.5) / (docs_with_word + 0.5)), 1e-6)


def bm25(idf_sum: float, title: str, scope_titles: list[str]) -> float:
    """BM25 of a memory written by ``up(title)`` (its summary is ``title + " summary"``)."""
    lengths = [len(t) + len(f"{t} summary") for t in scope_titles]
    average = sum(lengths) / len(lengths)
    return idf_sum * 2.2 / (1 + 1.2 * (0.25 + 0.75 * (len(title) + len(f"{title} summary")) / average))


async def test_keyword_scores_are_the_scopes_bm25_so_a_rare_word_outweighs_a_name_every_memory_holds(
    store: Store,
) -> None:
    """Every backend scores a keyword match the same (BM25, k1 1.2, b 0.75, a word once per
    memory, lengths in characters of title and summary, statistics of the scope alone), so
    the ranking a user gets never depends on the database. A speaker's name on most memories
    adds next to nothing; the one rare word the question asks about decides."""
    titles = [
        "Caroline signed up for a pottery class",
        "Caroline planted tomatoes in her garden",
        "Caroline went hiking with her friends on a long trail",
        "Melanie painted the lake at sunrise",
    ]
    res = await store.apply_write("t1", "s1", [up(t) for t in titles], [], info(), now=NOW)
    # pottery everywhere in another scope and another tenant: their statistics are not s1's
    await store.apply_write("t1", "s2", [up(f"Pottery fair number {i}") for i in range(6)], [], info(), now=NOW)
    await store.apply_write("t2", "s1", [up(f"Caroline pottery {i}") for i in range(6)], [], info(), now=NOW)

    caroline, pottery = bm25_idf(3, len(titles)), bm25_idf(1, len(titles))
    want = [
        (res.nodes[0].id, bm25(caroline + pottery, titles[0], titles)),
        (res.nodes[1].id, bm25(caroline, titles[1], titles)),
        (res.nodes[2].id, bm25(caroline, titles[2], titles)),
    ]
    hits = await store.keyword_search("t1", "s1", "caroline pottery", 10, UNFILTERED)
    assert [h.id for h in hits] == [nid for nid, _ in want]
    assert [h.score for h in hits] == pytest.approx([score for _, score in want], rel=1e-5)
    assert hits[0].score > 100 * hits[1].score


async def test_keyword_scores_follow_the_scopes_new_memories_at_once(store: Store) -> None:
    """A memory just written counts in the word statistics of the next search: a word that
    was rare becomes common, and its weight falls accordingly."""
    titles = ["Caroline took a pottery class", "Melanie painted a lake"]
    await store.apply_write("t1", "s1", [up(t) for t in titles], [], info(), now=NOW)
    [hit] = await store.keyword_search("t1", "s1", "pottery", 10, UNFILTERED)
    assert hit.score == pytest.approx(bm25(bm25_idf(1, 2), titles[0], titles), rel=1e-5)
    more = ["Pottery at the fair", "Pottery wheel", "The pottery shop downtown"]
    await store.apply_write("t1", "s1", [up(t) for t in more], [], info(), now=NOW)
    titles += more
    hits = await store.keyword_search("t1", "s1", "pottery", 10, UNFILTERED)
    want = sorted((bm25(bm25_idf(4, 5), t, titles) for t in [titles[0], *more]), reverse=True)
    assert [h.score for h in hits] == pytest.approx(want, rel=1e-5)


async def test_an_update_with_a_new_client_vector_records_its_model(store: Store) -> None:
    first = await store.apply_write("t1", "s1", [up("fact", client_id="k", embedding=vec(1))], [], info(), now=NOW)
    again = up("fact", client_id="k", embedding=vec(2))
    again.node.embedding_model = "their-model-v2"
    await store.apply_write("t1", "s1", [again], [], info(), now=NOW + timedelta(seconds=1))
    [node] = await store.get_nodes("t1", "s1", [first.nodes[0].id])
    assert (node.embedding_status, node.embedding_model) == ("ready", "their-model-v2")
    stored = (await store.get_embeddings("t1", "s1", [node.id]))[node.id]
    assert np.allclose(stored, vec(2), atol=1e-3)


async def test_set_embeddings_refuses_vectors_for_text_that_changed(store: Store) -> None:
    res = await store.apply_write("t1", "s1", [up("old text", client_id="n")], [], info(), now=NOW)
    [pending] = await store.pending_embeddings("t1", [res.nodes[0].id])
    await store.apply_write("t1", "s1", [up("new text", client_id="n")], [], info(), now=NOW)
    stale = await store.set_embeddings([(pending, np.asarray(vec(3), np.float32))], "m", now=NOW)
    assert stale == [res.nodes[0].id]
    [fresh] = await store.pending_embeddings("t1", [res.nodes[0].id])
    assert fresh.text.startswith("new text")
    assert await store.set_embeddings([(fresh, np.asarray(vec(3), np.float32))], "m", now=NOW) == []
    [node] = await store.get_nodes("t1", "s1", [res.nodes[0].id])
    assert (node.embedding_status, node.embedding_model) == ("ready", "m")


async def test_deleted_nodes_leave_no_trace_in_reads_or_search(store: Store) -> None:
    v = vec(5)
    res = await store.apply_write(
        "t1",
        "s1",
        [up("doomed note", embedding=v, client_id="d"), up("keeper")],
        [EdgeUpsert(id=None, type="related_to", src=EdgeRef(client_id="d"), dst=EdgeRef(id=None, client_id="d"))],
        info(),
        now=NOW,
    )
    doomed = res.nodes[0].id
    assert (await store.vector_search("t1", "s1", np.asarray(v, np.float32), 5, UNFILTERED))[0].id == doomed
    assert await store.delete_nodes("t1", "s1", [doomed], info(), now=NOW) == [doomed]
    assert await store.get_nodes("t1", "s1", [doomed]) == []
    assert doomed not in {h.id for h in await store.vector_search("t1", "s1", np.asarray(v, np.float32), 5, UNFILTERED)}
    assert await store.keyword_search("t1", "s1", "doomed", 5, UNFILTERED) == []
    assert await store.edges_touching("t1", "s1", [doomed], min_weight=0, min_confidence=0, limit=5) == []
    assert await store.get_embeddings("t1", "s1", [doomed]) == {}


async def test_patch_nodes_changes_fields_and_commits(store: Store) -> None:
    res = await store.apply_write("t1", "s1", [up("n", embedding=vec(6))], [], info(), now=NOW)
    nid = res.nodes[0].id
    commit = await store.patch_nodes(
        "t1", "s1", [NodePatch(id=nid, tier="archive", slots={"k": 1})], info(), now=NOW, diff={"patched": [nid]}
    )
    assert commit is not None and commit.parent_id == res.commit.id
    [node] = await store.get_nodes("t1", "s1", [nid])
    assert (node.tier, node.slots, node.commit_id) == ("archive", {"k": 1}, commit.id)
    assert node.embedding_status == "ready", "a patch that does not touch text keeps the vector"


async def test_jobs_are_leased_once_completed_and_idempotent(store: Store) -> None:
    job = Job(tenant_id="t1", id=new_id(), kind="k", payload={"x": 1}, idempotency_key="req-1")
    [stored] = await store.enqueue([job], now=NOW)
    [again] = await store.enqueue(
        [Job(tenant_id="t1", id=new_id(), kind="k", payload={}, idempotency_key="req-1")], now=NOW
    )
    assert again.id == stored.id
    leased = await store.lease_jobs("w1", ["k"], limit=5, lease_sec=30, now=NOW)
    assert [j.id for j in leased] == [job.id] and leased[0].attempts == 1
    assert await store.lease_jobs("w2", ["k"], limit=5, lease_sec=30, now=NOW) == []
    await store.complete_job(leased[0], {"ok": True}, now=NOW)
    done = await store.get_job("t1", job.id)
    assert done is not None and (done.status, done.result) == ("done", {"ok": True})
    assert await store.get_job("t2", job.id) is None


async def test_a_renewed_lease_is_not_taken_over(store: Store) -> None:
    await store.enqueue([Job(tenant_id="t1", id=new_id(), kind="k", payload={})], now=NOW)
    [job] = await store.lease_jobs("alive", None, limit=1, lease_sec=10, now=NOW)
    assert await store.renew_lease(job, lease_sec=10, now=NOW + timedelta(seconds=8))
    assert await store.lease_jobs("w2", None, limit=1, lease_sec=10, now=NOW + timedelta(seconds=12)) == []
    [taken] = await store.lease_jobs("w2", None, limit=1, lease_sec=10, now=NOW + timedelta(seconds=19))
    assert not await store.renew_lease(job, lease_sec=10, now=NOW + timedelta(seconds=20)), "the old owner lost it"
    assert taken.lease_owner == "w2"


async def test_an_expired_lease_is_taken_over_by_another_worker(store: Store) -> None:
    await store.enqueue([Job(tenant_id="t1", id=new_id(), kind="k", payload={})], now=NOW)
    [first] = await store.lease_jobs("dead-worker", None, limit=1, lease_sec=10, now=NOW)
    assert await store.lease_jobs("w2", None, limit=1, lease_sec=10, now=NOW + timedelta(seconds=5)) == []
    [taken] = await store.lease_jobs("w2", None, limit=1, lease_sec=10, now=NOW + timedelta(seconds=11))
    assert taken.id == first.id and taken.attempts == 2 and taken.lease_owner == "w2"


async def test_failed_jobs_retry_then_park_as_failed(store: Store) -> None:
    await store.enqueue([Job(tenant_id="t1", id=new_id(), kind="k", payload={}, max_attempts=2)], now=NOW)
    [j] = await store.lease_jobs("w", None, limit=1, lease_sec=10, now=NOW)
    await store.fail_job(j, "boom", retry_at=NOW + timedelta(seconds=2), now=NOW)
    assert await store.lease_jobs("w", None, limit=1, lease_sec=10, now=NOW + timedelta(seconds=1)) == []
    [j] = await store.lease_jobs("w", None, limit=1, lease_sec=10, now=NOW + timedelta(seconds=3))
    await store.fail_job(j, "boom again", retry_at=NOW + timedelta(seconds=10), now=NOW)
    parked = await store.get_job("t1", j.id)
    assert parked is not None and (parked.status, parked.last_error) == ("failed", "boom again")


async def test_model_change_sends_server_embedded_nodes_back_to_pending(store: Store) -> None:
    res = await store.apply_write("t1", "s1", [up("a"), up("client vec", embedding=vec(7))], [], info(), now=NOW)
    [pending] = await store.pending_embeddings("t1", [res.nodes[0].id])
    await store.set_embeddings([(pending, np.asarray(vec(8), np.float32))], "old-model", now=NOW)
    pairs = await store.mark_stale_embeddings("new-model", DIM, now=NOW, limit=100)
    assert pairs == [("t1", res.nodes[0].id)], "client-supplied vectors of the right size are kept"
    [node] = await store.get_nodes("t1", "s1", [res.nodes[0].id])
    assert node.embedding_status == "pending"


async def test_data_survives_closing_and_reopening_the_store(store: Store, db_url: str) -> None:
    from memlane.config import Settings
    from memlane.services.container import build_store

    res = await store.apply_write("t1", "s1", [up("durable", embedding=vec(9))], [], info(), now=NOW)
    await store.close()
    reopened = build_store(Settings(MEMLANE_DATABASE_URL=db_url), dimension=DIM)
    await reopened.open()
    try:
        [node] = await reopened.get_nodes("t1", "s1", [res.nodes[0].id])
        assert node.title == "durable"
        hits = await reopened.vector_search("t1", "s1", np.asarray(vec(9), np.float32), 1, UNFILTERED)
        assert hits[0].id == node.id
    finally:
        await reopened.close()


def _edge(src: str, dst: str, *, weight: float = 1.0, type_: str = "related_to") -> EdgeUpsert:
    return EdgeUpsert(id=None, type=type_, src=EdgeRef(client_id=src), dst=EdgeRef(client_id=dst), weight=weight)


async def _around(store: Store, node_id: str) -> dict[tuple[str, str], float]:
    found = await store.edges_touching("t1", "s1", [node_id], min_weight=0, min_confidence=0, limit=50)
    return {(e.src_id, e.dst_id): e.weight for e in found}


async def test_edges_around_a_node_follow_every_later_edge_change(store: Store) -> None:
    """Reads after each change see it: new edges, changed weights, deletes and redirects."""
    await store.apply_write(
        "t1", "s1", [up(n, client_id=n) for n in ("a", "b", "c", "d")], [_edge("a", "b")], info(), now=NOW
    )
    ids = await store.resolve_client_ids("t1", "s1", ["a", "b", "c", "d"])
    a, b, c, d = (ids[k] for k in "abcd")
    assert await _around(store, a) == {(a, b): 1.0}

    await store.apply_write("t1", "s1", [], [_edge("a", "c", weight=0.5), _edge("a", "b", weight=0.3)], info(), now=NOW)
    assert await _around(store, a) == {(a, b): 0.3, (a, c): 0.5}

    ac = next(e for e in await store.edges_touching("t1", "s1", [c], min_weight=0, min_confidence=0, limit=5))
    await store.delete_edges("t1", "s1", [ac.id], info(), now=NOW)
    assert await _around(store, a) == {(a, b): 0.3}
    assert await _around(store, c) == {}

    await store.redirect_edges("t1", "s1", {b: d}, info(), now=NOW)
    assert await _around(store, a) == {(a, d): 0.3}
    assert await _around(store, b) == {}

    await store.delete_nodes("t1", "s1", [d], info(), now=NOW)
    assert await _around(store, a) == {}


async def test_node_briefs_agree_with_the_nodes_and_follow_changes(store: Store) -> None:
    personal = up("b", client_id="b", lane="private", owner_agent="ag")
    personal.node.layer, personal.node.user_id, personal.node.session_id = "session", "u1", "s9"
    await store.apply_write("t1", "s1", [up("a", client_id="a", embedding=vec(1)), personal], [], info(), now=NOW)
    await store.apply_write("t1", "s2", [up("elsewhere", client_id="c", scope="s2")], [], info(), now=NOW)
    ids = await store.resolve_client_ids("t1", "s1", ["a", "b"])
    other = (await store.resolve_client_ids("t1", "s2", ["c"]))["c"]
    asked = [ids["b"], other, "no-such-node", ids["a"]]
    briefs = await store.node_briefs("t1", "s1", asked)
    nodes = {n.id: n for n in await store.get_nodes("t1", "s1", asked)}
    assert [b.id for b in briefs] == [ids["b"], ids["a"]]
    for b in briefs:
        n = nodes[b.id]
        assert {f.name: getattr(b, f.name) for f in fields(NodeBrief)} == {
            f.name: getattr(n, f.name) for f in fields(NodeBrief)
        }
    assert (briefs[0].layer, briefs[0].user_id, briefs[0].session_id) == ("session", "u1", "s9")
    await store.patch_nodes("t1", "s1", [NodePatch(id=ids["a"], tier="cold")], info(), now=NOW, diff={"patched": 1})
    [a] = await store.node_briefs("t1", "s1", [ids["a"]])
    assert a.tier == "cold"


async def test_a_writer_cannot_update_or_link_to_nodes_it_may_not_see(store: Store) -> None:
    """Lanes, hidden layers and personal layers hold for writes: a stored node the writer may
    not see is taken by its client_id (a conflict), and is no endpoint for its edges."""
    hidden = up("workspace note", client_id="ws")
    hidden.node.layer = "workspace"
    mine = up("u1's note", client_id="u1note")
    mine.node.layer, mine.node.user_id = "user", "u1"
    await store.apply_write(
        "t1", "s1", [up("bob's", client_id="bob", lane="private", owner_agent="bob"), hidden, mine], [], info(), now=NOW
    )
    alice = Visibility(lanes_enforced=True, agent_id="alice", hidden_layers=("workspace",), user_id="u2")
    for client_id in ("bob", "ws", "u1note"):
        with pytest.raises(Conflict) as conflict:
            await store.apply_write(
                "t1", "s1", [up("take over", client_id=client_id)], [], info(), now=NOW, writer=alice
            )
        assert conflict.value.code == "client_id_in_use"
        link = EdgeUpsert(id=None, type="related_to", src=EdgeRef(client_id="new"), dst=EdgeRef(client_id=client_id))
        with pytest.raises(InvalidRequest) as missing:
            await store.apply_write("t1", "s1", [up("new", client_id="new")], [link], info(), now=NOW, writer=alice)
        assert missing.value.code == "edge_endpoint_not_found"
    by_id = (await store.resolve_client_ids("t1", "s1", ["bob"]))["bob"]
    link = EdgeUpsert(id=None, type="related_to", src=EdgeRef(client_id="new"), dst=EdgeRef(id=by_id))
    with pytest.raises(InvalidRequest):
        await store.apply_write("t1", "s1", [up("new", client_id="new")], [link], info(), now=NOW, writer=alice)
    bob = Visibility(lanes_enforced=True, agent_id="bob")
    res = await store.apply_write("t1", "s1", [up("new", client_id="new")], [link], info(), now=NOW, writer=bob)
    assert [(e.dst_id) for e in res.edges] == [by_id]


async def test_preceding_nodes_are_the_scopes_latest_inserts_before_a_node_newest_first(store: Store) -> None:
    ids: list[str] = []
    for i, scope in enumerate(["s1", "s1", "other", "s1", "s1"]):
        res = await store.apply_write("t1", scope, [up(f"turn {i}")], [], info(), now=NOW + timedelta(seconds=i))
        ids.append(res.nodes[0].id)
    before = await store.preceding_nodes("t1", "s1", ids[4], limit=2, span=64)
    assert [n.id for n in before] == [ids[3], ids[1]]
    # the look-back is bounded: two insertions back reaches only the other scope's node and ids[3]
    assert [n.id for n in await store.preceding_nodes("t1", "s1", ids[4], limit=5, span=2)] == [ids[3]]
    assert await store.preceding_nodes("t1", "s1", ids[0], limit=5, span=64) == []
    assert await store.preceding_nodes("t2", "s1", ids[4], limit=5, span=64) == []
