"""sync_now on both backends: knowledge items become memory nodes, a second sync reports them
unchanged, changes and removals are detected by content hash, and sync_status tells the story.
The tool call runs the sync as a durable job and waits for it."""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from memlane.domain.clock import Clock
from memlane.domain.visibility import Viewer
from memlane.embed.hashing import HashingEmbedder
from memlane.jobs.layers_kinds import KNOWLEDGE_SYNC
from memlane.services.container import Services, open_services
from memlane.services.tools.context import ToolContext
from tests.knowledge.helpers import ADR_DIR
from tests.support.settings import DIM, make_settings

CTX = ToolContext(viewer=Viewer(tenant_id="acme", agent_id="agent-1", user_id="u1"))


@dataclass
class Env:
    svc: Services
    folder: Path

    async def tool(self, name: str, args: dict[str, object]) -> dict[str, object]:
        return await self.svc.tools.call(name, args, CTX)


@pytest.fixture
async def env(db_url: str, tmp_path: Path) -> AsyncIterator[Env]:
    folder = tmp_path / "adr"
    shutil.copytree(ADR_DIR, folder)
    settings = make_settings(db_url, MEMLANE_KNOWLEDGE_DIR=str(folder), MEMLANE_SYNC_TIMEOUT_SEC=30)
    svc = await open_services(settings, clock=Clock(), embedder=HashingEmbedder(DIM))
    svc.worker.start()
    try:
        yield Env(svc, folder)
    finally:
        await svc.close()


async def test_second_sync_reports_everything_unchanged(env: Env) -> None:
    first = await env.tool("sync_now", {})
    assert first["success"] is True
    # four files: three accepted items are projected, the superseded ADR is not
    assert first["result"] == {"added": 3, "updated": 0, "deleted": 0, "unchanged": 0, "failures": 0}
    assert isinstance(first["durationMs"], float)
    job = await env.svc.store.get_job("acme", str(first["jobId"]))
    assert job is not None and job.kind == KNOWLEDGE_SYNC and job.status == "done"
    second = await env.tool("sync_now", {})
    assert second["result"] == {"added": 0, "updated": 0, "deleted": 0, "unchanged": 3, "failures": 0}
    forced = await env.tool("sync_now", {"force": True})
    assert forced["result"] == {"added": 0, "updated": 3, "deleted": 0, "unchanged": 0, "failures": 0}


async def test_changed_and_removed_files_are_detected(env: Env) -> None:
    await env.tool("sync_now", {})
    path = env.folder / "pattern-structured-logging.md"
    path.write_text(path.read_text().replace("never print()", "never print() or pprint()"))
    (env.folder / "policy-secrets.md").unlink()
    out = await env.tool("sync_now", {})
    assert out["result"] == {"added": 0, "updated": 1, "deleted": 1, "unchanged": 1, "failures": 0}


async def test_filters_limit_what_is_synced(env: Env) -> None:
    out = await env.tool("sync_now", {"types": ["policy"]})
    assert out["result"]["added"] == 1
    out = await env.tool("sync_now", {"layers": ["org", "team"]})
    assert out["result"]["added"] == 2


async def test_memory_search_sees_synced_policies(env: Env) -> None:
    await env.tool("sync_now", {})
    found = await env.tool(
        "memory_search", {"query": "Database Selection for New Services PostgreSQL", "threshold": 0.2}
    )
    results = found["results"]
    assert isinstance(results, list) and results
    top = results[0]
    assert top["layer"] == "org"
    assert "Database Selection for New Services" in top["content"]
    # synced memories are managed by sync, not deletable as memories
    with pytest.raises(Exception) as info:
        await env.tool("memory_delete", {"memoryId": top["memoryId"]})
    assert getattr(info.value, "code", None) == "UNAUTHORIZED"


async def test_sync_status_reports_health_last_sync_and_stats(env: Env) -> None:
    before = await env.tool("sync_status", {})
    assert before["lastSyncAt"] is None and before["timeSinceSync"] == "never"
    assert before["pendingChanges"] == 3
    await env.tool("sync_now", {})
    await env.tool("sync_now", {})
    after = await env.tool("sync_status", {})
    assert after["healthy"] is True
    assert after["failedItems"] == 0
    assert str(after["lastSyncAt"]).endswith("Z")
    assert after["timeSinceSync"].endswith("ago")  # type: ignore[union-attr]
    assert after["pendingChanges"] == 0
    stats = after["stats"]
    assert isinstance(stats, dict)
    assert stats["totalSyncs"] == 2 and stats["totalItemsSynced"] == 3


async def test_a_broken_file_makes_sync_unhealthy_but_not_stuck(env: Env) -> None:
    (env.folder / "broken.md").write_text("---\ntype: adr\nlayer: galaxy\n---\nbody\n")
    out = await env.tool("sync_now", {})
    assert out["result"]["added"] == 3
    status = await env.tool("sync_status", {})
    assert status["healthy"] is False
    assert status["folderErrors"][0]["file"] == "broken.md"  # type: ignore[index]
