"""Turns settings into a reranker (or none), the way ``embed/factory.py`` picks an embedder."""

from __future__ import annotations

from memlane.config import Settings
from memlane.rerank.base import Reranker


def build_reranker(settings: Settings) -> Reranker | None:
    if settings.rerank.reranker == "off":
        return None
    if not settings.rerank.base_url:
        raise ValueError(
            "MEMLANE_RERANKER=http needs MEMLANE_RERANK_BASE_URL, the base URL of a rerank API "
            "(POST {base}/rerank), e.g. http://localhost:8080/v1"
        )
    from memlane.rerank.http import HttpReranker

    return HttpReranker(
        base_url=settings.rerank.base_url,
        model=settings.rerank.model,
        api_key=settings.rerank.api_key,
        timeout_sec=settings.rerank.timeout_sec,
    )
