"""Memories are embedded before they are stored: when the embedding provider fails, the write
fails with ``embedding_failure`` (keeping the provider's status) and nothing is stored."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from tests.layers.helpers import as_role, assert_error, post, tenant
from tests.support.openai_server import ProviderScript, openai_server
from tests.support.server import LiveServer, ServerFactory
from tests.support.settings import openai_embedder


@pytest.fixture(scope="module")
def provider() -> Iterator[tuple[str, ProviderScript]]:
    with openai_server(384) as p:
        yield p


@pytest.fixture(scope="module")
def server(provider: tuple[str, ProviderScript], live_server_factory: ServerFactory) -> Iterator[LiveServer]:
    with live_server_factory(**openai_embedder(provider[0])) as s:
        yield s


@pytest.mark.parametrize(("mode", "status"), [("unavailable", 503), ("rate_limited", 429), ("malformed", 502)])
def test_provider_failure_is_an_embedding_failure_and_stores_nothing(
    server: LiveServer, provider: tuple[str, ProviderScript], mode: str, status: int
) -> None:
    script = provider[1]
    t = tenant()
    manager = as_role(t, "manager")
    body = {"layer": "project", "title": "Stack", "content": f"The stack uses Rust ({mode})"}
    with httpx.Client(base_url=server.url, timeout=30) as c:
        script.mode = mode
        try:
            r = post(c, "write", manager, body)
            assert_error(r, status, "embedding_failure")
            r = post(c, "search", manager, {"layer": "project", "query": "stack"})
            assert_error(r, status, "embedding_failure")
            r = c.post("/v1/tools/memory_add", json={"content": "x", "layer": "company"}, headers={"X-Tenant-Id": t})
            assert r.status_code == status
            assert r.json()["retryable"] is True
        finally:
            script.mode = "ok"
        r = post(c, "search", manager, {"layer": "project", "query": "stack uses Rust"})
        assert r.status_code == 200
        assert r.json()["results"] == []
