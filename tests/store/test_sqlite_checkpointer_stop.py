"""Stopping the SQLite checkpointer while checkpoints still run on their threads: the
connection is closed only after them (closing it under a running PRAGMA crashed the process)."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from memlane.store.sqlite.checkpointer import Checkpointer


async def test_stop_waits_for_checkpoints_running_on_other_threads(tmp_path: Path) -> None:
    path = str(tmp_path / "wal.db")
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("CREATE TABLE t (x BLOB)")
        db.executemany("INSERT INTO t VALUES (?)", [(b"x" * 4096,) for _ in range(2000)])
    cp = Checkpointer(path)
    cp.start()
    running = [asyncio.to_thread(cp.checkpoint) for _ in range(20)]
    outcomes = await asyncio.gather(*running, cp.stop(), return_exceptions=True)
    for outcome in outcomes[:-1]:
        assert isinstance(outcome, tuple | sqlite3.ProgrammingError), outcome
    assert outcomes[-1] is None
    with pytest.raises(sqlite3.ProgrammingError, match="not running"):
        cp.checkpoint()
