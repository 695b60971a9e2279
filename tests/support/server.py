"""A real HTTP server for API tests: uvicorn serving the app on a free loopback port."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Protocol

import uvicorn
from starlette.types import ASGIApp

from memlane.api.app import create_app
from memlane.config import Settings


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class LiveServer:
    url: str
    settings: Settings
    server: uvicorn.Server

    @property
    def app_state(self) -> object:
        return self.server.config.app.state  # type: ignore[attr-defined]

    @classmethod
    @contextlib.contextmanager
    def start(cls, settings: Settings, *, wrap: Callable[[ASGIApp], ASGIApp] | None = None) -> Iterator[LiveServer]:
        """``wrap`` puts an ASGI layer around the whole app (tests that watch what it receives)."""
        port = free_port()
        app: ASGIApp = create_app(settings)
        if wrap is not None:
            app = wrap(app)
        server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on"))
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        deadline = time.monotonic() + 60
        while not server.started:
            if not thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("test server did not start")
            time.sleep(0.02)
        try:
            yield cls(url=f"http://127.0.0.1:{port}", settings=settings, server=server)
        finally:
            server.should_exit = True
            thread.join(timeout=30)


class ServerFactory(Protocol):
    """What the ``live_server_factory`` fixture (tests/conftest.py) hands out: call it with the
    settings a test needs (README's names) and enter the result to run a server."""

    def __call__(
        self, database_url: str | None = None, /, *, wrap: Callable[[ASGIApp], ASGIApp] | None = None, **env: Any
    ) -> AbstractContextManager[LiveServer]: ...
