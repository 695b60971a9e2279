"""Outgoing-call limits: a concurrency cap and a token-bucket rate limit, shared per process.

Callers wait for a slot instead of failing: an LLM burst from many ingestion jobs is smoothed
to the configured rate rather than turned into provider 429s.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator


class TokenBucket:
    """``rate`` tokens per second, at most ``burst`` saved up; ``acquire`` waits for one."""

    def __init__(self, rate: float, burst: int):
        if rate <= 0 or burst < 1:
            raise ValueError("rate must be > 0 and burst >= 1")
        self.rate = rate
        self.burst = float(burst)
        self._tokens = float(burst)
        self._stamp = time.monotonic()
        self._lock = asyncio.Lock()

    async def acquire(self) -> None:
        async with self._lock:
            while True:
                now = time.monotonic()
                self._tokens = min(self.burst, self._tokens + (now - self._stamp) * self.rate)
                self._stamp = now
                if self._tokens >= 1.0:
                    self._tokens -= 1.0
                    return
                await asyncio.sleep((1.0 - self._tokens) / self.rate)


class CallGate:
    """Concurrency cap plus rate limit; ``in_flight`` and ``started`` are for observability."""

    def __init__(self, *, max_concurrency: int, rate: float, burst: int):
        self._sem = asyncio.Semaphore(max_concurrency)
        self._bucket = TokenBucket(rate, burst)
        self.max_concurrency = max_concurrency
        self.in_flight = 0
        self.started = 0

    @contextlib.asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        async with self._sem:
            await self._bucket.acquire()
            self.in_flight += 1
            self.started += 1
            try:
                yield
            finally:
                self.in_flight -= 1
