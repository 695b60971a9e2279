"""Instants in requests: ISO-8601 on every surface, held as timezone-aware UTC.

A timestamp without a zone is read as UTC (what every response writes, with a ``Z``), so a
comparison with the stored, aware timestamps can never fail on a missing zone.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

from pydantic import AfterValidator


def as_utc(value: datetime) -> datetime:
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


Instant = Annotated[datetime, AfterValidator(as_utc)]

__all__ = ["Instant", "as_utc"]
