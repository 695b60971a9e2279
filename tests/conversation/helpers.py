"""Small helpers for the conversation tests: unique app ids, messages, waiting for tasks."""

from __future__ import annotations

import time
import uuid
from typing import Any

import httpx

FINAL = {"completed", "failed"}


def new_app() -> str:
    return f"app-{uuid.uuid4().hex[:10]}"


def msg(
    content: str, *, role: str = "user", ts: str = "2024-03-01T10:00:00Z", mid: str | None = None
) -> dict[str, Any]:
    m: dict[str, Any] = {"role": role, "content": content, "timestamp": ts}
    if mid is not None:
        m["id"] = mid
    return m


def wait_task(
    client: httpx.Client, task_id: str, timeout: float = 30.0, headers: dict[str, str] | None = None
) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    last: dict[str, Any] = {}
    while time.monotonic() < deadline:
        r = client.get(f"/api/v1/tasks/{task_id}", headers=headers)
        assert r.status_code == 200, r.text
        last = r.json()
        if last["status"] in FINAL:
            return last
        time.sleep(0.05)
    raise AssertionError(f"task {task_id} did not finish in time; last view: {last}")


def ingest(client: httpx.Client, app: str, messages: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    """POST /api/v1/memories and wait for the task; returns the final task view."""
    body = {"app_id": app, "user_id": extra.pop("user_id", "u1"), "messages": messages, **extra}
    r = client.post("/api/v1/memories", json=body)
    assert r.status_code == 202, r.text
    return wait_task(client, r.json()["task_id"])


def query(client: httpx.Client, app: str, text: str, **params: Any) -> list[dict[str, Any]]:
    r = client.get("/api/v1/memories/query", params={"app_id": app, "query": text, **params})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["count"] == len(body["memories"])
    return list(body["memories"])


def get_memory(client: httpx.Client, app: str, memory_id: str) -> dict[str, Any]:
    r = client.get(f"/api/v1/memories/{memory_id}", params={"app_id": app})
    assert r.status_code == 200, r.text
    return dict(r.json())
