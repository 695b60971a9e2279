"""Instants in requests: ISO-8601 on every surface, held as timezone-aware UTC.

A timestamp without a zone is read as UTC (what every response writes, with a ``Z``), so a
comparison with the stored, aware timestamps can never fail on a missing zone.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from pydantic import AfterValidator

from memlane.domain.clock import as_utc

Instant = Annotated[datetime, AfterValidator(as_utc)]


def interval_end(valid_at: datetime | None, invalid_at: datetime | None) -> datetime | None:
    """A field validator's check of ``invalid_at`` (so the 400 names that field)."""
    if invalid_at is not None and valid_at is not None and invalid_at <= valid_at:
        raise ValueError("invalid_at must be after valid_at")
    return invalid_at


def one_time_question(as_of: datetime | None, include_invalid: bool) -> bool:
    """A field validator's check of ``include_invalid``: it returns every interval, so an
    ``as_of`` beside it would be ignored; refused instead."""
    if include_invalid and as_of is not None:
        raise ValueError("give as_of or include_invalid, not both: include_invalid returns every interval")
    return include_invalid


__all__ = ["Instant", "as_utc", "interval_end", "one_time_question"]
