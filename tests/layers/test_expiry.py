"""Expiry on both backends: explicit expiry, idle workspace items after the TTL, a task's items
when it completes, all by the durable sweep job that re-enqueues itself."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import pytest

from memlane.domain.clock import Clock
from memlane.domain.errors import NotFound
from memlane.domain.visibility import Viewer
from memlane.embed.hashing import HashingEmbedder
from memlane.jobs.layers_kinds import LAYERS_SWEEP
from memlane.services.container import Services, open_services
from memlane.services.layers.service import MemoryMeta, ReadInput, UpdateInput, WriteInput
from tests.conftest import DIM, make_settings

START = datetime(2026, 11, 22, 9, 0, tzinfo=UTC)
PLANNER = Viewer(tenant_id="t1", role="planner", agent_id="planner-1")
MANAGER = Viewer(tenant_id="t1", role="manager", agent_id="mgr-1")


@dataclass
class Env:
    svc: Services
    now: list[datetime]

    def advance(self, **delta: float) -> None:
        self.now[0] += timedelta(**delta)


@pytest.fixture
async def env(db_url: str) -> AsyncIterator[Env]:
    now = [START]
    settings = make_settings(db_url, MEMLANE_WORKSPACE_TTL_HOURS=24, MEMLANE_LAYERS_SWEEP_INTERVAL_SEC=600)
    svc = await open_services(settings, clock=Clock(lambda: now[0]), embedder=HashingEmbedder(DIM))
    try:
        yield Env(svc, now)
    finally:
        await svc.close()


async def ws(env: Env, content: str, task: str | None) -> str:
    out = await env.svc.layers.write(
        PLANNER,
        WriteInput(title="note", content=content, scope="default", layer="workspace", meta=MemoryMeta(task_id=task)),
    )
    return out.node.id


async def exists(env: Env, node_id: str) -> bool:
    return bool(await env.svc.store.get_nodes("t1", None, [node_id]))


async def test_explicit_expiry_hides_at_once_and_the_sweep_deletes(env: Env) -> None:
    out = await env.svc.layers.write(
        MANAGER,
        WriteInput(
            title="Trip",
            content="The user is in Lisbon this week",
            scope="default",
            layer="identity",
            meta=MemoryMeta(expiry=START + timedelta(hours=1)),
        ),
    )
    node_id = out.node.id
    reader = ReadInput(layer="identity", scope="default", id=node_id)
    assert (await env.svc.layers.read(MANAGER, reader))[0].node.id == node_id
    env.advance(hours=2)
    with pytest.raises(NotFound):
        await env.svc.layers.read(MANAGER, reader)
    assert await exists(env, node_id)
    result = await env.svc.sweeper.sweep("t1")
    assert result["expired"] == 1
    assert not await exists(env, node_id)


async def test_idle_workspace_tasks_are_deleted_after_the_ttl_as_a_whole(env: Env) -> None:
    a1 = await ws(env, "task A step one", "A")
    a2 = await ws(env, "task A step two", "A")
    b1 = await ws(env, "task B step one", "B")
    loose = await ws(env, "a loose note", None)
    env.advance(hours=20)
    b2 = await ws(env, "task B step two", "B")
    env.advance(hours=5)  # A and the loose note idle 25 h; B's newest item 5 h
    result = await env.svc.sweeper.sweep("t1")
    assert result["idle_workspace"] == 3
    assert not any([await exists(env, a1), await exists(env, a2), await exists(env, loose)])
    assert await exists(env, b1) and await exists(env, b2)


async def test_updating_an_item_keeps_its_task_alive(env: Env) -> None:
    a1 = await ws(env, "task C step one", "C")
    a2 = await ws(env, "task C step two", "C")
    env.advance(hours=23)
    await env.svc.layers.update(PLANNER, UpdateInput(id=a2, new_content="task C step two, revised"))
    env.advance(hours=2)
    assert (await env.svc.sweeper.sweep("t1"))["idle_workspace"] == 0
    assert await exists(env, a1)


async def test_completing_a_task_deletes_its_workspace_items(env: Env) -> None:
    done = [await ws(env, f"step {i}", "T-done") for i in range(3)]
    other = await ws(env, "other task", "T-other")
    assert await env.svc.layers.complete_task(PLANNER, "T-done") == 3
    assert not any([await exists(env, d) for d in done])
    assert await exists(env, other)


async def test_the_sweep_is_a_durable_job_that_schedules_its_next_run(env: Env) -> None:
    node_id = await ws(env, "short-lived", "S")
    await env.svc.layers.update(
        PLANNER,
        UpdateInput(id=node_id, new_meta=MemoryMeta(expiry=START + timedelta(minutes=5), given=frozenset({"expiry"}))),
    )
    assert await env.svc.store.count_jobs("queued") >= 1
    await env.svc.worker.drain()  # the sweep is not due yet at START
    assert await exists(env, node_id)
    env.advance(minutes=20)
    ran = await env.svc.worker.drain(max_rounds=5)
    assert ran >= 1
    assert not await exists(env, node_id)
    # the run enqueued the next slot's sweep: it is queued for the future
    queued = await env.svc.store.lease_jobs("probe", [LAYERS_SWEEP], limit=10, lease_sec=1, now=env.now[0])
    assert queued == []
    later = await env.svc.store.lease_jobs(
        "probe", [LAYERS_SWEEP], limit=10, lease_sec=1, now=env.now[0] + timedelta(minutes=11)
    )
    assert len(later) == 1
