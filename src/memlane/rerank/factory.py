"""Turns settings into a reranker (or none), the way ``embed/factory.py`` picks an embedder."""

from __future__ import annotations

from memlane.config import Settings
from memlane.rerank.base import Reranker


def build_reranker(settings: Settings) -> Reranker | None:
    if settings.reranker == "off":
        return None
    if not settings.rerank_base_url:
        raise ValueError(
            "MEMLANE_RERANKER=http needs MEMLANE_RERANK_BASE_URL, the base URL of a rerank API "
            "(POST {base}/rerank), e.g. http://localhost:8080/v1"
        )
    from memlane.rerank.http import HttpReranker

    return HttpReranker(
        base_url=settings.rerank_base_url,
        model=settings.rerank_model,
        api_key=settings.rerank_api_key,
        timeout_sec=settings.rerank_timeout_sec,
    )
