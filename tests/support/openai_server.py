"""A real OpenAI-compatible HTTP server on loopback, scriptable per test.

It answers ``POST /v1/embeddings`` with deterministic word-hashing vectors (so similar texts
are near), and can be switched to misbehave: rate-limit, be unavailable, answer garbage, or be
slow. Every call is counted. This is a stand-in for the *provider*, never for memlane's code.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from memlane.embed.hashing import HashingEmbedder
from tests.support.loopback import serve


@dataclass
class ProviderScript:
    mode: str = "ok"  # ok | rate_limited | unavailable | malformed
    delay_sec: float = 0.0
    retry_after: str = "7"
    calls: int = 0
    inputs: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


def _handler(script: ProviderScript, embedder: HashingEmbedder) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _reply(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
            raw = body if isinstance(body, bytes) else json.dumps(body).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(raw)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(raw)

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            payload = json.loads(self.rfile.read(length) or b"{}")
            with script.lock:
                script.calls += 1
                mode, delay = script.mode, script.delay_sec
            if delay:
                time.sleep(delay)
            if self.path.rstrip("/") != "/v1/embeddings":
                self._reply(404, {"error": {"message": "not found"}})
                return
            if mode == "rate_limited":
                self._reply(429, {"error": {"message": "slow down"}}, {"retry-after": script.retry_after})
                return
            if mode == "unavailable":
                self._reply(503, {"error": {"message": "overloaded"}}, {"retry-after": script.retry_after})
                return
            if mode == "malformed":
                self._reply(200, b'{"data": [ {"embedding": "oops"')
                return
            texts = payload.get("input", [])
            texts = [texts] if isinstance(texts, str) else texts
            with script.lock:
                script.inputs.extend(texts)
            vectors = embedder.embed_sync(texts)
            data = [
                {"object": "embedding", "index": i, "embedding": [float(x) for x in v]} for i, v in enumerate(vectors)
            ]
            self._reply(200, {"object": "list", "data": data, "model": payload.get("model")})

    return Handler


@contextlib.contextmanager
def openai_server(dimension: int = 384) -> Iterator[tuple[str, ProviderScript]]:
    """Yields ``(base_url, script)``; base_url ends in ``/v1`` like OpenAI's."""
    script = ProviderScript()
    with serve(_handler(script, HashingEmbedder(dimension))) as url:
        yield f"{url}/v1", script
