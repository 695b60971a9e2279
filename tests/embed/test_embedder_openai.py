"""OpenAIEmbedder against a real loopback HTTP server that misbehaves on request.

The model name selects the behaviour, so each test is one request over a real socket and the
error mapping is checked end to end, including httpx's own timeout and disconnect handling.
"""

from __future__ import annotations

import email.utils
import hashlib
import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np
import pytest

from memlane.config import Settings
from memlane.domain.errors import (
    UpstreamEmbeddingBadResponse,
    UpstreamEmbeddingRateLimited,
    UpstreamEmbeddingUnavailable,
    UpstreamError,
)
from memlane.domain.redaction import redact
from memlane.embed.base import Embedder
from memlane.embed.factory import build_embedder
from memlane.embed.openai_http import OpenAIEmbedder, parse_retry_after

DIM = 8
API_KEY = "sk-test-very-secret-key-123"
HANG_SECONDS = 5.0


def raw_vector(text: str, dim: int = DIM) -> list[float]:
    """Deterministic per text and deliberately not unit length, so normalisation is tested."""
    digest = hashlib.sha256(text.encode()).digest()
    return [(digest[i] - 127.5) / 10.0 for i in range(dim)]


def expected_vector(text: str) -> np.ndarray[Any, Any]:
    v = np.asarray(raw_vector(text), dtype=np.float64)
    return v / np.linalg.norm(v)


@dataclass
class Recorded:
    requests: list[dict[str, Any]] = field(default_factory=list)
    release: threading.Event = field(default_factory=threading.Event)


def make_handler(recorded: Recorded) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _send(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(body)

        def _json(self, status: int, obj: Any, headers: dict[str, str] | None = None) -> None:
            self._send(status, json.dumps(obj).encode(), headers)

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            payload = json.loads(self.rfile.read(length))
            recorded.requests.append({"path": self.path, "headers": dict(self.headers.items()), "json": payload})
            model: str = payload["model"]
            texts: list[str] = payload["input"]
            # reversed on purpose: clients must order by "index", not by position
            good: list[dict[str, Any]] = [
                {"object": "embedding", "index": i, "embedding": raw_vector(t)}
                for i, t in reversed(list(enumerate(texts)))
            ]

            if model == "good":
                self._json(200, {"object": "list", "data": good, "model": model})
            elif model == "rate-limited":
                self._json(429, {"error": {"message": "slow down"}}, {"Retry-After": "7"})
            elif model == "rate-limited-date":
                when = email.utils.formatdate(time.time() + 30, usegmt=True)
                self._json(429, {"error": {"message": "slow down"}}, {"Retry-After": when})
            elif model == "rate-limited-no-header":
                self._json(429, {"error": {"message": "slow down"}})
            elif model == "unavailable":
                self._json(503, {"error": {"message": "overloaded"}})
            elif model == "unavailable-retry":
                self._json(503, {"error": {"message": "overloaded"}}, {"Retry-After": "11"})
            elif model == "hang":
                recorded.release.wait(HANG_SECONDS)
                self._json(200, {"data": good})
            elif model == "drop":
                # close the socket without a single byte of response
                self.close_connection = True
                self.connection.shutdown(2)
            elif model == "malformed":
                self._send(200, b'{"data": [ {"embedding": [1, 2,')
            elif model == "no-data":
                self._json(200, {"object": "list"})
            elif model == "wrong-dimension":
                for item in good:
                    item["embedding"] = item["embedding"] + [0.5]
                self._json(200, {"data": good})
            elif model == "wrong-count":
                self._json(200, {"data": good[1:]})
            elif model == "non-numeric":
                good[0]["embedding"][0] = "0.5"
                self._json(200, {"data": good})
            elif model == "nan":
                good[0]["embedding"][0] = float("nan")
                self._json(200, {"data": good})  # json.dumps writes the NaN literal
            elif model == "duplicate-index":
                for item in good:
                    item["index"] = 0
                self._json(200, {"data": good})
            elif model == "bad-request":
                # some gateways echo the request back in their errors; the key must not leak
                auth = self.headers.get("Authorization", "")
                self._json(400, {"error": {"message": f"invalid input (auth was {auth})"}})
            else:
                self._json(404, {"error": {"message": f"model {model} not found"}})

    return Handler


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[str, Recorded]]:
    recorded = Recorded()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(recorded))
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    host, port = httpd.server_address[:2]
    try:
        yield f"http://{host!s}:{port}/v1", recorded
    finally:
        recorded.release.set()
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


@pytest.fixture
def recorded(server: tuple[str, Recorded]) -> Recorded:
    server[1].requests.clear()
    return server[1]


def make(server: tuple[str, Recorded], model: str, **kwargs: Any) -> OpenAIEmbedder:
    options: dict[str, Any] = {"api_key": API_KEY, "timeout_sec": 5.0, "dimension": DIM}
    options.update(kwargs)
    return OpenAIEmbedder(base_url=server[0], model=model, **options)


