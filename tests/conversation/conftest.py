"""Real servers for the conversation surface: memlane over HTTP (offline extractor, or the
LLM pipeline against a scripted OpenAI-compatible chat server), both on loopback."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from tests.support.llm_server import ChatScript, chat_server
from tests.support.server import LiveServer, ServerFactory
from tests.support.settings import RECEIVER_HOSTS


@pytest.fixture(scope="package")
def offline_server(live_server_factory: ServerFactory) -> Iterator[LiveServer]:
    """No LLM configured: ingestion uses the offline extractor. Webhook receivers run on
    127.0.0.1, which only MEMLANE_WEBHOOK_ALLOWED_HOSTS opens to deliveries."""
    with live_server_factory(MEMLANE_WEBHOOK_ALLOWED_HOSTS=RECEIVER_HOSTS) as server:
        yield server


@pytest.fixture
def api(offline_server: LiveServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=offline_server.url, timeout=30) as c:
        yield c


@pytest.fixture(scope="package")
def local_model_server(live_server_factory: ServerFactory) -> Iterator[LiveServer]:
    """The local embedding model and default settings: the closing rules' cosines (closing by
    succession, the topic test by meaning) are fitted to its vectors, so their tests need it.
    One server for the package; each test writes into an app of its own."""
    with live_server_factory(MEMLANE_EMBEDDER="local") as server:
        yield server


@pytest.fixture
def local_api(local_model_server: LiveServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=local_model_server.url, timeout=60) as c:
        yield c


@pytest.fixture(scope="package")
def llm_stack(live_server_factory: ServerFactory) -> Iterator[tuple[LiveServer, ChatScript]]:
    """memlane with MEMLANE_LLM_BASE_URL pointing at the scripted chat server."""
    with (
        chat_server() as (base_url, script),
        live_server_factory(
            MEMLANE_LLM_BASE_URL=base_url,
            MEMLANE_LLM_API_KEY="test-key",
            MEMLANE_LLM_MODEL="scripted-model",
            MEMLANE_LLM_MAX_CONCURRENCY=1,
            MEMLANE_LLM_RATE_LIMIT_RPS=1000,
            MEMLANE_LLM_RATE_LIMIT_BURST=1000,
            MEMLANE_LLM_TIMEOUT_SEC=10,
            MEMLANE_WEBHOOK_ALLOWED_HOSTS=RECEIVER_HOSTS,
        ) as server,
    ):
        yield server, script


@pytest.fixture
def llm_api(llm_stack: tuple[LiveServer, ChatScript]) -> Iterator[tuple[httpx.Client, ChatScript]]:
    server, script = llm_stack
    script.reset()
    with httpx.Client(base_url=server.url, timeout=30) as c:
        yield c, script
    script.reset()
