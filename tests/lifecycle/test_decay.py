"""Adaptive decay: idle nodes move hot -> warm -> cold -> archive; feedback changes the pace;
the sweep is a durable job that schedules its next period itself."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from memlane.api.app import create_app
from memlane.config import Settings
from memlane.domain.clock import Clock
from memlane.domain.model import Node
from memlane.domain.visibility import Viewer
from memlane.embed.hashing import HashingEmbedder
from memlane.jobs.lifecycle_kinds import LIFECYCLE_DECAY, SYSTEM_TENANT
from memlane.services.container import Services, open_services
from memlane.services.lifecycle.decay import DecayPolicy, decay_target, effective_idle_days
from memlane.services.writing import WriteCommand, WriteNodeSpec
from tests.support.settings import DIM, make_settings
from tests.support.timeline import Timeline

START = datetime(2026, 1, 1, tzinfo=UTC)
CFG = DecayPolicy()
ADMIN = Viewer(tenant_id="t1", role="admin")


@pytest.fixture
def timeline() -> Timeline:
    return Timeline(START)


@pytest.fixture
async def svc(db_url: str, timeline: Timeline) -> AsyncIterator[Services]:
    s = await open_services(make_settings(db_url), clock=Clock(timeline), embedder=HashingEmbedder(DIM))
    try:
        yield s
    finally:
        await s.close()


def n(**kw: Any) -> Node:
    base: dict[str, Any] = {"tenant_id": "t", "id": "x", "scope": "s", "type": "event", "created_at": START}
    return Node(**{**base, **kw})


def test_the_decay_formula() -> None:
    now = START + timedelta(days=10)
    assert effective_idle_days(n(), now) == 10
    assert effective_idle_days(n(last_activated=START + timedelta(days=8)), now) == 2
    positive = n(slots={"feedback_positive": 8, "feedback_negative": 0})  # quality 0.9
    assert effective_idle_days(positive, now) == pytest.approx(10 * 2 ** (1 - 1.8))
    negative = n(slots={"feedback_positive": 0, "feedback_negative": 8})  # quality 0.1
    assert effective_idle_days(negative, now) == pytest.approx(10 * 2 ** (1 - 0.2))
    assert decay_target(n(), now, CFG) == "warm"
    assert decay_target(n(tier="cold"), now, CFG) is None  # never promotes
    assert decay_target(n(), START + timedelta(days=95), CFG) == "archive"  # straight to where age puts it
    assert decay_target(positive, now, CFG) is None  # 5.7 effective days: still hot
    assert decay_target(n(type="rule"), START + timedelta(days=400), CFG) is None
    assert decay_target(n(slots={"pinned": True}), START + timedelta(days=400), CFG) is None
    with pytest.raises(ValueError, match="decay thresholds must grow"):
        Settings(MEMLANE_DECAY_WARM_AFTER_DAYS=40)


async def write_nodes(svc: Services, scope: str, specs: list[dict[str, Any]]) -> dict[str, str]:
    cmd = WriteCommand(
        tenant_id="t1",
        scope=scope,
        input_sha256="b" * 64,
        auto_embed=False,
        nodes=[WriteNodeSpec(fields_set=frozenset(s), **s) for s in specs],
    )
    res = await svc.writes.write(cmd)
    return {str(x.client_id): x.id for x in res.result.nodes}


async def tiers(svc: Services, scope: str, ids: dict[str, str]) -> dict[str, str]:
    nodes = await svc.store.get_nodes("t1", scope, list(ids.values()))
    back = {v: k for k, v in ids.items()}
    return {back[x.id]: x.tier for x in nodes}


async def test_idle_nodes_walk_down_the_tiers_and_feedback_changes_the_pace(svc: Services, timeline: Timeline) -> None:
    ids = await write_nodes(
        svc,
        "s",
        [
            {"type": "event", "client_id": "plain", "title": "plain"},
            {"type": "event", "client_id": "liked", "title": "liked"},
            {"type": "event", "client_id": "disliked", "title": "disliked"},
            {"type": "event", "client_id": "used", "title": "used"},
            {"type": "event", "client_id": "pinned", "title": "pinned", "slots": {"pinned": True}},
            {"type": "rule", "client_id": "rule", "slots": {"then": {}}, "memory_lane": "shared"},
        ],
    )
    life = svc.lifecycle
    for _ in range(4):
        await life.activation.activate(
            ADMIN, "s", node_ids=[ids["liked"]], client_ids=[], outcome="positive", activate=False,
            run_id=None, reason=None, actor=None, input_sha256="c" * 64,
        )  # fmt: skip
        await life.activation.activate(
            ADMIN, "s", node_ids=[ids["disliked"]], client_ids=[], outcome="negative", activate=False,
            run_id=None, reason=None, actor=None, input_sha256="c" * 64,
        )  # fmt: skip
    timeline.days(5)
    stats = await life.decay.sweep("t1", "s")
    assert stats.scanned == 6 and stats.moved == 1
    assert (await tiers(svc, "s", ids))["disliked"] == "warm"  # 5 days x 2^(1-2/6) = 7.9 effective days

    timeline.days(4)  # day 9
    await life.activation.activate(
        ADMIN, "s", node_ids=[ids["used"]], client_ids=[], outcome="neutral", activate=True,
        run_id=None, reason=None, actor=None, input_sha256="c" * 64,
    )  # fmt: skip
    await life.decay.sweep("t1", "s")
    assert await tiers(svc, "s", ids) == {
        "plain": "warm",
        "liked": "hot",  # 9 x 2^(1-10/6) = 5.7 effective days
        "disliked": "warm",
        "used": "hot",  # activity restarts the clock
        "pinned": "hot",
        "rule": "hot",
    }
    timeline.days(31)  # day 40
    await life.decay.sweep("t1", "s")
    t = await tiers(svc, "s", ids)
    assert t["plain"] == "cold" and t["disliked"] == "cold" and t["liked"] == "warm" and t["used"] == "cold"
    timeline.days(60)  # day 100
    await life.decay.sweep("t1", "s")
    t = await tiers(svc, "s", ids)
    assert t["plain"] == "archive" and t["liked"] == "cold" and t["pinned"] == "hot" and t["rule"] == "hot"

    moved = (await svc.store.get_nodes("t1", "s", [ids["plain"]]))[0]
    assert moved.slots["last_decay_from_tier"] == "cold" and moved.slots["last_decay_to_tier"] == "archive"
    commit = await svc.store.get_commit("t1", str(moved.commit_id))
    assert commit is not None and commit.kind == "decay" and commit.actor == "memlane:decay"
    assert {"id": ids["plain"], "from": "cold", "to": "archive"}.items() <= next(
        m for m in commit.diff["decay"]["moves"] if m["id"] == ids["plain"]
    ).items()


async def test_the_periodic_job_runs_every_scope_and_schedules_the_next_period(
    svc: Services, timeline: Timeline
) -> None:
    a = await write_nodes(svc, "a", [{"type": "event", "client_id": "n", "title": "n"}])
    decay = svc.lifecycle.decay
    first = await decay.ensure_scheduled()
    assert first is not None and first.tenant_id == SYSTEM_TENANT and first.kind == LIFECYCLE_DECAY
    again = await decay.ensure_scheduled()
    assert again is not None and again.id == first.id  # one job per period, however often it is asked

    timeline.days(8)
    assert await svc.worker.drain() >= 1
    done = await svc.store.get_job(SYSTEM_TENANT, first.id)
    assert done is not None and done.status == "done" and done.result is not None
    assert done.result["moved"] == 1 and done.result["scopes"] >= 1
    assert (await tiers(svc, "a", a)) == {"n": "warm"}
    # the next period's job exists and is not due yet
    next_run = datetime.fromisoformat(done.result["next_run_after"].replace("Z", "+00:00"))
    assert next_run > timeline.now and next_run - timeline.now <= timedelta(hours=1)
    assert await svc.worker.drain() == 0
    timeline.now = next_run + timedelta(seconds=1)
    assert await svc.worker.drain() == 1


async def test_a_one_off_sweep_of_one_scope(svc: Services, timeline: Timeline) -> None:
    from memlane.domain.clock import new_id
    from memlane.domain.model import Job

    a = await write_nodes(svc, "a", [{"type": "event", "client_id": "n", "title": "n"}])
    b = await write_nodes(svc, "b", [{"type": "event", "client_id": "n", "title": "n"}])
    timeline.days(8)
    job = Job(tenant_id="t1", id=new_id(), kind=LIFECYCLE_DECAY, payload={"scope": "a"})
    await svc.store.enqueue([job], now=timeline.now)
    await svc.worker.drain()
    assert await tiers(svc, "a", a) == {"n": "warm"} and await tiers(svc, "b", b) == {"n": "hot"}


async def test_a_bad_decay_setting_stops_start_up(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMLANE_DECAY_COLD_AFTER_DAYS", "3")
    with pytest.raises(ValueError, match="decay thresholds must grow"):
        await open_services(make_settings(f"sqlite:///{tmp_path / 'm.db'}"), embedder=HashingEmbedder(DIM))


async def test_starting_the_app_queues_the_periodic_decay_and_retention_jobs(svc: Services, timeline: Timeline) -> None:
    """The services queue their periodic jobs when the app starts (``Services.start_periodic``),
    once per period however many processes start."""
    for app in (create_app(services=svc), create_app(services=svc)):
        async with app.router.lifespan_context(app):
            pass
    for schedule in (svc.lifecycle.decay.schedule, svc.retention.schedule):
        period = schedule.period(timeline.now) + (1 if schedule.first_run_next_period else 0)
        probe = schedule.job(period)
        (stored,) = await svc.store.enqueue([probe], now=timeline.now)
        assert stored.id != probe.id, f"start-up queued no {schedule.kind} job for this period"
        assert stored.kind == schedule.kind and stored.status == "queued"