async def fail(server: tuple[str, Recorded], model: str, **kwargs: Any) -> UpstreamError:
    embedder = make(server, model, **kwargs)
    try:
        with pytest.raises(UpstreamError) as info:
            await embedder.embed(["alpha", "beta"])
    finally:
        await embedder.aclose()
    assert API_KEY not in str(info.value)
    assert API_KEY not in info.value.message
    return info.value


async def test_successful_call_returns_normalised_vectors_in_input_order(
    server: tuple[str, Recorded], recorded: Recorded
) -> None:
    texts = ["first text", "second text", "third text"]
    embedder = make(server, "good")
    try:
        vectors = await embedder.embed(texts)
    finally:
        await embedder.aclose()
    assert vectors.shape == (3, DIM)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-6)
    for row, text in enumerate(texts):
        np.testing.assert_allclose(vectors[row], expected_vector(text), atol=1e-6)
    assert isinstance(embedder, Embedder)
    assert (embedder.model_id, embedder.dimension, embedder.provider) == ("good", DIM, "openai")


async def test_sends_bearer_key_model_and_inputs_to_embeddings_path(
    server: tuple[str, Recorded], recorded: Recorded
) -> None:
    embedder = make(server, "good")
    try:
        await embedder.embed(["hello"])
    finally:
        await embedder.aclose()
    (request,) = recorded.requests
    assert request["path"] == "/v1/embeddings"
    headers = {k.lower(): v for k, v in request["headers"].items()}
    assert headers["authorization"] == f"Bearer {API_KEY}"
    assert request["json"] == {"model": "good", "input": ["hello"]}


async def test_no_authorization_header_without_a_key(server: tuple[str, Recorded], recorded: Recorded) -> None:
    embedder = make(server, "good", api_key=None)
    try:
        await embedder.embed(["hello"])
    finally:
        await embedder.aclose()
    headers = {k.lower() for k in recorded.requests[0]["headers"]}
    assert "authorization" not in headers


async def test_dimensions_is_sent_only_when_asked(server: tuple[str, Recorded], recorded: Recorded) -> None:
    embedder = make(server, "good", send_dimensions=True)
    try:
        await embedder.embed(["hello"])
    finally:
        await embedder.aclose()
    assert recorded.requests[0]["json"]["dimensions"] == DIM


async def test_large_inputs_are_split_into_batches_and_reassembled_in_order(
    server: tuple[str, Recorded], recorded: Recorded
) -> None:
    texts = [f"text number {i}" for i in range(7)]
    embedder = make(server, "good", batch_size=3)
    try:
        vectors = await embedder.embed(texts)
    finally:
        await embedder.aclose()
    assert [len(r["json"]["input"]) for r in recorded.requests] == [3, 3, 1]
    for row, text in enumerate(texts):
        np.testing.assert_allclose(vectors[row], expected_vector(text), atol=1e-6)


async def test_empty_input_makes_no_request(server: tuple[str, Recorded], recorded: Recorded) -> None:
    embedder = make(server, "good")
    try:
        vectors = await embedder.embed([])
    finally:
        await embedder.aclose()
    assert vectors.shape == (0, DIM)
    assert recorded.requests == []


async def test_rate_limited_upstream_maps_to_429_with_retry_after(server: tuple[str, Recorded]) -> None:
    error = await fail(server, "rate-limited")
    assert isinstance(error, UpstreamEmbeddingRateLimited)
    assert (error.status, error.code) == (429, "upstream_embedding_rate_limited")
    assert error.retry_after == 7.0


async def test_rate_limit_retry_after_as_http_date_is_converted_to_seconds(
    server: tuple[str, Recorded],
) -> None:
    error = await fail(server, "rate-limited-date")
    assert isinstance(error, UpstreamEmbeddingRateLimited)
    assert error.retry_after is not None
    assert 25.0 <= error.retry_after <= 31.0


async def test_rate_limit_without_retry_after_defaults_to_one_second(server: tuple[str, Recorded]) -> None:
    error = await fail(server, "rate-limited-no-header")
    assert isinstance(error, UpstreamEmbeddingRateLimited)
    assert error.retry_after == 1.0


async def test_upstream_503_maps_to_unavailable_with_default_retry_after(
    server: tuple[str, Recorded],
) -> None:
    error = await fail(server, "unavailable")
    assert isinstance(error, UpstreamEmbeddingUnavailable)
    assert (error.status, error.code) == (503, "upstream_embedding_unavailable")
    assert error.retry_after == 2.0
    assert "503" in error.message


async def test_upstream_503_passes_on_its_retry_after(server: tuple[str, Recorded]) -> None:
    error = await fail(server, "unavailable-retry")
    assert isinstance(error, UpstreamEmbeddingUnavailable)
    assert error.retry_after == 11.0


