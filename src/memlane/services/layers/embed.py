"""Embed before storing: layered and tool memories are searchable the moment they are written."""

from __future__ import annotations

import logging

import numpy as np

from memlane.domain.errors import MemlaneError, UpstreamError
from memlane.embed.base import Embedder
from memlane.store.base import Vector

log = logging.getLogger(__name__)


class EmbeddingFailure(UpstreamError):
    """The embedder failed; keeps the provider's status (429/502/503) so clients know to retry."""

    code = "embedding_failure"

    def __init__(self, message: str, *, status: int = 502, retry_after: float | None = None):
        super().__init__(message, retry_after=retry_after)
        self.status = status


async def embed_texts(embedder: Embedder, texts: list[str]) -> list[Vector]:
    try:
        vectors = await embedder.embed(texts)
    except MemlaneError as exc:
        status = exc.status if exc.status in (429, 502, 503, 504) else 502
        raise EmbeddingFailure(
            f"embedding failed: {exc.message}", status=status, retry_after=getattr(exc, "retry_after", None)
        ) from exc
    except Exception as exc:
        log.exception("embedder raised")
        raise EmbeddingFailure(f"embedding failed: {type(exc).__name__}: {exc}") from exc
    out = [np.asarray(v, dtype=np.float32) for v in vectors]
    if len(out) != len(texts) or any(v.shape != (embedder.dimension,) for v in out):
        raise EmbeddingFailure(f"embedder returned {len(out)} vectors of the wrong shape for {len(texts)} texts")
    return out


def memory_text(title: str | None, content: str | None) -> str:
    """The same text the store indexes (``Node.text``), so stored vectors match re-embedding."""
    return "\n".join(p for p in (title, content) if p)
