"""Compression rollups: extractive summaries of event groups, derived_from their events, which
recall then renders first instead of the events themselves."""

from __future__ import annotations

from typing import Any

import numpy as np

from memlane.domain.clock import new_id
from memlane.domain.model import CommitInfo, EdgeRef, Job
from memlane.domain.visibility import Viewer
from memlane.jobs.lifecycle_kinds import LIFECYCLE_COMPRESS
from memlane.services.container import Services
from memlane.services.lifecycle.compression import CompressionOptions, extractive_summary
from memlane.services.recall.model import RecallParams
from memlane.services.writing import WriteCommand, WriteEdgeSpec, WriteNodeSpec

TRIP = [
    "We flew to Lisbon on Monday. The flight was delayed by two hours.",
    "In Lisbon we visited the Alfama district and ate grilled sardines.",
    "On Wednesday we took the train from Lisbon to Porto.",
    "Porto has port wine cellars; we toured two of them.",
    "We flew home from Porto on Friday.",
]


def test_the_extractive_summary_keeps_central_sentences_in_order() -> None:
    summary = extractive_summary(TRIP, max_sentences=3, max_chars=400)
    sentences = [s for s in summary.split(". ") if s]
    assert 1 <= len(sentences) <= 3 and len(summary) <= 400
    positions = [next(i for i, t in enumerate(TRIP) if s.rstrip(".") in t) for s in sentences]
    assert positions == sorted(positions)
    assert "Lisbon" in summary or "Porto" in summary
    assert extractive_summary(["", "  "]) == ""
    assert extractive_summary(["word " * 500], max_chars=100).endswith("…")
    # redundant sentences are not repeated
    assert extractive_summary(["The cat sat on the mat.", "The cat sat on the mat!"], max_sentences=2).count("cat") == 1


async def trip(svc: Services, scope: str = "s", lane: str = "shared", owner: str | None = None) -> dict[str, str]:
    """A topic and its five events, one write each, so they have a creation order."""
    ids: dict[str, str] = {}

    async def put(nodes: list[WriteNodeSpec], edges: list[WriteEdgeSpec]) -> None:
        res = await svc.writes.write(
            WriteCommand(tenant_id="t1", scope=scope, input_sha256="f" * 64, nodes=nodes, edges=edges, auto_embed=True)
        )
        ids.update({str(n.client_id): n.id for n in res.result.nodes})

    await put(
        [
            WriteNodeSpec(
                type="topic",
                fields_set=frozenset({"client_id", "title", "memory_lane"}),
                client_id="trip",
                title="Portugal trip",
                memory_lane="shared",
            )
        ],
        [],
    )
    fields = frozenset({"client_id", "text_summary", "memory_lane", "owner_agent_id"})
    for i, text in enumerate(TRIP):
        event = WriteNodeSpec(
            type="event",
            fields_set=fields,
            client_id=f"e{i}",
            text_summary=text,
            memory_lane=lane,
            owner_agent_id=owner,
        )
        await put([event], [WriteEdgeSpec(type="part_of", src=EdgeRef(client_id=f"e{i}"), dst=EdgeRef(id=ids["trip"]))])
    return ids


async def rollups(svc: Services, scope: str = "s") -> list[Any]:
    nodes = await svc.store.scan_nodes("t1", scope, after_id=None, limit=100, types=["concept"])
    return [n for n in nodes if n.slots.get("summary_kind") == "compression_rollup"]


async def test_a_rollup_summarises_a_topics_events_and_cites_them(services: Services) -> None:
    svc = services
    ids = await trip(svc)
    life = svc.lifecycle
    dry = await life.compression.run("t1", "s", CompressionOptions(), apply=False)
    assert [r.status for r in dry.rollups] == ["new"] and await rollups(svc) == []

    done = await life.compression.run("t1", "s", CompressionOptions(), apply=True)
    assert len(done.commits) == 1
    [rollup] = await rollups(svc)
    assert rollup.title.startswith("Summary: Portugal trip") and rollup.text_summary
    assert rollup.slots["source_ids"] == [ids[f"e{i}"] for i in range(5)] and rollup.slots["source_count"] == 5
    assert rollup.slots["method"] == "extractive-v1" and rollup.memory_lane == "shared"
    edges = await svc.store.edges_touching("t1", "s", [rollup.id], min_weight=0, min_confidence=0, limit=50)
    derived = sorted(e.dst_id for e in edges if e.type == "derived_from" and e.src_id == rollup.id)
    assert derived == sorted(ids[f"e{i}"] for i in range(5))
    assert any(e.type == "part_of" and e.dst_id == ids["trip"] for e in edges)
    commit = await svc.store.get_commit("t1", done.commits[0])
    assert commit is not None and commit.kind == "compress" and commit.actor == "memlane:compress"

    again = await life.compression.run("t1", "s", CompressionOptions(), apply=True)
    assert [r.status for r in again.rollups] == ["unchanged"] and again.commits == []


