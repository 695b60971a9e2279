"""MEMLANE_MAX_REQUEST_BYTES holds while a body streams: a chunked upload with no credentials is
cut off after the limit (plus one chunk) and answered 413 in the surface's envelope."""

from __future__ import annotations

import json
import select
import socket
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from tests.support.server import LiveServer, ServerFactory
from tests.support.settings import api_keys

LIMIT = 64 * 1024
CHUNK = 16 * 1024
#: what a client tries to upload: 400 times the limit
ATTEMPT = 25 * 1024 * 1024
KEY = "body-limit-key-0123456789abcdef"
#: uvicorn hands the app what one socket read brought in, and stops reading from the socket
#: while its buffer holds more than 64 KiB: the most the app can see past the limit
SERVER_READ_SLACK = 2 * 64 * 1024


@dataclass
class BodyMeter:
    """An ASGI layer outside the whole app: counts the body bytes the app pulled, per path."""

    received: dict[str, int] = field(default_factory=dict)

    def wrap(self, app: ASGIApp) -> ASGIApp:
        async def metered(scope: Scope, receive: Receive, send: Send) -> None:
            if scope["type"] != "http":
                await app(scope, receive, send)
                return
            path = scope["path"]

            async def counting() -> Message:
                message = await receive()
                self.received[path] = self.received.get(path, 0) + len(message.get("body", b""))
                return message

            await app(scope, counting, send)

        return metered


@pytest.fixture(scope="module")
def guarded(live_server_factory: ServerFactory) -> Iterator[tuple[LiveServer, BodyMeter]]:
    meter = BodyMeter()
    with live_server_factory(
        MEMLANE_MAX_REQUEST_BYTES=LIMIT,
        **api_keys({KEY: {"tenant_id": "acme", "agent_id": "a1"}}),
        wrap=meter.wrap,
    ) as server:
        yield server, meter


@dataclass
class Upload:
    status: int
    body: Any
    sent: int


def chunked_upload(url: str, path: str, *, total: int, headers: dict[str, str] | None = None) -> Upload:
    """A real chunked upload over a raw socket: keeps sending chunks until the server answers
    (or ``total`` bytes went out), then reads the answer."""
    host, port = httpx.URL(url).host, httpx.URL(url).port
    assert port is not None
    extra = "".join(f"{k}: {v}\r\n" for k, v in (headers or {}).items())
    head = (
        f"POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
        f"Transfer-Encoding: chunked\r\n{extra}\r\n"
    ).encode()
    piece = b'{"x": "' + b"a" * (CHUNK - 10) + b'"} '
    frame = f"{len(piece):x}\r\n".encode() + piece + b"\r\n"
    answer = b""
    sent = 0
    with socket.create_connection((host, port), timeout=30) as sock:
        sock.sendall(head)
        pending = memoryview(b"")
        while sent < total:
            readable, writable, _ = select.select([sock], [sock], [], 10)
            if readable:
                break
            if writable:
                if not pending:
                    pending = memoryview(frame)
                try:
                    n = sock.send(pending)
                except (BrokenPipeError, ConnectionResetError):
                    break
                pending = pending[n:]
                sent += n
        sock.settimeout(10)
        try:
            while b"\r\n\r\n" not in answer or not _complete(answer):
                data = sock.recv(65536)
                if not data:
                    break
                answer += data
        except (ConnectionResetError, TimeoutError):
            pass
    head_raw, _, payload = answer.partition(b"\r\n\r\n")
    status = int(head_raw.split(b" ", 2)[1])
    return Upload(status, json.loads(payload) if payload else None, sent)


def _complete(answer: bytes) -> bool:
    head, _, payload = answer.partition(b"\r\n\r\n")
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            return len(payload) >= int(line.split(b":", 1)[1])
    return False


@pytest.mark.parametrize(
    ("path", "envelope"),
    [
        ("/v1/memory/write", {"error": "payload_too_large"}),
        ("/v1/memory/recall", {"error": "payload_too_large"}),
        ("/api/v1/memories", None),
        ("/v1/layers/write", {"success": False, "error_type": "payload_too_large"}),
        ("/v1/tools/memory_store", {"success": False, "errorCode": "INVALID_INPUT", "retryable": False}),
    ],
)
def test_a_chunked_upload_without_credentials_is_cut_off_at_the_limit(
    guarded: tuple[LiveServer, BodyMeter], path: str, envelope: dict[str, Any] | None
) -> None:
    server, meter = guarded
    up = chunked_upload(server.url, path, total=ATTEMPT)
    assert up.status == 413, up
    if envelope is None:  # the conversation surface: {"detail": ...}
        assert set(up.body) == {"detail"} and "MEMLANE_MAX_REQUEST_BYTES" in up.body["detail"]
    else:
        assert up.body.items() >= envelope.items() and "MEMLANE_MAX_REQUEST_BYTES" in up.body["message"]
    # the server stopped reading: what reached the app is the limit plus one read, not the upload
    assert LIMIT < meter.received[path] <= LIMIT + SERVER_READ_SLACK
    assert up.sent < ATTEMPT // 4


def test_a_chunked_body_within_the_limit_is_served(guarded: tuple[LiveServer, BodyMeter]) -> None:
    server, _ = guarded
    body = json.dumps({"input_text": "x", "memory_lane": "shared", "nodes": [{"type": "event", "title": "t"}]})

    def chunks() -> Iterator[bytes]:
        data = body.encode()
        for i in range(0, len(data), 7):
            yield data[i : i + 7]

    with httpx.Client(base_url=server.url, timeout=30) as c:
        anonymous = c.post("/v1/memory/write", content=chunks(), headers={"content-type": "application/json"})
        assert anonymous.status_code == 401, "within the limit, credentials decide"
        ok = c.post(
            "/v1/memory/write",
            content=chunks(),
            headers={"content-type": "application/json", "x-api-key": KEY},
        )
        assert ok.status_code == 200, ok.text
        assert ok.json()["nodes"][0]["type"] == "event"


def test_a_declared_length_over_the_limit_is_refused_before_reading(guarded: tuple[LiveServer, BodyMeter]) -> None:
    server, meter = guarded
    with httpx.Client(base_url=server.url, timeout=30) as c:
        r = c.post("/v1/memory/search", content=b"x" * (LIMIT + 1), headers={"content-type": "application/json"})
    assert r.status_code == 413 and r.json()["error"] == "payload_too_large"
    assert str(LIMIT + 1) in r.json()["message"]
    assert "/v1/memory/search" not in meter.received, "the app was never called"
