"""Every recall leaves an audit row; a failing audit write never fails the recall."""

from __future__ import annotations

import numpy as np
import sqlalchemy as sa

from memlane.domain.hashing import sha256_hex
from memlane.domain.visibility import Viewer
from memlane.services.container import Services
from memlane.services.recall.model import RecallParams
from memlane.services.writing import WriteCommand, WriteNodeSpec


async def seed(services: Services) -> list[float]:
    vec = [float(x) for x in np.random.default_rng(1).normal(size=384)]
    await services.writes.write(
        WriteCommand(
            tenant_id="t",
            scope="s",
            input_sha256="0" * 64,
            memory_lane="shared",
            nodes=[
                WriteNodeSpec(
                    type="event", title="audited", embedding=vec, fields_set=frozenset({"type", "title", "embedding"})
                )
            ],
        )
    )
    return vec


async def test_each_recall_records_who_asked_what_and_which_seeds(services: Services) -> None:
    vec = await seed(services)
    params = RecallParams(
        viewer=Viewer(tenant_id="t", agent_id="agent-7"),
        scope="s",
        endpoint="recall_text",
        query_text="what was audited?",
    )
    out = await services.recall.recall(np.asarray(vec, np.float32), params)
    await services.recall.drain_audit()
    [row] = await services.store.list_recall_audit("t", "s", limit=10)
    assert row["consumer_agent_id"] == "agent-7" and row["endpoint"] == "recall_text"
    assert row["query_sha256"] == sha256_hex("what was audited?")
    assert row["seed_ids"] == [s.node.id for s in out.seeds]
    assert await services.store.list_recall_audit("other-tenant", "s", limit=10) == []


async def test_a_failing_audit_write_does_not_fail_the_recall(services: Services) -> None:
    vec = await seed(services)
    engine = services.store.engine  # type: ignore[attr-defined]
    async with engine.begin() as conn:
        await conn.execute(sa.text("DROP TABLE recall_audit"))
    out = await services.recall.recall(
        np.asarray(vec, np.float32), RecallParams(viewer=Viewer(tenant_id="t"), scope="s")
    )
    await services.recall.drain_audit()
    assert [s.node.title for s in out.seeds] == ["audited"]
