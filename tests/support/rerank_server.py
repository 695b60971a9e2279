"""A rerank endpoint on loopback (``POST /v1/rerank``, the Jina/Cohere/TEI shape) standing in
for an external reranking service, as llm_server.py does for a chat model.

It scores a document by how often it contains the marker word the test chose, so a test knows
which order a working reranker must produce; ``fail`` makes it answer 500.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.support.loopback import serve


@dataclass
class RerankScript:
    marker: str = "chosen"
    fail: bool = False
    requests: list[dict[str, Any]] = field(default_factory=list)


def _handler(script: RerankScript) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
            script.requests.append(body)
            if self.path != "/v1/rerank" or script.fail:
                self.send_response(500 if script.fail else 404)
                self.end_headers()
                return
            results = [
                {"index": i, "relevance_score": float(doc.lower().split().count(script.marker))}
                for i, doc in enumerate(body["documents"])
            ]
            data = json.dumps({"results": results}).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return Handler


@contextmanager
def rerank_server() -> Iterator[tuple[str, RerankScript]]:
    """Yields ``(base_url, script)``; base_url ends in ``/v1``."""
    script = RerankScript()
    with serve(_handler(script)) as url:
        yield f"{url}/v1", script
