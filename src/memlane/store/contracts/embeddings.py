"""The embedding queue's side of the nodes: text waiting for a vector, and vectors stored."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Protocol

from memlane.store.base import PendingEmbedding, Vector


class EmbeddingOps(Protocol):
    """What the embedding jobs read and write (services/embedding.py)."""

    async def pending_embeddings(self, tenant_id: str, ids: Sequence[str]) -> list[PendingEmbedding]: ...

    async def set_embeddings(
        self, items: Sequence[tuple[PendingEmbedding, Vector]], model_id: str, *, now: datetime
    ) -> list[str]:
        """Store vectors only where the node's ``rev`` is unchanged; returns ids that were stale."""
        ...

    async def mark_embedding_failed(self, tenant_id: str, ids: Sequence[str], *, now: datetime) -> None: ...

    async def mark_stale_embeddings(
        self, model_id: str, dimension: int, *, now: datetime, limit: int
    ) -> list[tuple[str, str]]:
        """Nodes embedded by another server model (not client-supplied) go back to pending;
        returns ``(tenant_id, node_id)`` pairs so the caller can enqueue re-embedding."""
        ...
