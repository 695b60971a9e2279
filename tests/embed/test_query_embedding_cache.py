"""A repeated query text is answered from the query-vector cache, not the embedding provider
(``MEMLANE_QUERY_EMBEDDING_CACHE``), and the cache can be switched off."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

import numpy as np

from memlane.config import Settings
from memlane.domain.clock import Clock
from memlane.embed.factory import build_embedder
from memlane.services.embedding import EmbeddingService
from memlane.store.contracts import Store
from tests.support.openai_server import openai_server


@contextlib.asynccontextmanager
async def service(store: Store, base_url: str, cache: int) -> AsyncIterator[EmbeddingService]:
    """The embedding service on the provider at ``base_url``; its HTTP client closed on leaving."""
    settings = Settings(
        MEMLANE_EMBEDDER="openai",
        MEMLANE_EMBEDDING_BASE_URL=base_url,
        MEMLANE_EMBEDDING_DIMENSION=384,
        MEMLANE_QUERY_EMBEDDING_CACHE=cache,
    )
    embedder = build_embedder(settings)
    try:
        yield EmbeddingService(store, embedder, clock=Clock(), query_cache_size=settings.embedding.query_cache)
    finally:
        await embedder.aclose()


async def test_a_repeated_query_is_not_embedded_again(store: Store) -> None:
    with openai_server(384) as (base_url, script):
        async with service(store, base_url, cache=2) as embedding:
            first = await embedding.query_vector("what does Maya enjoy in Lisbon?")
            first[:] = 0.0  # a caller changing its vector does not change the cached one
            again = await embedding.query_vector("what does Maya enjoy in Lisbon?")
            assert script.calls == 1
            assert float(np.linalg.norm(again)) > 0.99

            await embedding.query_vector("what does Omar enjoy in Oslo?")
            await embedding.query_vector("what does Lena enjoy in Kyoto?")  # the Maya question is the oldest: dropped
            assert script.calls == 3
            assert np.allclose(await embedding.query_vector("what does Maya enjoy in Lisbon?"), again)
            assert script.calls == 4


async def test_with_the_cache_off_every_query_is_embedded(store: Store) -> None:
    with openai_server(384) as (base_url, script):
        async with service(store, base_url, cache=0) as embedding:
            for _ in range(3):
                await embedding.query_vector("what does Maya enjoy in Lisbon?")
            assert script.calls == 3
