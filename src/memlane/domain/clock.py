"""One injectable clock and id generator, so tests can make time and ids deterministic."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from datetime import UTC, datetime


class Clock:
    def __init__(self, now: Callable[[], datetime] | None = None):
        self._now = now or (lambda: datetime.now(UTC))

    def now(self) -> datetime:
        return self._now()


def new_id() -> str:
    """A UUID version 7 (RFC 9562): 48 bits of Unix milliseconds, version, 74 random bits.

    Ids are primary and foreign keys in B-tree indexes on both backends. Random (version 4)
    ids land on random pages, so every insert into a large table touches a page that has
    left the cache; time-ordered ids land at the right edge, and rows written together share
    pages (bulk writes at 100k nodes no longer slowed down as the file grew). The creation
    time they reveal is already public as ``created_at``.
    """
    millis = time.time_ns() // 1_000_000
    rand = int.from_bytes(os.urandom(10), "big")  # 80 bits: 12 for rand_a, 62 for rand_b, 6 unused
    h = f"{millis & 0xFFFF_FFFF_FFFF:012x}7{rand >> 68:03x}{0b10 << 62 | (rand & 0x3FFF_FFFF_FFFF_FFFF):016x}"
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def as_utc(ts: datetime) -> datetime:
    """Timezone-aware UTC; a time without a zone is read as UTC (what every surface writes)."""
    return ts.replace(tzinfo=UTC) if ts.tzinfo is None else ts.astimezone(UTC)


def parse_instant(text: str) -> datetime:
    """ISO-8601 (a trailing ``Z`` allowed) as aware UTC; ``ValueError`` when it is not one."""
    value = text.strip()
    if value.endswith(("Z", "z")):
        value = value[:-1] + "+00:00"
    return as_utc(datetime.fromisoformat(value))


def iso(ts: datetime | None) -> str | None:
    """UTC ISO-8601 with a ``Z``, the form every surface returns."""
    if ts is None:
        return None
    if ts.tzinfo is None:
        ts = ts.replace(tzinfo=UTC)
    return ts.astimezone(UTC).isoformat().replace("+00:00", "Z")