async def test_recall_renders_the_rollup_instead_of_its_events(services: Services) -> None:
    svc = services
    ids = await trip(svc)
    await svc.lifecycle.compression.run("t1", "s", CompressionOptions(), apply=True)
    await svc.worker.drain()  # embeds the events and the rollup
    [rollup] = await rollups(svc)
    query = await svc.embedding.query_vector("our trip to Lisbon and Porto")
    out = await svc.recall.recall(np.asarray(query), RecallParams(viewer=Viewer(tenant_id="t1"), scope="s", limit=20))
    assert out.context.text.startswith("# Summaries\n")
    assert f"[{rollup.id}]" in out.context.text
    cited = [c for c in out.context.citations if c["kind"] == "summary"]
    assert cited and set(cited[0]["derived_from"]) <= {ids[f"e{i}"] for i in range(5)}
    listed_events = {c["node_id"] for c in out.context.citations if c["kind"] == "node" and c["type"] == "event"}
    assert not listed_events & set(cited[0]["derived_from"])


async def test_changed_chunks_are_rewritten_stale_edges_dropped_and_orphans_retired(services: Services) -> None:
    svc = services
    ids = await trip(svc)
    life = svc.lifecycle
    opts = CompressionOptions(min_events=2, max_events=3)
    first = await life.compression.run("t1", "s", opts, apply=True)
    assert sorted(r.title.split(",")[0] for r in first.rollups) == [
        "Summary: Portugal trip (part 1)",
        "Summary: Portugal trip (part 2)",
    ]
    by_part = {r.group["chunk"]: r.rollup_id for r in first.rollups}
    # a leftover edge, as an interrupted run or an alias redirection could leave behind
    await svc.writes.write(
        WriteCommand(
            tenant_id="t1",
            scope="s",
            input_sha256="f" * 64,
            edges=[WriteEdgeSpec(type="derived_from", src=EdgeRef(id=by_part[0]), dst=EdgeRef(id=ids["trip"]))],
        )
    )
    # the first event disappears: chunk 0 changes, chunk 1 falls below min_events
    await svc.store.delete_nodes("t1", "s", [ids["e0"], ids["e1"]], CommitInfo(actor="t", input_sha256="0" * 64),
                                 now=svc.clock.now())  # fmt: skip
    second = await life.compression.run("t1", "s", opts, apply=True)
    assert [r.status for r in second.rollups] == ["changed"]
    assert second.stale_edges_removed == 1 and second.retire == [by_part[1]]
    nodes = {n.id: n for n in await rollups(svc)}
    assert nodes[by_part[0]].slots["source_ids"] == [ids["e2"], ids["e3"], ids["e4"]]
    assert nodes[by_part[1]].tier == "archive" and nodes[by_part[1]].slots["retired_at"]


async def test_private_events_are_summarised_per_owner(services: Services) -> None:
    svc = services
    await trip(svc, lane="private", owner="alice")
    await trip(svc, scope="s2")
    await svc.lifecycle.compression.run("t1", "s", CompressionOptions(), apply=True)
    [rollup] = await rollups(svc)
    assert rollup.memory_lane == "private" and rollup.owner_agent_id == "alice"


async def test_two_users_events_are_never_summarised_together(services: Services) -> None:
    """Conversation notes of two users can share a session id; each user's rollup is the
    user's own, so no other user's reader sees a word of it (domain/visibility.py)."""
    svc = services
    fields = frozenset({"text_summary", "memory_lane", "session_id", "user_id"})
    nodes = [
        WriteNodeSpec(
            type="event", fields_set=fields, text_summary=t, memory_lane="shared", session_id="sess-1", user_id=user
        )
        for user in ("u1", "u2")
        for t in TRIP
    ]
    await svc.writes.write(WriteCommand(tenant_id="t1", scope="chat", input_sha256="f" * 64, nodes=nodes))
    await svc.lifecycle.compression.run("t1", "chat", CompressionOptions(), apply=True)
    made = await rollups(svc, "chat")
    assert sorted(str(r.user_id) for r in made) == ["u1", "u2"]
    for r in made:
        sources = {n.user_id for n in await svc.store.get_nodes("t1", "chat", r.slots["source_ids"])}
        assert sources == {r.user_id}


async def test_sessions_group_events_without_a_topic_and_the_job_runs_it(services: Services) -> None:
    svc = services
    fields = frozenset({"text_summary", "memory_lane", "session_id"})
    await svc.writes.write(
        WriteCommand(
            tenant_id="t1",
            scope="chat",
            input_sha256="f" * 64,
            nodes=[
                WriteNodeSpec(
                    type="event", fields_set=fields, text_summary=t, memory_lane="shared", session_id="sess-1"
                )
                for t in TRIP
            ],
        )
    )
    job = Job(tenant_id="t1", id=new_id(), kind=LIFECYCLE_COMPRESS, payload={"apply": True})
    await svc.store.enqueue([job], now=svc.clock.now())
    await svc.worker.drain()
    done = await svc.store.get_job("t1", job.id)
    assert done is not None and done.status == "done", done and done.last_error
    [rollup] = await rollups(svc, "chat")
    assert rollup.title.startswith("Summary of session sess-1") and rollup.embedding_status == "ready"
    bad = Job(tenant_id="t1", id=new_id(), kind=LIFECYCLE_COMPRESS, payload={"options": {"min_events": 1}})
    await svc.store.enqueue([bad], now=svc.clock.now())
    await svc.worker.drain()
    failed = await svc.store.get_job("t1", bad.id)
    assert failed is not None and failed.status == "failed" and "invalid job options" in str(failed.last_error)
