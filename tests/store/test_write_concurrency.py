"""MEMLANE_WRITE_CONCURRENCY: writes beyond the limit wait their turn, and every one is stored."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from memlane.domain.clock import Clock
from memlane.embed.hashing import HashingEmbedder
from memlane.services.container import open_services
from tests.support.service_writes import one_node_write
from tests.support.settings import make_settings


async def _writes_in_flight(db_url: str, monkeypatch: pytest.MonkeyPatch, limit: int, writes: int) -> tuple[int, int]:
    """(the most writes the store applied at once, how many were stored)."""
    svc = await open_services(
        make_settings(db_url, MEMLANE_WRITE_CONCURRENCY=limit), clock=Clock(), embedder=HashingEmbedder(dimension=384)
    )
    applying, most = 0, 0
    apply_write = svc.store.apply_write

    async def observed(*args: Any, **kwargs: Any) -> Any:
        nonlocal applying, most
        applying += 1
        most = max(most, applying)
        try:
            await asyncio.sleep(0.01)  # let every other write that may start, start
            return await apply_write(*args, **kwargs)
        finally:
            applying -= 1

    monkeypatch.setattr(svc.store, "apply_write", observed)
    try:
        written = await asyncio.gather(*(one_node_write(svc, f"note {i}") for i in range(writes)))
        stored = await svc.store.get_nodes("default", "s", [node_id for node_id, _ in written])
        return most, len(stored)
    finally:
        await svc.close()


async def test_writes_beyond_the_limit_wait_their_turn_and_all_are_stored(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert await _writes_in_flight(db_url, monkeypatch, limit=2, writes=12) == (2, 12)


async def test_a_limit_of_zero_lets_every_write_through_at_once(db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    assert await _writes_in_flight(db_url, monkeypatch, limit=0, writes=12) == (12, 12)
