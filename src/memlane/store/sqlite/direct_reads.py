"""Recall's hot lookups on plain ``sqlite3`` connections: one thread hop and no adapter per call.

A recall reads the scope head and nodes by id several times. Through SQLAlchemy and
aiosqlite each read paid for a queue round trip to the driver thread and for per-value type
processing (two datetime parsers per column): 3.1 ms for 64 nodes at 100k nodes, against
1.6 ms here (measured). The statements and the ``Node``/``Edge`` values they build are the
same; the connections are read-only. Writes and rare reads stay on the SQLAlchemy engine.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import queue
import sqlite3
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from typing import Any

import numpy as np
import numpy.typing as npt

from memlane.domain.model import Edge, Node
from memlane.domain.node_fields import (
    EDGE_TIME_FIELDS,
    NODE_JSON_FIELDS,
    NODE_TIME_FIELDS,
    edge_from_mapping,
    node_from_mapping,
)
from memlane.store.base import Vector
from memlane.store.schema import NODE_COLUMNS_NO_VECTOR, edges
from memlane.store.sqlite.keyword_rank import parse_rowids
from memlane.store.sqlite.keyword_terms import TermCounts
from memlane.store.sqlite.vector_cache import ScopeVectors

#: one statement binds at most this many ids (SQLite's default variable limit is 32766)
CHUNK = 500
#: primary-key reads of at most this many ids run on the calling thread (get_nodes)
INLINE_IDS = 64
NODE_COLUMNS = [c.name for c in NODE_COLUMNS_NO_VECTOR]
EDGE_COLUMNS = [c.name for c in edges.c if c.name != "rev"]
_NODE_SELECT = "SELECT " + ", ".join(NODE_COLUMNS) + " FROM nodes WHERE tenant_id = ? AND id IN ({})"


@functools.lru_cache(maxsize=8192)
def _parse_utc(value: str) -> datetime:
    # Rows written together share their timestamps, so most values repeat; parsing and
    # attaching the zone cost 3 us each, a third of building an edge (measured).
    parsed = datetime.fromisoformat(value)
    return parsed.replace(tzinfo=UTC) if parsed.tzinfo is None else parsed.astimezone(UTC)


def _utc(value: str | None) -> datetime | None:
    """Datetimes are stored as naive UTC text by the SQLAlchemy column type."""
    return None if value is None else _parse_utc(value)


def _json(raw: str | None) -> Any:
    if raw is None:
        return None
    if raw == "{}":
        return {}
    if raw == "[]":
        return []
    return json.loads(raw)


def _node(row: tuple[Any, ...]) -> Node:
    values = dict(zip(NODE_COLUMNS, row, strict=True))
    for name in NODE_JSON_FIELDS:
        values[name] = _json(values[name])
    for name in NODE_TIME_FIELDS:
        values[name] = _utc(values[name])
    return node_from_mapping(values)


def _edge(row: tuple[Any, ...]) -> Edge:
    values = dict(zip(EDGE_COLUMNS, row, strict=True))
    for name in EDGE_TIME_FIELDS:
        values[name] = _utc(values[name])
    return edge_from_mapping(values)


#: what the scope cache keeps of a node (``ScopeVectors.apply``), and the characters of its text
CACHE_COLUMNS = (
    *dict.fromkeys(("id", "row_no", "embedding", "embedding_status", "embedding_dim", *ScopeVectors.ATTRS)),
    "text_len",
)
_CACHE_SELECT = (
    "SELECT "
    + ", ".join(
        "length(coalesce(title, '')) + length(coalesce(text_summary, '')) AS text_len" if c == "text_len" else c
        for c in CACHE_COLUMNS
    )
    + " FROM nodes WHERE tenant_id = ? AND scope = ? AND rev > ?"
)
_CACHE_TIMES = [c for c in CACHE_COLUMNS if c in ScopeVectors.TIMES]
_EDGES_SINCE = "SELECT " + ", ".join(EDGE_COLUMNS) + " FROM edges WHERE tenant_id = ? AND scope = ? AND rev > ?"


class CacheRow:
    """A changed node for the scope cache, read like a SQLAlchemy row (``_mapping``)."""

    __slots__ = ("_mapping",)

    def __init__(self, mapping: dict[str, Any]) -> None:
        self._mapping = mapping


def _marks(count: int) -> str:
    return ",".join("?" * count)


class DirectReader:
    """A small pool of read-only connections to one SQLite file, used from worker threads."""

    def __init__(self, path: str, *, size: int = 4):
        self.path = path
        self._size = size
        self._idle: queue.SimpleQueue[sqlite3.Connection] = queue.SimpleQueue()
        self._all: list[sqlite3.Connection] = []
        self._closed = False

    def _open(self) -> sqlite3.Connection:
        conn = sqlite3.connect(
            f"file:{self.path}?mode=ro", uri=True, check_same_thread=False, isolation_level=None, timeout=10.0
        )
        conn.execute("PRAGMA query_only=ON")
        conn.execute("PRAGMA cache_size=-65536")
        self._all.append(conn)
        return conn

    @contextlib.contextmanager
    def _conn(self) -> Iterator[sqlite3.Connection]:
        if self._closed:
            raise RuntimeError("store is closed")
        try:
            conn = self._idle.get_nowait()
        except queue.Empty:
            conn = self._open()
        try:
            yield conn
        finally:
            if self._closed:
                conn.close()
            else:
                self._idle.put(conn)

    def close(self) -> None:
        self._closed = True
        for conn in self._all:
            with contextlib.suppress(sqlite3.Error):
                conn.close()
        self._all.clear()

    # --- the reads, each one thread hop ---------------------------------------------------
    async def scope_head(self, tenant_id: str, scope: str) -> tuple[int, int] | None:
        """Read on the calling thread: a primary-key lookup takes tens of microseconds, less
        than the hop to a worker thread and back, and recall checks the head before every
        cached read."""
        return self._scope_head(tenant_id, scope)

    def _scope_head(self, tenant_id: str, scope: str) -> tuple[int, int] | None:
        with self._conn() as conn:
            row = conn.execute(
                "SELECT rev, epoch FROM scope_heads WHERE tenant_id = ? AND scope = ?", (tenant_id, scope)
            ).fetchone()
        return (int(row[0]), int(row[1])) if row is not None else None

    async def get_nodes(self, tenant_id: str, scope: str | None, ids: Sequence[str]) -> list[Node]:
        """A recall's handful of nodes are read on the calling thread, like the scope head:
        the hop to a worker thread and the GIL hand-offs it causes cost more than the read
        (CPU per recall_text 3.0-3.4 -> 2.7 ms, 8 clients, 2,000 nodes; BENCHMARKS.md)."""
        if not ids:
            return []
        if len(ids) <= INLINE_IDS:
            return self._get_nodes(tenant_id, scope, list(ids))
        return await asyncio.to_thread(self._get_nodes, tenant_id, scope, list(ids))

    def _get_nodes(self, tenant_id: str, scope: str | None, ids: list[str]) -> list[Node]:
        wanted = list(dict.fromkeys(ids))
        found: dict[str, Node] = {}
        with self._conn() as conn:
            for start in range(0, len(wanted), CHUNK):
                part = wanted[start : start + CHUNK]
                for row in conn.execute(_NODE_SELECT.format(_marks(len(part))), (tenant_id, *part)):
                    node = _node(row)
                    if scope is None or node.scope == scope:
                        found[node.id] = node
        return [found[i] for i in ids if i in found]

    async def cache_rows_since(
        self, tenant_id: str, scope: str, rev: int
    ) -> tuple[tuple[int, int] | None, list[CacheRow], list[Edge]]:
        """The scope's ``(rev, epoch)`` and its nodes and edges written after ``rev`` (all for
        -1), read in one snapshot and one thread hop. Through aiosqlite and SQLAlchemy this refresh was
        several hops and per-value processing, and every search of a scope that had a write
        since waited for it (BENCHMARKS.md, "Concurrent load")."""
        return await asyncio.to_thread(self._cache_rows_since, tenant_id, scope, rev)

    def _cache_rows_since(
        self, tenant_id: str, scope: str, rev: int
    ) -> tuple[tuple[int, int] | None, list[CacheRow], list[Edge]]:
        with self._conn() as conn:
            conn.execute("BEGIN")
            try:
                head = conn.execute(
                    "SELECT rev, epoch FROM scope_heads WHERE tenant_id = ? AND scope = ?", (tenant_id, scope)
                ).fetchone()
                raw = conn.execute(_CACHE_SELECT, (tenant_id, scope, rev)).fetchall()
                edge_rows = [_edge(row) for row in conn.execute(_EDGES_SINCE, (tenant_id, scope, rev))]
            finally:
                conn.execute("COMMIT")
        rows = []
        for values in raw:
            mapping = dict(zip(CACHE_COLUMNS, values, strict=True))
            for name in _CACHE_TIMES:
                mapping[name] = _utc(mapping[name])
            rows.append(CacheRow(mapping))
        return ((int(head[0]), int(head[1])) if head is not None else None), rows, edge_rows

    async def keyword_postings(self, terms: list[str], counts: TermCounts) -> list[npt.NDArray[np.int64]]:
        """Per query word worth ranking with (keyword_terms.py), the rowids of the keyword
        index's documents containing it, in every scope; one thread hop for both steps."""
        return await asyncio.to_thread(self._keyword_postings, terms, counts)

    def _keyword_postings(self, terms: list[str], counts: TermCounts) -> list[npt.NDArray[np.int64]]:
        with self._conn() as conn:
            sql = "SELECT group_concat(rowid) FROM nodes_fts WHERE nodes_fts MATCH ?"
            return [parse_rowids(conn.execute(sql, (f'"{t}"',)).fetchone()[0]) for t in counts.selective(conn, terms)]

    async def get_embeddings(self, tenant_id: str, scope: str, ids: Sequence[str]) -> dict[str, Vector]:
        if not ids:
            return {}
        if len(ids) <= INLINE_IDS:  # as get_nodes
            return self._get_embeddings(tenant_id, scope, list(ids))
        return await asyncio.to_thread(self._get_embeddings, tenant_id, scope, list(ids))

    def _get_embeddings(self, tenant_id: str, scope: str, ids: list[str]) -> dict[str, Vector]:
        out: dict[str, Vector] = {}
        with self._conn() as conn:
            for start in range(0, len(ids), CHUNK):
                part = ids[start : start + CHUNK]
                sql = (
                    "SELECT id, embedding FROM nodes WHERE tenant_id = ? AND coalesce(scope, '') = ?"
                    f" AND id IN ({_marks(len(part))}) AND embedding IS NOT NULL"
                )
                for nid, blob in conn.execute(sql, (tenant_id, scope, *part)):
                    out[nid] = np.frombuffer(bytes(blob), dtype=np.float32)
        return out
