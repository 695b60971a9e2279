"""One injectable clock and id generator, so tests can make time and ids deterministic."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import UTC, datetime


class Clock:
    def __init__(self, now: Callable[[], datetime] | None = None):
        self._now = now or (lambda: datetime.now(UTC))

    def now(self) -> datetime:
        return self._now()


def new_id() -> str:
    return str(uuid.uuid4())


def iso(ts: datetime | None) -> str | None:
    """UTC ISO-8601 with a ``Z``, the form every surface returns."""
    if ts is None:
        return None
    if ts.tzinfo is None:
        ts = ts.replace(tzinfo=UTC)
    return ts.astimezone(UTC).isoformat().replace("+00:00", "Z")
