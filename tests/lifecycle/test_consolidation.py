"""Consolidation: duplicates found by embedding and text, aliased to a canonical node, their edges
redirected; contradictory candidates skipped unless the offline override is given."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import numpy as np
from typer.testing import CliRunner

from memlane.cli.main import app
from memlane.domain.model import CommitInfo, EdgeRef, Node
from memlane.services.container import Services, open_services
from memlane.services.lifecycle.consolidation import ConsolidationOptions, contradiction, text_similarity
from memlane.services.writing import WriteCommand, WriteEdgeSpec, WriteNodeSpec
from memlane.store.base import NodePatch
from tests.support.settings import DIM, make_settings

TEA = "Alice prefers green tea in the morning"


def near(seed: int, jitter: int | None = None, amount: float = 0.05) -> list[float]:
    base = np.random.default_rng(seed).normal(size=DIM)
    if jitter is not None:
        base = base / np.linalg.norm(base) + amount * np.random.default_rng(jitter).normal(size=DIM) / np.sqrt(DIM)
    return [float(x) for x in base / np.linalg.norm(base)]


def spec(client_id: str, title: str, vector: list[float], type_: str = "event", **kw: Any) -> WriteNodeSpec:
    fields = {"client_id", "title", "embedding", "memory_lane", *kw}
    return WriteNodeSpec(
        type=type_,
        fields_set=frozenset(fields),
        client_id=client_id,
        title=title,
        embedding=vector,
        memory_lane="shared",
        **kw,
    )


async def write(
    svc: Services, scope: str, nodes: list[WriteNodeSpec], edges: list[tuple[str, str, str]] | None = None
) -> dict[str, str]:
    cmd = WriteCommand(
        tenant_id="t1",
        scope=scope,
        input_sha256="d" * 64,
        nodes=nodes,
        edges=[WriteEdgeSpec(type=t, src=EdgeRef(client_id=a), dst=EdgeRef(client_id=b)) for a, b, t in edges or []],
    )
    res = await svc.writes.write(cmd)
    return {str(n.client_id): n.id for n in res.result.nodes}


async def slots(svc: Services, scope: str, node_id: str) -> dict[str, Any]:
    return (await svc.store.get_nodes("t1", scope, [node_id]))[0].slots


def test_text_similarity_and_contradiction_cues() -> None:
    assert text_similarity(TEA, "Alice prefers green teas every morning") >= 0.7
    assert text_similarity(TEA, "Bob repairs bicycles") == 0
    same = Node(tenant_id="t", id="a", scope="s", type="event", title=TEA)
    negated = Node(tenant_id="t", id="b", scope="s", type="event", title="Alice does not prefer green tea")
    doubly = Node(tenant_id="t", id="c", scope="s", type="event", title="Alice never doesn't prefer green tea")
    antonym = Node(tenant_id="t", id="d", scope="s", type="event", title="Alice avoids green tea in the morning")
    polar = Node(tenant_id="t", id="e", scope="s", type="event", title=TEA, slots={"polarity": "negative"})
    polar2 = Node(tenant_id="t", id="f", scope="s", type="event", title=TEA, slots={"polarity": "positive"})
    assert contradiction(same, negated) == "negation"
    # conservative: any negation keeps two nodes apart (an even count no longer cancels out)
    assert contradiction(same, doubly) == "negation"
    assert contradiction(same, antonym) == "antonyms prefers/avoids"
    assert contradiction(polar, polar2) == "slots.polarity differs"
    assert contradiction(same, same) is None


async def test_dry_run_reports_and_apply_aliases_with_edges_redirected(services: Services) -> None:
    svc = services
    ids = await write(
        svc,
        "s",
        [
            spec("canon", TEA, near(1), importance=0.9),
            spec("dup", "Alice prefers green teas every morning", near(1, 2)),
            spec("other", "Bob repairs bicycles on weekends", near(3)),
            spec("alice", "Alice", near(4), type_="entity"),
        ],
        [("dup", "alice", "related_to"), ("canon", "alice", "related_to"), ("dup", "canon", "related_to"),
         ("other", "dup", "part_of")],
    )  # fmt: skip
    life = svc.lifecycle
    commits_before = await svc.store.list_commits("t1", "s", limit=50)
    dry = await life.consolidation.run("t1", "s", ConsolidationOptions(), apply=False)
    assert not dry.applied and dry.scanned == 4 and dry.candidates == 1
    assert [(g.canonical_id, g.duplicate_ids) for g in dry.groups] == [(ids["canon"], [ids["dup"]])]
    assert await svc.store.list_commits("t1", "s", limit=50) == commits_before
    assert "alias_of" not in await slots(svc, "s", ids["dup"])

    done = await life.consolidation.run("t1", "s", ConsolidationOptions(), apply=True)
    assert done.applied and done.aliased == 1 and len(done.commits) == 2
    dup = await slots(svc, "s", ids["dup"])
    assert dup["alias_of"] == ids["canon"] and dup["superseded_by"] == ids["canon"]
    assert dup["consolidation_run_id"] == done.run_id and dup["consolidation_similarity"]["embedding"] > 0.92
    canon = await slots(svc, "s", ids["canon"])
    assert canon["merged_from"] == [ids["dup"]] and canon["merged_count"] == 1
    assert (done.edges_redirected, done.edges_merged, done.self_loops_removed) == (1, 1, 1)
    edges = await svc.store.edges_touching("t1", "s", list(ids.values()), min_weight=0, min_confidence=0, limit=50)
    assert ids["dup"] not in {x for e in edges for x in (e.src_id, e.dst_id)}
    assert sorted((e.type, e.src_id, e.dst_id) for e in edges) == sorted(
        [("related_to", ids["canon"], ids["alice"]), ("part_of", ids["other"], ids["canon"])]
    )
    commit = await svc.store.get_commit("t1", done.commits[0])
    assert commit is not None and commit.kind == "consolidate" and commit.actor == "memlane:consolidate"
    assert commit.diff["consolidation"]["groups"][0]["duplicate_ids"] == [ids["dup"]]

    again = await life.consolidation.run("t1", "s", ConsolidationOptions(), apply=True)
    assert again.groups == [] and again.commits == []  # nothing left to do


async def test_contradictory_candidates_are_skipped_unless_overridden(services: Services) -> None:
    svc = services
    ids = await write(
        svc,
        "s",
        [
            spec("likes", TEA, near(1), importance=0.9),
            spec("dislikes", "Alice does not prefer green tea in the morning", near(1, 5)),
        ],
    )
    life = svc.lifecycle
    safe = await life.consolidation.run("t1", "s", ConsolidationOptions(), apply=True)
    assert safe.groups == [] and safe.commits == []
    assert [(p.contradiction, p.as_dict()["reason"]) for p in safe.skipped] == [("negation", "contradictory_candidate")]

    forced = await life.consolidation.run("t1", "s", ConsolidationOptions(allow_contradictory=True), apply=True)
    assert forced.aliased == 1
    marked = await slots(svc, "s", ids["dislikes"])
    assert marked["alias_of"] == ids["likes"]
    assert marked["consolidation_override"] == "allow_contradictory" and marked["contradiction_reason"] == "negation"
    commit = await svc.store.get_commit("t1", forced.commits[0])
    assert commit is not None and commit.diff["consolidation"]["allow_contradictory"] is True
    assert commit.diff["consolidation"]["groups"][0]["overrides"] == {ids["dislikes"]: "negation"}


async def test_only_same_type_ready_non_rule_nodes_with_similar_text_merge(services: Services) -> None:
    svc = services
    await write(
        svc,
        "s",
        [
            spec("event", TEA, near(1)),
            spec("concept", TEA, near(1, 6), type_="concept"),
            spec("rule-a", TEA, near(7), type_="rule"),
            spec("rule-b", TEA, near(7, 8), type_="rule"),
            spec("unrelated-text", "Quarterly revenue grew by ten percent", near(1, 9)),
        ],
    )
    report = await svc.lifecycle.consolidation.run("t1", "s", ConsolidationOptions(), apply=False)
    assert report.candidates == 0 and report.groups == []


async def test_one_users_fact_never_aliases_nor_closes_another_users(services: Services) -> None:
    from datetime import UTC, datetime

    svc = services
    then, later = datetime(2023, 1, 1, tzinfo=UTC), datetime(2024, 6, 1, tzinfo=UTC)
    dislike = "Alice does not prefer green tea in the morning"
    ids = await write(
        svc,
        "s",
        [
            spec("u1-likes", TEA, near(1), user_id="u1", valid_at=then),
            spec("u1-likes-too", TEA, near(1, 3), user_id="u1", valid_at=then),
            spec("u2-likes", TEA, near(1, 4), user_id="u2", valid_at=then),
            spec("u2-dislikes", dislike, near(1, 5), user_id="u2", valid_at=later),
        ],
    )
    report = await svc.lifecycle.consolidation.run("t1", "s", ConsolidationOptions(), apply=False)
    # u1's two facts are duplicates, u2's newer fact closes its older one; nothing crosses users
    assert [sorted([g.canonical_id, *g.duplicate_ids]) for g in report.groups] == [
        sorted([ids["u1-likes"], ids["u1-likes-too"]])
    ]
    assert [(c.id, c.by) for c in report.closures] == [(ids["u2-likes"], ids["u2-dislikes"])]


async def test_a_run_heals_edges_left_by_an_interrupted_one(services: Services) -> None:
    svc = services
    ids = await write(
        svc,
        "s",
        [spec("canon", TEA, near(1)), spec("dup", "x", near(2)), spec("n", "neighbour", near(3))],
        [("dup", "n", "related_to")],
    )
    # as if a run had written the alias slots and stopped before moving the edges
    await svc.store.patch_nodes(
        "t1",
        "s",
        [NodePatch(id=ids["dup"], slots={"alias_of": ids["canon"], "superseded_by": ids["canon"]})],
        CommitInfo(actor="test", input_sha256="e" * 64),
        now=svc.clock.now(),
        diff={"test": True},
    )
    report = await svc.lifecycle.consolidation.run("t1", "s", ConsolidationOptions(), apply=True)
    assert report.edges_redirected == 1
    edges = await svc.store.edges_touching("t1", "s", [ids["n"]], min_weight=0, min_confidence=0, limit=10)
    assert [(e.src_id, e.dst_id) for e in edges] == [(ids["canon"], ids["n"])]


def test_the_consolidate_command_is_a_dry_run_until_apply(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'm.db'}"
    env = {"MEMLANE_DATABASE_URL": url, "MEMLANE_EMBEDDER": "hashing", "MEMORY_TENANT_ID": "t1", "COLUMNS": "200"}

    async def prepare() -> dict[str, str]:
        svc = await open_services(make_settings(url))
        try:
            return await write(
                svc,
                "s",
                [spec("canon", TEA, near(1), importance=0.9), spec("dup", "Alice prefers green teas", near(1, 2))],
            )
        finally:
            await svc.close()

    async def read(node_id: str) -> dict[str, Any]:
        svc = await open_services(make_settings(url))
        try:
            return await slots(svc, "s", node_id)
        finally:
            await svc.close()

    ids = asyncio.run(prepare())
    runner = CliRunner()
    dry = runner.invoke(app, ["consolidate"], env=env)
    assert dry.exit_code == 0, dry.output
    assert "dry-run" in dry.output and ids["dup"] in dry.output
    assert "alias_of" not in asyncio.run(read(ids["dup"]))

    applied = runner.invoke(app, ["consolidate", "--scope", "s", "--apply", "--json"], env=env)
    assert applied.exit_code == 0, applied.output
    report = json.loads(applied.output)
    assert report["applied"] is True and report["consolidation"][0]["aliased"] == 1
    assert asyncio.run(read(ids["dup"]))["alias_of"] == ids["canon"]

    queued = runner.invoke(app, ["consolidate", "--enqueue", "--apply", "--rollups"], env=env)
    assert queued.exit_code == 0 and queued.output.count("queued") == 2

    bad = runner.invoke(app, ["consolidate", "--no-dedupe"], env=env)
    assert bad.exit_code != 0


async def test_a_contradictory_pair_closes_the_older_fact_instead_of_deleting_it(services: Services) -> None:
    svc = services
    from datetime import UTC, datetime

    from memlane.domain.model import SeedFilter
    from memlane.domain.visibility import EVERYTHING

    then, later = datetime(2023, 1, 1, tzinfo=UTC), datetime(2024, 6, 1, tzinfo=UTC)
    ids = await write(
        svc,
        "s",
        [
            spec("likes", TEA, near(1), valid_at=then),
            spec("dislikes", "Alice does not prefer green tea in the morning", near(1, 5), valid_at=later),
        ],
    )
    life = svc.lifecycle
    dry = await life.consolidation.run("t1", "s", ConsolidationOptions(), apply=False)
    assert [c.as_dict() for c in dry.closures] == [
        {"id": ids["likes"], "by": ids["dislikes"], "invalid_at": "2024-06-01T00:00:00Z"}
    ]
    assert (await svc.store.get_nodes("t1", "s", [ids["likes"]]))[0].invalid_at is None, "a dry run writes nothing"

    applied = await life.consolidation.run("t1", "s", ConsolidationOptions(), apply=True)
    assert applied.closed == 1 and applied.groups == [] and len(applied.commits) == 1
    old = (await svc.store.get_nodes("t1", "s", [ids["likes"]]))[0]
    assert old.invalid_at == later and old.expired_at is not None and old.slots["closed_by"] == ids["dislikes"]
    valid_now = await svc.store.find_nodes("t1", "s", SeedFilter(EVERYTHING, datetime.now(UTC)), limit=10)
    assert {n.id for n in valid_now} == {ids["dislikes"]}
    valid_then = await svc.store.find_nodes(
        "t1", "s", SeedFilter(EVERYTHING, datetime(2023, 6, 1, tzinfo=UTC)), limit=10
    )
    assert {n.id for n in valid_then} == {ids["likes"]}
    again = await life.consolidation.run("t1", "s", ConsolidationOptions(), apply=True)
    assert again.closures == [] and again.commits == [], "a closed fact stays as it was closed"


def test_closures_close_the_older_fact_at_the_earliest_newer_one() -> None:
    from datetime import UTC, datetime

    from memlane.services.lifecycle.closures import plan_closures

    def node(nid: str, year: int | None, **kw: Any) -> Node:
        when = datetime(year, 1, 1, tzinfo=UTC) if year else None
        return Node(tenant_id="t", id=nid, scope="s", type="event", created_at=when, **kw)

    by_id = {
        "a": node("a", 2020),
        "b": node("b", 2022),
        "c": node("c", 2021),
        "same": node("same", 2020),
        "closed": node("closed", 2019, invalid_at=datetime(2019, 6, 1, tzinfo=UTC)),
        "by_valid_at": node("by_valid_at", 2025, valid_at=datetime(2018, 1, 1, tzinfo=UTC)),
    }
    got = plan_closures([("a", "b"), ("c", "a"), ("a", "same"), ("closed", "b"), ("by_valid_at", "a")], by_id)
    assert [(c.id, c.by, c.at.year) for c in got] == [("a", "c", 2021), ("by_valid_at", "a", 2020)]
