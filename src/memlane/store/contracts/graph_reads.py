"""Graph reads: nodes by id or attribute, searches, and the edges around nodes.

Each read names its tenant and, where it can, its scope; who may see what is decided by the
filter the caller passes (``SeedFilter``), never here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from memlane.domain.model import Edge, Node, NodeBrief, ScoredId, SeedFilter
from memlane.store.base import Vector


class NodeReadOps(Protocol):
    """Nodes by id, client_id, neighbourhood in time, or attributes."""

    async def get_nodes(self, tenant_id: str, scope: str | None, ids: Sequence[str]) -> list[Node]: ...

    async def resolve_client_ids(self, tenant_id: str, scope: str, client_ids: Sequence[str]) -> dict[str, str]: ...

    async def preceding_nodes(self, tenant_id: str, scope: str, node_id: str, *, limit: int, span: int) -> list[Node]:
        """Up to ``limit`` nodes of ``scope`` inserted just before ``node_id``, newest first,
        looking back at most ``span`` insertions of the tenant (so a scope written in
        between many others finds no neighbours rather than scanning far)."""
        ...

    async def find_nodes(
        self,
        tenant_id: str,
        scope: str | None,
        flt: SeedFilter,
        *,
        limit: int,
        order_by_recent: bool = True,
        ready_only: bool = False,
    ) -> list[Node]:
        """Attribute filtering without vectors (layers, tasks, users, sessions)."""
        ...

    async def node_briefs(self, tenant_id: str, scope: str, ids: Sequence[str]) -> list[NodeBrief]:
        """``NodeBrief`` of the given nodes of the scope, in the order asked; unknown ids are skipped."""
        ...


class SearchOps(Protocol):
    """Seed searches by vector and by keyword, and the vectors themselves."""

    async def vector_search(self, tenant_id: str, scope: str, query: Vector, k: int, flt: SeedFilter) -> list[ScoredId]:
        """Cosine top-k among ready nodes of the query's dimension that pass ``flt``."""
        ...

    async def keyword_search(self, tenant_id: str, scope: str, text: str, k: int, flt: SeedFilter) -> list[ScoredId]:
        """BM25 top-k (higher score is better) among nodes passing ``flt``."""
        ...

    async def get_embeddings(self, tenant_id: str, scope: str, ids: Sequence[str]) -> dict[str, Vector]:
        """Only the debug channel and offline jobs read vectors."""
        ...


class EdgeReadOps(Protocol):
    """Edges around nodes, by id, or a whole scope in keyset pages."""

    async def edges_touching(
        self,
        tenant_id: str,
        scope: str,
        node_ids: Sequence[str],
        *,
        min_weight: float,
        min_confidence: float,
        limit: int,
        types: Sequence[str] | None = None,
    ) -> list[Edge]: ...

    async def get_edges(self, tenant_id: str, scope: str, ids: Sequence[str]) -> list[Edge]:
        """The scope's edges among ``ids``, read from the tables (not the graph cache)."""
        ...

    async def scan_edges(
        self, tenant_id: str, scope: str, *, after: tuple[str, str, str] | None, limit: int
    ) -> list[Edge]:
        """Edges of a scope in ``(type, src_id, dst_id)`` order (unique per scope) after
        ``after``: keyset pages over the endpoints index, never the scope's graph cache."""
        ...
