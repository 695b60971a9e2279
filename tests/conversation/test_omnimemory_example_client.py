"""OmniMemory's REST example client, its requests unchanged but for the base URL, against
memlane with the default embedding model on both backends: every step succeeds, and the
billing question (``similarity_threshold=0.6``) finds the billing conversation.

The example sleeps a fixed 5 s (3 s before deleting) for background processing; here each
step waits for its task to finish instead, which is what those sleeps stand for.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator

import httpx
import pytest

from tests.support.backends import BACKENDS, fresh_url
from tests.support.omnimemory_client import BILLING_CONVERSATION, STREAM, OmniMemoryExampleClient
from tests.support.server import LiveServer, ServerFactory

pytestmark = pytest.mark.slow

APP, USER, SESSION = "customer-support-prod", "customer-bob-2024", "session-dec-28-api"
BILLING_WORDS = ("billing", "charged twice", "duplicate charge", "refund")


@pytest.fixture(scope="module", params=BACKENDS)
def server(request: pytest.FixtureRequest, live_server_factory: ServerFactory) -> Iterator[LiveServer]:
    with live_server_factory(fresh_url(request), MEMLANE_EMBEDDER="local") as s:
        yield s


async def finished(server: LiveServer, task_id: str) -> None:
    """What the example's sleeps wait for: the background task is done."""
    deadline = time.monotonic() + 60
    async with httpx.AsyncClient(base_url=server.url) as http:
        while True:
            task = (await http.get(f"/api/v1/tasks/{task_id}")).json()
            if task["status"] in ("completed", "failed") or time.monotonic() > deadline:
                assert task["status"] == "completed", task
                return
            await asyncio.sleep(0.05)


async def test_the_omnimemory_example_client_runs_every_step(server: LiveServer) -> None:
    client = OmniMemoryExampleClient(base_url=server.url)
    try:
        health = await client.health_check()
        assert health["status"] == "healthy" and health["sdk_initialized"] is True

        added = await client.add_memory(app_id=APP, user_id=USER, session_id=SESSION, messages=BILLING_CONVERSATION)
        assert added["status"] == "accepted"
        await finished(server, added["task_id"])

        result = await client.query_memory(
            app_id=APP,
            user_id=USER,
            query="What billing issues did the customer have?",
            n_results=3,
            similarity_threshold=0.6,
        )
        memories = result["memories"]
        assert memories, result
        assert any(word in memories[0]["document"].lower() for word in BILLING_WORDS), memories[0]
        assert all(m["similarity_score"] >= 0.6 for m in memories)

        agent = await client.add_agent_memory(
            app_id=APP,
            user_id=USER,
            session_id=SESSION,
            messages="Customer Bob prefers refunds to account credit. Payment method updated to card ending 4567.",
        )
        await finished(server, agent["task_id"])

        statuses = []
        for msg in STREAM:
            batch = await client.batch_add_messages(app_id=APP, user_id=USER, session_id=SESSION, messages=[msg])
            statuses.append((batch["status"], batch["pending_messages"], batch["batch_size"]))
        assert statuses[8] == ("pending", 9, 10)
        assert statuses[9] == ("flushed", 0, 10)
        assert statuses[10] == ("pending", 1, 10)
        assert batch["last_delivery"] == "add_memory" and batch["last_task_id"]
        await finished(server, batch["last_task_id"])

        summary = await client.summarize_conversation(
            app_id=APP, user_id=USER, session_id=SESSION, messages=BILLING_CONVERSATION[:5]
        )
        assert summary["summary"]

        memory_id = memories[0].get("id") or memories[0].get("memory_id")
        specific = await client.get_memory(app_id=APP, memory_id=memory_id)
        assert specific["document"] == memories[0]["document"]
        evolution = await client.traverse_evolution(app_id=APP, memory_id=memory_id)
        assert evolution["count"] == len(evolution["memories"]) >= 1

        pool = await client.get_pool_stats()
        assert pool["initialized"] is True

        test = await client.add_agent_memory(app_id=APP, user_id=USER, messages="TEST MEMORY FOR DELETION")
        await finished(server, test["task_id"])
        found = await client.query_memory(app_id=APP, user_id=USER, query="TEST MEMORY FOR DELETION", n_results=1)
        test_id = found["memories"][0].get("id") or found["memories"][0].get("memory_id")
        assert found["memories"][0]["document"] == "TEST MEMORY FOR DELETION"
        deleted = await client.delete_memory(app_id=APP, memory_id=test_id)
        assert deleted["success"] is True and deleted["message"] == f"Memory {test_id} deleted successfully"
    finally:
        await client.close()
