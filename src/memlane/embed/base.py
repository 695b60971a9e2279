"""The one protocol every embedder implements.

Vectors come back L2-normalised float32, so cosine similarity is a dot product everywhere
(numpy on SQLite, pgvector on PostgreSQL).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

Vectors = npt.NDArray[np.float32]


@runtime_checkable
class Embedder(Protocol):
    #: recorded on every node it embeds; a change triggers re-embedding
    model_id: str
    #: length of every vector it returns
    dimension: int
    #: shown to clients as ``query.embedding_provider``
    provider: str

    async def embed(self, texts: Sequence[str]) -> Vectors:
        """Embed a batch; raises the ``UpstreamEmbedding*`` errors on provider failure."""
        ...

    async def aclose(self) -> None: ...


@runtime_checkable
class UrgentEmbedder(Protocol):
    """An embedder with a separate path for callers that are waiting (queries), so they do
    not queue behind background batches; embedders without one use ``embed`` for both."""

    async def embed_urgent(self, texts: Sequence[str]) -> Vectors: ...


def l2_normalise(vectors: Vectors) -> Vectors:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return np.asarray(vectors / norms, dtype=np.float32)
