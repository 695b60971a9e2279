"""Real servers (uvicorn on loopback, SQLite, hashing embedder), one per ranking configuration.

Nodes are written with client-supplied vectors built from the query's own hashing embedding,
so each test sets the exact cosine similarity a node has to the query: "dense misses it" is
then a fact of the test data, not a hope about a model.
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import numpy as np
import numpy.typing as npt
import pytest

from memlane.embed.hashing import HashingEmbedder
from tests.support.server import LiveServer
from tests.support.settings import DIM, make_settings

SWITCHES: dict[str, dict[str, Any]] = {
    "full": {},
    "no-keyword": {"MEMLANE_RECALL_KEYWORD": False},
    "no-graph": {"MEMLANE_RECALL_GRAPH": False},
    "no-time": {"MEMLANE_RECALL_TIME": False},
    "no-entity": {"MEMLANE_RECALL_ENTITY": False},
    "shallow": {"MEMLANE_RECALL_CANDIDATES": 5},
    "no-time-statement": {"MEMLANE_RECALL_TIME_STATEMENT_BOOST": 0},
    "no-episode": {"MEMLANE_RECALL_EPISODE_WEIGHT": 0},
    "entity-links": {"MEMLANE_RECALL_ENTITY_LINK_WEIGHT": 0.3},
}


@pytest.fixture(scope="package")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, LiveServer]]:
    """One live server per configuration: all signals on, and each signal off alone."""
    with contextlib.ExitStack() as stack:
        started: dict[str, LiveServer] = {}
        for name, env in SWITCHES.items():
            data = tmp_path_factory.mktemp(f"ranking-{name}")
            started[name] = stack.enter_context(
                LiveServer.start(make_settings(f"sqlite:///{data / 'memlane.db'}", **env))
            )
        yield started


@pytest.fixture(scope="package")
def clients(servers: dict[str, LiveServer]) -> Iterator[dict[str, httpx.Client]]:
    out = {name: httpx.Client(base_url=s.url, timeout=30) for name, s in servers.items()}
    try:
        yield out
    finally:
        for c in out.values():
            c.close()


def query_vector(text: str) -> npt.NDArray[np.float32]:
    """What the servers' hashing embedder makes of a query text."""
    return np.asarray(HashingEmbedder(DIM).embed_sync([text])[0], dtype=np.float32)


def vector_with_cosine(query: npt.NDArray[np.float32], cosine: float, seed: int) -> list[float]:
    """A unit vector whose cosine with ``query`` is exactly ``cosine``."""
    q = query / np.linalg.norm(query)
    r = np.random.default_rng(seed).normal(size=len(q))
    r -= r.dot(q) * q
    r /= np.linalg.norm(r)
    v = cosine * q + np.sqrt(max(0.0, 1.0 - cosine**2)) * r
    return [float(x) for x in v]


def new_scope() -> str:
    return f"rank-{uuid.uuid4().hex[:10]}"


def write(
    client: httpx.Client, scope: str, nodes: list[dict[str, Any]], edges: list[dict[str, Any]] | None = None
) -> dict[str, str]:
    """Write and return ``client_id -> node id``."""
    r = client.post(
        "/v1/memory/write",
        json={
            "scope": scope,
            "input_text": "ranking test",
            "memory_lane": "shared",
            "nodes": nodes,
            "edges": edges or [],
        },
    )
    assert r.status_code == 200, r.text
    return {n["client_id"]: n["id"] for n in r.json()["nodes"]}


def write_everywhere(
    clients: dict[str, httpx.Client], nodes: list[dict[str, Any]], edges: list[dict[str, Any]] | None = None
) -> tuple[str, dict[str, dict[str, str]]]:
    """The same nodes in a fresh scope of every server; ids per server."""
    scope = new_scope()
    return scope, {name: write(c, scope, nodes, edges) for name, c in clients.items()}


def recall_text(client: httpx.Client, scope: str, query: str, **extra: Any) -> dict[str, Any]:
    r = client.post("/v1/memory/recall_text", json={"scope": scope, "query_text": query, **extra})
    assert r.status_code == 200, r.text
    return dict(r.json())
