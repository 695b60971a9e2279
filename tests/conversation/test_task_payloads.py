"""Conversation tasks are typed payloads in the jobs table: one encoder, one decoder. A job
queued by an earlier release (its payload a plain dict with the same keys, some of them
missing) still runs after an upgrade, and what a release writes reads back unchanged."""

from __future__ import annotations

from typing import Any

from memlane.domain.clock import new_id
from memlane.domain.model import Job, SeedFilter
from memlane.domain.visibility import EVERYTHING, Viewer
from memlane.jobs.conversation_kinds import CONVERSATION_AGENT_MEMORY, CONVERSATION_INGEST
from memlane.services.container import Services
from memlane.services.conversation.task_payloads import (
    AgentMemoryTask,
    BatchOrigin,
    IngestTask,
    SummaryCallbackTask,
    TaskMessage,
    decode_task,
    encode_task,
)
from memlane.services.conversation.tasks import task_view

ALL_TIERS = ("hot", "warm", "cold", "archive")


async def _run_queued(services: Services, kind: str, payload: dict[str, Any]) -> Job:
    """Queue ``payload`` as it stands (no encoder involved), let the worker run it, and return
    the finished job."""
    job = Job(tenant_id="default", id=new_id(), kind=kind, scope=payload.get("app_id"), payload=payload)
    await services.store.enqueue([job], now=services.clock.now())
    await services.worker.drain()
    done = await services.store.get_job("default", job.id)
    assert done is not None
    return done


async def test_an_ingestion_task_queued_by_an_earlier_release_still_runs(services: Services) -> None:
    old_shape = {
        "app_id": "upgrade-app",
        "user_id": "u1",
        "session_id": None,
        "messages": [
            {"id": "m1", "role": "user", "content": "I keep bees in Ghent.", "timestamp": "2024-03-01T10:00:00Z"}
        ],
        "producer_agent_id": None,
        "request_sha256": "a" * 64,
        "viewer": {"tenant_id": "default", "agent_id": None, "team_id": None, "user_id": "u1", "session_id": None,
                   "role": "user_agent", "authenticated": False},
    }  # fmt: skip
    done = await _run_queued(services, CONVERSATION_INGEST, old_shape)
    assert done.status == "done", done.last_error
    assert done.result is not None and done.result["memories"], done.result
    notes = await services.store.find_nodes(
        "default",
        "upgrade-app",
        SeedFilter(valid_at=None, visibility=EVERYTHING, tiers=ALL_TIERS, task_id=done.id),
        limit=10,
    )
    assert [n.user_id for n in notes] == ["u1"] * len(notes) and notes
    assert "bees" in " ".join(n.text_summary or "" for n in notes)
    assert task_view(done)["app_id"] == "upgrade-app" and task_view(done)["status"] == "completed"


async def test_an_agent_memory_task_without_the_keys_later_releases_added_still_runs(services: Services) -> None:
    """No ``viewer``, ``producer_agent_id`` or ``request_sha256``: the task acts as a reader of
    shared memory and its commit records the all-zero digest, as before."""
    oldest = {
        "app_id": "upgrade-app",
        "user_id": "u2",
        "messages": [{"id": "a1", "role": "agent", "content": "The user prefers tea to coffee.", "timestamp": None}],
    }
    done = await _run_queued(services, CONVERSATION_AGENT_MEMORY, oldest)
    assert done.status == "done", done.last_error
    assert done.result is not None and len(done.result["memories"]) == 1


def test_every_task_reads_back_as_it_was_written() -> None:
    viewer = Viewer(tenant_id="t1", agent_id="planner", user_id="u1", authenticated=True)
    messages = (TaskMessage(id="m1", role="user", content="hello", timestamp="2024-03-01T10:00:00Z"),)
    tasks = [
        IngestTask(app_id="a", user_id="u1", messages=messages, producer_agent_id="planner", submitter=viewer,
                   request_sha256="b" * 64, batcher=BatchOrigin(reason="batch_size", first_seq=3, last_seq=9)),
        AgentMemoryTask(app_id="a", user_id="u1", session_id="s1", messages=messages, submitter=viewer),
        SummaryCallbackTask(app_id="a", user_id="u1", messages=messages, submitter=viewer,
                            callback_url="https://example.org/hook", callback_headers={"x-trace": "1"}),
    ]  # fmt: skip
    for task in tasks:
        job = Job(tenant_id="t1", id="j1", kind=task.kind, payload=encode_task(task))
        assert decode_task(job) == task


def test_the_stored_keys_stay_those_earlier_releases_read() -> None:
    """A worker of the previous release may still be draining the queue during a rolling
    upgrade: the JSON keeps the keys it reads."""
    viewer = Viewer(tenant_id="t1", agent_id="planner")
    messages = (TaskMessage(id=None, role="user", content="hi"),)
    ingest = IngestTask(app_id="a", user_id="u1", messages=messages, submitter=viewer)
    summary = SummaryCallbackTask(
        app_id="a", user_id="u1", messages=messages, callback_url="https://example.org/h", callback_headers={}
    )
    assert set(encode_task(ingest)) == {
        "app_id", "user_id", "session_id", "messages", "producer_agent_id", "request_sha256", "viewer",
    }  # fmt: skip
    assert set(encode_task(summary)) == {
        "app_id", "user_id", "session_id", "messages", "callback_url", "callback_headers", "request_sha256",
    }  # fmt: skip
    assert encode_task(ingest)["messages"] == [{"id": None, "role": "user", "content": "hi", "timestamp": None}]
    assert encode_task(ingest)["viewer"] == viewer.to_payload()
