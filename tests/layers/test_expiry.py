"""Expiry on both backends: explicit expiry hides a memory from every read at once, on any
surface, and the durable sweep job (which re-enqueues itself) only reclaims the space; idle
workspace items go after the TTL, a task's items when it completes."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import pytest

from memlane.api.ui import views
from memlane.domain.clock import Clock
from memlane.domain.errors import NotFound
from memlane.domain.validity import CURRENT, HISTORY, ValidTime
from memlane.domain.visibility import Viewer
from memlane.embed.hashing import HashingEmbedder
from memlane.jobs.layers_kinds import LAYERS_SWEEP
from memlane.services.container import Services, open_services
from memlane.services.conversation.memories import QueryParams
from memlane.services.conversation.notes import KIND_CONVERSATION, NOTE_TYPE
from memlane.services.layers.service import MemoryMeta, ReadInput, UpdateInput, WriteInput
from memlane.services.tools.context import ToolContext
from memlane.services.writing import WriteCommand, WriteNodeSpec
from tests.support.settings import DIM, make_settings

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


async def _note(env: Env, app: str, text: str, expires_at: datetime | None) -> str:
    """A conversation note as ingestion writes it, with an expiry: the conversation API sets
    none, but an import restores one (services/transfer), so the reads must honour it."""
    vector = await env.svc.embedding.query_vector(text)
    spec = WriteNodeSpec(
        type=NOTE_TYPE,
        text_summary=text,
        slots={"memory_kind": KIND_CONVERSATION},
        user_id="u1",
        embedding=[float(x) for x in vector],
        embedding_model=env.svc.embedder.model_id,
        expires_at=expires_at,
        fields_set=frozenset({"type", "text_summary", "slots", "user_id", "expires_at"}),
    )
    cmd = WriteCommand(tenant_id="t1", scope=app, input_sha256="e" * 64, nodes=[spec], auto_embed=False)
    return (await env.svc.writes.write(cmd)).result.nodes[0].id


async def test_a_conversation_note_that_expires_is_gone_from_query_get_and_the_notes_page(env: Env) -> None:
    reader = Viewer(tenant_id="t1", user_id="u1")
    going = await _note(env, "app", "The user is at a conference in Oslo", START + timedelta(minutes=5))
    staying = await _note(env, "app", "The user works at a conference centre in Oslo", None)
    memories = env.svc.conversation.memories

    async def found(when: ValidTime = CURRENT) -> set[str]:
        params = QueryParams(viewer=reader, app_id="app", query="conference in Oslo", user_id="u1", when=when)
        return {m["memory_id"] for m in await memories.query(params)}

    assert {going, staying} <= await found()
    env.advance(minutes=5)
    assert staying in await found() and going not in await found()
    with pytest.raises(NotFound):
        await memories.get(reader, "app", going)
    assert going in await found(when=HISTORY), "a history read still finds it until the sweep"
    chains = await views.note_chains(env.svc, reader, "app")
    states = {n.id: views.state_of(n, env.now[0]) for chain in chains for n in chain}
    assert states == {going: "expired", staying: "valid"}, "the history view marks it expired, never valid"
    expired = next(n for chain in chains for n in chain if n.id == going)
    assert views.validity_of(expired, env.now[0]).startswith("expired ")


async def test_the_sweep_reclaims_expired_nodes_of_any_layer_or_none(env: Env) -> None:
    note = await _note(env, "app", "A note that expires", START + timedelta(minutes=1))
    expiry = (START + timedelta(minutes=1)).isoformat()
    tool = await env.svc.tools.memory.add(
        ToolContext(viewer=Viewer(tenant_id="t1", user_id="u1")),
        {"content": "parking spot B7", "layer": "user", "metadata": {"expiresAt": expiry}},
    )
    tool_id = str(tool["memoryId"]).removeprefix("mem_")
    kept = await _note(env, "app", "A note that stays", None)
    env.advance(minutes=2)
    assert (await env.svc.sweeper.sweep("t1"))["expired"] == 2
    assert not await exists(env, note) and not await exists(env, tool_id)
    assert await exists(env, kept)


async def test_a_layered_read_by_id_takes_the_memories_valid_now_and_update_can_reopen_one(env: Env) -> None:
    out = await env.svc.layers.write(
        MANAGER,
        WriteInput(
            title="Phone",
            content="While abroad the user is on a temporary number",
            scope="default",
            layer="identity",
            meta=MemoryMeta(invalid_at=START + timedelta(hours=1)),
        ),
    )
    by_id = ReadInput(layer="identity", scope="default", id=out.node.id)
    assert (await env.svc.layers.read(MANAGER, by_id))[0].node.id == out.node.id
    env.advance(hours=2)
    with pytest.raises(NotFound):
        await env.svc.layers.read(MANAGER, by_id)
    reopen = MemoryMeta(invalid_at=None, given=frozenset({"invalid_at"}))
    await env.svc.layers.update(MANAGER, UpdateInput(id=out.node.id, new_meta=reopen, user_confirmed=True))
    assert (await env.svc.layers.read(MANAGER, by_id))[0].node.id == out.node.id
