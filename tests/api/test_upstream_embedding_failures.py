"""recall_text against a real OpenAI-compatible provider on loopback that misbehaves on purpose."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from tests.support.memory_api import new_scope, wait_until_recallable, write
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


@pytest.fixture
def script(provider: tuple[str, ProviderScript]) -> Iterator[ProviderScript]:
    provider[1].mode, provider[1].delay_sec = "ok", 0.0
    yield provider[1]
    provider[1].mode, provider[1].delay_sec = "ok", 0.0


def test_nodes_are_embedded_by_the_provider_and_recalled(server: LiveServer, script: ProviderScript) -> None:
    with httpx.Client(base_url=server.url) as c:
        scope = new_scope()
        body = write(c, scope, [{"type": "event", "title": "provider embedded note"}])
        recalled = wait_until_recallable(c, scope, "provider embedded note", {body["nodes"][0]["id"]})
        assert recalled["query"]["embedding_provider"] == "openai"
        assert "provider embedded note" in script.inputs


@pytest.mark.parametrize(
    "mode,status,code,retry",
    [
        ("rate_limited", 429, "upstream_embedding_rate_limited", "7"),
        ("unavailable", 503, "upstream_embedding_unavailable", "7"),
        ("malformed", 502, "upstream_embedding_bad_response", None),
    ],
)
def test_provider_failures_map_to_the_contract_codes(
    server: LiveServer, script: ProviderScript, mode: str, status: int, code: str, retry: str | None
) -> None:
    script.mode = mode
    with httpx.Client(base_url=server.url) as c:
        r = c.post("/v1/memory/recall_text", json={"query_text": "anything"})
    assert r.status_code == status
    assert r.json()["error"] == code
    assert r.headers.get("retry-after") == retry


def test_a_provider_timeout_is_a_503_with_retry_after_not_a_500(server: LiveServer, script: ProviderScript) -> None:
    script.delay_sec = 3.0
    with httpx.Client(base_url=server.url, timeout=30) as c:
        r = c.post("/v1/memory/recall_text", json={"query_text": "slow"})
    assert r.status_code == 503
    assert r.json()["error"] == "upstream_embedding_unavailable"
    assert int(r.headers["retry-after"]) >= 1


def test_writes_are_accepted_while_the_provider_is_down_and_embedded_when_it_recovers(
    server: LiveServer, script: ProviderScript
) -> None:
    with httpx.Client(base_url=server.url) as c:
        script.mode = "unavailable"
        scope = new_scope()
        body = write(c, scope, [{"type": "event", "title": "written during an outage"}])
        assert body["embedding_backfill"]["pending"] == 1
        script.mode = "ok"
        wait_until_recallable(c, scope, "written during an outage", {body["nodes"][0]["id"]}, timeout=30)
