"""AsyncMemlaneClient, an async context manager, against a real server on both backends."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from memlane.client import AsyncMemlaneClient, BadRequestError, NotFoundError
from memlane.client import models as m
from tests.knowledge.helpers import ADR_DIR
from tests.support.backends import BACKENDS, fresh_url
from tests.support.server import LiveServer, ServerFactory

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module", params=BACKENDS)
def server(request: pytest.FixtureRequest, live_server_factory: ServerFactory) -> Iterator[LiveServer]:
    with live_server_factory(fresh_url(request), MEMLANE_KNOWLEDGE_DIR=str(ADR_DIR)) as s:
        yield s


async def test_recall_text_returns_seeds_and_every_surface_answers(server: LiveServer) -> None:
    async with AsyncMemlaneClient(server.url, tenant_id=f"async-{uuid.uuid4().hex[:8]}") as client:
        written = await client.write(
            scope="notes",
            input_text="a note",
            nodes=[{"client_id": "n1", "type": "concept", "text_summary": "The staging database is PostgreSQL 16"}],
        )
        for _ in range(600):
            recalled = await client.recall_text(query_text="staging database", scope="notes")
            if recalled.seeds:
                break
            await asyncio.sleep(0.05)
        assert isinstance(recalled, m.RecallResult) and recalled.seeds[0].id == written.nodes[0].id

        accepted, added, layered, item = await asyncio.gather(
            client.add_memories(app_id="app", user_id="u", messages=[{"role": "user", "content": "I live in Oslo"}]),
            client.tools.memory_add("The user writes Go at work", layer="user"),
            client.layers.write(
                layer="identity", title="Name", content="The user is called Ingrid", user_instruction=True
            ),
            client.knowledge.get_item("adr-042-database-selection"),
        )
        assert (await client.wait_for_task(accepted.task_id)).status == "completed"
        assert (await client.query_memories(app_id="app", query="Where does the user live?")).count >= 1
        found = await client.tools.memory_search("Go at work", threshold=0.3)
        assert found.results[0].memory_id == added.memory_id
        assert layered.success and item.item.title == "Database Selection for New Services"
        with pytest.raises(NotFoundError) as missing:
            await client.get_memory("no-such-memory", app_id="app")
        assert missing.value.envelope == {"detail": missing.value.message}
        with pytest.raises(BadRequestError):
            await client.recall_text(query_text="")


def test_the_sync_client_is_generated_from_the_async_one() -> None:
    done = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "generate_sync_client.py"), "--check"], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
