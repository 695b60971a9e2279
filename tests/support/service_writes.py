"""Writing through the services in-process, for tests that drive the worker themselves."""

from __future__ import annotations

from memlane.services.container import Services
from memlane.services.writing import WriteCommand, WriteNodeSpec


async def one_node_write(svc: Services, title: str) -> tuple[str, str]:
    out = await svc.writes.write(
        WriteCommand(
            tenant_id="default",
            scope="s",
            input_sha256="0" * 64,
            nodes=[WriteNodeSpec(type="event", title=title, fields_set=frozenset({"type", "title"}))],
        )
    )
    assert out.embed_job_id is not None
    return out.result.nodes[0].id, out.embed_job_id
