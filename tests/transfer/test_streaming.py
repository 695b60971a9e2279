"""An export is read from the store a page at a time while it is written out, on both
backends, and neither an export nor an import loads the scopes it walks into the SQLite
store's search cache (which would then hold them): memory stays bounded by a page."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

from memlane.domain.clock import Clock
from memlane.domain.model import EdgeRef
from memlane.embed.hashing import HashingEmbedder
from memlane.services.container import Services, open_services
from memlane.services.recall.model import RecallParams
from memlane.services.transfer.export import PAGE, ExportRequest, admin_of
from memlane.services.writing import WriteCommand, WriteEdgeSpec, WriteNodeSpec
from tests.support.settings import DIM, make_settings

TENANT = "streamer"


async def write(svc: Services, scope: str, titles: list[str], links: tuple[tuple[int, int], ...] = ()) -> list[str]:
    nodes = [WriteNodeSpec(type="event", fields_set=frozenset({"title"}), title=t, client_id=t) for t in titles]
    edges = [
        WriteEdgeSpec(type="related_to", src=EdgeRef(client_id=titles[a]), dst=EdgeRef(client_id=titles[b]))
        for a, b in links
    ]
    cmd = WriteCommand(
        tenant_id=TENANT,
        scope=scope,
        input_sha256="0" * 64,
        memory_lane="shared",
        auto_embed=False,
        nodes=nodes,
        edges=edges,
    )
    return [n.id for n in (await svc.writes.write(cmd)).result.nodes]


async def test_an_export_reads_each_page_only_when_the_one_before_is_written_out(services: Services) -> None:
    """Nodes and edges written while an export is under way show up in it if their page had
    not been read yet: the export never held the scope whole."""
    for start in range(0, 2 * PAGE + 100, 100):
        await write(services, "big", [f"n{i:05d}" for i in range(start, start + 100)], ((0, 1),))
    records: AsyncIterator[dict[str, object]] = services.exporter.records(ExportRequest(tenant_id=TENANT))
    seen: list[dict[str, object]] = []
    async for record in records:
        seen.append(record)
        if sum(r["record"] == "node" for r in seen) == PAGE + 10:
            break
    # written once the first page of nodes is out: a newer id than every node, and an edge
    # between two nodes of that page
    [late] = await write(services, "big", ["late node"])
    await write(services, "big", ["n00000", "n00100"], ((0, 1),))
    seen += [r async for r in records]
    nodes = [r["id"] for r in seen if r["record"] == "node"]
    assert late in nodes and len(nodes) == len(set(nodes)) == 2 * PAGE + 101
    edges = {(r["src_id"], r["dst_id"]) for r in seen if r["record"] == "edge"}
    assert len(edges) == (2 * PAGE + 100) // 100 + 1, "the edge written during the export is in it"


async def test_an_export_and_an_import_leave_the_search_cache_alone(tmp_path: Path) -> None:
    """SQLite keeps a search cache of each scope that is searched; an export or import of
    3,000 scopes loaded all of them into it, for good (+436 MB, issue 26)."""
    embedder = HashingEmbedder(DIM)
    source = await open_services(make_settings(f"sqlite:///{tmp_path / 'a.db'}"), clock=Clock(), embedder=embedder)
    target = await open_services(make_settings(f"sqlite:///{tmp_path / 'b.db'}"), clock=Clock(), embedder=embedder)
    try:
        for i in range(5):
            await write(source, f"scope-{i}", [f"a{i}", f"b{i}"], ((0, 1),))
        await source.worker.drain()  # vectors, so the export carries them
        lines = [
            json.dumps(r, default=str)
            async for r in source.exporter.records(ExportRequest(tenant_id=TENANT, embeddings=True))
        ]
        assert sum('"record": "edge"' in line for line in lines) == 5

        async def feed() -> AsyncIterator[str]:
            for line in lines:
                yield line

        report = await target.importer.run(feed(), only_tenant=TENANT)
        assert report.nodes_written == 10 and report.edges_written == 5
        for svc in (source, target):
            assert (await svc.store.pool_stats())["vector_cache_scopes"] == 0
        # a search does use it: the figure above is the cache's
        query = await source.embedding.query_vector("a0")
        await source.recall.recall(query, RecallParams(viewer=admin_of(TENANT), scope="scope-0", limit=5))
        assert (await source.store.pool_stats())["vector_cache_scopes"] == 1
    finally:
        await source.close()
        await target.close()
