"""The SDK keeps its credentials to its ``base_url`` and survives any ``Retry-After``.

Real HTTP servers on loopback: one stands where the SDK points and answers a redirect to a
second one (another origin: another port), which records every request that reaches it.
Callers often hand the SDK an httpx client of their own, with ``follow_redirects=True``;
httpx would then carry ``X-Api-Key`` to the other origin (it strips only ``Authorization``).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

import httpx
import pytest

from memlane.client import AsyncMemlaneClient, MemlaneClient, MemlaneRedirectError, RetryPolicy
from memlane.client._core import retry_after_of
from tests.support.loopback import serve

API_KEY = "sdk-key-that-must-stay-home"
JWT = "header.payload.signature-that-must-stay-home"
HEALTHY = b'{"status": "ok", "sdk_initialized": true, "service": "memlane"}'


@dataclass
class Seen:
    """What one server received: (method, path, headers) per request."""

    requests: list[tuple[str, str, dict[str, str]]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, handler: BaseHTTPRequestHandler) -> None:
        with self.lock:
            self.requests.append((handler.command, handler.path, {k.lower(): v for k, v in handler.headers.items()}))

    def carried_credentials(self) -> bool:
        return any("x-api-key" in h or "authorization" in h for _, _, h in self.requests)


def _recording(seen: Seen, answer: Any) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def _any(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            if length:
                self.rfile.read(length)
            seen.add(self)
            answer(self)

        do_GET = do_POST = do_DELETE = do_PATCH = _any

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


def _json(handler: BaseHTTPRequestHandler, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
    handler.send_response(status)
    handler.send_header("content-type", "application/json")
    handler.send_header("content-length", str(len(body)))
    for name, value in (headers or {}).items():
        handler.send_header(name, value)
    handler.end_headers()
    handler.wfile.write(body)


@dataclass
class Origins:
    home: str
    elsewhere: str
    at_home: Seen
    at_elsewhere: Seen


@pytest.fixture
def origins() -> Iterator[Origins]:
    at_home, at_elsewhere = Seen(), Seen()
    target: dict[str, str] = {}

    def redirect(h: BaseHTTPRequestHandler) -> None:
        h.send_response(307)
        h.send_header("location", target["url"] + h.path)
        h.send_header("content-length", "0")
        h.end_headers()

    def healthy(h: BaseHTTPRequestHandler) -> None:
        _json(h, 200, HEALTHY)

    with serve(_recording(at_elsewhere, healthy)) as elsewhere, serve(_recording(at_home, redirect)) as home:
        target["url"] = elsewhere
        yield Origins(home, elsewhere, at_home, at_elsewhere)


def test_a_redirect_to_another_origin_is_not_followed_even_by_a_client_that_follows_redirects(
    origins: Origins,
) -> None:
    http = httpx.Client(base_url=origins.home, follow_redirects=True, timeout=10)
    with MemlaneClient(http_client=http, api_key=API_KEY, jwt=JWT, tenant_id="acme") as client:
        with pytest.raises(MemlaneRedirectError) as raised:
            client.health()
        with pytest.raises(MemlaneRedirectError):
            client.tools.memory_add("a memory for the other origin")
    assert raised.value.status_code == 307 and raised.value.location == origins.elsewhere + "/health"
    assert origins.at_home.carried_credentials(), "the SDK's own base_url gets the credentials"
    assert origins.at_elsewhere.requests == [], "nothing reached the other origin"
    # the caller's client itself still follows redirects for the caller's own requests, and
    # carries none of the SDK's credentials there
    assert http.get("/health").status_code == 200
    assert origins.at_elsewhere.requests and not origins.at_elsewhere.carried_credentials()
    http.close()


async def test_the_async_client_does_not_follow_a_redirect_either(origins: Origins) -> None:
    http = httpx.AsyncClient(base_url=origins.home, follow_redirects=True, timeout=10)
    async with AsyncMemlaneClient(http_client=http, api_key=API_KEY) as client:
        with pytest.raises(MemlaneRedirectError):
            await client.recall_text(query_text="where does this go?")
    await http.aclose()
    assert origins.at_home.carried_credentials() and origins.at_elsewhere.requests == []


def test_a_client_the_sdk_creates_does_not_follow_redirects(origins: Origins) -> None:
    with MemlaneClient(origins.home, api_key=API_KEY) as client, pytest.raises(MemlaneRedirectError):
        client.get_task("t-1")
    assert origins.at_elsewhere.requests == []


@pytest.mark.parametrize("value", ["nan", "NaN", "inf", "-inf", "-5", "1e999", "soon", "Mon, 99 Foo 2024 99:99:99 GMT"])
def test_an_unusable_retry_after_falls_back_to_the_backoff(value: str) -> None:
    assert retry_after_of(httpx.Response(429, headers={"retry-after": value})) is None
    policy = RetryPolicy(backoff_sec=0.25, max_wait_sec=5)
    assert policy.wait(1, retry_after_of(httpx.Response(429, headers={"retry-after": value}))) == 0.5
    assert policy.wait(1, float(value) if value in ("nan", "inf", "-5") else None) == 0.5


def test_a_usable_retry_after_is_honoured_within_the_bound() -> None:
    policy = RetryPolicy(max_wait_sec=5)
    assert retry_after_of(httpx.Response(429, headers={"retry-after": " 2 "})) == 2.0
    huge = retry_after_of(httpx.Response(429, headers={"retry-after": "1e300"}))
    assert huge == 1e300 and policy.wait(0, huge) == 5
    past = retry_after_of(httpx.Response(429, headers={"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}))
    assert past == 0.0
    future = retry_after_of(httpx.Response(429, headers={"retry-after": "Fri, 01 Jan 9999 00:00:00 GMT"}))
    assert future is not None and policy.wait(0, future) == 5


def test_a_429_with_retry_after_nan_is_retried_after_the_backoff_and_succeeds() -> None:
    seen = Seen()

    def limited_once(h: BaseHTTPRequestHandler) -> None:
        if len(seen.requests) == 1:
            _json(h, 429, b'{"error": "rate_limited", "message": "slow down"}', {"retry-after": "nan"})
        else:
            _json(h, 200, HEALTHY)

    with (
        serve(_recording(seen, limited_once)) as url,
        MemlaneClient(url, retry=RetryPolicy(max_retries=2, backoff_sec=0.01)) as client,
    ):
        assert client.health().status == "ok"
    assert len(seen.requests) == 2
