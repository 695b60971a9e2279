"""Every read of memory, on every surface, limited to what the reader may see.

Graph recall, conversation query/get/evolution/delete, layers, agent tools, rules, lifecycle
actions, MCP and the UI all get their nodes here. Each method takes the ``Viewer`` and asks
``visibility_of`` itself, so a surface cannot forget the check or pass a wider one: the only
way to read more is to be a wider viewer. Offline jobs that act for the system (decay,
consolidation, knowledge sync, expiry) read the store directly with ``EVERYTHING``.

Validity works the same way: searches and listings take the facts valid now, and not
expired, unless the caller asks ``as_of`` another instant or for every interval (``ValidTime``,
domain/validity.py). Reading by id shows a node whatever its interval, as it shows any tier,
but never one expired at the read's instant: an expired memory is gone, whether or not the
expiry sweep has deleted it yet, and only a history read (or one ``as_of`` before the expiry)
still finds it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, Protocol

from memlane.domain.clock import Clock
from memlane.domain.commit_view import named_ids, visible_diff
from memlane.domain.cursors import Listing, PageCursors
from memlane.domain.filters import TRUE, Cmp, Term, all_of, compiled
from memlane.domain.model import Commit, Edge, Node, NodeBrief, ScoredId, SeedFilter
from memlane.domain.validity import CURRENT, ValidTime, current_term, unexpired_term, valid_term
from memlane.domain.visibility import Viewer, Visibility, visibility_of
from memlane.store.base import Vector
from memlane.store.contracts.erasure import SecretOps
from memlane.store.contracts.graph_reads import EdgeReadOps, NodeReadOps, SearchOps
from memlane.store.contracts.history import CommitReadOps
from memlane.store.contracts.maintenance import ScopeScanOps


@dataclass(frozen=True, slots=True)
class Lookup:
    node: Node | None
    hidden_layer: str | None = None


class ReadStore(NodeReadOps, SearchOps, EdgeReadOps, ScopeScanOps, CommitReadOps, SecretOps, Protocol):
    """Every read of the graph a caller can ask for (its commit history too), each filtered
    here by what the caller may see, and the server secret its page cursors are sealed with."""


#: the ``server_secrets`` row holding the key page cursors are sealed with
CURSOR_KEY_SECRET = "page_cursor_key"


def written_term(written_from: datetime | None, written_before: datetime | None) -> Term:
    """Nodes written at or after ``written_from`` and before ``written_before`` (a node with no
    creation time is in no bounded range)."""
    parts: list[Term] = []
    if written_from is not None:
        parts.append(Cmp("created_at", ">=", written_from))
    if written_before is not None:
        parts.append(Cmp("created_at", "<", written_before))
    return all_of(*parts)


class MemoryReader:
    def __init__(self, store: ReadStore, clock: Clock):
        self.store = store
        self.clock = clock
        self._cursors: PageCursors | None = None

    @staticmethod
    def visibility(viewer: Viewer) -> Visibility:
        return visibility_of(viewer)

    def instant(self, when: ValidTime) -> datetime | None:
        """The instant whose facts ``when`` reads (None: every fact)."""
        return when.instant(self.clock.now())

    def filter(self, viewer: Viewer, when: ValidTime = CURRENT, **attrs: Any) -> SeedFilter:
        """A store filter with the viewer's reach and the facts valid when asked; ``attrs``
        are SeedFilter's other fields."""
        return SeedFilter(visibility=visibility_of(viewer), valid_at=self.instant(when), **attrs)

    def valid(self, when: ValidTime = CURRENT) -> Term:
        """``when`` as a term on edges, for the edges recall walks in memory."""
        return valid_term(self.instant(when))

    def current(self, when: ValidTime = CURRENT) -> Term:
        """``when`` as a term on nodes (valid and not expired), for recall's neighbours."""
        return current_term(self.instant(when))

    def _by_id(self, viewer: Viewer, when: ValidTime) -> Term:
        """What a read by id admits: what the viewer may see, not expired when asked."""
        return all_of(visibility_of(viewer).term(), unexpired_term(self.instant(when)))

    async def nodes(
        self, viewer: Viewer, scope: str | None, ids: Sequence[str], when: ValidTime = CURRENT
    ) -> list[Node]:
        """The nodes of ``ids`` the viewer may see, in the order asked (any tier, status or
        interval: reading by id is how a caller inspects what it was shown), except those
        expired at ``when``'s instant (now by default)."""
        if not ids:
            return []
        admitted = compiled(self._by_id(viewer, when))
        return [n for n in await self.store.get_nodes(viewer.tenant_id, scope, ids) if admitted(n)]

    async def client_ids(self, viewer: Viewer, scope: str, client_ids: Sequence[str]) -> dict[str, str]:
        """``client_id -> node id`` for the nodes the viewer may see: a client id that names
        someone else's node resolves to nothing, exactly like one never written."""
        if not client_ids:
            return {}
        mapping = await self.store.resolve_client_ids(viewer.tenant_id, scope, client_ids)
        visible = {n.id for n in await self.nodes(viewer, scope, list(dict.fromkeys(mapping.values())))}
        return {cid: nid for cid, nid in mapping.items() if nid in visible}

    async def node(self, viewer: Viewer, scope: str | None, node_id: str, when: ValidTime = CURRENT) -> Node | None:
        found = await self.nodes(viewer, scope, [node_id], when)
        return found[0] if found else None

    async def lookup(self, viewer: Viewer, scope: str | None, node_id: str) -> Lookup:
        """``node`` plus the one reason a surface may state for not showing it: a layer hidden
        from the caller's role (the layered spec answers workspace requests by the user agent
        with ``workspace_restricted``). Lane and personal rules never say why: the node is
        simply not found; neither does an expired node (gone, as if deleted)."""
        vis = visibility_of(viewer)
        unexpired = compiled(unexpired_term(self.clock.now()))
        for n in await self.store.get_nodes(viewer.tenant_id, scope, [node_id]):
            if not unexpired(n):
                break
            if compiled(vis.term())(n):
                return Lookup(n)
            if n.layer in vis.hidden_layers:
                return Lookup(None, hidden_layer=n.layer)
        return Lookup(None)

    async def briefs(
        self, viewer: Viewer, scope: str, ids: Sequence[str], when: ValidTime = CURRENT
    ) -> list[NodeBrief]:
        """Briefs of the nodes the viewer may see that are valid, and not expired, when asked
        (recall's neighbours)."""
        if not ids:
            return []
        admitted = compiled(all_of(visibility_of(viewer).term(), self.current(when)))
        return [b for b in await self.store.node_briefs(viewer.tenant_id, scope, ids) if admitted(b)]

    async def nearest(
        self, viewer: Viewer, scope: str, query: Vector, k: int, when: ValidTime = CURRENT, **attrs: Any
    ) -> list[ScoredId]:
        flt = self.filter(viewer, when, **attrs)
        return await self.store.vector_search(viewer.tenant_id, scope, query, k, flt)

    async def keyword(
        self, viewer: Viewer, scope: str, text: str, k: int, when: ValidTime = CURRENT, **attrs: Any
    ) -> list[ScoredId]:
        return await self.store.keyword_search(viewer.tenant_id, scope, text, k, self.filter(viewer, when, **attrs))

    async def find(
        self,
        viewer: Viewer,
        scope: str | None,
        *,
        limit: int,
        order_by_recent: bool = True,
        ready_only: bool = False,
        when: ValidTime = CURRENT,
        **attrs: Any,
    ) -> list[Node]:
        return await self.store.find_nodes(
            viewer.tenant_id,
            scope,
            self.filter(viewer, when, **attrs),
            limit=limit,
            order_by_recent=order_by_recent,
            ready_only=ready_only,
        )

    async def scan(
        self, viewer: Viewer, scope: str, *, after_id: str | None, limit: int
    ) -> tuple[list[Node], str | None]:
        """A page of the scope's nodes in id order, every tier, status and interval, kept to
        what the viewer may see and not expired (an export walks a scope with it: an expired
        memory is gone, not carried to another server). The next page starts after the last
        id *read*, which may be one the viewer was not shown: ``(page, last_id_read)``."""
        page = await self.store.scan_nodes(viewer.tenant_id, scope, after_id=after_id, limit=limit)
        admitted = compiled(self._by_id(viewer, CURRENT))
        return [n for n in page if admitted(n)], (page[-1].id if page else None)

    async def cursors(self) -> PageCursors:
        """The sealer of page cursors, keyed with the server secret every replica shares (made
        by the first process to ask, like the erasure receipt's key)."""
        if self._cursors is None:
            self._cursors = PageCursors((await self.store.server_secret(CURSOR_KEY_SECRET)).encode("utf-8"))
        return self._cursors

    async def browse(
        self,
        viewer: Viewer,
        scope: str,
        *,
        cursor: str | None,
        limit: int,
        when: ValidTime = CURRENT,
        written_from: datetime | None = None,
        written_before: datetime | None = None,
        field: str = "cursor",
        **attrs: Any,
    ) -> tuple[list[Node], str | None]:
        """A page of what ``find`` with the same arguments returns (the viewer's reach, facts
        valid and not expired at ``when``, SeedFilter's ``attrs``), written in
        ``[written_from, written_before)``, in id order (memlane's ids are time-ordered), so a
        listing can page through a whole scope with any filter: ``(page, next_cursor)``, None
        at the end. The filter is applied in the query, so a page ends on a row it shows and
        ``next_cursor`` (domain/cursors.py) carries only that row, sealed to this viewer, scope
        and filter; a cursor that is not is ``400 invalid_cursor`` naming ``field``."""
        filters = {"when": repr(when), "from": repr(written_from), "before": repr(written_before)}
        listing = Listing("browse", viewer, scope, {**filters, **{k: repr(v) for k, v in sorted(attrs.items())}})
        seal = await self.cursors()
        after = seal.open(listing, cursor, field=field)[-1] if cursor else None
        term = all_of(self.filter(viewer, when, **attrs).term(), written_term(written_from, written_before))
        page = await self.store.scan_nodes(viewer.tenant_id, scope, after_id=after, limit=limit + 1, where=term)
        admitted = compiled(term)  # applied by the query; checked again on the rows, as every read is
        shown = [n for n in page[:limit] if admitted(n)]
        more = len(page) > limit and bool(shown)
        return shown, (seal.seal(listing, [shown[-1].id]) if more else None)

    async def edges(self, viewer: Viewer, scope: str, nodes: Sequence[Node], *, limit: int = 1 << 30) -> list[Edge]:
        """Every edge touching ``nodes`` (nodes this reader returned) whose both ends the
        viewer may see, of the first ``limit`` read; an edge to a node hidden from the viewer,
        or expired, is hidden too."""
        visible = compiled(self._by_id(viewer, CURRENT))
        ids = [n.id for n in nodes if visible(n)]
        if not ids:
            return []
        found = await self.store.edges_touching(
            viewer.tenant_id, scope, ids, min_weight=float("-inf"), min_confidence=float("-inf"), limit=limit
        )
        ends = {e for edge in found for e in (edge.src_id, edge.dst_id)} - set(ids)
        shown = set(ids) | {n.id for n in await self.nodes(viewer, scope, list(ends))}
        return [e for e in found if e.src_id in shown and e.dst_id in shown]

    async def scan_edges(
        self, viewer: Viewer, scope: str, *, after: tuple[str, str, str] | None, limit: int
    ) -> tuple[list[Edge], tuple[str, str, str] | None]:
        """A page of the scope's edges in ``(type, src_id, dst_id)`` order, kept to those whose
        both ends the viewer may see (an export walks a scope with it, page by page, instead of
        gathering the edges of every node page): ``(page, last_key_read)``, None at the end."""
        page = await self.store.scan_edges(viewer.tenant_id, scope, after=after, limit=limit)
        if not page:
            return [], None
        return await self._both_ends_shown(viewer, scope, page), (page[-1].type, page[-1].src_id, page[-1].dst_id)

    async def edges_by_id(self, viewer: Viewer, scope: str, ids: Sequence[str]) -> list[Edge]:
        """The scope's edges among ``ids`` whose both ends the viewer may see."""
        found = await self.store.get_edges(viewer.tenant_id, scope, ids) if ids else []
        return await self._both_ends_shown(viewer, scope, found)

    async def _both_ends_shown(self, viewer: Viewer, scope: str, edges: Sequence[Edge]) -> list[Edge]:
        if visibility_of(viewer).term() == TRUE:  # an unrestricted reader (an export's admin) sees every end
            return list(edges)
        ends = list(dict.fromkeys(i for e in edges for i in (e.src_id, e.dst_id)))
        shown = {n.id for n in await self.nodes(viewer, scope, ends)}
        return [e for e in edges if e.src_id in shown and e.dst_id in shown]

    async def history(self, viewer: Viewer, scope: str, node_id: str, *, scan: int) -> list[Commit]:
        """The commits among the scope's newest ``scan`` that changed ``node_id`` in a way the
        viewer may see, newest first, each with its diff cut to the entries that name only
        memories the viewer may see (domain/commit_view.py): a commit that wrote a hidden memory
        linked to this one is not listed, so neither that memory nor its author shows. The
        caller must have been shown ``node_id``; an unrestricted reader sees every commit whole."""
        recent = await self.store.list_commits(viewer.tenant_id, scope, limit=scan)
        naming = [c for c in recent if node_id in named_ids(c.diff)]
        vis = visibility_of(viewer)
        if vis.term() == TRUE:
            return naming
        ids = sorted({i for c in naming for i in named_ids(c.diff)})
        visible = compiled(vis.term())
        shown = {n.id for n in await self.store.get_nodes(viewer.tenant_id, scope, ids) if visible(n)} if ids else set()
        out: list[Commit] = []
        for commit in naming:
            diff = visible_diff(commit.diff, shown.__contains__)
            if node_id in named_ids(diff):
                out.append(replace(commit, diff=diff))
        return out

    async def embeddings(self, viewer: Viewer, nodes: Sequence[Node]) -> dict[str, Vector]:
        """Vectors of nodes this reader returned, grouped by scope; the visibility is checked
        again in memory (no query), so a caller cannot pass a node it was not shown. Only
        scoring, the guarded debug channel and an admin's export (a backup) use them."""
        visible = compiled(visibility_of(viewer).term())
        by_scope: dict[str, list[str]] = {}
        for n in nodes:
            if visible(n):
                by_scope.setdefault(n.scope, []).append(n.id)
        out: dict[str, Vector] = {}
        for scope, ids in by_scope.items():
            out.update(await self.store.get_embeddings(viewer.tenant_id, scope, ids))
        return out
