"""Per-tenant request quotas: recall, write-like, and debug-embeddings buckets.

Built on the ``limits`` library. A bucket of ``RPS`` with ``BURST`` is a moving window of
``BURST`` requests per ``ceil(BURST / RPS)`` seconds: a burst is served at once, and the
long-run rate stays near ``RPS``. Storage is per process (``memory://``) by default; with
``MEMLANE_RATE_LIMIT_STORAGE=redis://host:6379/0`` every API replica shares the buckets.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any, cast

from limits import RateLimitItem, RateLimitItemPerSecond
from limits.aio.storage import Storage as AsyncStorage
from limits.aio.strategies import MovingWindowRateLimiter
from limits.storage import storage_from_string
from redis.asyncio import ConnectionPool

from memlane.domain.errors import RateLimited
from memlane.metrics import QUOTA_REJECTIONS

BUCKET_CODES = {
    "recall": "tenant_rate_limited_recall",
    "write": "tenant_rate_limited_write",
    "debug_embeddings": "tenant_rate_limited_debug_embeddings",
}


@dataclass(frozen=True, slots=True)
class Bucket:
    name: str
    item: RateLimitItem


def bucket_item(rps: float, burst: int) -> RateLimitItem:
    burst = max(1, burst)
    seconds = max(1, math.ceil(burst / max(rps, 1e-9)))
    return RateLimitItemPerSecond(burst, seconds)


@dataclass(frozen=True, slots=True)
class QuotaPolicy:
    """Whether quotas hold, where the buckets live, and each bucket's rate and burst
    (``TENANT_*_RATE_LIMIT_*``, ``MEMLANE_RATE_LIMIT_STORAGE``; the container reads them)."""

    enabled: bool = False
    rate_limit_storage: str = "memory://"
    recall_rps: float = 50.0
    recall_burst: int = 100
    write_rps: float = 20.0
    write_burst: int = 40
    debug_embed_rps: float = 1.0
    debug_embed_burst: int = 5


class QuotaGuard:
    def __init__(self, policy: QuotaPolicy):
        self.enabled = policy.enabled
        url = policy.rate_limit_storage
        if not url.startswith("async+"):
            url = "async+" + url
        scheme = url.split("://", 1)[0]
        # redis-py's asyncio client (the ``redis`` package) rather than limits' default coredis.
        options: dict[str, Any] = {"implementation": "redispy"} if "redis" in scheme else {}
        # a plain Redis URL gets a connection pool of ours, so that aclose() can disconnect it
        # (limits has no close; its connections would outlive the event loop that opened them)
        self._pool: ConnectionPool | None = None
        if scheme in ("async+redis", "async+rediss"):
            self._pool = ConnectionPool.from_url(url.removeprefix("async+"))
            options["connection_pool"] = self._pool
        self.storage = cast(AsyncStorage, storage_from_string(url, **options))
        self.limiter = MovingWindowRateLimiter(self.storage)
        self.buckets = {
            "recall": Bucket("recall", bucket_item(policy.recall_rps, policy.recall_burst)),
            "write": Bucket("write", bucket_item(policy.write_rps, policy.write_burst)),
            "debug_embeddings": Bucket(
                "debug_embeddings", bucket_item(policy.debug_embed_rps, policy.debug_embed_burst)
            ),
        }

    async def aclose(self) -> None:
        """Disconnect the shared buckets' Redis connections (nothing to do for ``memory://``)."""
        if self._pool is not None:
            await self._pool.disconnect()

    async def hit(self, bucket: str, tenant_id: str) -> None:
        """Count one request; raise 429 with ``retry-after`` when the tenant's bucket is empty."""
        if not self.enabled:
            return
        b = self.buckets[bucket]
        if await self.limiter.hit(b.item, "memlane", bucket, tenant_id):
            return
        QUOTA_REJECTIONS.labels(bucket).inc()
        stats = await self.limiter.get_window_stats(b.item, "memlane", bucket, tenant_id)
        retry = max(1.0, math.ceil(stats.reset_time - time.time()))
        raise RateLimited(
            f"tenant {tenant_id!r} exceeded its {bucket} quota ({b.item}); retry after {retry:.0f}s",
            retry_after=retry,
            code=BUCKET_CODES[bucket],
            details={"bucket": bucket, "limit": str(b.item)},
        )
