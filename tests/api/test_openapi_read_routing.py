"""``/openapi.json`` declares the read-replica headers (docs/operations.md "Read replicas") on
exactly the operations that use them, found from the app's routes: the routed reads (those
whose dependencies run ``RoutedRead``) and the writes (every other state-changing method)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from fastapi.dependencies.models import Dependant
from fastapi.routing import iter_route_contexts

from memlane.api.common.read_routing import route_reads
from tests.support.server import LiveServer, ServerFactory

READ_AFTER = "X-Memlane-Read-After"
READ_SOURCE = "X-Memlane-Read-Source"
POSITION = "X-Memlane-Position"
WRITE_METHODS = {"POST", "PUT", "PATCH", "DELETE"}


@pytest.fixture(scope="module")
def server(live_server_factory: ServerFactory) -> Iterator[LiveServer]:
    with live_server_factory() as live:
        yield live


def _runs_routed_read(dependant: Dependant) -> bool:
    return any(d.call is route_reads or _runs_routed_read(d) for d in dependant.dependencies)


def _operations(app: FastAPI) -> tuple[set[tuple[str, str]], set[tuple[str, str]]]:
    """(routed reads, writes) of the documented routes, as (path, lowercase method)."""
    reads: set[tuple[str, str]] = set()
    writes: set[tuple[str, str]] = set()
    for route in iter_route_contexts(app.routes):
        dependant = getattr(route, "dependant", None)
        if not isinstance(dependant, Dependant) or not getattr(route, "include_in_schema", False):
            continue
        routed = _runs_routed_read(dependant)
        for method in route.methods or ():
            if routed:
                reads.add((str(route.path_format), method.lower()))
            elif method in WRITE_METHODS:
                writes.add((str(route.path_format), method.lower()))
    return reads, writes


def _document(server: LiveServer) -> dict[str, Any]:
    r = httpx.get(f"{server.url}/openapi.json", timeout=30)
    assert r.status_code == 200
    doc: dict[str, Any] = r.json()
    return doc


def test_every_routed_read_accepts_read_after_and_says_its_source_on_every_answer(server: LiveServer) -> None:
    app = server.server.config.app
    assert isinstance(app, FastAPI)
    reads, _ = _operations(app)
    # the derivation finds the reads docs/operations.md lists
    assert {
        ("/v1/memory/recall_text", "post"),
        ("/v1/tools/memory_search", "post"),
        ("/v1/layers/read", "post"),
    } <= reads
    doc = _document(server)
    for path, path_item in doc["paths"].items():
        for method, operation in path_item.items():
            headers = [p for p in operation.get("parameters", []) if p["in"] == "header" and p["name"] == READ_AFTER]
            sources = {s for s, resp in operation["responses"].items() if READ_SOURCE in resp.get("headers", {})}
            if (path, method) in reads:
                assert len(headers) == 1 and headers[0]["required"] is False, (path, method)
                assert headers[0]["schema"]["pattern"] == "^lsn:[0-9A-Fa-f]{16}$" and headers[0]["description"]
                assert sources == set(operation["responses"]), (path, method)
                assert "400" in operation["responses"], (path, method)  # a malformed position
                source = operation["responses"]["200"]["headers"][READ_SOURCE]
                assert source["schema"]["enum"] == ["replica", "primary"]
            else:
                assert not headers and not sources, (path, method)


def test_every_write_declares_its_position_on_success_only(server: LiveServer) -> None:
    app = server.server.config.app
    assert isinstance(app, FastAPI)
    _, writes = _operations(app)
    assert {("/v1/memory/write", "post"), ("/v1/layers/write", "post"), ("/api/v1/memories", "post")} <= writes
    doc = _document(server)
    for path, path_item in doc["paths"].items():
        for method, operation in path_item.items():
            with_position = {s for s, resp in operation["responses"].items() if POSITION in resp.get("headers", {})}
            if (path, method) in writes:
                successes = {s for s in operation["responses"] if s.startswith("2")}
                assert successes and with_position == successes, (path, method)
                assert "PostgreSQL only" in operation["responses"][min(successes)]["headers"][POSITION]["description"]
            else:
                assert not with_position, (path, method)
