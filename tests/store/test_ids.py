"""Ids are UUIDs that sort by creation time, so B-tree inserts stay at the right edge."""

from __future__ import annotations

import time
import uuid

from memlane.domain.clock import new_id


def test_ids_are_rfc_uuid_version_7() -> None:
    for value in (new_id() for _ in range(1000)):
        parsed = uuid.UUID(value)
        assert str(parsed) == value
        assert parsed.version == 7
        assert parsed.variant == uuid.RFC_4122


def test_ids_from_a_later_millisecond_sort_after_earlier_ones() -> None:
    first = [new_id() for _ in range(50)]
    time.sleep(0.003)
    later = [new_id() for _ in range(50)]
    assert max(first) < min(later)


def test_ids_carry_their_creation_time_and_do_not_repeat() -> None:
    before = time.time_ns() // 1_000_000
    ids = [new_id() for _ in range(20_000)]
    after = time.time_ns() // 1_000_000
    assert len(set(ids)) == len(ids)
    millis = [int(i.replace("-", "")[:12], 16) for i in ids]
    assert before <= min(millis) and max(millis) <= after
