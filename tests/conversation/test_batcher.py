"""The memory batcher (``POST /api/v1/memory-batcher/messages``): a durable buffer per
(tenant, app, user, session) that becomes conversation ingestion tasks when it is full or
idle, and that survives a restart of the server."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import httpx
import pytest

from memlane.services.conversation.messages import parse_timestamp
from tests.conversation.helpers import new_app, wait_task
from tests.support.backends import BACKENDS, database_url, fresh_url
from tests.support.server import LiveServer, ServerFactory

FACTS = [
    "I moved to Lisbon in 2019 for a new job",
    "My sister Ana works as a nurse in Porto",
    "I adopted a dog named Rex last spring",
    "I work as a data engineer at a logistics company",
    "My favourite food is grilled sardines",
]
BATCHER = "/api/v1/memory-batcher/messages"


def said(content: str) -> dict[str, str]:
    return {"role": "user", "content": content}


def append(c: httpx.Client, app: str, messages: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    r = c.post(BATCHER, json={"app_id": app, "user_id": "dana", "messages": messages, **extra})
    assert r.status_code == 200, r.text
    return dict(r.json())


def notes_of(c: httpx.Client, app: str) -> list[dict[str, Any]]:
    r = c.get("/api/v1/memories/query", params={"app_id": app, "query": "Dana", "user_id": "dana", "n_results": 50})
    return list(r.json()["memories"])


def sources(notes: list[dict[str, Any]], task_id: str) -> dict[str, str]:
    """message id -> timestamp of the messages the task's notes cite"""
    out = {}
    for n in notes:
        for s in n["metadata"]["source_messages"]:
            if str(s["id"]).startswith(task_id):
                out[str(s["id"])] = s["timestamp"]
    return out


@pytest.fixture(scope="module", params=BACKENDS)
def server(request: pytest.FixtureRequest, live_server_factory: ServerFactory) -> Iterator[LiveServer]:
    with live_server_factory(
        fresh_url(request), MEMLANE_BATCHER_BATCH_SIZE=3, MEMLANE_BATCHER_IDLE_TIMEOUT_SEC=3600
    ) as s:
        yield s


@pytest.fixture
def c(server: LiveServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.url, timeout=30) as client:
        yield client


def test_a_full_buffer_becomes_one_ingestion_task_of_its_messages_in_order(c: httpx.Client) -> None:
    app = new_app()
    first = append(c, app, [said(FACTS[0]), said(FACTS[1])])
    assert first["status"] == "pending" and first["pending_messages"] == 2 and first["batch_size"] == 3
    assert first["last_delivery"] is None and first["last_task_id"] is None and first["idle_flush_at"]
    full = append(c, app, [{"role": "agent", "content": FACTS[2]}])
    assert full["status"] == "flushed" and full["pending_messages"] == 0
    assert full["last_delivery"] == "add_memory" and full["flushed_task_ids"] == [full["last_task_id"]]
    task = wait_task(c, full["last_task_id"])
    assert task["status"] == "completed" and task["kind"] == "memory_creation"
    assert task["result"]["message_count"] == 3 and task["session_id"] is None
    cited = sources(notes_of(c, app), full["last_task_id"])
    assert cited, "the flushed messages became notes"
    # messages without timestamps took their arrival time, in the order they were sent
    stamps = [parse_timestamp(cited[k]) for k in sorted(cited, key=lambda k: int(k.rsplit(":", 1)[1]))]
    assert stamps == sorted(stamps) and all(isinstance(s, datetime) for s in stamps)


def test_more_than_a_batch_flushes_whole_batches_and_keeps_the_rest(c: httpx.Client) -> None:
    app = new_app()
    out = append(c, app, [said(f) for f in FACTS], session_id="s-1")
    assert out["status"] == "flushed_partial" and out["pending_messages"] == 2
    assert len(out["flushed_task_ids"]) == 1 and out["session_id"] == "s-1"
    assert wait_task(c, out["last_task_id"])["result"]["message_count"] == 3


