"""Many-row inserts on SQLite without SQLAlchemy's per-value processing.

A bulk write of 500 nodes and 1,200 edges binds about 25,000 values. Through
``conn.execute(table.insert(), rows)`` SQLAlchemy runs a bind processor per value and builds
its parameter lists in Python: 70 ms of a 380 ms write (cProfile, bench/recall.py). Here each
column's conversion is chosen once per table, values become positional tuples in one pass,
and the driver's ``executemany`` gets them directly. The conversions produce exactly what the
column types store (store/types.py): naive-UTC datetimes in SQLAlchemy's SQLite text format,
JSON text, float32 bytes.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any

import numpy as np
import sqlalchemy as sa

from memlane.store.types import Embedding, UTCDateTime

Convert = Callable[[Any], Any]


@functools.lru_cache(maxsize=256)
def _utc_text(value: datetime) -> str:
    # rows of one write share their timestamps, so most conversions repeat
    if value.tzinfo is not None:
        value = value.astimezone(UTC).replace(tzinfo=None)
    return value.isoformat(sep=" ", timespec="microseconds")


def _datetime(value: Any) -> Any:
    return None if value is None else _utc_text(value)


def _json(value: Any) -> Any:
    if value is None:
        return None
    if not value:
        return "{}" if isinstance(value, dict) else "[]" if isinstance(value, list) else json.dumps(value)
    return json.dumps(value)


def _vector(value: Any) -> Any:
    return None if value is None else np.asarray(value, dtype=np.float32).tobytes()


def _converter(column: sa.Column[Any]) -> Convert | None:
    kind = column.type
    if isinstance(kind, UTCDateTime):
        return _datetime
    if isinstance(kind, Embedding):
        return _vector
    if isinstance(kind, sa.JSON):
        return _json
    return None


@functools.lru_cache(maxsize=64)
def _plan(table: sa.Table, names: tuple[str, ...]) -> tuple[str, tuple[tuple[str, Convert | None], ...]]:
    sql = f"INSERT INTO {table.name} ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})"
    return sql, tuple((name, _converter(table.c[name])) for name in names)


def insert_statement(table: sa.Table, rows: Sequence[dict[str, Any]]) -> tuple[str, list[tuple[Any, ...]]]:
    """The SQL and positional parameters inserting ``rows`` (all with the keys of the first)."""
    sql, columns = _plan(table, tuple(rows[0]))
    params = [tuple(row[name] if convert is None else convert(row[name]) for name, convert in columns) for row in rows]
    return sql, params
