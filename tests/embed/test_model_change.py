"""Changing the embedding model re-embeds through the job queue; spaces are never mixed."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from memlane.domain.clock import Clock
from memlane.domain.visibility import Viewer
from memlane.embed.base import Vectors
from memlane.embed.hashing import HashingEmbedder
from memlane.services.container import open_services
from memlane.services.recall.model import RecallParams
from memlane.services.writing import WriteCommand, WriteNodeSpec
from tests.support.settings import make_settings


class RotatedHashing(HashingEmbedder):
    """Same dimension, a different vector space: what a model upgrade looks like to the store."""

    def __init__(self) -> None:
        super().__init__(384)
        self.model_id = "hashing-384-v2"

    async def embed(self, texts: Sequence[str]) -> Vectors:
        return np.asarray(np.roll(await super().embed(texts), 7, axis=1), dtype=np.float32)


def spec(title: str) -> WriteNodeSpec:
    return WriteNodeSpec(type="event", title=title, fields_set=frozenset({"type", "title"}))


async def test_a_new_model_re_embeds_old_vectors_before_they_seed_again(tmp_path: Path) -> None:
    settings = make_settings(f"sqlite:///{tmp_path / 'm.db'}")
    old = await open_services(settings, clock=Clock(), embedder=HashingEmbedder(384))
    out = await old.writes.write(
        WriteCommand(tenant_id="t", scope="s", input_sha256="0" * 64, nodes=[spec("red apples"), spec("green pears")])
    )
    await old.worker.drain()
    ids = [n.id for n in out.result.nodes]
    assert {n.embedding_model for n in await old.store.get_nodes("t", "s", ids)} == {"hashing-384"}
    await old.close()

    new = await open_services(settings, clock=Clock(), embedder=RotatedHashing())
    try:
        assert await new.embedding.requeue_stale_model() == 2
        params = RecallParams(viewer=Viewer(tenant_id="t"), scope="s")
        query = await new.embedding.query_vector("red apples")
        assert (await new.recall.recall(query, params)).seeds == [], "stale vectors must not seed"
        await new.worker.drain()
        nodes = await new.store.get_nodes("t", "s", ids)
        assert {(n.embedding_status, n.embedding_model) for n in nodes} == {("ready", "hashing-384-v2")}
        seeds = (await new.recall.recall(query, params)).seeds
        assert seeds[0].node.title == "red apples" and seeds[0].similarity > 0.99
    finally:
        await new.close()
