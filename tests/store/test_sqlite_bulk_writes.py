"""The embedded store's bulk-write shortcuts store exactly what the general path stores."""

from __future__ import annotations

import asyncio
import shutil
import sqlite3
from datetime import timedelta
from pathlib import Path
from typing import Any

import numpy as np

from memlane.store import migrate
from memlane.store.schema import edges, nodes
from memlane.store.sql.store import SqlStore
from memlane.store.sqlite.store import SqliteStore
from tests.store.helpers import NOW, info, up
from tests.support.settings import DIM


async def _open(path: Path) -> SqliteStore:
    url = f"sqlite:///{path}"
    await asyncio.to_thread(migrate.upgrade, url)
    store = SqliteStore(url, vector_dim=DIM)
    await store.open()
    return store


def _rows(path: Path, table: str) -> list[tuple[Any, ...]]:
    with sqlite3.connect(path) as conn:
        return conn.execute(f"SELECT * FROM {table} ORDER BY id").fetchall()


def _node_row(i: int) -> dict[str, Any]:
    vector = np.linspace(-1, 1, DIM, dtype=np.float32) * (i + 1)
    u = up(f"note {i}", client_id=f"c{i}")
    n = u.node
    return {
        "tenant_id": "t1", "id": n.id, "scope": "s1", "client_id": n.client_id, "type": "event", "tier": "hot",
        "title": n.title, "text_summary": None if i else "ünïcode ✓",
        "slots": {"k": [i, "x"], "n": {"f": 1.5}} if i else {},
        "raw_ref": None, "evidence_ref": None, "memory_lane": "shared", "producer_agent_id": None,
        "owner_agent_id": "a1", "owner_team_id": None, "salience": 0.25, "importance": 0.5, "confidence": 1.0,
        "embedding": vector if i else None, "embedding_status": "ready" if i else "pending",
        "embedding_model": "m" if i else None, "embedding_dim": DIM if i else None, "status": "active",
        "topic_state": None, "layer": None, "user_id": None, "session_id": None, "task_id": None, "agent": None,
        "tags": ["a", "b"] if i else [], "expires_at": NOW + timedelta(days=i) if i else None,
        "created_at": NOW, "updated_at": NOW + timedelta(microseconds=i), "last_activated": None,
        "commit_id": None, "row_no": 1000 + i, "rev": 1,
    }  # fmt: skip


async def test_many_row_inserts_store_the_same_values_as_sqlalchemy(tmp_path: Path) -> None:
    fast, general = await _open(tmp_path / "fast.db"), await _open(tmp_path / "general.db")
    try:
        node_rows = [_node_row(i) for i in range(3)]
        edge_rows = [
            {
                "tenant_id": "t1", "id": f"e{i}", "scope": "s1", "type": "related_to", "src_id": node_rows[0]["id"],
                "dst_id": node_rows[i]["id"], "weight": 0.5, "confidence": 1.0, "decay_rate": 0.0,
                "created_at": NOW, "updated_at": NOW, "commit_id": None, "rev": 1,
            }
            for i in (1, 2)
        ]  # fmt: skip
        for store, insert in ((fast, fast._insert_rows), (general, None)):
            async with store._write_tx() as conn:
                for table, rows in ((nodes, node_rows), (edges, edge_rows)):
                    if insert is None:
                        await SqlStore._insert_rows(store, conn, table, rows)
                    else:
                        await insert(conn, table, rows)
        for table in ("nodes", "edges"):
            assert _rows(tmp_path / "fast.db", table) == _rows(tmp_path / "general.db", table)
    finally:
        await fast.close()
        await general.close()


async def test_a_write_reaches_the_database_file_without_waiting_for_a_checkpoint_by_the_writer(
    tmp_path: Path,
) -> None:
    """The WAL is copied into the main file in the background, so a copy of the file alone
    (without its -wal) soon holds the write."""
    store = await _open(tmp_path / "m.db")
    try:
        await store.apply_write("t1", "s1", [up("checkpointed", client_id="c")], [], info(), now=NOW)
        for _ in range(50):
            await asyncio.sleep(0.1)
            shutil.copyfile(tmp_path / "m.db", tmp_path / "copy.db")
            with sqlite3.connect(tmp_path / "copy.db") as conn:
                found = conn.execute("SELECT count(*) FROM nodes WHERE client_id = 'c'").fetchone()[0]
            if found:
                break
        assert found == 1
    finally:
        await store.close()
