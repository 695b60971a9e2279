"""A real webhook receiver on loopback: answers a scripted sequence of statuses, then 200,
and keeps every delivery (path, headers, JSON body, the status it answered). A 3xx answer
points ``Location`` at ``/redirected``; error answers carry a body naming ``SCRIPTED_ERROR``."""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.support.loopback import serve

#: text in the body of every error answer: a client must never echo it
SCRIPTED_ERROR = "scripted-error-body-7f3a"


@dataclass
class Delivery:
    path: str
    headers: dict[str, str]
    body: Any
    answered: int


@dataclass
class ReceiverScript:
    #: statuses to answer in order; once used up, every delivery gets 200
    statuses: list[int] = field(default_factory=list)
    deliveries: list[Delivery] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def for_path(self, path: str) -> list[Delivery]:
        with self.lock:
            return [d for d in self.deliveries if d.path == path]


def _handler(script: ReceiverScript) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length)
            try:
                body: Any = json.loads(raw)
            except ValueError:
                body = raw.decode(errors="replace")
            with script.lock:
                status = script.statuses.pop(0) if script.statuses else 200
                script.deliveries.append(
                    Delivery(self.path, {k.lower(): v for k, v in self.headers.items()}, body, status)
                )
            out = b'{"ok": true}' if status < 300 else b'{"error": "' + SCRIPTED_ERROR.encode() + b'"}'
            self.send_response(status)
            if 300 <= status < 400:
                self.send_header("location", "/redirected")
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(out)))
            self.end_headers()
            self.wfile.write(out)

    return Handler


@contextlib.contextmanager
def webhook_receiver() -> Iterator[tuple[str, ReceiverScript]]:
    """Yields ``(base_url, script)``."""
    script = ReceiverScript()
    with serve(_handler(script)) as url:
        yield url, script
