"""The outermost layer of every request: the body-size limit, the ``server-timing`` header
and the request metrics (count and latency per route template and status, memlane/metrics.py).

Written as plain ASGI rather than with ``@app.middleware("http")``: Starlette's
``BaseHTTPMiddleware`` runs each request through an extra task and memory streams, which
showed up as a fixed cost on every recall. The header is added to the response's start message,
where the request's latency is also observed: the router has set ``scope["route"]`` by then.

Headers a route leaves in ``scope[EXTRA_HEADERS]`` are added there too: they reach error
responses, which the exception handlers build without the route's response object.

The body limit (``MEMLANE_MAX_REQUEST_BYTES``) holds for every body, however it is framed, and
before routing, authentication or parsing: an oversized body is a 413 in the surface's
envelope whoever sends it, and no request makes the server hold more than the limit plus one
chunk.

* A declared ``Content-Length`` over the limit is answered before anything is read; one within
  it is passed on as it streams (the HTTP server never delivers more than the declared length).
* A chunked body declares no length, so it is read here first, counting, and the reading stops
  as soon as the count passes the limit. A body within the limit is handed to the app whole,
  which costs nothing extra: every route parses its whole body anyway.
"""

from __future__ import annotations

import time
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from memlane.api.common.errors import render
from memlane.api.common.read_routing import EXTRA_HEADERS
from memlane.metrics import REQUEST_SECONDS, REQUESTS

#: the route label of requests no route matched (404s, and bodies refused before routing)
UNMATCHED = "unmatched"


class EdgeMiddleware:
    def __init__(self, app: ASGIApp, *, max_request_bytes: int):
        self.app = app
        self.max_request_bytes = max_request_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.max_request_bytes
        length = _header(scope, b"content-length")
        if length is not None and length.isdigit() and int(length) > limit:
            await self._too_large(scope, receive, send, f"request body is {length} bytes")
            return
        if length is None and "chunked" in (_header(scope, b"transfer-encoding") or "").lower():
            body = await _read_bounded(receive, limit)
            if body is None:
                await self._too_large(scope, receive, send, f"request body is larger than {limit} bytes")
                return
            receive = _replay(body, receive)
        started = time.perf_counter()
        root_path = scope.get("root_path", "")

        async def send_timed(message: Message) -> None:
            if message["type"] == "http.response.start":
                # server-side time, so benchmarks can separate server latency from the client's
                took = time.perf_counter() - started
                _observe(scope["method"], route_template(scope, root_path), message["status"], took)
                headers: list[Any] = list(message.get("headers", []))
                headers.append((b"server-timing", f"app;dur={took * 1000:.3f}".encode()))
                headers += [(k.encode(), v.encode()) for k, v in scope.get(EXTRA_HEADERS, {}).items()]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_timed)

    async def _too_large(self, scope: Scope, receive: Receive, send: Send, what: str) -> None:
        message = f"{what}; the limit is {self.max_request_bytes} (MEMLANE_MAX_REQUEST_BYTES)"
        await render(scope.get("path", ""), 413, "payload_too_large", message)(scope, receive, send)
        _observe(scope["method"], UNMATCHED, 413, 0.0)


async def _read_bounded(receive: Receive, limit: int) -> bytes | None:
    """The whole body, or None as soon as it passes ``limit`` (the rest is never read)."""
    body = bytearray()
    while True:
        message = await receive()
        if message["type"] != "http.request":  # the client went away
            return bytes(body)
        body += message.get("body", b"")
        if len(body) > limit:
            return None
        if not message.get("more_body", False):
            return bytes(body)


def _replay(body: bytes, receive: Receive) -> Receive:
    """A ``receive`` that gives the app the body read already, then the server's own."""
    pending: list[Message] = [{"type": "http.request", "body": body, "more_body": False}]

    async def replayed() -> Message:
        if pending:
            return pending.pop()
        return await receive()

    return replayed


def route_template(scope: Scope, root_path: str) -> str:
    """The matched route's path template (``/v1/memory/nodes/{node_id}``), with the prefix of
    any mount it sits under; never the raw path, which would make a label per id."""
    route = scope.get("route")
    path = getattr(route, "path", None)
    if not isinstance(path, str):
        return UNMATCHED
    mount = str(scope.get("root_path", ""))[len(root_path) :]
    return mount + path or "/"


def _observe(method: str, route: str, status: int, seconds: float) -> None:
    labels = (method, route, str(status))
    REQUESTS.labels(*labels).inc()
    REQUEST_SECONDS.labels(*labels).observe(seconds)


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key.lower() == name:
            return str(value.decode("latin-1"))
    return None