async def test_hanging_upstream_times_out_as_unavailable(server: tuple[str, Recorded]) -> None:
    started = time.monotonic()
    error = await fail(server, "hang", timeout_sec=0.3)
    elapsed = time.monotonic() - started
    assert isinstance(error, UpstreamEmbeddingUnavailable)
    assert error.retry_after == 2.0
    assert "0.3s" in error.message
    assert elapsed < 2.0


async def test_dropped_connection_maps_to_unavailable(server: tuple[str, Recorded]) -> None:
    error = await fail(server, "drop")
    assert isinstance(error, UpstreamEmbeddingUnavailable)
    assert error.retry_after == 2.0


async def test_unreachable_upstream_maps_to_unavailable() -> None:
    # a port that was just free: nothing listens there, so the connect is refused
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    embedder = OpenAIEmbedder(
        base_url=f"http://127.0.0.1:{port}/v1", model="m", dimension=DIM, api_key=API_KEY, timeout_sec=1.0
    )
    try:
        with pytest.raises(UpstreamEmbeddingUnavailable) as info:
            await embedder.embed(["x"])
    finally:
        await embedder.aclose()
    assert info.value.retry_after == 2.0
    assert "could not be reached" in info.value.message


@pytest.mark.parametrize(
    ("model", "fragment"),
    [
        ("malformed", "not JSON"),
        ("no-data", "'data'"),
        ("wrong-dimension", "9 dimensions"),
        ("wrong-count", "expected 2 embeddings, got 1"),
        ("non-numeric", "non-numeric"),
        ("nan", "NaN"),
        ("duplicate-index", "twice"),
        ("bad-request", "HTTP 400"),
    ],
)
async def test_unusable_upstream_response_maps_to_bad_response(
    server: tuple[str, Recorded], model: str, fragment: str
) -> None:
    error = await fail(server, model)
    assert isinstance(error, UpstreamEmbeddingBadResponse)
    assert (error.status, error.code) == (502, "upstream_embedding_bad_response")
    assert fragment in error.message


async def test_upstream_error_echoing_the_key_is_redacted(server: tuple[str, Recorded]) -> None:
    error = await fail(server, "bad-request")
    assert "Bearer [redacted]" in error.message
    assert API_KEY not in repr(make(server, "good"))


async def test_a_short_key_is_redacted_as_a_whole_token_only(server: tuple[str, Recorded]) -> None:
    error = await fail(server, "bad-request", api_key="e")
    assert "auth was Bearer [redacted]" in error.message
    assert "(model 'bad-request')" in error.message and "[redacted]" not in error.message.split("auth was")[0]


@pytest.mark.parametrize(
    ("text", "secret", "expected"),
    [
        ("model text-embedding-3-small", "x", "model text-embedding-3-small"),
        ("Bearer x", "x", "Bearer [redacted]"),
        ('{"key": "sk-1"}', "sk-1", '{"key": "[redacted]"}'),
        ("?key=sk-1&b=2", "sk-1", "?key=[redacted]&b=2"),
        ("auth sk-abc-123.", "sk-abc-123", "auth [redacted]."),
        ("auth sk-abc-1234", "sk-abc-123", "auth sk-abc-1234"),
        ("twice: k9 and k9", "k9", "twice: [redacted] and [redacted]"),
        ("nothing here", None, "nothing here"),
    ],
)
def test_redaction_replaces_whole_tokens(text: str, secret: str | None, expected: str) -> None:
    assert redact(text, secret) == expected


def test_retry_after_parsing_falls_back_on_garbage_and_clamps_past_dates() -> None:
    assert parse_retry_after(None, 1.0) == 1.0
    assert parse_retry_after("soon", 1.0) == 1.0
    assert parse_retry_after("1.5", 1.0) == 1.5
    assert parse_retry_after("-3", 1.0) == 0.0
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT", 1.0) == 0.0


async def test_factory_builds_openai_embedder_from_settings(server: tuple[str, Recorded]) -> None:
    settings = Settings(
        MEMLANE_EMBEDDER="openai",
        MEMLANE_EMBEDDING_BASE_URL=server[0],
        MEMLANE_EMBEDDING_MODEL="good",
        MEMLANE_EMBEDDING_DIMENSION=DIM,
        MEMLANE_EMBEDDING_API_KEY=API_KEY,
    )
    embedder = build_embedder(settings)
    try:
        assert isinstance(embedder, OpenAIEmbedder)
        vectors = await embedder.embed(["a"])
        assert vectors.shape == (1, DIM)
    finally:
        await embedder.aclose()


def test_factory_requires_base_url_for_openai() -> None:
    with pytest.raises(ValueError, match="MEMLANE_EMBEDDING_BASE_URL"):
        build_embedder(Settings(MEMLANE_EMBEDDER="openai", MEMLANE_EMBEDDING_BASE_URL=None))
