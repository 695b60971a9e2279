"""The SQLite durability level is a setting, applied to the connection that commits writes."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.ext.asyncio import AsyncConnection

from memlane.config import Settings
from memlane.services.container import build_store
from memlane.store import migrate
from memlane.store.sqlite.store import SqliteStore

#: PRAGMA synchronous reports the level as a number
LEVEL = {"NORMAL": 1, "FULL": 2, "EXTRA": 3}


@pytest.mark.parametrize("env,expected", [({}, "NORMAL"), ({"MEMLANE_SQLITE_SYNCHRONOUS": "FULL"}, "FULL")])
async def test_writes_commit_at_the_configured_synchronous_level(
    tmp_path: Path, env: dict[str, str], expected: str
) -> None:
    url = f"sqlite:///{tmp_path / 'memlane.db'}"
    await asyncio.to_thread(migrate.upgrade, url)
    store = build_store(Settings(MEMLANE_DATABASE_URL=url, **env), dimension=8)
    assert isinstance(store, SqliteStore)
    await store.open()
    try:
        async with store._write_tx() as conn:
            level = (await conn.exec_driver_sql("PRAGMA synchronous")).scalar()
        assert level == LEVEL[expected]

        async def writer_level(conn: AsyncConnection) -> Any:
            return (await conn.exec_driver_sql("PRAGMA synchronous")).scalar()

        assert await store.writer.run(writer_level) == LEVEL[expected], "the writer thread's connection too"
    finally:
        await store.close()


def test_an_unknown_synchronous_level_is_refused_at_startup() -> None:
    with pytest.raises(ValueError, match="MEMLANE_SQLITE_SYNCHRONOUS"):
        Settings(MEMLANE_SQLITE_SYNCHRONOUS="OFF")
