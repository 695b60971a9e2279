"""``/metrics`` of a ``memlane worker`` process (``--metrics-port``, MEMLANE_WORKER_METRICS_PORT).

Counters are per process (memlane/metrics.py): the webhook deliveries, LLM calls and job runs
of a separate worker happen in that worker, so the API's ``/metrics`` cannot show them. The
worker answers them itself, on a port of its own, in the same Prometheus text format and to
the same admin channel as the API's ``/metrics``: ``X-Admin-Token`` matching ``ADMIN_TOKEN``;
with no token set, auth off and outside production, a loopback request that no browser sent.
The store's figures (queue depth, embedding backlog) are left to the API's ``/metrics``: they
are the same from every process.

The listener runs on a thread of its own with its own event loop, so a scrape is answered
while the worker's loop is busy, and it installs no signal handlers (``uvicorn`` does so only
on the main thread): the worker's own SIGTERM handling stays as it is.
"""

from __future__ import annotations

import hmac
import ipaddress
import threading
import time
from dataclasses import dataclass

import uvicorn
from prometheus_client import REGISTRY, generate_latest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from memlane.config import Settings

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


def admitted(request: Request, settings: Settings) -> bool:
    """The API's admin-channel rule (api/common/deps.py ``admin_authorized``) for a process that
    knows no API keys: with auth on, only the token opens it."""
    given = request.headers.get("x-admin-token")
    if settings.security.admin_token:
        return given is not None and hmac.compare_digest(given.encode(), settings.security.admin_token.encode())
    if settings.security.auth_mode != "off" or settings.server.is_production:
        return False
    browser = any(name == "origin" or name.startswith("sec-fetch-") for name in request.headers)
    host = request.client.host if request.client else ""
    try:
        loopback = ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = host == "localhost"
    return loopback and not browser


def metrics_app(settings: Settings) -> Starlette:
    async def metrics(request: Request) -> Response:
        if not admitted(request, settings):
            return JSONResponse(
                {
                    "error": "metrics_forbidden",
                    "message": "metrics are served to the admin channel only (X-Admin-Token matching ADMIN_TOKEN; "
                    "with auth off and no token set, outside production, a loopback request)",
                },
                status_code=403,
            )
        return Response(generate_latest(REGISTRY), media_type=CONTENT_TYPE)

    return Starlette(routes=[Route("/metrics", metrics, methods=["GET"])])


@dataclass
class MetricsListener:
    """A running ``/metrics`` listener; ``stop`` ends it."""

    server: uvicorn.Server
    thread: threading.Thread

    @classmethod
    def start(cls, settings: Settings, host: str, port: int) -> MetricsListener:
        config = uvicorn.Config(
            metrics_app(settings), host=host, port=port, log_level="warning", lifespan="off", access_log=False
        )
        server = uvicorn.Server(config)
        thread = threading.Thread(target=server.run, name="memlane-worker-metrics", daemon=True)
        thread.start()
        deadline = time.monotonic() + 30
        while not server.started:
            if not thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"the worker's metrics listener could not listen on {host}:{port}")
            time.sleep(0.02)
        return cls(server, thread)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)
