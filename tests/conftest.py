"""Shared fixtures: stores on every backend, services, and a real HTTP server per module."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.types import ASGIApp

from memlane.config import Settings
from memlane.domain.clock import Clock
from memlane.embed.hashing import HashingEmbedder
from memlane.services.container import Services, open_services
from memlane.store import migrate
from memlane.store.contracts import Store
from tests.support.backends import BACKENDS, database_url, fresh_url
from tests.support.server import LiveServer, ServerFactory
from tests.support.settings import DIM, RECEIVER_HOSTS, make_settings

pytest_plugins = ["tests.support.pg"]


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


@pytest.fixture
async def services(db_url: str) -> AsyncIterator[Services]:
    """Services on a fresh database with the hashing embedder; the worker is driven by the test."""
    svc = await open_services(make_settings(db_url), clock=Clock(), embedder=HashingEmbedder(DIM))
    try:
        yield svc
    finally:
        await svc.close()


@pytest.fixture(scope="session")
def live_server_factory(tmp_path_factory: pytest.TempPathFactory) -> ServerFactory:
    """The one way a test runs a real server: ``with live_server_factory(**env) as server:``.

    ``env`` are settings by their environment names on top of ``make_settings`` (hashing
    embedder, fast worker poll). The database is a fresh SQLite file unless a URL is given
    first (``fresh_url(request)`` for a fixture parametrized with BACKENDS, or a file two
    servers share). ``wrap`` puts an ASGI layer around the app. Session-scoped so fixtures of
    any scope can use it; each server lives as long as the ``with`` block that entered it."""

    def start(
        database_url: str | None = None, /, *, wrap: Callable[[ASGIApp], ASGIApp] | None = None, **env: Any
    ) -> AbstractContextManager[LiveServer]:
        url = database_url or f"sqlite:///{tmp_path_factory.mktemp('server') / 'memlane.db'}"
        return LiveServer.start(make_settings(url, **env), wrap=wrap)

    return start


@pytest.fixture(scope="module", params=BACKENDS)
def live_server(request: pytest.FixtureRequest, live_server_factory: ServerFactory) -> Iterator[LiveServer]:
    """A real uvicorn server on loopback (hashing embedder, in-process worker) on each backend.
    Webhook receivers of the tests listen on 127.0.0.1, which only the allow-list opens."""
    with live_server_factory(fresh_url(request), MEMLANE_WEBHOOK_ALLOWED_HOSTS=RECEIVER_HOSTS) as server:
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
