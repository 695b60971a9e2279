"""The ranking tests' fixtures: an in-process store to rank with any configuration, and one
real server (every signal on) for the tests of the HTTP contract."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest

from memlane.domain.clock import Clock
from memlane.embed.hashing import HashingEmbedder
from memlane.services.container import open_services
from tests.ranking.helpers import Ranking
from tests.support.server import LiveServer, ServerFactory
from tests.support.settings import DIM, make_settings


@pytest.fixture
async def ranking(tmp_path: Path) -> AsyncIterator[Ranking]:
    """SQLite and the hashing embedder, in-process: no worker, nothing but the test writes."""
    svc = await open_services(
        make_settings(f"sqlite:///{tmp_path / 'memlane.db'}"), clock=Clock(), embedder=HashingEmbedder(DIM)
    )
    try:
        yield Ranking(svc)
    finally:
        await svc.close()


@pytest.fixture
async def backend_ranking(db_url: str) -> AsyncIterator[Ranking]:
    """The ranking helper on each backend (``ranking`` above is SQLite only), for signals
    whose store queries differ by backend."""
    svc = await open_services(make_settings(db_url), clock=Clock(), embedder=HashingEmbedder(DIM))
    try:
        yield Ranking(svc)
    finally:
        await svc.close()


@pytest.fixture(scope="package")
def full_server(live_server_factory: ServerFactory) -> Iterator[LiveServer]:
    with live_server_factory() as server:
        yield server


@pytest.fixture
def http(full_server: LiveServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=full_server.url, timeout=30) as c:
        yield c
