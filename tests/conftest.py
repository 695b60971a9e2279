"""Shared fixtures: stores on every backend, services, and a real HTTP server per module."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from memlane.config import Settings
from memlane.domain.clock import Clock
from memlane.embed.hashing import HashingEmbedder
from memlane.services.container import Services, open_services
from memlane.store import migrate
from memlane.store.contracts import Store
from tests.support.backends import BACKENDS, database_url
from tests.support.server import LiveServer

pytest_plugins = ["tests.support.pg"]

DIM = 384
#: the one internal address test webhook receivers listen on (MEMLANE_WEBHOOK_ALLOWED_HOSTS)
RECEIVER_HOSTS = "127.0.0.1"


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def db_url(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> str:
    return database_url(backend, tmp_path, request)


@pytest.fixture
async def store(db_url: str) -> AsyncIterator[Store]:
    """An open, migrated store of each backend, empty at the start of the test."""
    from memlane.services.container import build_store

    await asyncio.to_thread(migrate.upgrade, db_url)
    s = build_store(Settings(MEMLANE_DATABASE_URL=db_url), dimension=DIM)
    await s.open()
    try:
        yield s
    finally:
        await s.close()


def make_settings(db_url: str, **env: Any) -> Settings:
    values: dict[str, Any] = {
        "MEMLANE_DATABASE_URL": db_url,
        "MEMLANE_EMBEDDER": "hashing",
        "MEMLANE_WORKER_POLL_INTERVAL_SEC": 0.05,
    }
    values.update(env)
    if values["MEMLANE_EMBEDDER"] == "hashing":
        # the relevance scale is fitted for the local model; a hashing vector's cosine says
        # nothing on it, so a hashing server's conversation query keeps every note unless the
        # test asks for a cut (the default cut is tested with the local model)
        values.setdefault("MEMLANE_CONVERSATION_SIMILARITY_THRESHOLD", 0.0)
    return Settings(**values)


@pytest.fixture
async def services(db_url: str) -> AsyncIterator[Services]:
    """Services on a fresh database with the hashing embedder; the worker is driven by the test."""
    svc = await open_services(make_settings(db_url), clock=Clock(), embedder=HashingEmbedder(DIM))
    try:
        yield svc
    finally:
        await svc.close()


@pytest.fixture(scope="module", params=BACKENDS)
def live_server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """A real uvicorn server on loopback (hashing embedder, in-process worker) on each backend.
    Webhook receivers of the tests listen on 127.0.0.1, which only the allow-list opens."""
    url = database_url(request.param, tmp_path_factory.mktemp("server"), request)
    with LiveServer.start(make_settings(url, MEMLANE_WEBHOOK_ALLOWED_HOSTS=RECEIVER_HOSTS)) as server:
        yield server


@pytest.fixture
def client(live_server: LiveServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=live_server.url, timeout=30) as c:
        yield c


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if os.environ.get("MEMLANE_TEST_SKIP_POSTGRES"):
        skip = pytest.mark.skip(reason="MEMLANE_TEST_SKIP_POSTGRES is set")
        for item in items:
            if "postgres" in item.keywords or "[postgres" in item.nodeid:
                item.add_marker(skip)
