"""Writing and recalling through /v1/memory over real HTTP, shared by every suite that needs
it: unique scopes, unit vectors, a write that must succeed, waiting for background embedding,
and reading what the server stored."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import httpx
import numpy as np

from memlane.config import Settings
from memlane.domain.model import Node
from memlane.store.contracts import Store
from tests.support.settings import DIM

T = TypeVar("T")


def new_scope() -> str:
    return f"scope-{uuid.uuid4().hex[:10]}"


def unit(seed: int) -> list[float]:
    v = np.random.default_rng(seed).normal(size=DIM)
    return [float(x) for x in v / np.linalg.norm(v)]


def write(
    client: httpx.Client,
    scope: str,
    nodes: list[dict[str, Any]],
    edges: list[dict[str, Any]] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "scope": scope,
        "input_text": "test write",
        "memory_lane": "shared",
        "nodes": nodes,
        "edges": edges or [],
        **extra,
    }
    r = client.post("/v1/memory/write", json=body)
    assert r.status_code == 200, r.text
    return dict(r.json())


def wait_until_recallable(
    client: httpx.Client, scope: str, query_text: str, node_ids: set[str], timeout: float = 20.0, **extra: Any
) -> dict[str, Any]:
    """Poll recall_text until every node in ``node_ids`` can seed (i.e. it has been embedded)."""
    deadline = time.monotonic() + timeout
    last: dict[str, Any] = {}
    while time.monotonic() < deadline:
        r = client.post("/v1/memory/recall_text", json={"scope": scope, "query_text": query_text, "limit": 50, **extra})
        assert r.status_code == 200, r.text
        last = r.json()
        if node_ids <= {s["id"] for s in last["seeds"]}:
            return last
        time.sleep(0.1)
    raise AssertionError(f"nodes were not embedded in time; last seeds: {last.get('seeds')}")


def walk(value: Any) -> Any:
    """Every nested value, to search a whole response for leaked vectors."""
    yield value
    if isinstance(value, dict):
        for v in value.values():
            yield from walk(v)
    elif isinstance(value, list):
        for v in value:
            yield from walk(v)


def has_long_float_list(body: Any, min_len: int = 17) -> bool:
    return any(isinstance(v, list) and len(v) >= min_len and all(isinstance(x, float) for x in v) for v in walk(body))


def stored(settings: Settings, read: Callable[[Store], Awaitable[T]]) -> T:
    """Read the server's database directly, as an operator would: what a refused request did
    *not* store, what a write recorded beyond its response."""

    async def run() -> T:
        from memlane.services.container import build_store

        store = build_store(settings, dimension=DIM)
        await store.open()
        try:
            return await read(store)
        finally:
            await store.close()

    return asyncio.run(run())


def stored_nodes(settings: Settings, scope: str, tenant_id: str = "default") -> list[Node]:
    return stored(settings, lambda s: s.scan_nodes(tenant_id, scope, after_id=None, limit=1000))
