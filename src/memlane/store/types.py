"""Column types that behave the same on SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import numpy as np
import sqlalchemy as sa
from sqlalchemy.dialects import postgresql
from sqlalchemy.engine import Dialect
from sqlalchemy.types import TypeDecorator, UserDefinedType


class UTCDateTime(TypeDecorator[datetime]):
    """Always hands back timezone-aware UTC, whatever the backend stores."""

    impl = sa.DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            value = value.replace(tzinfo=UTC)
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: Any, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        parsed: datetime = datetime.fromisoformat(value) if isinstance(value, str) else value
        if parsed.tzinfo is None:
            parsed = parsed.replace(tzinfo=UTC)
        return parsed.astimezone(UTC)


class PgVector(UserDefinedType[Any]):
    """pgvector's ``vector`` without a fixed dimension; indexes cast to the configured one."""

    cache_ok = True

    def get_col_spec(self, **kw: Any) -> str:
        return "vector"

    def bind_processor(self, dialect: Dialect) -> Any:
        """float32 arrays; the PostgreSQL store's asyncpg codec sends them in binary."""

        def process(value: Any) -> Any:
            return None if value is None else np.asarray(value, dtype=np.float32)

        return process

    def result_processor(self, dialect: Dialect, coltype: Any) -> Any:
        def process(value: Any) -> Any:
            if value is None or isinstance(value, np.ndarray):
                return value
            # pgvector's text form, from a connection without the binary codec
            return np.array([float(x) for x in str(value).strip("[]").split(",")], dtype=np.float32)

        return process


class Embedding(TypeDecorator[Any]):
    """float32 bytes on SQLite (loaded straight into numpy), pgvector on PostgreSQL."""

    impl = sa.LargeBinary
    cache_ok = True

    def load_dialect_impl(self, dialect: Dialect) -> Any:
        if dialect.name == "postgresql":
            return dialect.type_descriptor(PgVector())
        return dialect.type_descriptor(sa.LargeBinary())

    def process_bind_param(self, value: Any, dialect: Dialect) -> Any:
        if value is None:
            return None
        arr = np.asarray(value, dtype=np.float32)
        return arr if dialect.name == "postgresql" else arr.tobytes()

    def process_result_value(self, value: Any, dialect: Dialect) -> Any:
        if value is None:
            return None
        if isinstance(value, bytes | bytearray | memoryview):
            return np.frombuffer(bytes(value), dtype=np.float32)
        return value


JSONType = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")
