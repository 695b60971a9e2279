"""Offline maintenance of the graph (rules feedback, activation, decay, consolidation, issue 7):
whole scopes read in keyset pages, and read-modify-write changes under the scope's lock.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Protocol

from memlane.domain.filters import TRUE, Term
from memlane.domain.model import Commit, CommitInfo, Node
from memlane.store.base import EdgeRedirectResult, NodeMutation


class ScopeScanOps(Protocol):
    """Every written scope, and the nodes of one, in keyset pages."""

    async def list_scopes(
        self,
        tenant_id: str | None = None,
        *,
        after: tuple[str, str] | None = None,
        limit: int | None = None,
        offset: int = 0,
    ) -> list[tuple[str, str]]:
        """``(tenant_id, scope)`` pairs that have ever been written, sorted; all tenants when
        ``tenant_id`` is None (offline maintenance jobs only). A keyset page with ``after``
        (the last pair of the page before) and ``limit``; every pair without ``limit``.
        ``offset`` skips that many first (a page named by its place, when the pair that ends
        the page before may not be shown to whoever asks for the next)."""
        ...

    async def scan_nodes(
        self,
        tenant_id: str,
        scope: str,
        *,
        after_id: str | None,
        limit: int,
        tiers: Sequence[str] | None = None,
        types: Sequence[str] | None = None,
        where: Term = TRUE,
    ) -> list[Node]:
        """Nodes of a scope in id order after ``after_id`` (keyset pages for offline jobs),
        those passing ``where`` only: a listing that pages through what a reader may see
        (``MemoryReader.browse``) filters in the query, so each page ends on a row it shows."""
        ...


class GraphMaintenanceOps(Protocol):
    """Changes whose values depend on what is stored, made under the scope's lock."""

    async def mutate_nodes(
        self,
        tenant_id: str,
        scope: str,
        ids: Sequence[str],
        mutate: NodeMutation,
        commit: CommitInfo,
        *,
        now: datetime,
    ) -> Commit | None:
        """Read-modify-write under the scope's write lock: ``mutate`` gets the stored nodes of
        ``ids`` (those that exist in the scope) and returns ``(patches, diff)``; the patches and
        one chained commit are written in the same transaction. Nothing is written, and None is
        returned, when ``mutate`` returns no patch. Counters kept in slots cannot lose updates."""
        ...

    async def redirect_edges(
        self, tenant_id: str, scope: str, redirects: Mapping[str, str], commit: CommitInfo, *, now: datetime
    ) -> EdgeRedirectResult:
        """Move every edge touching a key of ``redirects`` onto its value (alias -> canonical),
        conflict-safe: an edge that would duplicate an existing (type, src, dst) is merged into
        it (max weight and confidence) and removed, an edge that would become a self-loop is
        removed. One chained commit, or none when no edge moved."""
        ...

    async def delete_edges(
        self, tenant_id: str, scope: str, edge_ids: Sequence[str], commit: CommitInfo, *, now: datetime
    ) -> Commit | None:
        """Hard-delete edges of the scope by id; one chained commit, or none when none existed."""
        ...


SCAN_PAGE = 1000


async def scan_all_nodes(store: ScopeScanOps, tenant_id: str, scope: str, *, types: Sequence[str]) -> list[Node]:
    """Every node of the given types in a scope, read in keyset pages (no silent cap): offline
    jobs (consolidation, compression) and the rules cache read whole scopes this way."""
    out: list[Node] = []
    after: str | None = None
    while True:
        page = await store.scan_nodes(tenant_id, scope, after_id=after, limit=SCAN_PAGE, types=types)
        out.extend(page)
        if len(page) < SCAN_PAGE:
            return out
        after = page[-1].id