def test_an_empty_request_reports_the_buffer_and_buffers_are_per_session(c: httpx.Client) -> None:
    app = new_app()
    assert append(c, app, [])["status"] == "empty"
    append(c, app, [said(FACTS[0])], session_id="morning")
    append(c, app, [said(FACTS[1])], session_id="evening")
    where = {"app_id": app, "user_id": "dana", "session_id": "morning"}
    morning = c.get("/api/v1/memory-batcher/buffers", params=where)
    assert morning.json()["pending_messages"] == 1 and morning.json()["status"] == "pending"
    assert append(c, app, [], session_id="evening")["pending_messages"] == 1
    assert append(c, app, [])["pending_messages"] == 0


def test_bad_batcher_requests_are_a_400_naming_the_field(c: httpx.Client) -> None:
    r = c.post(BATCHER, json={"app_id": "a", "messages": [said("x")]})
    assert r.status_code == 400 and "user_id" in r.json()["detail"]
    r = c.post(BATCHER, json={"app_id": "a", "user_id": "u", "messages": [said(f"m{i}") for i in range(31)]})
    assert r.status_code == 400 and "at most 30" in r.json()["detail"]
    r = c.post(BATCHER, json={"app_id": "a", "user_id": "u", "messages": [{"role": "user"}]})
    assert r.status_code == 400 and "content" in r.json()["detail"]


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_idle_buffer_is_flushed_after_the_timeout(
    backend: str, tmp_path: Any, request: Any, live_server_factory: ServerFactory
) -> None:
    url = database_url(backend, tmp_path, request)
    with (
        live_server_factory(url, MEMLANE_BATCHER_BATCH_SIZE=10, MEMLANE_BATCHER_IDLE_TIMEOUT_SEC=0.5) as server,
        httpx.Client(base_url=server.url, timeout=30) as c,
    ):
        app = new_app()
        assert append(c, app, [said(FACTS[0])])["status"] == "pending"
        assert append(c, app, [said(FACTS[1])])["pending_messages"] == 2
        deadline = time.monotonic() + 30
        state: dict[str, Any] = {}
        while time.monotonic() < deadline:
            state = c.get("/api/v1/memory-batcher/buffers", params={"app_id": app, "user_id": "dana"}).json()
            if state["last_task_id"]:
                break
            time.sleep(0.1)
        assert state["pending_messages"] == 0 and state["last_flush_reason"] == "idle_timeout", state
        assert state["flushed_messages"] == 2
        assert wait_task(c, state["last_task_id"])["result"]["message_count"] == 2


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_buffer_survives_a_restart(
    backend: str, tmp_path: Any, request: Any, live_server_factory: ServerFactory
) -> None:
    url = database_url(backend, tmp_path, request)
    app = new_app()
    with (
        live_server_factory(url, MEMLANE_BATCHER_BATCH_SIZE=4, MEMLANE_BATCHER_IDLE_TIMEOUT_SEC=3600) as before,
        httpx.Client(base_url=before.url, timeout=30) as c,
    ):
        assert append(c, app, [said(FACTS[0]), said(FACTS[1]), said(FACTS[2])])["pending_messages"] == 3
    with (
        live_server_factory(url, MEMLANE_BATCHER_BATCH_SIZE=4, MEMLANE_BATCHER_IDLE_TIMEOUT_SEC=3600) as after,
        httpx.Client(base_url=after.url, timeout=30) as c,
    ):
        assert append(c, app, [])["pending_messages"] == 3
        out = append(c, app, [said(FACTS[3])])
        assert out["status"] == "flushed"
        task = wait_task(c, out["last_task_id"])
        assert task["result"]["message_count"] == 4
        cited = sources(notes_of(c, app), out["last_task_id"])
        assert f"{out['last_task_id']}:0" in cited, "a message buffered before the restart was ingested"
