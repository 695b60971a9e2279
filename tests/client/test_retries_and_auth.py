"""The SDK's retries and credentials against a real server: 429 answers are retried after
the server's ``Retry-After`` with the same ``Idempotency-Key``; credentials decide identity."""

from __future__ import annotations

import json
import socket
import time
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import jwt
import pytest

from memlane.client import (
    AuthenticationError,
    BadRequestError,
    MemlaneClient,
    MemlaneConnectionError,
    PermissionDeniedError,
    RateLimitedError,
    RetryPolicy,
)
from memlane.client._core import Call, retry_after_of
from tests.support.server import LiveServer, ServerFactory

SECRET = "sdk-test-secret-with-enough-bytes-for-hs256"
KEYS = {"k-acme": {"tenant_id": "acme", "agent_id": "agent-7", "user_id": "user-7"}}
MESSAGES = [{"role": "user", "content": "I adopted a dog named Rex"}]


class Recorder:
    """httpx event hooks: every request the SDK sends and every answer it gets."""

    def __init__(self) -> None:
        self.requests: list[httpx.Request] = []
        self.statuses: list[int] = []
        self.retry_after: list[str | None] = []

    def client(self, base_url: str) -> httpx.Client:
        return httpx.Client(
            base_url=base_url,
            timeout=30,
            event_hooks={"request": [self.requests.append], "response": [self._response]},
        )

    def _response(self, response: httpx.Response) -> None:
        self.statuses.append(response.status_code)
        self.retry_after.append(response.headers.get("retry-after"))


@pytest.fixture(scope="module")
def limited(live_server_factory: ServerFactory) -> Iterator[LiveServer]:
    """Writes limited to one per second per tenant, with a burst of one."""
    with live_server_factory(
        TENANT_QUOTA_ENABLED=True,
        TENANT_WRITE_RATE_LIMIT_RPS=1.0,
        TENANT_WRITE_RATE_LIMIT_BURST=1,
    ) as s:
        yield s


def test_a_rate_limited_post_is_retried_after_retry_after_with_the_same_idempotency_key(limited: LiveServer) -> None:
    rec = Recorder()
    tenant = f"q-{uuid.uuid4().hex[:8]}"
    # the caller's own client: the SDK leaves it open, the caller closes it
    with rec.client(limited.url) as http, MemlaneClient(http_client=http, tenant_id=tenant) as client:
        first = client.add_memories(app_id="a", user_id="u", messages=MESSAGES)
        second = client.add_memories(app_id="a", user_id="u", messages=MESSAGES)
    assert second.task_id != first.task_id
    assert 429 in rec.statuses and rec.statuses[-1] == 202
    limited_at = rec.statuses.index(429)
    retry_after = rec.retry_after[limited_at]
    assert retry_after is not None and float(retry_after) >= 1
    keys = [r.headers.get("idempotency-key") for r in rec.requests]
    assert all(keys) and keys[0] != keys[1]
    assert set(keys[1:]) == {keys[1]}, "every retry of the second POST carries its first key"


def test_without_retries_the_429_is_raised_with_its_envelope_and_retry_after(limited: LiveServer) -> None:
    tenant = f"q-{uuid.uuid4().hex[:8]}"
    with MemlaneClient(limited.url, tenant_id=tenant, retry=RetryPolicy(max_retries=0)) as client:
        client.tools.memory_add("first write uses the burst")
        with pytest.raises(RateLimitedError) as raised:
            client.tools.memory_add("second write is limited")
    err = raised.value
    assert err.status_code == 429 and err.retry_after is not None and err.retry_after >= 1
    assert err.envelope["errorCode"] == "RATE_LIMITED" and err.envelope["retryable"] is True


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_an_unreachable_server_is_a_connection_error_after_the_retries() -> None:
    rec = Recorder()
    http = rec.client(f"http://127.0.0.1:{free_port()}")
    with MemlaneClient(http_client=http, retry=RetryPolicy(max_retries=2, backoff_sec=0.01)) as client:
        with pytest.raises(MemlaneConnectionError):
            client.health()
        with pytest.raises(MemlaneConnectionError):
            client.write(input_text="x", nodes=[])
    http.close()
    assert len(rec.requests) == 3 + 1, "the read was tried three times, the unkeyed write once"


def test_retry_decisions() -> None:
    policy = RetryPolicy(max_retries=3, backoff_sec=0.5, max_wait_sec=10)
    read, write = Call("GET", "/x", safe_to_repeat=True), Call("POST", "/x")
    assert policy.retry_status(write, 429, 0) and policy.retry_status(read, 503, 2)
    assert not policy.retry_status(write, 503, 0), "a write without an Idempotency-Key is not repeated"
    assert not policy.retry_status(read, 500, 0) and not policy.retry_status(read, 429, 3)
    assert policy.wait(0, 2.0) == 2.0 and policy.wait(0, 999) == 10 and policy.wait(2, None) == 2.0
    answer = httpx.Response(429, headers={"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"})
    assert retry_after_of(answer) == 0.0
    assert retry_after_of(httpx.Response(429, headers={"retry-after": "3"})) == 3.0


@pytest.fixture(scope="module")
def secured(live_server_factory: ServerFactory) -> Iterator[LiveServer]:
    with live_server_factory(
        MEMORY_AUTH_MODE="api_key_or_jwt",
        MEMORY_API_KEYS_JSON=json.dumps(KEYS),
        MEMORY_JWT_HS256_SECRET=SECRET,
    ) as s:
        yield s


def token(**claims: Any) -> str:
    return jwt.encode({"exp": int(time.time()) + 600, **claims}, SECRET, algorithm="HS256")


def test_an_api_key_acts_for_the_identity_it_carries(secured: LiveServer) -> None:
    with MemlaneClient(secured.url, api_key="k-acme") as client:
        added = client.tools.memory_add("The key's user likes green tea")
    assert added.identity is not None
    assert (added.identity.tenant, added.identity.agent, added.identity.user) == ("acme", "agent-7", "user-7")
    assert added.identity.source == "credentials"


def test_a_jwt_acts_for_its_claims_and_cannot_claim_another_user(secured: LiveServer) -> None:
    with MemlaneClient(secured.url, jwt=token(tenant_id="acme", sub="agent-9", user_id="user-9")) as client:
        found = client.tools.memory_search("green tea", threshold=0.0)
        assert found.identity is not None and found.identity.user == "user-9"
    other = MemlaneClient(secured.url, jwt=token(tenant_id="acme", sub="agent-9"), user_id="user-7")
    with other as client, pytest.raises(PermissionDeniedError) as denied:
        client.tools.memory_search("green tea")
    assert denied.value.code == "UNAUTHORIZED" and "X-User-Id" in denied.value.message


def test_no_credentials_is_an_authentication_error_in_each_surfaces_envelope(secured: LiveServer) -> None:
    with MemlaneClient(secured.url) as client:
        with pytest.raises(AuthenticationError) as conversation:
            client.query_memories(app_id="a", query="x")
        with pytest.raises(AuthenticationError) as graph:
            client.recall_text(query_text="x")
    assert set(conversation.value.envelope) == {"detail"}
    assert graph.value.envelope["error"] == graph.value.code


def test_with_auth_on_a_key_without_a_user_is_told_to_use_credentials_for_one(secured: LiveServer) -> None:
    with MemlaneClient(secured.url, jwt=token(tenant_id="acme", sub="agent-3")) as client:
        with pytest.raises(BadRequestError) as refused:
            client.tools.memory_add("a personal fact")
        assert "credentials (API key or JWT) issued for a user" in refused.value.message
        assert client.tools.memory_add("a project fact", layer="project").success is True
