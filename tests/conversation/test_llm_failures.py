"""Provider failures map to clear upstream errors, never to a 500: a slow provider is a 504,
a refusal a 502, an outage a 503, rate limiting a 429 with retry-after."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from tests.conversation.helpers import msg
from tests.support.llm_server import ChatScript, Reply, chat_server
from tests.support.server import ServerFactory

BODY = {"app_id": "a", "user_id": "u", "messages": [msg("I need help with my invoices from March.")]}
#: a one-letter key: its text is inside nearly every word
SHORT_KEY = "x"


@pytest.fixture(scope="module")
def impatient(live_server_factory: ServerFactory) -> Iterator[tuple[httpx.Client, ChatScript]]:
    with (
        chat_server() as (base_url, script),
        live_server_factory(
            MEMLANE_LLM_BASE_URL=base_url,
            MEMLANE_LLM_TIMEOUT_SEC=0.5,
            MEMLANE_LLM_API_KEY=SHORT_KEY,
            MEMLANE_LLM_MODEL="text-embedding-3-small-chat",
        ) as server,
        httpx.Client(base_url=server.url, timeout=30) as client,
    ):
        yield client, script


@pytest.fixture
def llm(impatient: tuple[httpx.Client, ChatScript]) -> Iterator[tuple[httpx.Client, ChatScript]]:
    impatient[1].reset()
    yield impatient
    impatient[1].reset()


def test_a_provider_slower_than_the_timeout_is_a_504(llm: tuple[httpx.Client, ChatScript]) -> None:
    api, script = llm
    script.push("summarizer", Reply(delay_sec=2.0))
    r = api.post("/api/v1/agent/summaries", json=BODY)
    assert r.status_code == 504 and "did not answer within 0.5s" in r.json()["detail"]


@pytest.mark.parametrize(
    ("status", "expected", "needle"),
    [(401, 502, "HTTP 401"), (503, 503, "HTTP 503"), (429, 429, "rate limiting")],
)
def test_provider_errors_keep_their_meaning(
    llm: tuple[httpx.Client, ChatScript], status: int, expected: int, needle: str
) -> None:
    api, script = llm
    script.push("summarizer", Reply(status=status))
    r = api.post("/api/v1/agent/summaries", json=BODY)
    assert r.status_code == expected and needle in r.json()["detail"]


def test_an_echoed_key_is_redacted_as_a_whole_token_only(llm: tuple[httpx.Client, ChatScript]) -> None:
    api, script = llm
    script.push("summarizer", Reply(status=400, echo_auth=True))
    r = api.post("/api/v1/agent/summaries", json=BODY)
    assert r.status_code == 502
    detail = r.json()["detail"]
    assert "auth was Bearer [redacted]" in detail
    assert "model text-embedding-3-small-chat" in detail, "words that contain the key's text stay whole"
