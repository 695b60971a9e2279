"""One-node writes are embedded together, and a bad job in a batch fails alone."""

from __future__ import annotations

from collections.abc import Sequence

from memlane.domain.clock import Clock
from memlane.embed.base import Vectors
from memlane.embed.hashing import HashingEmbedder
from memlane.services.container import open_services
from tests.support.service_writes import one_node_write
from tests.support.settings import DIM, make_settings


class ProviderRefusingPoison(HashingEmbedder):
    """A provider that rejects one input (as a real one might refuse a text) and counts calls."""

    def __init__(self) -> None:
        super().__init__(dimension=DIM)
        self.calls: list[int] = []

    async def embed(self, texts: Sequence[str]) -> Vectors:
        self.calls.append(len(texts))
        if any("poison" in t for t in texts):
            raise ValueError("provider refused an input")
        return await super().embed(texts)


async def test_many_one_node_writes_are_embedded_in_one_call(db_url: str) -> None:
    embedder = ProviderRefusingPoison()
    svc = await open_services(make_settings(db_url), clock=Clock(), embedder=embedder)
    try:
        written = [await one_node_write(svc, f"note {i}") for i in range(10)]
        assert await svc.worker.run_once() == 10
        assert embedder.calls == [10]
        nodes = await svc.store.get_nodes("default", "s", [n for n, _ in written])
        assert {n.embedding_status for n in nodes} == {"ready"}
        for _, job_id in written:
            job = await svc.store.get_job("default", job_id)
            assert job is not None and job.status == "done"
            assert job.result == {"embedded": 1, "skipped_changed": 0, "model": embedder.model_id}
    finally:
        await svc.close()


async def test_a_failing_job_in_a_batch_fails_alone_and_the_rest_are_embedded(db_url: str) -> None:
    embedder = ProviderRefusingPoison()
    svc = await open_services(make_settings(db_url), clock=Clock(), embedder=embedder)
    try:
        good = [await one_node_write(svc, f"fine note {i}") for i in range(4)]
        bad_node, bad_job = await one_node_write(svc, "poison note")
        await svc.worker.run_once()
        ready = await svc.store.get_nodes("default", "s", [n for n, _ in good])
        assert {n.embedding_status for n in ready} == {"ready"}
        for _, job_id in good:
            job = await svc.store.get_job("default", job_id)
            assert job is not None and job.status == "done"
        failed = await svc.store.get_job("default", bad_job)
        assert failed is not None
        assert failed.status == "queued" and failed.run_after is not None  # backing off, to retry
        assert "provider refused an input" in (failed.last_error or "")
        (bad,) = await svc.store.get_nodes("default", "s", [bad_node])
        assert bad.embedding_status == "pending"
    finally:
        await svc.close()
