"""Any rerank endpoint in the common shape (``POST {base_url}/rerank``: Jina, Cohere v1, TEI,
vLLM, LiteLLM): ``{"model", "query", "documents", "top_n"}`` in, ``{"results": [{"index",
"relevance_score"}]}`` out.

Nothing the provider returns is trusted: an index out of range, a missing document or a
non-finite score fails the call, and recall then keeps its own order.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import httpx

from memlane.rerank.base import RerankFailed


class HttpReranker:
    def __init__(self, *, base_url: str, model: str, api_key: str | None = None, timeout_sec: float = 2.0):
        self.model_id = model
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.AsyncClient(
            base_url=base_url.rstrip("/"), timeout=timeout_sec, headers=headers, trust_env=False
        )

    async def rerank(self, query: str, documents: Sequence[str]) -> list[float]:
        if not documents:
            return []
        body = {"model": self.model_id, "query": query, "documents": list(documents), "top_n": len(documents)}
        try:
            r = await self._client.post("/rerank", json=body)
        except httpx.HTTPError as exc:
            raise RerankFailed(f"rerank request failed: {type(exc).__name__}") from exc
        if r.status_code != 200:
            raise RerankFailed(f"rerank endpoint answered {r.status_code}")
        try:
            results: Any = r.json()["results"]
            scores: dict[int, float] = {int(x["index"]): float(x["relevance_score"]) for x in results}
        except (ValueError, KeyError, TypeError) as exc:
            raise RerankFailed("rerank response is not {results: [{index, relevance_score}]}") from exc
        if set(scores) != set(range(len(documents))) or not all(math.isfinite(s) for s in scores.values()):
            raise RerankFailed("rerank response does not score every document with a finite number")
        return [scores[i] for i in range(len(documents))]

    async def aclose(self) -> None:
        await self._client.aclose()
