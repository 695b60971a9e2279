"""Shared by the export/import tests: one tenant's memory written on every surface, and the CLI."""

from __future__ import annotations

import time

import httpx
from typer.testing import CliRunner

from memlane.cli.main import app
from tests.conversation.helpers import ingest, msg
from tests.support.memory_api import wait_until_recallable
from tests.support.server import LiveServer

TENANT = "acme"
H = {"X-Tenant-Id": TENANT}
runner = CliRunner()


def cli(db_url: str, *args: str) -> str:
    result = runner.invoke(
        app, list(args), env={"MEMLANE_DATABASE_URL": db_url, "MEMLANE_EMBEDDER": "hashing"}, catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    return result.output


def populate(server: LiveServer) -> None:
    """One tenant's memory on every surface: a graph with a rule, conversation notes, a
    layered memory, a tool memory, a knowledge item, messages pending in the batcher."""
    with httpx.Client(base_url=server.url, timeout=30, headers=H) as c:
        body = {
            "scope": "proj",
            "input_text": "project facts",
            "memory_lane": "shared",
            "nodes": [
                {"client_id": "ada", "type": "entity", "title": "Ada", "text_summary": "Ada leads the parser work"},
                {
                    "client_id": "launch",
                    "type": "event",
                    "title": "Launch",
                    "text_summary": "The parser shipped in May",
                    "valid_at": "2024-05-01T00:00:00Z",
                },
                {
                    "client_id": "rule",
                    "type": "rule",
                    "title": "Review parsers",
                    "text_summary": "Every parser change needs two reviews",
                    "slots": {"then": {"output": {"format": "markdown"}}},
                },
            ],
            "edges": [
                {
                    "type": "related_to",
                    "src": {"client_id": "ada"},
                    "dst": {"client_id": "launch"},
                    "weight": 0.7,
                    "invalid_at": "2030-01-01T00:00:00Z",
                },
                {"type": "part_of", "src": {"client_id": "rule"}, "dst": {"client_id": "launch"}},
            ],
        }
        r = c.post("/v1/memory/write", json=body)
        assert r.status_code == 200, r.text
        wait_until_recallable(c, "proj", "parser", {n["id"] for n in r.json()["nodes"]})
        task = ingest(c, "app-1", [msg("I moved to Lisbon in March and I love surfing.")])
        assert task["status"] == "completed", task
        manager = {**H, "X-Agent-Role": "manager"}
        r = c.post(
            "/v1/layers/write", headers=manager, json={"layer": "project", "title": "Stack", "content": "Python"}
        )
        assert r.status_code == 200, r.text
        tools = {**H, "X-Agent-Id": "agent-a", "X-User-Id": "user-1", "X-Session-Id": "s-1"}
        r = c.post("/v1/tools/memory_add", headers=tools, json={"content": "User prefers tea", "layer": "user"})
        assert r.status_code == 200, r.text
        item = {"id": "adr-1", "type": "adr", "layer": "team", "title": "Use SQLite", "summary": "Embedded first"}
        r = c.post("/v1/knowledge/items", headers={**H, "X-Agent-Id": "architect"}, json=item)
        assert r.status_code == 201, r.text
        buffered = {"app_id": "app-1", "user_id": "user-1", "session_id": "s-1", "messages": BUFFERED}
        r = c.post("/api/v1/memory-batcher/messages", json=buffered)
        assert r.status_code == 200 and r.json()["pending_messages"] == 2, r.text
        wait_embedded(c)


#: two messages left in the memory batcher's buffer (the batch size is 10): not yet ingested
BUFFERED = [
    {"role": "user", "content": "I am planning a trip to Porto", "timestamp": "2024-06-01T09:00:00Z"},
    {"role": "assistant", "content": "Porto is lovely in June", "timestamp": "2024-06-01T09:00:05Z"},
]


def buffer_of(c: httpx.Client) -> dict[str, object]:
    """The buffered conversation as the batcher API shows it."""
    params = {"app_id": "app-1", "user_id": "user-1", "session_id": "s-1"}
    r = c.get("/api/v1/memory-batcher/buffers", params=params)
    assert r.status_code == 200, r.text
    return dict(r.json())


def wait_embedded(c: httpx.Client) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if 'memlane_embedding_backlog{state="pending"} 0.0' in c.get("/metrics").text:
            return
        time.sleep(0.1)
    raise AssertionError("nodes were not embedded in time")
