"""The load generator's HTTP client: aiohttp, because the client shares the server's cores.

On the 2-core benchmark machine the clients run beside the server they measure. httpx spent
1.0 ms of CPU per request against aiohttp's 0.16 ms (8 clients calling ``recall_text`` on an
empty scope, so the client was the bottleneck: 622 against 1,287 requests/s), and under the
32-client mixed load the httpx clients took 0.5-0.8 of the two cores from the server under
test. The tests and the peers' scripts keep httpx; only the benches that generate load use
this.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from types import TracebackType
from typing import Any

import aiohttp

#: what a request can fail with besides an HTTP status (refused, reset, timed out)
CLIENT_ERRORS: tuple[type[BaseException], ...] = (aiohttp.ClientError, asyncio.TimeoutError)


@dataclass(frozen=True, slots=True)
class Reply:
    status_code: int
    body: bytes

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", errors="replace")

    def json(self) -> Any:
        return json.loads(self.body)

    def raise_for_status(self) -> None:
        if self.status_code >= 400:
            raise RuntimeError(f"HTTP {self.status_code}: {self.text[:300]}")


class LeanClient:
    """Keep-alive connections to one server, up to ``connections`` at once; no proxies."""

    def __init__(self, base_url: str, *, connections: int = 100, timeout: float = 60.0) -> None:
        self._session = aiohttp.ClientSession(
            base_url,
            connector=aiohttp.TCPConnector(limit=connections),
            timeout=aiohttp.ClientTimeout(total=timeout),
            trust_env=False,
        )

    async def __aenter__(self) -> LeanClient:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self._session.close()

    async def post(self, path: str, json: Any, headers: dict[str, str] | None = None) -> Reply:
        async with self._session.post(path, json=json, headers=headers) as r:
            return Reply(r.status, await r.read())

    async def get(self, path: str, headers: dict[str, str] | None = None) -> Reply:
        async with self._session.get(path, headers=headers) as r:
            return Reply(r.status, await r.read())
